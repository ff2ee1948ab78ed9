"""A LiveFrame's grid in JupyterLab + headless Chromium keeps drawing the right rows while the
workspace changes under it in quick succession: from the notebook's own kernel, from the
analyst's other MCP client and from an assistant whose call the analyst approves; while the
grid is scrolled out of view (JupyterLab skips rendering off-screen cells), while it first
loads, and while the page's theme switches. The rows are read from the datagrid's cells.
While the kernel changes the workspace many times a second, the grid never draws an empty
body (the rows were replaced on the LiveFrame's thread while the viewer read them on the
kernel's: a read in the middle of perspective's replace saw no rows, see grid.py).
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from selenium.webdriver.remote.webelement import WebElement

from tests.jupyter.server import JupyterServer
from tests.protocol.harness import open_session

from .chrome import LabPage, wait_for
from .test_grid_in_browser import row_count, visible_rows
from .test_theme_in_browser import DARK, LIGHT, switch_theme

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")

#: The live table (cell 1), then a tall output that takes it out of view when the notebook
#: scrolls to its end.
NOTEBOOKS = {
    "live.ipynb": [
        "%load_ext cloudg_nb",
        '%cloudg live list_findings severities=["CRITICAL","HIGH"] -o lf',
        "from IPython.display import HTML\n"
        "HTML('<div style=\"height: 4000px\">below the live table</div>')",
    ],
}
#: The live table and, in the next cell, the kernel changing its rows many times a second
#: while the viewer makes its first load (its requests wait for the cells to finish).
NOTEBOOKS["churn.ipynb"] = [*NOTEBOOKS["live.ipynb"][:2], "CHURN"]
#: HIGH findings of the demo estate (in the live table) and a LOW one (not in it).
IN_TABLE, ALSO_IN_TABLE, NOT_IN_TABLE = "f-012", "f-002", "f-006"
REASON = "accepted risk (live grid test)"

_GRID_STATE = """
const viewer = arguments[0];
const plugin = viewer.querySelector('perspective-viewer-datagrid');
const table = plugin && plugin.shadowRoot && plugin.shadowRoot.querySelector('regular-table');
const box = viewer.getBoundingClientRect();
return {body_rows: table ? table.querySelectorAll('tbody tr').length : null,
        header_cells: table ? table.querySelectorAll('thead th').length : null,
        viewer_height: box.height, viewer_top: box.top,
        table_height: table ? table.clientHeight : null};
"""


# -- the page ----------------------------------------------------------------------------------


def live_area(page: LabPage) -> WebElement:
    return page.output_areas()[1]


def the_viewer(page: LabPage) -> WebElement:
    return wait_for(lambda: live_area(page).find_elements("css selector", "perspective-viewer"),
                    "the live frame's grid")[0]


def show_grid(page: LabPage) -> None:
    page.driver.execute_script("arguments[0].scrollIntoView({block: 'start'});",
                               live_area(page))


def hide_grid(page: LabPage) -> None:
    """Scroll the notebook to its end: the grid's cell is far out of view."""
    page.driver.execute_script("""
        const outer = document.querySelector('.jp-NotebookPanel .jp-WindowedPanel-outer');
        outer.scrollTop = outer.scrollHeight;""")
    box = page.driver.execute_script(
        "return arguments[0].getBoundingClientRect().bottom;", live_area(page))
    assert box < 0, "the grid should be scrolled out of view"


def ids_drawn(page: LabPage) -> list[str]:
    return [row["id"] for row in visible_rows(page, the_viewer(page))]


def caption(page: LabPage) -> str:
    """The LiveFrame's caption (read even while off screen)."""
    return str(live_area(page).get_attribute("textContent") or "")


def kernel_caught_up(page: LabPage, rows: int) -> None:
    """The kernel's LiveFrame holds ``rows`` rows (its caption says so), and the browser has
    had a moment to take the grid's update where it is (on screen or not)."""
    wait_for(lambda: f"· {rows} rows" in caption(page), f"the caption to say {rows} rows",
             timeout=60)
    time.sleep(1.5)


def drawn_rows_are(page: LabPage, want: list[str], when: str) -> None:
    """With the grid on screen, its viewer holds ``want``'s rows and its body draws them in
    order (all of them, or as many as its height shows: a grid keeps the height it was built
    with, so one built while a row was suppressed shows one row less without scrolling)."""
    show_grid(page)

    def right() -> bool:
        drawn = ids_drawn(page)
        return len(drawn) >= min(len(want), 5) and drawn == want[:len(drawn)] and row_count(
            page, the_viewer(page)) == len(want)

    try:
        wait_for(right, f"the grid's rows {when}", timeout=30)
    except AssertionError:
        state = page.driver.execute_script(_GRID_STATE, the_viewer(page))
        page.screenshot(f"live-grid-wrong-{when.replace(' ', '-')}")
        raise AssertionError(f"{when}: the grid draws {ids_drawn(page)}, not {want} "
                             f"(grid {state}; caption {caption(page)[-120:]!r})") from None


