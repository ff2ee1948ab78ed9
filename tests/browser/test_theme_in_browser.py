"""The notebook's widgets in JupyterLab's light and dark themes, as a person sees them in
headless Chromium: result tables (a DataFrame with its caption, a dict, an error, the policy's
note), the grid (perspective) and the graph (cytoscape) take the theme's background, follow a
switch of theme (Settings > Theme) without a re-run, and their text reads at least 4.5:1
against what is behind it (WCAG AA), computed from the colours the browser shows; the graph's
severity rings stand out at least 3:1. Screenshots: test-artifacts/browser/theme-*.png.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from selenium.webdriver.remote.webelement import WebElement

from tests.jupyter.server import JupyterServer

from .chrome import ARTIFACTS, LabPage, wait_for

T = TypeVar("T")
LIGHT, DARK = "JupyterLab Light", "JupyterLab Dark"
#: What is shown, one cell each (the first cell loads the extension).
CELLS = {
    "table": "%cloudg call list_findings limit=8",
    "dict": "%cloudg call get_asset ref=customers-db",
    "error": "%cloudg call find_asets",
    "note": ("import cloudg_nb\nfrom cloudg_nb.notebook.render import render_result\n"
             "strict = cloudg_nb.local(policy='strict')\n"
             "render_result(strict.call('find_assets', limit=5, progress=False))"),
    "grid": ("import pandas as pd\nfrom cloudg_nb.notebook.render import render_table\n"
             "big = pd.DataFrame({'id': [f'f-{i:05d}' for i in range(2000)],\n"
             "                    'severity': ['HIGH', 'LOW', 'MEDIUM', 'CRITICAL'] * 500,\n"
             "                    'risk_score': range(2000)})\n"
             "render_table(big, '2000 findings · theme test')"),
    # the graph as graph_view draws it with the findings (its nodes ringed by severity)
    "graph": ("from cloudg_nb.notebook.graph_view import graph\n"
              "demo = cloudg_nb.local()\n"
              "paths = demo.call('attack_paths', target='customers-db', progress=False)\n"
              "graph(paths, demo.frame('list_findings'), widget=True)"),
}
NOTEBOOK = "theme.ipynb"
NOTEBOOKS = {NOTEBOOK: ["%load_ext cloudg_nb", *CELLS.values()]}
#: The element of each output whose background and text are measured.
WIDGETS = {
    "table": ".jp-RenderedHTMLCommon table.cloudg-table",
    "caption": ".cloudg-caption",
    "dict": "table.cloudg-dict",
    "error": ".cloudg-error",
    "note": ".cloudg-transforms",
    "grid": "perspective-viewer",
    "graph": ".cloudg-graph",
}
CELL_OF = {"table": "table", "caption": "table", "dict": "dict", "error": "error",
           "note": "note", "grid": "grid", "graph": "graph"}
#: WCAG 2.x AA: normal text 4.5:1; graphical objects (the severity rings) 3:1.
TEXT_CONTRAST, GRAPHIC_CONTRAST = 4.5, 3.0
#: Relative luminance of a background that reads as light, and as dark.
LIGHT_AT_LEAST, DARK_AT_MOST = 0.7, 0.05

#: Colour maths shared by the measuring scripts: parse the browser's computed colours, blend
#: translucent layers, relative luminance and contrast ratio as WCAG 2.x defines them.
_COLOUR = """
const parse = (text) => {
  const m = /rgba?\\(([^)]*)\\)/.exec(text || '');
  if (!m) return null;
  const p = m[1].split(/[\\s,/]+/).filter(Boolean).map(Number);
  return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1};
};
const blend = (top, below) => {
  const a = top.a, mix = (t, b) => t * a + b * (1 - a);
  return {r: mix(top.r, below.r), g: mix(top.g, below.g), b: mix(top.b, below.b), a: 1};
};
const luminance = (c) => {
  const channel = (v) => {
    v /= 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
};
const contrast = (x, y) => {
  const [a, b] = [luminance(x), luminance(y)].sort((p, q) => q - p);
  return (a + 0.05) / (b + 0.05);
};
const up = (node) => node.parentElement
  || (node.getRootNode() instanceof ShadowRoot ? node.getRootNode().host : null);
// What shows behind `el`: its background and its ancestors' (through shadow roots) blended,
// on the page's white canvas.
const backdrop = (el) => {
  const layers = [];
  for (let node = el; node; node = up(node)) {
    const c = parse(getComputedStyle(node).backgroundColor);
    if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; }
  }
  return layers.reverse().reduce((below, top) => blend(top, below), {r: 255, g: 255, b: 255, a: 1});
};
const opacity = (el) => {
  let o = 1;
  for (let node = el; node; node = up(node)) o *= Number(getComputedStyle(node).opacity);
  return o;
};
const hex = (c) => '#' + [c.r, c.g, c.b]
  .map((v) => Math.round(v).toString(16).padStart(2, '0')).join('');
