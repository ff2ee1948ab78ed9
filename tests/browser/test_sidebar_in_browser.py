"""The cloudg sidebar of the prebuilt JupyterLab extension, as an analyst uses it in real
JupyterLab (headless Chromium), with no notebook open: it opens from its icon, connects an
assistant whose shown configuration works with the official MCP client (its own token, never
the server's), revokes it at once, and follows the light and dark themes (screenshots in
test-artifacts/browser/)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import Select

from tests.jupyter.server import JupyterServer
from tests.jupyter.test_auth import INITIALIZE, MCP_HEADERS, request
from tests.protocol.harness import open_session

from .chrome import LabPage, wait_for

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")

SIDEBAR = "#cloudg-sidebar"
SIDEBAR_TAB = '.jp-SideBar li.lm-TabBar-tab[data-id="cloudg-sidebar"]'
ENDPOINT_URL = re.compile(r"https?://[^\s\"'<>]+/cloudg/mcp")
ASSISTANT_TOKEN = re.compile(r"cgat_[A-Za-z0-9_-]{20,128}")
#: The activity feed an assistant reads (its own entries only).
ACTIVITY = "cloudg://activity"
THEMES = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}
#: WCAG AA for normal text.
MIN_CONTRAST = 4.5


@pytest.fixture
def sidebar(page: LabPage) -> Iterator[WebElement]:
    """JupyterLab (no document open) with the cloudg sidebar opened from its icon."""
    page.driver.get(f"{page.server.url}lab?reset&token={page.server.token}")
    tab = wait_for(lambda: _displayed(page, SIDEBAR_TAB), "the cloudg icon in the sidebar")
    if "lm-mod-current" not in str(tab.get_attribute("class")):
        tab.click()
    panel = wait_for(lambda: _displayed(page, SIDEBAR), "the cloudg sidebar to open")
    wait_for(lambda: "Connect an assistant".lower() in panel.text.lower()
             and "Loading" not in _text(page, ".cloudg-Assistants"),
             "the sidebar's assistants to load")
    yield panel


def _displayed(page: LabPage, css: str) -> WebElement | None:
    found = [e for e in page.driver.find_elements(By.CSS_SELECTOR, css) if e.is_displayed()]
    return found[0] if found else None


def _text(page: LabPage, css: str) -> str:
    found = page.driver.find_elements(By.CSS_SELECTOR, css)
    return str(found[0].get_attribute("textContent")) if found else ""


def connect(page: LabPage, name: str, client: str = "claude-code") -> str:
    """Connect an assistant from the sidebar's form; the configuration it shows."""
    Select(page.driver.find_element(By.CSS_SELECTOR, ".cloudg-Connect-client")
           ).select_by_value(client)
    field = page.driver.find_element(By.CSS_SELECTOR, ".cloudg-Connect-name")
    field.clear()
    field.send_keys(name)
    page.driver.find_element(By.CSS_SELECTOR, ".cloudg-Connect-submit").click()
    return wait_for(lambda: _text(page, ".cloudg-Connect-config")
                    if name in _text(page, ".cloudg-Connect-result") else None,
                    f"the configuration of {name}")


def listed(page: LabPage) -> list[str]:
    """The assistants the sidebar lists."""
    return [str(e.get_attribute("data-assistant"))
            for e in page.driver.find_elements(By.CSS_SELECTOR, ".cloudg-Assistant")]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_the_sidebar_opens_from_its_icon_with_approvals_activity_and_assistants(
        page: LabPage, sidebar: WebElement) -> None:
    titles = [t.text.lower() for t in sidebar.find_elements(
        By.CSS_SELECTOR, ".jp-AccordionPanel-title")]
    assert [t.split(" (")[0] for t in titles] == ["approvals", "activity", "assistants"]
    assert [o.text for o in sidebar.find_elements(
        By.CSS_SELECTOR, ".cloudg-Activity-filter option")] == [
        "All calls", "Assistants only", "Errors", "Approvals"]
    clients = [o.text for o in sidebar.find_elements(
        By.CSS_SELECTOR, ".cloudg-Connect-client option")]
    assert {"Claude Code", "Cursor", "VS Code", "Claude Desktop", "Jupyter AI"} <= set(clients)
    status = wait_for(lambda: _displayed(page, ".cloudg-Status"), "the cloudg status-bar item")
    assert status.get_attribute("data-pending") == "0"


def test_a_connected_assistants_config_works_with_the_mcp_client_and_holds_its_own_token(
        page: LabPage, sidebar: WebElement, lab: JupyterServer) -> None:
    config = connect(page, "sidebar-bot")

    (url,) = set(ENDPOINT_URL.findall(config))
    (token,) = set(ASSISTANT_TOKEN.findall(config))
    assert url == lab.endpoint
    assert lab.token not in config and lab.token not in sidebar.text
    with open_session(url, "2025", headers=bearer(token)) as session:
        counted = session.call_tool("count_assets", {"group_by": "provider"})
        seen = json.loads(session.read_resource(ACTIVITY).contents[0].text)["entries"]
    assert not counted.is_error, counted.content
    assert {(e["principal"], e["name"]) for e in seen} == {
        ("assistant:sidebar-bot", "count_assets")}
    wait_for(lambda: "sidebar-bot" in listed(page), "sidebar-bot in the assistants list")
    page.screenshot("sidebar-connected")