def in_kernel(page: LabPage, code: str) -> None:
    """Run ``code`` in the notebook's kernel (not as a cell) and wait for it to finish."""
    error = page.driver.execute_async_script("""
        const [code, done] = arguments;
        const panel = window.jupyterapp.shell.currentWidget;
        const future = panel.sessionContext.session.kernel.requestExecute({code});
        let failed = null;
        future.onIOPub = msg => { if (msg.header.msg_type === 'error')
                                    failed = msg.content.ename + ': ' + msg.content.evalue; };
        future.done.then(() => done(failed), e => done(String(e)));""", code)
    assert error is None, error


#: Suppresses and unsuppresses a shown finding from a thread of the kernel for ``seconds``, as
#: fast as the calls go (the LiveFrame refreshes on its client's loop thread meanwhile).
CHURN = """
import threading, time
def _churn(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        lf.client.call('suppress_findings', ids=[{ref!r}], reason='churn', progress=False)
        lf.client.call('unsuppress_findings', ids=[{ref!r}], progress=False)
_churning = threading.Thread(target=_churn, args=({seconds},), daemon=True)
_churning.start()
"""


def from_kernel(page: LabPage, *changes: tuple[str, str]) -> None:
    """``(tool, finding id)`` changes made one after the other by the notebook's client."""
    lines = [f"lf.client.call({tool!r}, ids=[{ref!r}], progress=False"
             + (f", reason={REASON!r})" if tool == "suppress_findings" else ")")
             for tool, ref in changes]
    in_kernel(page, "\n".join(lines))


# -- the server ---------------------------------------------------------------------------------


