"""The graph widget as an analyst reads it in JupyterLab, in headless Chromium: a legend under
the graph says what fills, rings, edges and arrows mean; a click on web-1 shows its CRITICAL
xz backdoor finding; a 14,408-asset blast radius (``scaled(100_000)``'s organisation-wide
key, through the magics, all pages fetched) opens as groups in columns by hop - not a line of
dots - with a summary of what they hide, labels that neither overlap nor shrink out of
reading, and a click on a group draws its assets. Screenshots in the light and dark themes:
test-artifacts/browser/graph-*.png.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.remote.webelement import WebElement

from tests.jupyter.server import JupyterServer

from .chrome import ARTIFACTS, LabPage, wait_for

LIGHT, DARK = "JupyterLab Light", "JupyterLab Dark"
BIG_KEY, BIG_TOTAL = "key-82013", 14_408
NOTEBOOK = "graph.ipynb"
CELLS = {
    "paths": "%cloudg call attack_paths target=customers-db",
    "load": ("r = %cloudg call sample_estate name=scaled n=100000 dataset_name=scaled-100k "
             "activate=false replace=true"),
    "big": f"%cloudg call blast_radius ref={BIG_KEY} dataset=scaled-100k",
}
NOTEBOOKS = {NOTEBOOK: ["%load_ext cloudg_nb", *CELLS.values()]}
#: The front end's most nodes in one column (graph_drawing.ROWS_MAX).
ROWS_MAX = 8
#: Smallest label a person reads on screen, in CSS pixels (12 px labels at zoom 0.6).
READABLE_PX = 7.0

#: What cytoscape draws now: nodes (with their rendered places and label boxes), edges, the
#: zoom, the canvas size, the summary and the legend's text.
_GRAPH = """
const el = arguments[0].querySelector('.cloudg-graph');
if (!el || !el.cloudgGraph) return null;
const cy = el.cloudgGraph;
const box = el.querySelector('.cloudg-graph-canvas').getBoundingClientRect();
const legend = el.querySelector('.cloudg-graph-legend');
return {
  title: el.querySelector('.cloudg-graph-title').textContent,
  summary: el.querySelector('.cloudg-graph-summary').textContent,
  legend: legend && !legend.hidden ? legend.innerText : '',
  legendShown: !!legend && legend.getBoundingClientRect().height > 20,
  nodes: cy.nodes().map(n => {
    const b = n.renderedBoundingBox({includeLabels: true, includeOverlays: false});
    return {id: n.id(), name: n.data('name'), kind: n.data('kind'), group: n.data('group'),
            count: n.data('count'), x: n.renderedPosition('x'), y: n.renderedPosition('y'),
            modelX: n.position('x'), box: [b.x1, b.y1, b.x2, b.y2]};
  }),
  edges: cy.edges().map(e => ({arrow: e.style('target-arrow-shape'),
                               source: e.source().id(), target: e.target().id()})),
  zoom: cy.zoom(), fontPx: parseFloat(cy.nodes()[0].style('font-size')) * cy.zoom(),
  width: box.width, height: box.height};
