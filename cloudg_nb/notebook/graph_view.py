"""Attack paths and blast radius as an interactive graph: pan, zoom, click a node to see its
attributes. ``graph(result)`` gives a ``GraphView`` widget in a kernel, else the matplotlib
figure of ``plots`` (the fallback; ``CLOUDG_GRAPH=off`` asks for it in a kernel too).

Why a widget of our own: cytoscape.js (MIT, well kept) draws the graph; it is vendored in
``static/`` (copied from its npm package, licence beside it) and served through anywidget, so
nothing comes from a CDN. Its Jupyter wrapper ipycytoscape was last released in 2022, built
for JupyterLab 3 (it asks for @jupyter-widgets/base <= 4); ipysigma draws with WebGL only and
lays nodes out by force. What is ours is the glue: ``graph_model`` reads a result,
``graph_findings`` the findings of its assets, ``graph_drawing`` groups a large result and lays
it out in columns by hops; ``graph_widget.GraphView`` with ``static/graph_view.js`` shows it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from .graph_drawing import draw
from .graph_findings import fetch_findings, findings_by_asset
from .graph_model import blast_radius_paths, complete_items, model_of
from .plots import _structured, plot_attack_paths
from .progress_bars import kernel_shell

__all__ = ["GRAPH_ENV", "GRAPH_TOOLS", "blast_radius_paths", "current_client", "graph",
           "graph_available", "graph_elements", "graph_view", "is_graph_result", "use_graph"]

#: ``CLOUDG_GRAPH=off`` (or ``static``, ``0``, ``false``): results stay text, figures static.
GRAPH_ENV = "CLOUDG_GRAPH"
#: Tools whose results the magics show as a graph in a kernel.
GRAPH_TOOLS = frozenset({"attack_paths", "find_paths", "lateral_movement_paths",
                         "blast_radius"})
_OFF = {"off", "static", "0", "false", "no"}


def graph_available() -> bool:
    """Whether the graph widget can be used: anywidget imports and ``CLOUDG_GRAPH`` allows."""
    if os.environ.get(GRAPH_ENV, "").strip().lower() in _OFF:
        return False
    try:
        import anywidget  # noqa: F401
    except Exception:
        return False
    return True


def use_graph(choice: bool | None = None) -> bool:
    """Whether to show a graph widget: ``choice`` False never; True when available; None
    when available and running in a kernel."""
    if choice is False or not graph_available():
        return False
    return choice is True or kernel_shell() is not None


def current_client() -> Any:
    """The magics' client when one is chosen and open (never makes one): what a result the
    magics show came through, so its graph may fetch the rest of it and its findings."""
    client_module = sys.modules.get(f"{__package__}.client")
    client = None if client_module is None else getattr(client_module, "_default", None)
    return None if client is None or getattr(client, "_closed", False) else client


# -- results -> what is drawn -------------------------------------------------------------------


def graph_elements(result: Any, findings: Any = None, *, group_by: str | None = "auto"
                   ) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]]]:
    """(title, nodes, edges) drawn of a paths result (``attack_paths``, ``find_paths``,
    ``lateral_movement_paths``: ``paths`` of nodes and edges) or a ``blast_radius`` result
    (``source`` and ``items`` with ``depth`` and ``depends_on_id``). ``findings`` (as for
    ``plot_attack_paths``) ring each asset by its worst open finding and fill its panel;
    ``group_by`` as for ``graph_drawing.draw``."""
    model = model_of(result)
    drawing = draw(model, findings_by_asset(findings, model.assets.keys()), group_by=group_by)
    return model.title, drawing.nodes, drawing.edges


def graph_view(result: Any, findings: Any = None, *, height: str | None = None,
               group_by: str | None = "auto", client: Any = None) -> Any:
    """A ``GraphView`` widget of ``result`` (see ``graph_elements``). With a ``client`` (a
    ``Client``), a paged blast radius is fetched whole and, when ``findings`` is None, the
    dataset's open findings are fetched to ring the nodes and fill their panels."""
    note = None
    last = getattr(client, "last", None)  # the analyst's last result stays theirs
    try:
        if client is not None and getattr(result, "next_cursor", None):
            result, note = complete_items(result, client)
        model = model_of(result)
        if findings is None and client is not None:
            findings, why = fetch_findings(client, model.dataset)
            note = "; ".join(n for n in (note, why) if n) or None
    finally:
        if client is not None and hasattr(client, "last"):
            client.last = last
    from .graph_widget import GraphView

    view = GraphView(model=model, findings=findings_by_asset(findings, model.assets.keys()),
                     group_by=group_by,
                     note=note)
    if height:
        view.height = height
    return view


def graph(result: Any, findings: Any = None, *, widget: bool | None = None,
          group_by: str | None = "auto", client: Any = None) -> Any:
    """The graph of an ``attack_paths`` / ``find_paths`` / ``lateral_movement_paths`` /
    ``blast_radius`` result: a ``GraphView`` widget in a kernel (``widget=None``) or when
    ``widget=True`` (``group_by`` and ``client`` as for ``graph_view``); else
    (``CLOUDG_GRAPH=off``, no kernel, no anywidget) the matplotlib figure
    ``plot_attack_paths`` draws."""
    if use_graph(widget):
        return graph_view(result, findings, group_by=group_by, client=client)
    data = _structured(result, "attack_paths")
    if "paths" in data:
        return plot_attack_paths(data, findings)
    return plot_attack_paths({"dataset": data.get("dataset"), "paths": blast_radius_paths(data)},
                             findings, title=model_of(data).title, edge_labels=True)


def is_graph_result(tool: str, data: Any) -> bool:
    """Whether the magics should draw ``data`` (a result of ``tool``) as a graph."""
    if tool not in GRAPH_TOOLS or not isinstance(data, Mapping):
        return False
    if isinstance(data.get("paths"), Sequence):
        return bool(data["paths"])
    from .frame_from_columns import is_columns

    return isinstance(data.get("source"), Mapping) and (
        bool(data.get("items")) or is_columns(data.get("columns")))