"""
#: Every element inside arguments[0] (and inside its shadow roots) that shows text of its own
#: on screen: its text, colour as shown (blended on what is behind it), backdrop and contrast.
_TEXTS = _COLOUR + """
const root = arguments[0];
const out = [];
const visit = (el) => {
  const own = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE)
    .map((n) => n.textContent.trim()).join(' ').trim();
  const box = el.getBoundingClientRect();
  if (own && box.width > 0 && box.height > 0
      && el.checkVisibility({opacityProperty: true, visibilityProperty: true})) {
    const behind = backdrop(el);
    const colour = parse(getComputedStyle(el).color);
    const shown = blend({...colour, a: colour.a * opacity(el)}, behind);
    out.push({text: own.slice(0, 40), tag: el.tagName.toLowerCase(),
              colour: hex(shown), backdrop: hex(behind), contrast: contrast(shown, behind)});
  }
  for (const child of el.children) visit(child);
  if (el.shadowRoot) for (const child of el.shadowRoot.children) visit(child);
};
visit(root);
return out;
"""
_BACKDROP = _COLOUR + """
const el = arguments[0];
const inner = el.querySelector('perspective-viewer-datagrid');
const table = inner && inner.shadowRoot && inner.shadowRoot.querySelector('regular-table');
const c = backdrop(table || el);
return {colour: hex(c), luminance: luminance(c)};
"""
#: The graph's canvas: the colours cytoscape draws labels and rings in, against the widget's
#: background (text on a canvas is not in the DOM).
_CANVAS = _COLOUR + """
const el = arguments[0];
const cy = el.cloudgGraph;
const behind = backdrop(el);
const colour = (ele, name) => parse(ele.style(name));
const labels = cy.nodes().map((n) => contrast(blend(colour(n, 'color'), behind), behind));
const edgeLabels = cy.edges().map((e) => {
  const under = blend({...colour(e, 'text-background-color'),
                       a: Number(e.style('text-background-opacity'))}, behind);
  return contrast(blend(colour(e, 'color'), under), under);
});
const rings = cy.nodes().filter((n) => n.data('severity')).map((n) => ({
  severity: n.data('severity'), colour: hex(colour(n, 'border-color')),
  contrast: contrast(blend(colour(n, 'border-color'), behind), behind)}));
return {labels, edgeLabels, rings, background: hex(behind)};
"""


def switch_theme(page: LabPage, theme: str) -> None:
    """Settings > Theme: JupyterLab's own command; waits until the page has the theme."""
    page.driver.execute_script(
        "window.jupyterapp.commands.execute('apputils:change-theme', {theme: arguments[0]});",
        theme)
    light = "true" if theme == LIGHT else "false"
    wait_for(lambda: page.driver.execute_script(
        "return document.body.dataset.jpThemeName === arguments[0]"
        " && document.body.dataset.jpThemeLight === arguments[1];", theme, light),
        f"JupyterLab to show the {theme} theme")


def cell_output(page: LabPage, cell: str) -> WebElement:
    """The output area of ``cell`` (a key of CELLS), scrolled into view."""
    area = page.output_areas()[1 + list(CELLS).index(cell)]
    page.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", area)
    return area


def widget(page: LabPage, name: str) -> WebElement:
    return wait_for(lambda: cell_output(page, CELL_OF[name]).find_elements(
        "css selector", WIDGETS[name]), f"the {name} on the page")[0]


def drawn(page: LabPage) -> None:
    """Wait until the grid shows rows and the graph its nodes."""
    wait_for(lambda: page.driver.execute_script(
        "const g = arguments[0].querySelector('perspective-viewer-datagrid');"
        "return !!(g && g.shadowRoot && g.shadowRoot.querySelector('regular-table tbody td'));",
        widget(page, "grid")), "the grid's rows")
    wait_for(lambda: page.driver.execute_script(
        "const cy = arguments[0].cloudgGraph; return !!cy && cy.nodes().length > 0;",
        widget(page, "graph")), "the graph's nodes")


def open_and_run(page: LabPage, theme: str) -> None:
    """The notebook open in ``theme`` with every cell run."""
    page.open_notebook(NOTEBOOK)
    switch_theme(page, theme)
    page.run_all_cells()
    assert page.errors() == [] and page.widget_failures() == []
    drawn(page)


def ran(page: LabPage) -> bool:
    """Whether the notebook is open with every cell run."""
    state = page.state()
    return bool(state) and state["path"] == NOTEBOOK and all(
        cell["count"] is not None for cell in state["cells"] if cell["type"] == "code")


#: The theme the grid's viewer shows: its own and its plugins' (the datagrid's) ``theme``.
_GRID_THEME = """
const viewer = arguments[0];
const themes = new Set([viewer, ...viewer.querySelectorAll('[theme]')]
  .map((el) => el.getAttribute('theme')));
return [...themes].join(' and ');
"""


