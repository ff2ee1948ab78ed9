"""Looking at data, not text, as a person does: JupyterLab in headless Chromium shows a
500,000-row DataFrame in the grid (perspective), scrolls it by wheel and to its end, filters
and sorts it, and the page keeps answering; a LiveFrame's grid follows an assistant's change
in place; attack paths and a blast radius show as a graph whose node, clicked, shows its
attributes. Nothing is fetched from outside the Jupyter server (offline).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
from selenium.webdriver.remote.webelement import WebElement

from tests.jupyter.server import JupyterServer
from tests.protocol.harness import open_session

from .chrome import ARTIFACTS, LabPage, wait_for

ROWS = 500_000
BIG_FRAME = f"""
import numpy as np
import pandas as pd

from cloudg_nb.notebook.grid import DataGrid

n = {ROWS}
rng = np.random.default_rng(7)
df = pd.DataFrame({{
    "id": [f"row-{{i:06d}}" for i in range(n)],
    "severity": rng.choice(["CRITICAL", "HIGH", "MEDIUM", "LOW"], n),
    "risk_score": rng.integers(0, 100_000, n),
    "resource": [f"bucket-{{i % 9973}}" for i in range(n)],
    "title": [f"finding {{i}} on bucket-{{i % 9973}}" for i in range(n)],
    "suppressed": rng.random(n) < 0.1,
}})
critical = df[df["severity"] == "CRITICAL"]
print("critical:", len(critical), "riskiest:", int(critical["risk_score"].max()))
"""
NOTEBOOKS = {
    "grid.ipynb": [BIG_FRAME, 'grid = DataGrid(df, title="500k findings")\ngrid'],
    "live.ipynb": ["%load_ext cloudg_nb",
                   '%cloudg live list_findings severities=["CRITICAL","HIGH"] -o lf'],
    "graph.ipynb": ["%load_ext cloudg_nb",
                    "%cloudg call attack_paths target=customers-db -o paths",
                    "%cloudg call blast_radius ref=customers-db -o blast"],
}
#: Seconds within which the page must answer a script after each grid operation.
RESPONSIVE_SECONDS = 5.0

#: Counts main-thread tasks longer than 50 ms from now on (the browser's Long Tasks API).
_WATCH_LONG_TASKS = """
window.__cloudgLongTasks = [];
new PerformanceObserver(list => {
  for (const entry of list.getEntries()) window.__cloudgLongTasks.push(entry.duration);
}).observe({entryTypes: ['longtask']});
return true;
"""
#: The grid's visible table: its column names and the rows drawn (perspective's datagrid
#: draws only the rows on screen, in a regular-table inside the plugin's shadow root).
_VISIBLE_ROWS = """
const viewer = arguments[0];
const plugin = viewer.querySelector('perspective-viewer-datagrid');
const table = plugin && plugin.shadowRoot && plugin.shadowRoot.querySelector('regular-table');
if (!table) return null;
const header = [...table.querySelectorAll('thead tr')].pop();
const names = header ? [...header.querySelectorAll('th')].map(th => th.textContent.trim()) : [];
const rows = [...table.querySelectorAll('tbody tr')].map(
  tr => [...tr.querySelectorAll('td')].map(td => td.textContent.trim()));
