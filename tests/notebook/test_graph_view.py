"""Attack paths and blast radius as an interactive graph: results become laid-out nodes (with
their attributes) and edges; the GraphView widget holds them and the clicked node; the magics
show the graph in a kernel and the old rendering elsewhere; outside a kernel ``graph`` gives
the matplotlib figure. (The graph in a real browser: tests/browser/test_grid_in_browser.py.)"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from ipywidgets.widgets.widget import _instances
from matplotlib.figure import Figure

import cloudg_nb
from cloudg_nb.notebook import graph_view as graph_module
from cloudg_nb.notebook.call_result import Result
from cloudg_nb.notebook.client import Client
from cloudg_nb.notebook.graph_view import (
    GRAPH_ENV,
    blast_radius_paths,
    graph,
    graph_elements,
    is_graph_result,
    use_graph,
)
from cloudg_nb.notebook.graph_widget import (
    _CSS,
    FILL_COLOURS,
    RING_COLOURS,
    GraphView,
    module_source,
)
from cloudg_nb.notebook.render import WidgetRendered, render_result

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    opened = cloudg_nb.local()
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def paths(client: Client) -> Result:
    result = client.call("attack_paths", target="customers-db", progress=False)
    assert not result.is_error, result.text
    return result


@pytest.fixture(scope="module")
def blast(client: Client) -> Result:
    result = client.call("blast_radius", ref="customers-db", progress=False)
    assert not result.is_error, result.text
    return result


@pytest.fixture
def in_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(graph_module, "kernel_shell", lambda: object())
    monkeypatch.setattr("cloudg_nb.notebook.grid.kernel_shell", lambda: object())


def by_name(nodes: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {n["name"]: n for n in nodes}


def test_attack_paths_become_nodes_laid_out_by_hops_with_their_attributes(
        paths: Result, client: Client) -> None:
    title, nodes, edges = graph_elements(paths, client.frame("list_findings"))
    assert title == "7 paths from Internet to customers-db · dataset demo"
    named = by_name(nodes)
    assert named["Internet"]["x"] < named["web-alb"]["x"] < named["customers-db"]["x"]
    assert named["Internet"]["shape"] == "diamond"
    db = named["customers-db"]["attributes"]
    assert db["id"] == "aws-rds-customers" and db["type"] == "RDS_INSTANCE"
    assert db["account_id"] == "111122223333" and db["sensitive target"] is True
    assert named["web-alb"]["entry"] and named["web-alb"]["attributes"]["entry point"]
    assert any(n["attributes"].get("worst open finding") for n in nodes)
    assert len({n["id"] for n in nodes}) == len(nodes)
    ids = {n["id"] for n in nodes}
    assert all(e["source"] in ids and e["target"] in ids and e["directed"] for e in edges)
    assert {"source": "internet", "target": "aws-alb-web"}.items() <= next(
        e for e in edges if e["target"] == "aws-alb-web" and e["source"] == "internet").items()
    assert any(e["virtual"] and e["label"] == "internet exposed" for e in edges)


def test_a_blast_radius_becomes_its_source_and_what_it_reaches_by_depth(blast: Result) -> None:
    title, nodes, edges = graph_elements(blast)
    assert title == "Blast radius of customers-db · 4 assets · dataset demo"
    named = by_name(nodes)
    assert [named[n]["attributes"]["depth"] for n in
            ("customers-db", "app-role", "web-1", "web-2", "web-alb")] == [0, 1, 2, 2, 3]
    assert named["customers-db"]["x"] < named["app-role"]["x"] < named["web-alb"]["x"]
    assert len(edges) == 4 and all(e["directed"] for e in edges)
    assert {e["label"] for e in edges} == {"grants access", "assumes role",
                                           "load balancer target"}


def test_a_blast_radius_reads_as_paths_from_its_source(blast: Result) -> None:
    routes = [[n["name"] for n in p["nodes"]] for p in blast_radius_paths(blast.data)]
    assert routes == [["customers-db", "app-role", "web-2"],
                      ["customers-db", "app-role", "web-1", "web-alb"]]


def test_the_widget_holds_the_nodes_and_edges_and_the_clicked_node(paths: Result) -> None:
    view = graph(paths, widget=True)
    assert isinstance(view, GraphView)
    assert len(view.nodes) == 9 and len(view.edges) == 13 and view.title.startswith("7 paths")
    view.selected = "aws-rds-customers"  # as the browser sets it on a click
    assert view.node(view.selected)["name"] == "customers-db"
    assert view.node("nothing") is None
    assert view.get_state()["nodes"][0]["id"] == view.nodes[0]["id"]


def test_the_widgets_module_is_the_vendored_cytoscape_and_the_glue_offline() -> None:
    source = module_source()
    assert 'version="3.34.4"' in source and "export default { render };" in source
    assert "https://" not in source.split("// cloudg graph view")[1]
    assert GraphView._esm == source


def test_outside_a_kernel_the_graph_is_the_matplotlib_figure(
        paths: Result, blast: Result) -> None:
    assert not use_graph()
    assert isinstance(graph(paths), Figure)
    figure = graph(blast)
    assert isinstance(figure, Figure)
    assert figure.axes[0].get_title().startswith("Blast radius of customers-db")


def test_turning_the_graph_off_gives_the_figure_in_a_kernel(
        paths: Result, in_kernel: None, monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(graph(paths), GraphView)
    monkeypatch.setenv(GRAPH_ENV, "off")
    assert isinstance(graph(paths), Figure)


def test_only_path_and_blast_radius_results_are_graphs(paths: Result, blast: Result) -> None:
    assert is_graph_result("attack_paths", paths.data)
    assert is_graph_result("blast_radius", blast.data)
    assert not is_graph_result("find_assets", blast.data)
    assert not is_graph_result("attack_paths", {"paths": []})


def test_the_magics_rendering_outside_a_kernel_is_unchanged(paths: Result) -> None:
    shown = render_result(paths)
    assert isinstance(shown, WidgetRendered)
    bundle = shown._repr_mimebundle_()
    assert WIDGET_VIEW not in bundle and "customers-db" in bundle["text/html"]
    assert "customers-db" in bundle["text/plain"]


def test_in_a_kernel_a_path_result_shows_as_its_graph_and_a_caption(
        paths: Result, in_kernel: None) -> None:
    bundle = render_result(paths)._repr_mimebundle_()
    box = _instances[bundle[WIDGET_VIEW]["model_id"]]
    view, caption = box.children
    assert isinstance(view, GraphView) and len(view.nodes) == 9
    assert "click a node" in caption.value


def test_in_a_kernel_a_blast_radius_shows_its_graph_above_its_table(
        blast: Result, in_kernel: None) -> None:
    bundle = render_result(blast)._repr_mimebundle_()
    box = _instances[bundle[WIDGET_VIEW]["model_id"]]
    view, table = box.children
    assert isinstance(view, GraphView) and len(view.nodes) == 5
    assert "<table" in table.value and "4 rows" in table.value


# -- light and dark pages ---------------------------------------------------------------------

#: JupyterLab's notebook background (--jp-layout-color0) in its light and dark themes.
PAGES = {"light": "#ffffff", "dark": "#111111"}


def luminance(colour: str) -> float:
    """Relative luminance (WCAG 2.x) of ``#rrggbb``."""
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_nodes_carry_their_category_and_worst_severity_for_the_themes_colours(
        paths: Result, client: Client) -> None:
    _, nodes, _ = graph_elements(paths, client.frame("list_findings"))
    named = by_name(nodes)
    assert named["customers-db"]["category"] == "data"
    assert named["Internet"]["category"] == "internet"
    assert {n["severity"] for n in nodes} >= {None, "CRITICAL"}
    assert all(n["category"] in FILL_COLOURS["light"] for n in nodes)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_severity_ring_stands_out_3_to_1_on_the_themes_page(theme: str) -> None:
    rings = {k: v for k, v in RING_COLOURS[theme].items() if k != "none"}
    assert set(rings) == {"critical", "high", "medium", "low", "info", "unknown"}
    assert len(set(rings.values())) == len(rings)  # each severity its own colour
    faint = {k: round(contrast(v, PAGES[theme]), 2) for k, v in rings.items()
             if contrast(v, PAGES[theme]) < 3.0}
    assert faint == {}


def test_the_dark_themes_colours_apply_on_dark_pages_only() -> None:
    dark = _CSS[_CSS.index('body[data-jp-theme-light="false"] .cloudg-graph'):]
    dark = dark[:dark.index("}")]
    assert all(f"--cloudg-graph-ring-{k}: {v};" in dark for k, v in RING_COLOURS["dark"].items())
    assert all(f"--cloudg-graph-fill-{k}: {v};" in dark for k, v in FILL_COLOURS["dark"].items())
    assert "body.vscode-dark .cloudg-graph" in _CSS


def test_the_widgets_colours_are_the_themes_variables_never_fixed() -> None:
    # backgrounds, text and borders name a variable (JupyterLab's, with fallbacks); only the
    # palette's own variables hold colours
    declarations = re.findall(
        r"(?<![-\w])(background(?:-color)?|color|border(?:-(?:top|right|bottom|left))?):"
        r"\s*([^;}]+)", _CSS)
    assert declarations
    fixed = [(name, value) for name, value in declarations if "var(--" not in value]
    assert fixed == []
