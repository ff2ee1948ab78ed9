"""``GraphView``: the anywidget that draws a graph with cytoscape.js, offline.

Its front end is ``static/graph_view.js`` preceded by the vendored cytoscape.js 3.34.4 (MIT,
``static/cytoscape-LICENSE.txt``), sent with the widget, never fetched. ``graph_view`` builds
the nodes (laid out, coloured, with their attributes) and edges it shows. Its colours are
the page theme's (light or dark), as CSS variables the front end reads for the canvas.
"""

from __future__ import annotations

import functools
from pathlib import Path
from string import Template
from typing import Any

import anywidget
import traitlets

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
  padding: 4px 8px; border-bottom: 1px solid var(--cloudg-graph-border); font-size: 12px; }
.cloudg-graph-fit { font-size: 11px; cursor: pointer; background: var(--cloudg-graph-button);
  color: var(--cloudg-graph-button-text); border: 1px solid var(--cloudg-graph-border);
  border-radius: 2px; }
.cloudg-graph-body { display: flex; }
.cloudg-graph-canvas { flex: 1 1 auto; min-width: 0; position: relative; }
.cloudg-graph-side { flex: 0 0 260px; border-left: 1px solid var(--cloudg-graph-border);
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
    """An interactive graph: ``nodes`` and ``edges`` as ``graph_view.graph_elements`` makes
    them, ``title``, ``height`` (CSS), and ``selected``: the id of the node clicked last."""

    _esm = module_source()
    _css = _CSS
    nodes = traitlets.List(traitlets.Dict()).tag(sync=True)
    edges = traitlets.List(traitlets.Dict()).tag(sync=True)
    title = traitlets.Unicode("").tag(sync=True)
    height = traitlets.Unicode("460px").tag(sync=True)
    selected = traitlets.Unicode("").tag(sync=True)

    def node(self, node_id: str) -> dict[str, Any] | None:
        """The attributes of node ``node_id`` (e.g. ``view.node(view.selected)``)."""
        for node in self.nodes:
            if str(node.get("id")) == node_id:
                return dict(node.get("attributes") or {})
        return None