return {names, rows};
"""
_ROW_COUNT = """
const [viewer, done] = arguments;
viewer.getView().then(view => view.num_rows()).then(done, error => done(String(error)));
"""


def code_area(page: LabPage, index: int) -> WebElement:
    area = page.output_areas()[index]
    page.driver.execute_script("arguments[0].scrollIntoView({block: 'start'});", area)
    return area


def visible_rows(page: LabPage, viewer: WebElement) -> list[dict[str, str]]:
    """The rows the grid draws now, as dicts by column name (the row header column left out)."""
    drawn = page.driver.execute_script(_VISIBLE_ROWS, viewer)
    if not drawn or not drawn["rows"]:
        return []
    names = drawn["names"][-len(drawn["rows"][0]):]
    return [dict(zip(names, cells, strict=True)) for cells in drawn["rows"]]


def row_count(page: LabPage, viewer: WebElement) -> int:
    return int(page.driver.execute_async_script(_ROW_COUNT, viewer))


def regular_table(page: LabPage, viewer: WebElement) -> WebElement:
    return page.driver.execute_script(
        "return arguments[0].querySelector('perspective-viewer-datagrid')"
        ".shadowRoot.querySelector('regular-table');", viewer)


def sort_of(page: LabPage, viewer: WebElement) -> list[list[str]]:
    """The viewer's sort as it stands (column, direction pairs)."""
    return list(page.driver.execute_async_script(
        "const [viewer, done] = arguments; viewer.save().then(c => done(c.sort || []));",
        viewer))


def number(text: str) -> int:
    return int(text.replace(",", ""))


def timed(what: Callable[[], Any]) -> tuple[Any, float]:
    started = time.monotonic()
    value = what()
    return value, time.monotonic() - started


def answers_quickly(page: LabPage) -> float:
    """Seconds a script round trip takes (the page is not frozen)."""
    _, seconds = timed(lambda: page.driver.execute_script("return performance.now();"))
    assert seconds < RESPONSIVE_SECONDS, f"the page took {seconds:.1f} s to answer"
    return seconds


def longest_task_ms(page: LabPage) -> float:
    return float(page.driver.execute_script(
        "return Math.max(0, ...(window.__cloudgLongTasks || []));"))


def outside_requests(page: LabPage, lab: JupyterServer) -> list[str]:
    """Resources the page loaded from anywhere but the Jupyter server (none: offline)."""
    names = page.driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name);")
    return [n for n in names if not n.startswith((lab.url, "data:", "blob:"))]


def printed(page: LabPage, index: int) -> str:
    return "".join(out.get("text", "") for out in page.outputs()[index]
                   if out.get("output_type") == "stream")


