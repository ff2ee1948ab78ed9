"""``GraphView``: the anywidget that draws a graph with cytoscape.js, offline.

Its front end is ``static/graph_view.js`` preceded by the vendored cytoscape.js 3.34.4 (MIT,
``static/cytoscape-LICENSE.txt``), sent with the widget, never fetched. ``graph_view`` builds
the nodes (laid out, coloured, with their attributes) and edges it shows. Its colours are
the page theme's (light or dark), as CSS variables the front end reads for the canvas.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from pathlib import Path
from string import Template
from typing import Any

import anywidget
import traitlets

from .graph_drawing import draw
from .graph_model import GraphModel
from .plots import CATEGORY_COLOURS

__all__ = ["FILL_COLOURS", "GraphView", "RING_COLOURS"]

_STATIC = Path(__file__).parent / "static"
_CYTOSCAPE = "cytoscape-3.34.4.min.js"

#: Ring colour by worst open finding, for a light and a dark page: each stands out at least
#: 3:1 against the page (WCAG's contrast for graphics), warm (critical) to cool (info).
RING_COLOURS: dict[str, dict[str, str]] = {
    "light": {"critical": "#a50026", "high": "#c73a1c", "medium": "#b35806", "low": "#8a6d00",
              "info": "#2166ac", "unknown": "#6e6e6e", "none": "#bdbdbd"},
    "dark": {"critical": "#ff6b7d", "high": "#ff8f5a", "medium": "#fdb863", "low": "#f5e07a",
             "info": "#7fb8e0", "unknown": "#a8a8a8", "none": "#8a8a8a"},
}
#: Node fill by asset category: the figure's pastels on a light page, deep tones on a dark one
#: (the light rings and labels read on them).
FILL_COLOURS: dict[str, dict[str, str]] = {
    "light": dict(CATEGORY_COLOURS),
    "dark": {"internet": "#9e9e9e", "network": "#1f4e6b", "compute": "#3f3a6b",
             "identity": "#1d5c52", "data": "#2a5a26", "keys": "#4f5a1a",
             "organization": "#3d3d3d", "other": "#2e2e2e"},
}
#: Pages with a dark theme: JupyterLab's and Notebook 7's dark themes, VS Code's dark ones.
_DARK_PAGES = ('body[data-jp-theme-light="false"] .cloudg-graph',
               "body.vscode-dark .cloudg-graph",
               "body.vscode-high-contrast:not(.vscode-high-contrast-light) .cloudg-graph")


def _palette(theme: str) -> str:
    """The node colours of ``theme`` as the widget's CSS variables (the front end reads them)."""
    rings = [f"--cloudg-graph-ring-{k}: {v};" for k, v in RING_COLOURS[theme].items()]
    fills = [f"--cloudg-graph-fill-{k}: {v};" for k, v in FILL_COLOURS[theme].items()]
    return "\n  ".join(rings + fills)