def grid_theme(page: LabPage) -> str:
    """The grid's perspective theme ("Pro Light", "Pro Dark"; two named while it switches)."""
    return str(page.driver.execute_script(_GRID_THEME, widget(page, "grid")))


def backgrounds(page: LabPage) -> dict[str, dict[str, Any]]:
    """What shows behind each widget: its colour and relative luminance."""
    return {name: page.driver.execute_script(_BACKDROP, widget(page, name)) for name in WIDGETS}


def texts(page: LabPage, name: str) -> list[dict[str, Any]]:
    return list(page.driver.execute_script(_TEXTS, widget(page, name)))


def shoot(page: LabPage, label: str) -> None:
    """The window, and each widget on its own, to ARTIFACTS/theme-<label>[-<widget>].png."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for name in ("table", "dict", "note", "grid", "graph"):
        element = widget(page, name)
        page.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
        element.screenshot(str(ARTIFACTS / f"theme-{label}-{name}.png"))
    page.driver.execute_script("arguments[0].scrollIntoView({block: 'start'});",
                               cell_output(page, "grid"))
    page.screenshot(f"theme-{label}")


def settled(read: Callable[[], T], done: Callable[[T], bool], timeout: float = 15.0) -> T:
    """``read()`` until ``done`` holds or ``timeout`` passes: the last value either way (the
    assertions that follow say what is wrong)."""
    deadline = time.monotonic() + timeout
    value = read()
    while not done(value) and time.monotonic() < deadline:
        time.sleep(0.25)
        value = read()
    return value


def test_the_widgets_backgrounds_follow_a_switch_between_light_and_dark(
        page: LabPage, lab: JupyterServer) -> None:
    open_and_run(page, LIGHT)
    light = settled(lambda: backgrounds(page), lambda now: all(
        now[n]["luminance"] >= LIGHT_AT_LEAST for n in WIDGETS))
    switch_theme(page, DARK)  # no re-run: the widgets on the page follow
    dark = settled(lambda: backgrounds(page), lambda now: all(
        now[n]["luminance"] <= DARK_AT_MOST for n in WIDGETS))
    assert settled(lambda: grid_theme(page), lambda now: now == "Pro Dark") == "Pro Dark"
    shoot(page, "switched-to-dark")
    assert {n: b for n, b in light.items() if b["luminance"] < LIGHT_AT_LEAST} == {}
    assert {n: b for n, b in dark.items() if b["luminance"] > DARK_AT_MOST} == {}
    switch_theme(page, LIGHT)  # and back
    assert settled(lambda: grid_theme(page), lambda now: now == "Pro Light") == "Pro Light"
    assert settled(lambda: backgrounds(page), lambda now: now == light) == light


@pytest.mark.parametrize("theme", [LIGHT, DARK])
def test_text_in_every_widget_reads_at_least_4_5_to_1_in_the_theme(
        page: LabPage, lab: JupyterServer, theme: str) -> None:
    open_and_run(page, theme)
    perspective = "Pro Light" if theme == LIGHT else "Pro Dark"
    assert settled(lambda: grid_theme(page), lambda now: now == perspective) == perspective
    label = "light" if theme == LIGHT else "dark"

    def faint_texts() -> dict[str, list[dict[str, Any]]]:
        faint: dict[str, list[dict[str, Any]]] = {}
        for name in WIDGETS:
            shown = texts(page, name)
            assert shown, f"no text found in the {name}"
            low = [t for t in shown if t["contrast"] < TEXT_CONTRAST]
            if low:
                faint[name] = low
        return faint

    # The grid's cells take their colours from the theme a moment after its viewer names it
    # (perspective redraws the datagrid; seconds on a loaded machine): wait for that redraw.
    faint = settled(faint_texts, lambda now: now == {})
    shoot(page, label)
    assert faint == {}, f"text under {TEXT_CONTRAST}:1 in the {label} theme: {faint}"


@pytest.mark.parametrize("theme", [LIGHT, DARK])
def test_the_graphs_labels_read_and_its_severity_rings_stand_out_in_the_theme(
        page: LabPage, lab: JupyterServer, theme: str) -> None:
    if ran(page):  # the notebook a test before ran: switched to the theme in place
        switch_theme(page, theme)
    else:
        open_and_run(page, theme)
    canvas = settled(lambda: page.driver.execute_script(_CANVAS, widget(page, "graph")),
                     lambda now: min(now["labels"]) >= TEXT_CONTRAST)
    assert min(canvas["labels"]) >= TEXT_CONTRAST, canvas
    assert min(canvas["edgeLabels"]) >= TEXT_CONTRAST, canvas
    assert canvas["rings"], "no node has a severity ring"
    assert all(r["contrast"] >= GRAPHIC_CONTRAST for r in canvas["rings"]), canvas["rings"]
