"""``cloudg-nb serve --transport http --oauth``'s own consent page in headless Chromium: the
official MCP Python SDK client, given the bare URL, opens its authorization URL in the browser;
the owner types the server's ``--auth-token`` into the page, names the assistant and clicks
Allow; the browser lands on the client's loopback callback (through the page's form-action
policy) and the client's tool call runs as that assistant. A wrong token allows nothing: the
page says so without repeating it, the request keeps waiting, and the owner can still Deny it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By

from cloudg_nb.assistants import AssistantStore
from tests.jupyter.oauth_client import MemoryStorage, oauth_session
from tests.lanes import starts
from tests.protocol.harness import ServerProcess

from .chrome import wait_for
from .loopback_callback import loopback_callback

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")

OWNER = "owner-token-typed-in-chromium"
WRONG = "not-the-owner-token-9d1c"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("serve-oauth-browser-data")


@pytest.fixture(scope="module")
@starts("server")
def served(data_dir: Path) -> Iterator[ServerProcess]:
    saved = os.environ.get("JUPYTER_DATA_DIR")
    os.environ["JUPYTER_DATA_DIR"] = str(data_dir)  # the server's credential store
    try:
        with ServerProcess("--oauth", "--auth-token", f"{OWNER}:analyst:owner") as server:
            yield server
    finally:
        if saved is None:
            os.environ.pop("JUPYTER_DATA_DIR", None)
        else:
            os.environ["JUPYTER_DATA_DIR"] = saved


@pytest.fixture
def callback() -> Iterator[tuple[str, list[str]]]:
    with loopback_callback() as found:
        yield found


def assistants(data_dir: Path) -> set[str]:
    return {r.name for r in AssistantStore(data_dir / "cloudg" / "assistants.json").records()}


def open_consent(browser: webdriver.Chrome, authorization_url: str) -> None:
    browser.get(authorization_url)
    wait_for(lambda: browser.find_elements(By.NAME, "owner_token"), "the consent page")


def answer(browser: webdriver.Chrome, token: str, button: str, name: str | None = None,
           ) -> None:
    """Type ``token`` (and the assistant's ``name``) into the page and click ``button``."""
    browser.find_element(By.NAME, "owner_token").send_keys(token)
    if name is not None:
        field = browser.find_element(By.NAME, "name")
        field.clear()
        field.send_keys(name)
    browser.find_element(By.ID, button).click()


def test_typing_the_owner_token_and_clicking_allow_connects_the_sdk_client(
        browser: webdriver.Chrome, served: ServerProcess, data_dir: Path,
        callback: tuple[str, list[str]]) -> None:
    redirect_uri, landed = callback
    shown: dict[str, str] = {}

    def consent_in_chromium(authorization_url: str) -> str:
        open_consent(browser, authorization_url)
        shown["client"] = browser.find_element(By.ID, "cloudg-consent-client").text
        shown["host"] = browser.find_element(By.ID, "cloudg-consent-host").text
        answer(browser, OWNER, "cloudg-consent-allow", name="chromium-serve-bot")
        wait_for(lambda: landed, "the browser to reach the client's callback")
        return redirect_uri.rsplit("/", 1)[0] + landed[-1]

    storage = MemoryStorage()
    with oauth_session(served.url, consent_in_chromium, redirect_uri=redirect_uri,
                       client_name="Chromium Serve Client", storage=storage) as session:
        result = session.call_tool("add_numbers", {"a": 2, "b": 3})
    assert not result.is_error, result.content
    assert shown == {"client": "Chromium Serve Client", "host": "127.0.0.1 (this computer)"}
    assert "code=" in landed[-1] and "error=" not in landed[-1]
    assert storage.tokens is not None and storage.tokens.access_token.startswith("cgat_oa_")
    assert "chromium-serve-bot" in assistants(data_dir)


def test_a_wrong_token_allows_nothing_and_the_owner_can_still_deny(
        browser: webdriver.Chrome, served: ServerProcess, data_dir: Path,
        callback: tuple[str, list[str]]) -> None:
    redirect_uri, landed = callback
    seen: dict[str, object] = {}

    def consent_in_chromium(authorization_url: str) -> str:
        open_consent(browser, authorization_url)
        page = browser.current_url
        answer(browser, WRONG, "cloudg-consent-allow", name="wrong-token-bot")
        note = wait_for(lambda: browser.find_element(By.ID, "cloudg-consent-note").text,
                        "the page's answer")
        seen.update(note=note, page=browser.current_url == page, landed=list(landed),
                    echoed=WRONG in browser.page_source,
                    field=browser.find_element(By.NAME, "owner_token").get_attribute("value"),
                    made="wrong-token-bot" in assistants(data_dir))
        answer(browser, OWNER, "cloudg-consent-deny")
        wait_for(lambda: landed, "the browser to reach the client's callback")
        return redirect_uri.rsplit("/", 1)[0] + landed[-1]

    with pytest.raises(ExceptionGroup) as refused, oauth_session(
            served.url, consent_in_chromium, redirect_uri=redirect_uri):
        pass
    assert refused.group_contains(RuntimeError, match="access_denied", depth=None)
    assert seen == {"note": "That is not this server's owner token.", "page": True,
                    "landed": [], "echoed": False, "field": "", "made": False}
    assert "error=access_denied" in landed[-1]
    assert "wrong-token-bot" not in assistants(data_dir)
