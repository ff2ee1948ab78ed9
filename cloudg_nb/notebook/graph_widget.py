"""``GraphView``: the anywidget that draws a graph with cytoscape.js, offline.

Its front end is ``static/graph_view.js`` preceded by the vendored cytoscape.js 3.34.4 (MIT,
``static/cytoscape-LICENSE.txt``), sent with the widget, never fetched. ``graph_view`` builds
the nodes (laid out, coloured, with their attributes) and edges it shows.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import anywidget
import traitlets

__all__ = ["GraphView"]

_STATIC = Path(__file__).parent / "static"
_CYTOSCAPE = "cytoscape-3.34.4.min.js"

_CSS = """
.cloudg-graph { border: 1px solid #e0e0e0; border-radius: 3px; background: #fff;
  font-family: var(--jp-ui-font-family, sans-serif); color: #222; }
.cloudg-graph-head { display: flex; align-items: center; justify-content: space-between;
  padding: 4px 8px; border-bottom: 1px solid #eee; font-size: 12px; }
.cloudg-graph-fit { font-size: 11px; cursor: pointer; }
.cloudg-graph-body { display: flex; }
.cloudg-graph-canvas { flex: 1 1 auto; min-width: 0; position: relative; }
.cloudg-graph-side { flex: 0 0 260px; border-left: 1px solid #eee; padding: 6px 8px;
  overflow: auto; font-size: 12px; }
.cloudg-graph-hint { color: #777; margin: 4px 0; }
.cloudg-graph-node-title { font-weight: bold; margin: 2px 0 6px; }
.cloudg-graph-attributes th { text-align: left; padding-right: 8px; color: #555;
  font-weight: normal; vertical-align: top; }
.cloudg-graph-attributes td { text-align: left; word-break: break-all; }
"""


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
