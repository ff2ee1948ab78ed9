"""Approving an assistant's call as a person does: JupyterLab in headless Chromium shows
``%cloudg approvals``; an assistant (its own credential) starts a sensitive call, the waiting
call appears in the open panel, a click on its Approve button lets it run, and the panel moves
it to the recent list."""

from __future__ import annotations

import json

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement

from tests.jupyter.server import JupyterServer
from tests.notebook.assistants import Background, assistant
from tests.protocol.harness import open_session

from .chrome import LabPage, wait_for

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")

NOTEBOOKS = {"approvals.ipynb": ["%load_ext cloudg_nb", "%cloudg approvals -o panel"]}
FINDING = "f-004"


def waiting_id(lab: JupyterServer, principal: str) -> str:
    """The id of ``principal``'s waiting call, read as the analyst (the server's token)."""
    with open_session(lab.endpoint, "2025", headers=lab.headers) as analyst:
        def find() -> str | None:
            text = analyst.read_resource("cloudg://approvals").contents[0].text
            ids = [a["id"] for a in json.loads(text)["pending"] if a["principal"] == principal]
            return ids[0] if ids else None

        return wait_for(find, f"a call of {principal} waiting for approval", timeout=30)


def shown_button(page: LabPage, css_class: str, approval_id: str) -> WebElement | None:
    for button in page.driver.find_elements(By.CSS_SELECTOR, f"button.{css_class}"):
        if approval_id in str(button.get_attribute("title")) and button.is_displayed():
            return button
    return None


def panel_text(page: LabPage) -> str:
    panels = page.driver.find_elements(By.CSS_SELECTOR, ".cloudg-approvals")
    return str(panels[0].get_attribute("textContent")) if panels else ""


def test_clicking_approve_in_jupyterlab_lets_the_assistants_waiting_call_run(
        page: LabPage, lab: JupyterServer) -> None:
    page.open_notebook("approvals.ipynb")
    page.run_all_cells()
    assert page.errors() == [] and page.widget_failures() == []
    wait_for(lambda: "no assistant call is waiting" in panel_text(page), "the approval panel")

    with assistant(lab, "browser-bot") as bot:
        call = Background(lambda: bot.call_tool("suppress_findings", {
            "ids": [FINDING], "reason": "accepted risk (browser test)"}))
        approval_id = waiting_id(lab, "assistant:browser-bot")
        button = wait_for(lambda: shown_button(page, "cloudg-approve", approval_id),
                          "the Approve button of the waiting call", timeout=30)
        text = panel_text(page)
        assert "assistant:browser-bot" in text and "suppress_findings" in text
        assert "accepted risk (browser test)" in text and " s left" in text
        assert shown_button(page, "cloudg-deny", approval_id) is not None
        assert call.running
        page.screenshot("approval-waiting")
        button.click()
        result = call.join(timeout=30)
    assert not result.is_error, result.content
    wait_for(lambda: "approved · suppress_findings · assistant:browser-bot" in panel_text(page),
             "the decision in the panel's recent list", timeout=30)
    assert shown_button(page, "cloudg-approve", approval_id) is None
    with open_session(lab.endpoint, "2025", headers=lab.headers) as analyst:
        assert not analyst.call_tool("unsuppress_findings", {"ids": [FINDING]}).is_error
