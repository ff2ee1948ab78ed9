"""An MCP client's OAuth request to connect reaches the analyst in JupyterLab: while it waits
for consent, the cloudg sidebar (headless Chromium, real JupyterLab) lists it with the client's
name and a link to its consent page, pushed over Jupyter's event bus, and a notification offers
to review it; following the link and clicking Allow creates the assistant, and the request
is no longer waiting."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement

from tests.jupyter.oauth_client import pkce, post_json, request
from tests.jupyter.server import JupyterServer

from .chrome import LabPage, wait_for

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")

SIDEBAR = "#cloudg-sidebar"
SIDEBAR_TAB = '.jp-SideBar li.lm-TabBar-tab[data-id="cloudg-sidebar"]'
REDIRECT = "http://127.0.0.1:8765/callback"


def _displayed(page: LabPage, css: str) -> WebElement | None:
    found = [e for e in page.driver.find_elements(By.CSS_SELECTOR, css) if e.is_displayed()]
    return found[0] if found else None


def ask_to_connect(lab: JupyterServer, client_name: str) -> str:
    """What an MCP client does before the browser step: register, then open the authorization
    URL (here without a browser); the consent page it was sent to."""
    status, body = post_json(lab, f"{lab.url}cloudg/oauth/register", {
        "client_name": client_name, "redirect_uris": [REDIRECT]})
    assert status == 201, body
    _, challenge = pkce()
    query = (f"response_type=code&client_id={body['client_id']}&redirect_uri={REDIRECT}"
             f"&code_challenge={challenge}&code_challenge_method=S256&state=s")
    status, headers, _ = request(lab, "GET", f"{lab.url}cloudg/oauth/authorize?{query}")
    assert status == 302
    return headers["location"]


def test_a_waiting_connection_request_shows_in_the_sidebar_and_its_link_answers_it(
        page: LabPage, lab: JupyterServer) -> None:
    page.driver.get(f"{lab.url}lab?reset&token={lab.token}")
    tab = wait_for(lambda: _displayed(page, SIDEBAR_TAB), "the cloudg icon in the sidebar")
    if "lm-mod-current" not in str(tab.get_attribute("class")):
        tab.click()
    wait_for(lambda: _displayed(page, SIDEBAR), "the cloudg sidebar to open")

    consent_page = ask_to_connect(lab, "Sidebar Client")
    row = wait_for(lambda: _displayed(page, ".cloudg-Connection"),
                   "the connection request in the sidebar")
    assert "Sidebar Client" in row.text and "127.0.0.1 (this computer)" in row.text
    link = row.find_element(By.CSS_SELECTOR, "a.cloudg-Connection-review")
    assert link.get_attribute("href") == consent_page
    toast = wait_for(lambda: next((t for t in page.driver.find_elements(
        By.CSS_SELECTOR, ".Toastify__toast") if "Sidebar Client" in str(
        t.get_attribute("textContent"))), None), "a notification of the request")
    assert "Review" in str(toast.get_attribute("textContent"))

    page.driver.get(consent_page)  # the analyst follows the link (logged in to JupyterLab)
    name = wait_for(lambda: page.driver.find_element(By.ID, "cloudg-consent-name"),
                    "the consent page")
    name.clear()
    name.send_keys("from-sidebar")
    page.driver.find_element(By.ID, "cloudg-consent-allow").click()
    wait_for(lambda: page.driver.current_url.startswith(REDIRECT),
             "the browser to be sent to the client")
    assert "code=" in page.driver.current_url

    status, body = lab.get_json(f"{lab.url}cloudg/api/assistants")
    assert "from-sidebar" in {a["name"] for a in body["assistants"]}
    status, body = lab.get_json(f"{lab.url}cloudg/api/oauth/requests")
    assert status == 200 and body["requests"] == []