"""


def switch_theme(page: LabPage, theme: str) -> None:
    """Settings > Theme (JupyterLab's own command); waits until the page shows it."""
    page.driver.execute_script(
        "window.jupyterapp.commands.execute('apputils:change-theme', {theme: arguments[0]});",
        theme)
    light = "true" if theme == LIGHT else "false"
    wait_for(lambda: page.driver.execute_script(
        "return document.body.dataset.jpThemeName === arguments[0]"
        " && document.body.dataset.jpThemeLight === arguments[1];", theme, light),
        f"JupyterLab to show the {theme} theme")


def area(page: LabPage, cell: str) -> WebElement:
    """The output area of ``cell`` (a key of CELLS), scrolled to the top of the window."""
    out = page.output_areas()[1 + list(CELLS).index(cell)]
    page.driver.execute_script("arguments[0].scrollIntoView({block: 'start'});", out)
    return out


def drawn(page: LabPage, cell: str) -> dict[str, Any]:
    return wait_for(lambda: page.driver.execute_script(_GRAPH, area(page, cell)),
                    f"the {cell} graph")


def ready(page: LabPage) -> None:
    """The notebook open with every cell run (once per module: the 100k estate is loaded
    into the server once)."""
    state = page.state()
    if state and state["path"] == NOTEBOOK and all(
            cell["count"] is not None for cell in state["cells"] if cell["type"] == "code"):
        return
    page.open_notebook(NOTEBOOK)
    switch_theme(page, LIGHT)
    page.run_all_cells()
    assert page.errors() == [] and page.widget_failures() == []


def click_node(page: LabPage, cell: str, pick: Any, shows: str, what: str) -> None:
    """Click the node ``pick(graph)`` returns where it is drawn now, until the side panel
    shows ``shows`` (the layout and the notebook's scrolling may still move it)."""
    def attempt() -> bool:
        out = area(page, cell)
        side = out.find_element("css selector", ".cloudg-graph-side")
        if shows in side.text:  # an earlier click did it (slowly)
            return True
        now = page.driver.execute_script(_GRAPH, out)
        target = pick(now)
        if target is None:
            return False
        canvas = out.find_element("css selector", ".cloudg-graph-canvas")
        rect = canvas.rect
        ActionChains(page.driver).move_to_element_with_offset(
            canvas, int(target["x"] - rect["width"] / 2),
            int(target["y"] - rect["height"] / 2)).click().perform()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if shows in side.text:
                return True
            time.sleep(0.25)
        return False

    wait_for(attempt, what, timeout=60)


def overlaps(nodes: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Pairs of nodes whose drawn boxes (node and label) overlap."""
    out = []
    for i, a in enumerate(nodes):
        for b in nodes[i + 1:]:
            p, q = a["box"], b["box"]
            if p[0] < q[2] - 1 and q[0] < p[2] - 1 and p[1] < q[3] - 1 and q[1] < p[3] - 1:
                out.append((a["name"], b["name"]))
    return out


def shoot(page: LabPage, cell: str, name: str) -> None:
    """The graph of ``cell`` alone, to ARTIFACTS/name.png."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    graph = area(page, cell).find_element("css selector", ".cloudg-graph")
    page.driver.execute_script("arguments[0].scrollIntoView({block: 'start'});", graph)
    time.sleep(0.5)  # (a frame for the canvas after scrolling)
    graph.screenshot(str(ARTIFACTS / f"{name}.png"))


def test_the_legend_says_what_fills_rings_edges_and_arrows_mean(
        page: LabPage, lab: JupyterServer) -> None:
    ready(page)
    graph = drawn(page, "paths")
    assert graph["legendShown"]
    legend = graph["legend"]
    for words in ("asset (fill)", "worst open finding (ring)", "critical", "no open finding",
                  "internet exposed", "entry point", "sensitive target",
                  "the way an attacker moves"):
        assert words in legend, f"{words!r} missing from the legend: {legend!r}"
    assert graph["edges"] and all(e["arrow"] == "triangle" for e in graph["edges"])
    # the whole demo graph is on the first screen, its labels at a size that reads
    off = [n["name"] for n in graph["nodes"] if not (
        n["box"][0] >= 0 and n["box"][2] <= graph["width"] and n["box"][1] >= 0
        and n["box"][3] <= graph["height"])]
    assert off == [] and graph["fontPx"] >= READABLE_PX
    assert overlaps(graph["nodes"]) == []


def test_a_click_on_web_1_shows_its_critical_xz_finding(
        page: LabPage, lab: JupyterServer) -> None:
    ready(page)
    drawn(page, "paths")
    click_node(page, "paths",
               lambda g: next((n for n in g["nodes"] if n["name"] == "web-1"), None),
               "CVE-2024-3094", "a click on web-1 to show its findings")
    side = area(page, "paths").find_element("css selector", ".cloudg-graph-side").text
    assert "Open findings (1)" in side and "CRITICAL" in side and "f-001" in side
    assert "aws-ec2-web-1" in side  # and its attributes below
    shoot(page, "paths", "graph-web-1-clicked-light")


def test_a_14k_asset_blast_radius_opens_as_groups_in_columns_not_a_line(
        page: LabPage, lab: JupyterServer) -> None:
    ready(page)
    graph = drawn(page, "big")
    assert graph["title"].startswith(f"Blast radius of {BIG_KEY} · 14,408 assets")
    assert graph["summary"].startswith(f"{BIG_TOTAL + 1:,} assets, {BIG_TOTAL:,} edges")
    assert "click a group to expand it" in graph["summary"]
    groups = [n for n in graph["nodes"] if n["kind"] == "group"]
    singles = [n for n in graph["nodes"] if n["kind"] == "asset"]
    assert len(groups) >= 20 and len(graph["nodes"]) <= 60
    # all pages fetched: every asset (and the key) is in a group or drawn
    assert sum(g["count"] for g in groups) + len(singles) == BIG_TOTAL + 1
    columns = Counter(round(n["modelX"]) for n in graph["nodes"])
    assert len(columns) >= 5 and max(columns.values()) <= ROWS_MAX
    assert overlaps(graph["nodes"]) == []
    assert graph["fontPx"] >= READABLE_PX, graph["zoom"]  # the first screen reads
    on_screen = [n for n in graph["nodes"] if 0 <= n["x"] <= graph["width"]
                 and 0 <= n["y"] <= graph["height"]]
    assert len(on_screen) >= 8  # the source and the first hops' groups
    assert "group of assets: click to expand" in graph["legend"]
    shoot(page, "big", "graph-14k-groups-light")


def test_a_click_on_a_group_draws_its_assets_and_collapse_folds_them(
        page: LabPage, lab: JupyterServer) -> None:
    ready(page)
    before = drawn(page, "big")
    largest = max((n for n in before["nodes"] if n["kind"] == "group"),
                  key=lambda n: n["count"])
    click_node(page, "big", lambda g: next(
        (n for n in g["nodes"] if n["id"] == largest["id"]), None), "Drew 12 of the group",
        f"a click on {largest['name']} to draw its assets")
    after = wait_for(lambda: (lambda g: g if any(n["group"] for n in g["nodes"]) else None)(
        drawn(page, "big")), "the group's assets drawn")
    members = [n for n in after["nodes"] if n["group"] == largest["id"]]
    assert len(members) == 12
    rest = next(n for n in after["nodes"] if n["id"] == f"{largest['id']}:more")
    assert rest["count"] == largest["count"] - 12
    assert max(Counter(round(n["modelX"]) for n in after["nodes"]).values()) <= ROWS_MAX
    assert overlaps(after["nodes"]) == []
    shoot(page, "big", "graph-14k-group-expanded-light")
    click_node(page, "big", lambda g: next(
        (n for n in g["nodes"] if n["group"] == largest["id"]), None), "collapse group",
        "a click on one of the group's assets")
    side = area(page, "big").find_element("css selector", ".cloudg-graph-side")
    side.find_element("xpath", ".//button[text()='collapse group']").click()
    wait_for(lambda: any(n["id"] == largest["id"] for n in drawn(page, "big")["nodes"]),
             "the group folded back")
    assert not any(n["group"] for n in drawn(page, "big")["nodes"])


@pytest.mark.parametrize("theme", [LIGHT, DARK])
def test_screenshots_of_the_graphs_in_the_theme(
        page: LabPage, lab: JupyterServer, theme: str) -> None:
    ready(page)
    switch_theme(page, theme)
    label = "light" if theme == LIGHT else "dark"
    for cell in ("paths", "big"):
        graph = drawn(page, cell)
        assert graph["legendShown"] and graph["nodes"]
        shoot(page, cell, f"graph-{cell}-{label}")
    page.screenshot(f"graph-notebook-{label}")
    # a group opened: its panel describes it (its worst assets named) above its drawn assets
    largest = max((n for n in drawn(page, "big")["nodes"] if n["kind"] == "group"),
                  key=lambda n: n["count"])
    click_node(page, "big", lambda g: next(
        (n for n in g["nodes"] if n["id"] == largest["id"]), None), "Drew 12 of the group",
        f"a click on {largest['name']} to draw its assets")
    side = area(page, "big").find_element("css selector", ".cloudg-graph-side")
    assert largest["name"] in side.text and "Its worst" in side.text
    shoot(page, "big", f"graph-big-expanded-{label}")
    side.find_element("xpath", ".//button[text()='collapse group']").click()
    wait_for(lambda: any(n["id"] == largest["id"] for n in drawn(page, "big")["nodes"]),
             "the group folded back by its panel's button")
