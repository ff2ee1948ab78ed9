"""The approval page ``{base}cloudg/approvals/ID`` as the analyst uses it: in headless
Chromium, logged in to Jupyter (under a non-root base_url), a click on Approve lets an
assistant's waiting call run and Deny with a reason refuses it, telling the assistant that
reason. The page URL a 2026-07-28 client is offered in its URL-mode elicitation is exactly the
page that decides its call. (A real browser matters here: under ``Referrer-Policy:
no-referrer`` Chromium posts the form with ``Origin: null`` and Jupyter refused the click.)
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import mcp_types as types
import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By

from tests.jupyter.oversight_client import BASE, FINDING, PLANTED, Waiting, api, unsuppress
from tests.jupyter.server import JupyterServer, jupyter_server
from tests.jupyter.test_assistants import bearer, mint
from tests.lanes import starts
from tests.notebook.assistants import Background
from tests.protocol.harness import ClientSession, open_session

from .chrome import wait_for
from .jupyter_login import log_in

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")


@pytest.fixture(scope="module")
@starts("server")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    with jupyter_server(tmp_path_factory.mktemp("approval-page"), base_url=BASE,
                        other_extensions=False,
                        extra_args=["--CloudGExtension.approval_timeout=240"]) as s:
        yield s


@pytest.fixture(scope="module")
def analyst(browser: webdriver.Chrome, server: JupyterServer) -> webdriver.Chrome:
    """Chromium logged in to the server as the analyst."""
    log_in(browser, server)
    return browser


def page_url(server: JupyterServer, approval_id: str) -> str:
    return f"{server.url}cloudg/approvals/{approval_id}"


def shown(driver: webdriver.Chrome, element_id: str) -> str:
    return str(driver.find_element(By.ID, element_id).text)


def open_page(driver: webdriver.Chrome, url: str) -> None:
    """Open an approval page and wait for its Approve button."""
    driver.get(url)
    wait_for(lambda: driver.find_elements(By.ID, "cloudg-approve"), "the approval form")


def state_after_click(driver: webdriver.Chrome) -> str:
    """The page's state line once the form post answered (the page it answers with)."""
    wait_for(lambda: not driver.find_elements(By.ID, "cloudg-approve"),
             "the page to answer the click")
    states = driver.find_elements(By.ID, "cloudg-approval-state")
    assert states, f"the click was refused: {driver.find_element(By.TAG_NAME, 'body').text!r}"
    return str(states[0].text)


def decision(server: JupyterServer, approval_id: str) -> dict[str, Any]:
    _, _, body = api(server, "GET", "approvals")
    return next(a for a in body["recent"] if a["id"] == approval_id)


def suppressed(server: JupyterServer) -> bool:
    with open_session(server.endpoint, "2025", headers=server.headers) as owner:
        found = owner.call_tool("get_finding", {"finding_id": FINDING}).structured_content
    return bool(found["is_suppressed"])


def test_clicking_approve_on_the_approval_page_lets_the_assistants_call_run(
        analyst: webdriver.Chrome, server: JupyterServer) -> None:
    bot = Waiting(server, "page-approver")
    open_page(analyst, page_url(server, bot.id))
    assert "assistant:page-approver" in analyst.page_source
    assert "suppress_findings" in analyst.page_source
    assert PLANTED in shown(analyst, "cloudg-approval-arguments")
    assert shown(analyst, "cloudg-approval-state").startswith("Waiting for your decision")
    assert bot.thread.is_alive()
    analyst.find_element(By.ID, "cloudg-approve").click()
    try:
        assert state_after_click(analyst) == "You approved this call."
        result = bot.result()
        assert not result.is_error, result.content
        assert suppressed(server)
        assert decision(server, bot.id)["state"] == "approved"
    finally:
        unsuppress(server)


def test_denying_with_a_reason_on_the_approval_page_tells_the_assistant_that_reason(
        analyst: webdriver.Chrome, server: JupyterServer) -> None:
    bot = Waiting(server, "page-denied")
    open_page(analyst, page_url(server, bot.id))
    analyst.find_element(By.NAME, "reason").send_keys("not before the audit")
    analyst.find_element(By.ID, "cloudg-deny").click()
    assert state_after_click(analyst) == "You denied this call."
    result = bot.result()
    assert result.is_error
    assert "(not before the audit)" in result.content[0].text
    assert decision(server, bot.id)["reason"] == "not before the audit"
    assert not suppressed(server)


def test_a_decided_call_shows_its_outcome_and_no_form(
        analyst: webdriver.Chrome, server: JupyterServer) -> None:
    bot = Waiting(server, "page-revisited")
    open_page(analyst, page_url(server, bot.id))
    analyst.find_element(By.ID, "cloudg-deny").click()
    state_after_click(analyst)
    bot.result()
    analyst.get(page_url(server, bot.id))
    state = wait_for(lambda: shown(analyst, "cloudg-approval-state"), "the page")
    assert state.startswith("This call was denied by ")
    assert analyst.find_elements(By.ID, "cloudg-approve") == []


# -- the page a 2026-07-28 client is offered ---------------------------------------------------

ARGUMENTS = {"ids": [FINDING], "reason": "offered in chromium"}


@contextlib.contextmanager
def modern_client(server: JupyterServer, name: str) -> Iterator[ClientSession]:
    """A 2026-07-28 client with a minted credential, declaring URL-mode elicitation."""
    async def elicit(ctx: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept")

    with open_session(server.endpoint, "2026", headers=bearer(mint(server, name)),
                      elicitation_callback=elicit) as bot:
        yield bot


def test_the_page_a_2026_client_is_offered_decides_its_call_in_chromium(
        analyst: webdriver.Chrome, server: JupyterServer) -> None:
    with modern_client(server, "page-offered") as bot:
        offer = bot.run(lambda c: c.session.call_tool(
            "suppress_findings", ARGUMENTS, allow_input_required=True))
        assert isinstance(offer, types.InputRequiredResult), offer
        request = offer.input_requests["approval"]  # type: ignore[index]
        assert request.params.mode == "url"
        offered = request.params.url
        responses = {"approval": types.ElicitResult(action="accept")}
        retried = Background(lambda: bot.run(lambda c: c.session.call_tool(
            "suppress_findings", ARGUMENTS, input_responses=responses,
            request_state=offer.request_state, allow_input_required=True)))
        open_page(analyst, offered)
        assert analyst.current_url == offered
        assert "assistant:page-offered" in analyst.page_source
        assert "offered in chromium" in shown(analyst, "cloudg-approval-arguments")
        analyst.find_element(By.ID, "cloudg-approve").click()
        try:
            assert state_after_click(analyst) == "You approved this call."
            result = retried.join(timeout=60)
            assert not result.is_error, result.content
            assert suppressed(server)
        finally:
            unsuppress(server)