def owner_api(lab: JupyterServer, method: str, path: str, body: Any = None) -> Any:
    request = urllib.request.Request(
        f"{lab.url}cloudg/api/{path}", method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"token {lab.token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"{}")


def call(lab: JupyterServer, tool: str, ref: str, headers: dict[str, str] | None = None
         ) -> None:
    arguments: dict[str, Any] = {"ids": [ref]}
    if tool == "suppress_findings":
        arguments["reason"] = REASON
    with open_session(lab.endpoint, "2025", headers=headers or lab.headers) as session:
        result = session.call_tool(tool, arguments)
    assert not result.is_error, result.content


def approved_by_the_analyst(lab: JupyterServer, name: str, tool: str, ref: str) -> None:
    """An assistant with a minted credential calls ``tool``; the analyst approves it with
    ``POST cloudg/api/approvals/ID``; returns once the call is done."""
    token = owner_api(lab, "POST", "assistants", {"name": name, "client": "other"})["token"]
    outcome: dict[str, BaseException] = {}

    def run() -> None:
        try:
            call(lab, tool, ref, {"Authorization": f"Bearer {token}"})
        except BaseException as exc:  # reported below
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    waiting = wait_for(lambda: [a for a in owner_api(lab, "GET", "approvals")["pending"]
                                if a["principal"] == f"assistant:{name}"],
                       f"{name}'s call waiting for approval", timeout=60)[0]
    owner_api(lab, "POST", f"approvals/{waiting['id']}", {"decision": "approve"})
    thread.join(60)
    assert not thread.is_alive() and "error" not in outcome, outcome
    owner_api(lab, "DELETE", f"assistants/{name}")


# -- fixtures -----------------------------------------------------------------------------------


@pytest.fixture
def shown(page: LabPage, lab: JupyterServer) -> Iterator[list[str]]:
    """The notebook run, its live table drawn; the ids it draws. Every finding the test may
    suppress is open again afterwards."""
    page.open_notebook("live.ipynb")
    page.run_all_cells()
    assert page.errors() == [] and page.widget_failures() == []
    show_grid(page)
    ids = wait_for(lambda: ids_drawn(page), "the live frame's first rows")
    assert {IN_TABLE, ALSO_IN_TABLE} <= set(ids) and NOT_IN_TABLE not in ids
    try:
        yield ids
    finally:
        with open_session(lab.endpoint, "2025", headers=lab.headers) as session:
            session.call_tool("unsuppress_findings",
                              {"ids": [IN_TABLE, ALSO_IN_TABLE, NOT_IN_TABLE]})


def without(ids: list[str], *gone: str) -> list[str]:
    return [i for i in ids if i not in gone]


# -- the tests ----------------------------------------------------------------------------------


def test_changes_from_the_kernel_while_the_grid_is_off_screen_are_drawn_when_it_is_back(
        page: LabPage, shown: list[str]) -> None:
    ids = shown
    hide_grid(page)
    from_kernel(page, ("suppress_findings", NOT_IN_TABLE), ("unsuppress_findings", NOT_IN_TABLE))
    kernel_caught_up(page, len(ids))
    drawn_rows_are(page, ids, "after an unseen suppress and unsuppress of a row not shown")

    hide_grid(page)
    from_kernel(page, ("suppress_findings", IN_TABLE), ("unsuppress_findings", IN_TABLE),
                ("suppress_findings", IN_TABLE))
    kernel_caught_up(page, len(ids) - 1)
    drawn_rows_are(page, without(ids, IN_TABLE), "after unseen rapid changes of a shown row")

    hide_grid(page)
    from_kernel(page, ("unsuppress_findings", IN_TABLE))
    kernel_caught_up(page, len(ids))
    drawn_rows_are(page, ids, "after an unseen unsuppress")


def test_rapid_changes_from_another_client_are_drawn_after_each_burst(
        page: LabPage, lab: JupyterServer, shown: list[str]) -> None:
    ids = shown
    for round_ in range(3):
        for tool, ref in (("suppress_findings", IN_TABLE), ("unsuppress_findings", IN_TABLE),
                          ("suppress_findings", ALSO_IN_TABLE), ("suppress_findings", IN_TABLE)):
            call(lab, tool, ref)
        kernel_caught_up(page, len(ids) - 2)
        drawn_rows_are(page, without(ids, IN_TABLE, ALSO_IN_TABLE), f"burst {round_} on screen")
        hide_grid(page)
        call(lab, "unsuppress_findings", IN_TABLE)
        call(lab, "unsuppress_findings", ALSO_IN_TABLE)
        kernel_caught_up(page, len(ids))
        drawn_rows_are(page, ids, f"burst {round_} undone off screen")


def test_an_assistants_approved_suppress_and_the_analysts_unsuppress_are_drawn(
        page: LabPage, lab: JupyterServer, shown: list[str]) -> None:
    ids = shown
    hide_grid(page)  # as in the quickstart: the assistant's section is below the live table
    approved_by_the_analyst(lab, "grid-assistant", "suppress_findings", NOT_IN_TABLE)
    from_kernel(page, ("unsuppress_findings", NOT_IN_TABLE))
    kernel_caught_up(page, len(ids))
    drawn_rows_are(page, ids, "after the assistant's section (a row not shown)")

    hide_grid(page)
    approved_by_the_analyst(lab, "grid-assistant-2", "suppress_findings", IN_TABLE)
    kernel_caught_up(page, len(ids) - 1)
    drawn_rows_are(page, without(ids, IN_TABLE), "after the assistant's approved suppress")
    from_kernel(page, ("unsuppress_findings", IN_TABLE))
    kernel_caught_up(page, len(ids))
    drawn_rows_are(page, ids, "after the analyst's unsuppress on screen")


def test_changes_while_the_notebook_scrolls_past_the_grid_are_drawn(
        page: LabPage, lab: JupyterServer, shown: list[str]) -> None:
    ids = shown
    stop = threading.Event()

    def scrolling() -> None:
        for step in range(40):
            if stop.is_set():
                return
            page.driver.execute_script("""
                const outer = document.querySelector(
                    '.jp-NotebookPanel .jp-WindowedPanel-outer');
                outer.scrollTop = arguments[0] ? outer.scrollHeight : 0;""", step % 2)
            time.sleep(0.15)

    changes = [("suppress_findings", IN_TABLE), ("unsuppress_findings", IN_TABLE)] * 3 + [
        ("suppress_findings", ALSO_IN_TABLE)]
    scroller = threading.Thread(target=scrolling, daemon=True)
    scroller.start()
    try:
        for tool, ref in changes:
            call(lab, tool, ref)
    finally:
        stop.set()
        scroller.join(30)
    kernel_caught_up(page, len(ids) - 1)
    drawn_rows_are(page, without(ids, ALSO_IN_TABLE), "after changes while scrolling")


def test_changes_during_a_theme_switch_are_drawn(
        page: LabPage, lab: JupyterServer, shown: list[str]) -> None:
    ids = shown
    try:
        for theme, gone in ((DARK, [IN_TABLE]), (LIGHT, []), (DARK, [ALSO_IN_TABLE])):
            page.driver.execute_script(
                "window.jupyterapp.commands.execute('apputils:change-theme', "
                "{theme: arguments[0]});", theme)
            for ref in (IN_TABLE, ALSO_IN_TABLE):
                call(lab, "suppress_findings" if ref in gone else "unsuppress_findings", ref)
            switch_theme(page, theme)
            kernel_caught_up(page, len(ids) - len(gone))
            drawn_rows_are(page, without(ids, *gone), f"after a switch to {theme}")
    finally:
        switch_theme(page, LIGHT)


def test_changes_while_the_grid_first_loads_are_drawn(
        page: LabPage, lab: JupyterServer) -> None:
    page.open_notebook("live.ipynb")
    stop = threading.Event()
    errors: list[BaseException] = []

    def churn() -> None:
        try:
            while not stop.is_set():
                call(lab, "suppress_findings", IN_TABLE)
                call(lab, "unsuppress_findings", IN_TABLE)
        except BaseException as exc:  # reported below
            errors.append(exc)

    churner = threading.Thread(target=churn, daemon=True)
    churner.start()
    try:
        page.run_all_cells()
        show_grid(page)
        wait_for(lambda: ids_drawn(page), "the live frame's first rows")
        time.sleep(2)
    finally:
        stop.set()
        churner.join(60)
    assert not errors, errors
    assert page.errors() == [] and page.widget_failures() == []
    with open_session(lab.endpoint, "2025", headers=lab.headers) as session:
        listed = session.call_tool("list_findings", {"severities": ["CRITICAL", "HIGH"]})
    want = [f["id"] for f in listed.structured_content["items"]]
    assert IN_TABLE in want
    kernel_caught_up(page, len(want))
    drawn_rows_are(page, want, "after changes during the first load")




def test_the_grid_never_draws_an_empty_body_while_the_kernel_changes_the_rows_fast(
        page: LabPage, shown: list[str]) -> None:
    ids = shown
    in_kernel(page, CHURN.format(ref=IN_TABLE, seconds=12))
    drawn: list[int | None] = []
    end = time.monotonic() + 14
    while time.monotonic() < end:  # the body's rows as often as the page answers
        drawn.append(page.driver.execute_script(_GRID_STATE, the_viewer(page))["body_rows"])
    in_kernel(page, "_churning.join()")
    print(f"grid bodies sampled while churning: {len(drawn)}, "
          f"{drawn.count(len(ids) - 1)} without {IN_TABLE}, {drawn.count(0)} empty")
    assert 0 not in drawn and None not in drawn, (
        f"{drawn.count(0)} of {len(drawn)} draws had an empty body")
    assert set(drawn) <= {len(ids), len(ids) - 1}
    kernel_caught_up(page, len(ids))
    drawn_rows_are(page, ids, "after the churn")


def test_the_grid_draws_its_rows_when_the_kernel_changes_them_during_its_first_load(
        page: LabPage, lab: JupyterServer) -> None:
    page.open_notebook("churn.ipynb")
    page.driver.execute_script("""
        const panel = window.jupyterapp.shell.currentWidget;
        const cells = [...panel.content.model.cells];
        cells[cells.length - 1].sharedModel.setSource(arguments[0]);""",
        CHURN.format(ref=IN_TABLE, seconds=8))
    page.run_all_cells()
    assert page.errors() == [] and page.widget_failures() == []
    show_grid(page)
    drawn: list[int | None] = []
    end = time.monotonic() + 10
    while time.monotonic() < end:
        drawn.append(page.driver.execute_script(_GRID_STATE, the_viewer(page))["body_rows"])
    in_kernel(page, "_churning.join()")
    # before its first rows the viewer may show its header alone (loading); once it has
    # drawn rows, its body never goes empty
    first = next(i for i, n in enumerate(drawn) if n)
    after = drawn[first:]
    print(f"grid bodies sampled during the first load: {len(drawn)}, {first} before the "
          f"first rows, then {after.count(0)} empty")
    assert 0 not in after, f"{after.count(0)} of {len(after)} draws after the first were empty"
    with open_session(lab.endpoint, "2025", headers=lab.headers) as session:
        listed = session.call_tool("list_findings", {"severities": ["CRITICAL", "HIGH"]})
    want = [f["id"] for f in listed.structured_content["items"]]
    kernel_caught_up(page, len(want))
    drawn_rows_are(page, want, "after changes during the first load, from the kernel")