def test_a_500k_row_grid_scrolls_filters_and_sorts_and_the_page_stays_responsive(
        page: LabPage, lab: JupyterServer) -> None:
    page.open_notebook("grid.ipynb")
    page.driver.execute_script(_WATCH_LONG_TASKS)
    started = time.monotonic()
    page.run_all_cells()
    assert page.errors() == [] and page.widget_failures() == []
    facts = printed(page, 0).split()
    critical, riskiest = int(facts[1]), int(facts[3])

    viewer = wait_for(lambda: code_area(page, 1).find_elements("css selector",
                                                               "perspective-viewer"),
                      "the grid's viewer")[0]
    first = wait_for(lambda: visible_rows(page, viewer), "the grid's first rows")
    numbers: dict[str, float] = {"first_render_s": time.monotonic() - started}
    assert first[0]["id"] == "row-000000" and "row-000001" in [r["id"] for r in first]
    assert len(first) < 100  # only what is on screen is drawn
    assert row_count(page, viewer) == ROWS
    numbers["longest_task_load_ms"] = longest_task_ms(page)
    page.screenshot("grid-500k-first")

    # scroll with the mouse wheel, as a person does: rows further down come into view
    page.driver.execute_script("window.__cloudgLongTasks = [];")
    table = regular_table(page, viewer)
    started = time.monotonic()
    ActionChains(page.driver).scroll_from_origin(ScrollOrigin.from_element(table), 0,
                                                 3000).perform()
    below = wait_for(lambda: [r for r in visible_rows(page, viewer)
                              if int(r["id"][4:]) >= len(first) + 50], "rows further down")
    numbers["wheel_scroll_s"] = time.monotonic() - started
    assert "row-000000" not in [r["id"] for r in visible_rows(page, viewer)]
    assert below
    # and to the end (the scrollbar dragged down): the last of the 500,000 rows shows
    started = time.monotonic()
    page.driver.execute_script("arguments[0].scrollTop = arguments[0].scrollHeight;", table)
    wait_for(lambda: f"row-{ROWS - 1:06d}" in [r["id"] for r in visible_rows(page, viewer)],
             "the last row after scrolling to the end")
    numbers["scroll_to_end_s"] = time.monotonic() - started
    numbers["answer_after_scroll_s"] = answers_quickly(page)
    page.screenshot("grid-500k-scrolled")

    # filter: the viewer's own filter (what its filter box sets); every row shown matches
    started = time.monotonic()
    page.driver.execute_script(
        "arguments[0].restore({filter: [['severity', '==', 'CRITICAL']]});", viewer)
    wait_for(lambda: row_count(page, viewer) == critical, "the filtered row count")
    shown = wait_for(lambda: (lambda rows: rows if rows and all(
        r["severity"] == "CRITICAL" for r in rows) else None)(visible_rows(page, viewer)),
        "only CRITICAL rows on screen")
    numbers["filter_s"] = time.monotonic() - started
    assert len(shown) > 5
    numbers["answer_after_filter_s"] = answers_quickly(page)

    # sort by clicking the column's header (again while it is ascending): riskiest first
    page.driver.execute_script("arguments[0].scrollTop = 0;", table)
    started = time.monotonic()
    for _ in range(3):
        header = wait_for(lambda: [th for th in table.find_elements("css selector", "thead th")
                                   if th.text.strip().startswith("risk_score")],
                          "the risk_score header")[-1]
        before = sort_of(page, viewer)
        header.click()
        sort = wait_for(lambda b=before: (lambda now: now if now != b else None)(
            sort_of(page, viewer)), "the sort the click sets")
        if sort == [["risk_score", "desc"]]:
            break
    assert sort_of(page, viewer) == [["risk_score", "desc"]]
    top = wait_for(lambda: (lambda rows: rows if rows and number(rows[0]["risk_score"])
                            == riskiest else None)(visible_rows(page, viewer)),
                   "the riskiest CRITICAL finding first")
    numbers["sort_s"] = time.monotonic() - started
    assert all(r["severity"] == "CRITICAL" for r in top)
    assert [number(r["risk_score"]) for r in top] == sorted(
        (number(r["risk_score"]) for r in top), reverse=True)
    numbers["answer_after_sort_s"] = answers_quickly(page)
    numbers["longest_task_operations_ms"] = longest_task_ms(page)
    page.screenshot("grid-500k-filtered-sorted")

    assert outside_requests(page, lab) == []
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "grid-500k-timings.json").write_text(json.dumps(numbers, indent=1))
    print("500k grid timings:", json.dumps(numbers))


def test_a_live_frames_grid_follows_an_assistants_change_in_place(
        page: LabPage, lab: JupyterServer) -> None:
    page.open_notebook("live.ipynb")
    page.run_all_cells()
    assert page.errors() == [] and page.widget_failures() == []
    area = code_area(page, 1)
    viewer = wait_for(lambda: area.find_elements("css selector", "perspective-viewer"),
                      "the live frame's grid")[0]
    before = wait_for(lambda: visible_rows(page, viewer), "the live frame's rows")
    ids = [r["id"] for r in before]
    assert ids and all(r["severity"] in ("CRITICAL", "HIGH") for r in before)
    # the LiveFrame's caption (a slow first load also leaves a progress summary above it)
    captions = [e.text for e in area.find_elements("css selector", ".widget-html")
                if "dataset " in e.text]
    assert len(captions) == 1, captions
    caption = captions[0]
    assert "dataset demo" in caption and f"{len(ids)} rows" in caption
    gone = ids[0]
    with open_session(lab.endpoint, "2025", headers=lab.headers) as assistant:
        done = assistant.call_tool("suppress_findings",
                                   {"ids": [gone], "reason": "accepted risk (grid test)"})
        assert not done.is_error
        try:
            after = wait_for(lambda: (lambda rows: rows if rows and gone not in [
                r["id"] for r in rows] else None)(visible_rows(page, viewer)),
                f"the grid to drop {gone}", timeout=30)
            assert [r["id"] for r in after] == [i for i in ids if i != gone]
            # the same viewer element, updated in place (no re-run, no new output)
            assert area.find_elements("css selector", "perspective-viewer") == [viewer]
            wait_for(lambda: any(f"{len(ids) - 1} rows" in e.text and "dataset " in e.text
                                 for e in area.find_elements("css selector", ".widget-html")),
                     "the caption's new row count")
            page.screenshot("grid-live-after")
        finally:
            assistant.call_tool("unsuppress_findings", {"ids": [gone]})
    assert outside_requests(page, lab) == []