#: Every colour is a variable of the page's theme: JupyterLab's (and Notebook 7's) ``--jp-*``,
#: then VS Code's ``--vscode-*``, then a light page's (classic Notebook). graph_view.js reads the
#: ``--cloudg-graph-*`` ones for the canvas, at render and when the theme changes.
_CSS = Template("""
.cloudg-graph {
  --cloudg-graph-background: var(--jp-layout-color0, var(--vscode-editor-background, #fff));
  --cloudg-graph-text: var(--jp-ui-font-color1, var(--vscode-editor-foreground, #212121));
  --cloudg-graph-text-dim: var(--jp-ui-font-color2,
    var(--vscode-descriptionForeground, #616161));
  --cloudg-graph-border: var(--jp-border-color2, var(--vscode-panel-border, #e0e0e0));
  --cloudg-graph-line: var(--jp-layout-color4, #757575);
  --cloudg-graph-accent: var(--jp-brand-color1, var(--vscode-focusBorder, #1976d2));
  --cloudg-graph-button: var(--jp-layout-color2, var(--vscode-button-secondaryBackground, #eee));
  --cloudg-graph-button-text: var(--jp-ui-font-color1,
    var(--vscode-button-secondaryForeground, #212121));
  $light
  border: 1px solid var(--cloudg-graph-border); border-radius: 3px;
  background: var(--cloudg-graph-background); color: var(--cloudg-graph-text);
  font-family: var(--jp-ui-font-family, sans-serif); }
$dark_pages {
  $dark }
.cloudg-graph-head { display: flex; align-items: center; justify-content: space-between;
  gap: 8px; padding: 4px 8px; border-bottom: 1px solid var(--cloudg-graph-border);
  font-size: 13px; }
.cloudg-graph-titles { display: flex; flex-direction: column; min-width: 0; }
.cloudg-graph-title { font-weight: bold; }
.cloudg-graph-summary { font-size: 12px; color: var(--cloudg-graph-text-dim); }
.cloudg-graph-legend { display: flex; flex-direction: column; gap: 3px; padding: 5px 8px;
  border-top: 1px solid var(--cloudg-graph-border); font-size: 12px; }
.cloudg-graph-legend-row { display: flex; flex-wrap: wrap; align-items: center;
  gap: 4px 12px; }
.cloudg-graph-legend-head { color: var(--cloudg-graph-text-dim); min-width: 150px; }
.cloudg-graph-legend-item { display: inline-flex; align-items: center; gap: 4px; }
.cloudg-graph-swatch { display: inline-block; width: 12px; height: 12px; border-radius: 50%;
  box-sizing: border-box; border: 1px solid var(--cloudg-graph-border); }
.cloudg-graph-swatch-ring { border-width: 3px; border-style: solid;
  background: var(--cloudg-graph-background); }
.cloudg-graph-swatch-mark { border: 2px dashed var(--cloudg-graph-text); }
.cloudg-graph-mark-group { border: 2px solid var(--cloudg-graph-text); border-radius: 3px; }
.cloudg-graph-mark-sensitive { border-width: 0; border-radius: 0; width: auto; height: auto;
  font-weight: bold; }
.cloudg-graph-swatch-edge { color: var(--cloudg-graph-text); font-weight: bold; }
.cloudg-graph-swatch-edge.virtual { text-decoration: underline dashed; }
.cloudg-graph-button { font-size: 12px; cursor: pointer; margin: 4px 6px 4px 0;
  background: var(--cloudg-graph-button); color: var(--cloudg-graph-button-text);
  border: 1px solid var(--cloudg-graph-border); border-radius: 2px; }
.cloudg-graph-section { font-weight: bold; margin: 8px 0 3px; }
.cloudg-graph-finding-list { list-style: none; margin: 0; padding: 0; }
.cloudg-graph-finding { display: flex; flex-direction: column; margin: 0 0 5px;
  padding-left: 6px; border-left: 4px solid var(--cloudg-graph-ring-unknown); }
.cloudg-graph-finding.severity-critical { border-left-color: var(--cloudg-graph-ring-critical); }
.cloudg-graph-finding.severity-high { border-left-color: var(--cloudg-graph-ring-high); }
.cloudg-graph-finding.severity-medium { border-left-color: var(--cloudg-graph-ring-medium); }
.cloudg-graph-finding.severity-low { border-left-color: var(--cloudg-graph-ring-low); }
.cloudg-graph-finding.severity-info { border-left-color: var(--cloudg-graph-ring-info); }
.cloudg-graph-severity { font-weight: bold; font-size: 11px; }
.cloudg-graph-finding-meta { color: var(--cloudg-graph-text-dim); font-size: 11px; }
.cloudg-graph-fit { font-size: 11px; cursor: pointer; background: var(--cloudg-graph-button);
  color: var(--cloudg-graph-button-text); border: 1px solid var(--cloudg-graph-border);
  border-radius: 2px; }
.cloudg-graph-body { display: flex; }
.cloudg-graph-canvas { flex: 1 1 auto; min-width: 0; position: relative; }
.cloudg-graph-side { flex: 0 0 280px; border-left: 1px solid var(--cloudg-graph-border);
  padding: 6px 8px; overflow: auto; font-size: 12px; }
.cloudg-graph-hint { color: var(--cloudg-graph-text-dim); margin: 4px 0; }
.cloudg-graph-node-title { font-weight: bold; margin: 2px 0 6px; }
.cloudg-graph-attributes th { text-align: left; padding-right: 8px;
  color: var(--cloudg-graph-text-dim); font-weight: normal; vertical-align: top; }
.cloudg-graph-attributes td { text-align: left; word-break: break-all; }
""").substitute(light=_palette("light"), dark=_palette("dark"),
                dark_pages=",\n".join(_DARK_PAGES))