def test_revoke_in_the_sidebar_cuts_the_assistant_off_at_once(
        page: LabPage, sidebar: WebElement, lab: JupyterServer) -> None:
    (token,) = set(ASSISTANT_TOKEN.findall(connect(page, "revoked-bot")))
    row = wait_for(lambda: _displayed(page, '.cloudg-Assistant[data-assistant="revoked-bot"]'),
                   "revoked-bot in the assistants list")
    with open_session(lab.endpoint, "2025", headers=bearer(token)) as session:
        assert not session.call_tool("list_datasets", {}).is_error
        row.find_element(By.CSS_SELECTOR, ".cloudg-Assistant-revoke").click()
        confirm = wait_for(lambda: _displayed(page, ".jp-Dialog button.jp-mod-warn"),
                           "the Revoke confirmation")
        assert "revoked-bot" in _text(page, ".jp-Dialog")
        confirm.click()
        wait_for(lambda: "revoked-bot" not in listed(page), "revoked-bot to leave the list")
        with pytest.raises(Exception):  # noqa: B017 - 403, or the session it ended
            session.call_tool("list_datasets", {})
    status, _, _ = request(lab, "POST", urlsplit(lab.endpoint).path, INITIALIZE,
                           {**MCP_HEADERS, **bearer(token)})
    assert status == 403


def _rgba(css: str) -> tuple[float, float, float, float]:
    numbers = [float(n) for n in re.findall(r"[\d.]+", css)]
    return (numbers[0], numbers[1], numbers[2], numbers[3] if len(numbers) > 3 else 1.0)


def _luminance(rgb: tuple[float, float, float]) -> float:
    def channel(value: float) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _over(top: str, below: tuple[float, float, float]) -> tuple[float, float, float]:
    r, g, b, alpha = _rgba(top)
    return (r * alpha + below[0] * (1 - alpha), g * alpha + below[1] * (1 - alpha),
            b * alpha + below[2] * (1 - alpha))


def contrast(foreground: str, *backgrounds: str) -> float:
    """WCAG contrast ratio of a (possibly translucent) text colour over its backgrounds,
    innermost first, composited down to the last (opaque, else over white)."""
    shown: tuple[float, float, float] = (255.0, 255.0, 255.0)
    for background in reversed(backgrounds):
        shown = _over(background, shown)
    text = _over(foreground, shown)
    light, dark = sorted((_luminance(text), _luminance(shown)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


_COLOURS = """
const style = getComputedStyle(document.querySelector(arguments[0]));
return {background: style.backgroundColor, color: style.color};
"""

#: Every visible element of the sidebar and the status item holding text of its own: the
#: text, its colour, and the backgrounds from it up to the first opaque one.
_TEXTS = """
const roots = [...document.querySelectorAll(arguments[0])];
const out = [];
for (const root of roots) {
  for (const node of [root, ...root.querySelectorAll('*')]) {
    if (node.tagName === 'OPTION' || !node.getClientRects().length) continue;
    const own = [...node.childNodes].filter(n => n.nodeType === 3)
      .map(n => n.textContent.trim()).join(' ').trim();
    if (!own) continue;
    const backgrounds = [];
    for (let up = node; up; up = up.parentElement) {
      const bg = getComputedStyle(up).backgroundColor;
      backgrounds.push(bg);
      if (!bg.startsWith('rgba') || parseFloat(bg.split(',')[3]) >= 1) break;
    }
    out.push({text: own.slice(0, 60), color: getComputedStyle(node).color, backgrounds});
  }
}
return out;
"""


def switch_theme(page: LabPage, theme: str, light: bool) -> dict[str, str]:
    """Switch JupyterLab to ``theme`` (as Settings > Theme does); the sidebar's colours then."""
    page.driver.execute_script(
        "window.jupyterapp.commands.execute('apputils:change-theme', {theme: arguments[0]});"
        " return true;", theme)
    # JupyterLab flags the theme on <body> once its style sheet has loaded.
    wait_for(lambda: page.driver.execute_script(
        "return [document.body.dataset.jpThemeName, document.body.dataset.jpThemeLight]")
        == [theme, str(light).lower()], f"the {theme} theme")
    wait_for(lambda: not page.driver.find_elements(By.ID, "jupyterlab-splash"),
             "JupyterLab's splash screen to go")
    colours: dict[str, str] = page.driver.execute_script(_COLOURS, SIDEBAR)
    return colours


def test_the_sidebar_follows_the_light_and_dark_themes_and_all_its_text_reads_at_aa_contrast(
        page: LabPage, sidebar: WebElement) -> None:
    seen = {}
    for name, theme in THEMES.items():
        seen[name] = switch_theme(page, theme, light=name == "light")
        page.screenshot(f"sidebar-{name}")
        texts = page.driver.execute_script(_TEXTS, f"{SIDEBAR}, .cloudg-Status")
        assert len(texts) > 10, texts
        faint = [(t["text"], round(contrast(t["color"], *t["backgrounds"]), 2))
                 for t in texts if contrast(t["color"], *t["backgrounds"]) < MIN_CONTRAST]
        assert not faint, f"text below {MIN_CONTRAST}:1 in the {theme} theme: {faint}"
    assert seen["light"]["background"] != seen["dark"]["background"]
    assert _luminance(_rgba(seen["light"]["background"])[:3]) > _luminance(
        _rgba(seen["dark"]["background"])[:3])
