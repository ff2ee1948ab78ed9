"""Connecting an assistant with OAuth as a person does: the official MCP Python SDK client,
given only the endpoint URL of a Jupyter server under a non-root base_url, opens its
authorization URL in a browser; headless Chromium, logged in to Jupyter as the analyst, shows
the consent page; a click on Allow sends the browser to the client's loopback callback, and the
client's tool call then runs under the assistant's name in the activity feed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By

from tests.jupyter.oauth_client import oauth_session
from tests.jupyter.server import JupyterServer, jupyter_server
from tests.lanes import starts

from .chrome import wait_for
from .jupyter_login import log_in
from .loopback_callback import loopback_callback

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")

BASE = "/jp/"


@pytest.fixture(scope="module")
@starts("server")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    with jupyter_server(tmp_path_factory.mktemp("oauth-browser"), base_url=BASE,
                        other_extensions=False) as s:
        yield s


@pytest.fixture
def callback() -> Iterator[tuple[str, list[str]]]:
    with loopback_callback() as found:
        yield found


def test_clicking_allow_in_chromium_connects_the_sdk_client_as_the_named_assistant(
        browser: webdriver.Chrome, server: JupyterServer,
        callback: tuple[str, list[str]]) -> None:
    redirect_uri, landed = callback
    log_in(browser, server)
    seen: dict[str, str] = {}

    def consent_in_chromium(authorization_url: str) -> str:
        browser.get(authorization_url)
        name = wait_for(lambda: browser.find_element(By.ID, "cloudg-consent-name"),
                        "the consent page")
        seen["client"] = browser.find_element(By.ID, "cloudg-consent-client").text
        seen["host"] = browser.find_element(By.ID, "cloudg-consent-host").text
        name.clear()
        name.send_keys("chromium-bot")
        browser.find_element(By.ID, "cloudg-consent-allow").click()
        wait_for(lambda: landed, "the browser to reach the client's callback")
        return redirect_uri.rsplit("/", 1)[0] + landed[-1]

    with oauth_session(server.endpoint, consent_in_chromium, redirect_uri=redirect_uri,
                       client_name="Chromium Test Client") as session:
        result = session.call_tool("count_assets", {"group_by": "provider"})
    assert result.structured_content["total"] == 60
    assert seen == {"client": "Chromium Test Client", "host": "127.0.0.1 (this computer)"}
    assert "code=" in landed[-1] and "error=" not in landed[-1]
    feed = server.get_json(f"{server.url}cloudg/api/activity")[1]["entries"]
    assert any(e["principal"] == "assistant:chromium-bot" and e["name"] == "count_assets"
               for e in feed)
