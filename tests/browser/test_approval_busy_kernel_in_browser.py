"""A decision never waits for the kernel: JupyterLab in headless Chromium shows ``%cloudg
approvals``, the notebook's kernel then runs ``time.sleep(60)``; an assistant (its own
credential, a real MCP client) starts a sensitive call, the open panel shows it while the
kernel is still busy, and a click on Approve — or on Deny with a reason typed — reaches the
assistant within 1 s: the browser sends the decision to the Jupyter server, not the kernel."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement

from tests.jupyter.server import JupyterServer
from tests.notebook.assistants import Background, assistant
from tests.protocol.harness import open_session

from .chrome import LabPage, wait_for

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")

NOTEBOOKS = {"busy.ipynb": ["%load_ext cloudg_nb", "%cloudg approvals -o panel"]}
FINDING = "f-005"
#: What the acceptance allows from the click to the assistant's answer.
DECIDED_WITHIN = 1.0

#: Make the open notebook's kernel busy without a cell: ``time.sleep(seconds)``.
_SLEEP = """
const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
kernel.requestExecute({code: `import time; time.sleep(${arguments[0]})`});
return true;
"""
_INTERRUPT = """
const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
kernel.interrupt(); return true;
"""


def waiting_id(lab: JupyterServer, principal: str) -> str:
    with open_session(lab.endpoint, "2025", headers=lab.headers) as analyst:
        def find() -> str | None:
            text = analyst.read_resource("cloudg://approvals").contents[0].text
            ids = [a["id"] for a in json.loads(text)["pending"] if a["principal"] == principal]
            return ids[0] if ids else None

        return wait_for(find, f"a call of {principal} waiting for approval", timeout=30)


def row_of(page: LabPage, approval_id: str) -> WebElement | None:
    for row in page.driver.find_elements(By.CSS_SELECTOR, ".cloudg-approval-row"):
        if row.is_displayed() and row.find_elements(
                By.CSS_SELECTOR, f'[data-approval="{approval_id}"]'):
            return row
    return None


def kernel_status(page: LabPage) -> str | None:
    state = page.state()
    return state["kernel"] if state else None


@pytest.fixture(scope="module")
def busy_page(browser: Any, lab: JupyterServer) -> Iterator[LabPage]:
    page = LabPage(browser, lab)
    page.open_notebook("busy.ipynb")
    page.run_all_cells()
    assert page.errors() == [] and page.widget_failures() == []
    yield page
    page.driver.execute_script(_INTERRUPT)


def timed_call(bot: Any, arguments: dict[str, Any]) -> Background:
    def run() -> tuple[Any, float]:
        result = bot.call_tool("suppress_findings", arguments)
        return result, time.monotonic()

    return Background(run)


@pytest.mark.parametrize("decision", ["approve", "deny"])
def test_a_click_in_the_panel_reaches_the_assistant_within_1_s_while_the_kernel_sleeps(
        busy_page: LabPage, lab: JupyterServer, decision: str) -> None:
    page = busy_page
    page.driver.execute_script(_SLEEP, 60)
    wait_for(lambda: kernel_status(page) == "busy", "the kernel busy in time.sleep(60)",
             timeout=30)
    name = f"busy-{decision}"
    with assistant(lab, name) as bot:
        call = timed_call(bot, {"ids": [FINDING], "reason": "accepted risk"})
        approval_id = waiting_id(lab, f"assistant:{name}")
        row = wait_for(lambda: row_of(page, approval_id),
                       "the waiting call in the panel while the kernel is busy", timeout=30)
        button = row.find_element(By.CSS_SELECTOR, f"button.cloudg-{decision}")
        if decision == "deny":
            row.find_element(By.CSS_SELECTOR, "input").send_keys("not while I am busy")
        assert kernel_status(page) == "busy" and call.running
        page.screenshot(f"approval-busy-kernel-{decision}")
        clicked = time.monotonic()
        button.click()
        result, answered = call.join(timeout=30)
    took = answered - clicked
    assert kernel_status(page) == "busy", "the kernel finished first: nothing was proved"
    if decision == "approve":
        assert not result.is_error, result.content
        with open_session(lab.endpoint, "2025", headers=lab.headers) as analyst:
            assert not analyst.call_tool("unsuppress_findings", {"ids": [FINDING]}).is_error
    else:
        assert result.is_error and "not while I am busy" in result.content[0].text
    assert took <= DECIDED_WITHIN, f"the decision took {took:.2f} s to reach the assistant"
    note = page.driver.find_element(By.CSS_SELECTOR, ".cloudg-decision-note").text
    assert approval_id in note and "by the Jupyter server" in note