_GRAPH = """
const el = arguments[0].querySelector('.cloudg-graph');
if (!el || !el.cloudgGraph) return null;
const cy = el.cloudgGraph;
const box = el.querySelector('.cloudg-graph-canvas').getBoundingClientRect();
return {title: el.querySelector('.cloudg-graph-title').textContent,
        nodes: cy.nodes().map(n => ({id: n.id(), name: n.data('name'),
                                     x: n.renderedPosition('x'), y: n.renderedPosition('y')})),
        edges: cy.edges().length, canvases: el.querySelectorAll('canvas').length,
        width: box.width, height: box.height};
"""


def graph_in(page: LabPage, area: WebElement) -> dict[str, Any] | None:
    return page.driver.execute_script(_GRAPH, area)


def test_attack_paths_and_blast_radius_show_as_graphs_whose_nodes_show_their_attributes(
        page: LabPage, lab: JupyterServer) -> None:
    page.open_notebook("graph.ipynb")
    page.run_all_cells()
    assert page.errors() == [] and page.widget_failures() == []

    area = code_area(page, 1)
    paths = wait_for(lambda: graph_in(page, area), "the attack-path graph")
    assert paths["title"].startswith("7 paths from Internet to customers-db")
    names = {n["name"] for n in paths["nodes"]}
    assert {"Internet", "web-alb", "customers-db"} <= names and paths["edges"] >= 6
    assert paths["canvases"] >= 1 and paths["width"] > 300 and paths["height"] > 200
    canvas = area.find_element("css selector", ".cloudg-graph-canvas")
    side = area.find_element("css selector", ".cloudg-graph-side")

    def click_customers_db() -> bool:
        """Click the node where it is drawn now (on a loaded machine the layout and the
        notebook's scrolling may still move it after the graph first appears)."""
        now = graph_in(page, area) or paths
        target = next(n for n in now["nodes"] if n["name"] == "customers-db")
        rect = canvas.rect
        ActionChains(page.driver).move_to_element_with_offset(
            canvas, int(target["x"] - rect["width"] / 2), int(target["y"] - rect["height"] / 2)
        ).click().perform()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if "RDS_INSTANCE" in side.text:
                return True
            time.sleep(0.25)
        return False

    wait_for(click_customers_db, "a click on customers-db to show its attributes")
    assert "customers-db" in side.text and "aws-rds-customers" in side.text
    assert "111122223333" in side.text
    page.screenshot("graph-attack-paths-clicked")

    # pan and zoom: the wheel zooms the graph (cytoscape's own handling)
    zoom = page.driver.execute_script(
        "return arguments[0].querySelector('.cloudg-graph').cloudgGraph.zoom();", area)
    ActionChains(page.driver).scroll_from_origin(ScrollOrigin.from_element(canvas), 0,
                                                 -300).perform()
    wait_for(lambda: page.driver.execute_script(
        "return arguments[0].querySelector('.cloudg-graph').cloudgGraph.zoom();", area) != zoom,
        "the graph to zoom on the wheel")

    blast_area = code_area(page, 2)
    blast = wait_for(lambda: graph_in(page, blast_area), "the blast-radius graph")
    assert blast["title"].startswith("Blast radius of customers-db · 4 assets")
    assert len(blast["nodes"]) == 5 and blast["edges"] == 4
    assert "app-role" in blast_area.text  # the result's table under the graph
    page.screenshot("graph-blast-radius")
    assert outside_requests(page, lab) == []