@functools.cache
def module_source() -> str:
    """The widget's ES module: the vendored cytoscape.js (a UMD build, run with a local
    ``module`` so it defines no global) as the ``cytoscape`` constant, then graph_view.js."""
    library = (_STATIC / _CYTOSCAPE).read_text(encoding="utf-8")
    glue = (_STATIC / "graph_view.js").read_text(encoding="utf-8")
    return ("const cytoscape = (() => {\n  const module = { exports: {} };\n"
            "  (function (module, exports) {\n" + library
            + "\n  }).call(globalThis, module, module.exports);\n  return module.exports;\n"
            "})();\n" + glue)


class GraphView(anywidget.AnyWidget):
    """An interactive graph: ``nodes`` and ``edges`` as ``graph_drawing.draw`` makes them,
    ``title``, ``summary`` (what is drawn and what groups hide), ``legend``, ``height`` (CSS),
    ``selected``: the id of the node clicked last, and ``expanded``: the groups clicked open
    (a click on a group in the browser adds it; ``expand`` / ``collapse`` from Python).

    Made from a ``GraphModel`` (``GraphView(model=..., findings=..., group_by=...)``) it
    redraws itself when ``expanded`` changes; made from ``nodes`` and ``edges`` it shows
    them as they are."""

    _esm = module_source()
    _css = _CSS
    nodes = traitlets.List(traitlets.Dict()).tag(sync=True)
    edges = traitlets.List(traitlets.Dict()).tag(sync=True)
    title = traitlets.Unicode("").tag(sync=True)
    summary = traitlets.Unicode("").tag(sync=True)
    legend = traitlets.Dict().tag(sync=True)
    height = traitlets.Unicode("460px").tag(sync=True)
    selected = traitlets.Unicode("").tag(sync=True)
    expanded = traitlets.List(traitlets.Unicode()).tag(sync=True)

    def __init__(self, model: GraphModel | None = None,
                 findings: Mapping[str, Sequence[Mapping[str, Any]]] | None = None, *,
                 group_by: str | None = "auto", note: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._model = model
        self._findings = dict(findings or {})
        self._group_by = group_by
        self._note = note
        self._groups: dict[str, list[str]] = {}
        if model is not None:
            self.title = model.title
            self._redraw()
            self.observe(lambda _: self._redraw(), names="expanded")

    def _redraw(self) -> None:
        if self._model is None:
            return
        drawing = draw(self._model, self._findings, group_by=self._group_by,
                       expanded=self.expanded, note=self._note)
        self._groups = drawing.groups
        with self.hold_sync():
            self.nodes = drawing.nodes
            self.edges = drawing.edges
            self.legend = drawing.legend
            self.summary = drawing.summary
            self.height = _height(drawing.nodes)

    def node(self, node_id: str) -> dict[str, Any] | None:
        """The attributes of node ``node_id`` (e.g. ``view.node(view.selected)``)."""
        for node in self.nodes:
            if str(node.get("id")) == node_id:
                return dict(node.get("attributes") or {})
        return None

    def findings(self, asset_id: str) -> list[dict[str, Any]]:
        """The open findings of asset ``asset_id``, worst first (drawn or not)."""
        return [dict(f) for f in self._findings.get(asset_id, ())]

    def groups(self) -> dict[str, list[str]]:
        """The groups of the drawing (id -> the ids of every asset in it)."""
        return {k: list(v) for k, v in self._groups.items()}

    def expand(self, group_id: str) -> None:
        """Show more of a group's assets (``graph_drawing.MEMBERS_PER_EXPAND`` a call)."""
        self.expanded = [*self.expanded, group_id]

    def collapse(self, group_id: str) -> None:
        """Fold a group's assets back into the group."""
        self.expanded = [g for g in self.expanded if g != group_id]


def _height(nodes: Sequence[Mapping[str, Any]]) -> str:
    """Tall enough for the tallest column of nodes (within 360..600 px: with the legend under
    it, the graph fits a laptop's window)."""
    ys = [float(n.get("y") or 0) for n in nodes]
    span = (max(ys) - min(ys)) if ys else 0.0
    return f"{int(max(360, min(600, span * 1.1 + 200)))}px"
