"""Attack paths and blast radius as an interactive graph: pan, zoom, click a node to see its
attributes. ``graph(result)`` gives a ``GraphView`` widget in a kernel, else the matplotlib
figure of ``plots`` (the fallback; ``CLOUDG_GRAPH=off`` asks for it in a kernel too).

Why a widget of our own: cytoscape.js (MIT, well kept) draws the graph; it is vendored in
``static/`` (copied from its npm package, licence beside it) and served through anywidget, so
nothing comes from a CDN. Its Jupyter wrapper ipycytoscape was last released in 2022, built
for JupyterLab 3 (it asks for @jupyter-widgets/base <= 4); ipysigma draws with WebGL only and
lays nodes out by force. What is ours is the glue: this module lays the nodes out in layers by
hops (``plots.layered_positions``); ``graph_widget.GraphView`` with ``static/graph_view.js``
(~200 lines) shows them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from .plots import (
    CATEGORY_COLOURS,
    SEVERITY_COLOURS,
    _category,
    _finding_records,
    _structured,
    _worst_severity,
    layered_positions,
    plot_attack_paths,
)
from .progress import kernel_shell

__all__ = ["GRAPH_ENV", "GRAPH_TOOLS", "blast_radius_paths", "graph", "graph_available",
           "graph_elements", "graph_view", "is_graph_result", "use_graph"]

#: ``CLOUDG_GRAPH=off`` (or ``static``, ``0``, ``false``): results stay text, figures static.
GRAPH_ENV = "CLOUDG_GRAPH"
#: Tools whose results the magics show as a graph in a kernel.
GRAPH_TOOLS = frozenset({"attack_paths", "find_paths", "lateral_movement_paths",
                         "blast_radius"})
_OFF = {"off", "static", "0", "false", "no"}
#: Pixels between layers (x) and between the nodes of a layer (y).
_DX, _DY = 210.0, 95.0

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


# -- results -> nodes and edges ------------------------------------------------------------------


def blast_radius_paths(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A ``blast_radius`` result as paths from its source to each asset it reaches (the
    chain of ``depends_on_id``), the shape ``plot_attack_paths`` draws."""
    source = data.get("source") if isinstance(data.get("source"), Mapping) else None
    items = [i for i in data.get("items") or () if isinstance(i, Mapping) and i.get("id")]
    if source is None:
        return []
    by_id: dict[str, Mapping[str, Any]] = {str(source.get("id")): source}
    by_id.update({str(i["id"]): i for i in items})
    parents = {str(i["id"]): i for i in items}
    leaves = set(parents) - {str(i.get("depends_on_id")) for i in items}
    paths: list[dict[str, Any]] = []
    for leaf in sorted(leaves, key=lambda n: (parents[n].get("depth", 0), n)):
        chain, seen = [leaf], {leaf}
        edges: list[dict[str, Any]] = []
        while chain[0] in parents:
            item = parents[chain[0]]
            up = str(item.get("depends_on_id"))
            if up in seen or up not in by_id:
                break
            edges.insert(0, {"id": item.get("edge_id"), "edge_type": item.get("edge_type"),
                             "from": up, "to": chain[0]})
            chain.insert(0, up)
            seen.add(up)
        paths.append({"hops": len(chain) - 1, "nodes": [_asset(by_id[n]) for n in chain],
                      "edges": edges})
    return paths


def _asset(node: Mapping[str, Any]) -> dict[str, Any]:
    return {k: node.get(k) for k in ("id", "name", "type", "provider", "region", "account_id")}


def graph_elements(result: Any, findings: Any = None) -> tuple[str, list[dict[str, Any]],
                                                                 list[dict[str, Any]]]:
    """(title, nodes, edges) of a paths result (``attack_paths``, ``find_paths``,
    ``lateral_movement_paths``: ``paths`` of nodes and edges) or a ``blast_radius`` result
    (``source`` and ``items`` with ``depth`` and ``depends_on_id``). ``findings`` (as for
    ``plot_attack_paths``) rings each asset by its worst open finding."""
    data = _structured(result, "attack_paths")
    worst = _worst_severity(_finding_records(findings))
    dataset = data.get("dataset")
    where = f" · dataset {dataset}" if dataset else ""
    paths: Sequence[Mapping[str, Any]]
    if "paths" in data:
        paths = [p for p in data.get("paths") or () if isinstance(p, Mapping) and p.get("nodes")]
        ends = "".join(f" {word} {end.get('name') or end.get('id')}"
                       for word, end in (("from", data.get("source")), ("to", data.get("target")))
                       if isinstance(end, Mapping))
        title = f"{len(paths)} path{'' if len(paths) == 1 else 's'}{ends}{where}"
        directed = True
        depth_of = None
    else:
        paths = blast_radius_paths(data)
        source = data.get("source") if isinstance(data.get("source"), Mapping) else {}
        name = (source or {}).get("name") or (source or {}).get("id") or "?"
        title = f"Blast radius of {name} · {len(data.get('items') or ())} assets{where}"
        directed = False
        depth_of = {str(i["id"]): i.get("depth") for i in data.get("items") or ()
                    if isinstance(i, Mapping) and i.get("id")}
    nodes: dict[str, Mapping[str, Any]] = {}
    depth: dict[str, int] = {}
    preds: dict[str, set[str]] = {}
    edges: dict[tuple[str, str], dict[str, Any]] = {}
    entries = {str(p["entry"]["id"]) for p in paths if isinstance(p.get("entry"), Mapping)}
    sensitive = {str(p["nodes"][-1]["id"]) for p in paths if p.get("target_sensitive")}
    for path in paths:
        ids = [str(node.get("id")) for node in path["nodes"]]
        for i, node in enumerate(path["nodes"]):
            nodes.setdefault(ids[i], node)
            depth[ids[i]] = min(depth.get(ids[i], i), i)
            if i:
                preds.setdefault(ids[i], set()).add(ids[i - 1])
        for edge in path.get("edges") or ():
            key = (str(edge.get("from")), str(edge.get("to")))
            if key[0] in nodes and key[1] in nodes and key not in edges:
                kind = str(edge.get("edge_type") or "")
                edges[key] = {"source": key[0], "target": key[1], "edge_id": edge.get("id"),
                              "edge_type": kind, "label": kind.lower().replace("_", " "),
                              "virtual": bool(edge.get("virtual")), "directed": directed}
    positions = layered_positions(depth, preds, {n: str(v.get("name") or n)
                                                 for n, v in nodes.items()})
    out: list[dict[str, Any]] = []
    for node_id, node in nodes.items():
        x, y = positions[node_id]
        asset_type = str(node.get("type") or "")
        category = _category(asset_type)
        severity = worst.get(node_id)
        attributes = {k: v for k, v in node.items() if v is not None and not isinstance(
            v, (Mapping, list))}
        attributes["category"] = category
        if depth_of is not None:
            attributes["depth"] = depth_of.get(node_id, 0)
        else:
            attributes["hops from start"] = depth[node_id]
        if severity:
            attributes["worst open finding"] = severity
        if node_id in entries:
            attributes["entry point"] = True
        if node_id in sensitive:
            attributes["sensitive target"] = True
        name = str(node.get("name") or node_id)
        out.append({
            "id": node_id, "name": name,
            "label": name if asset_type == "INTERNET" else f"{name}\n{asset_type}",
            "type": asset_type, "fill": CATEGORY_COLOURS.get(category, "#f0f0f0"),
            "ring": SEVERITY_COLOURS[severity], "ring_width": 4 if severity else 1.5,
            "shape": "diamond" if asset_type == "INTERNET" else "ellipse",
            "entry": node_id in entries, "sensitive": node_id in sensitive,
            "x": x * _DX, "y": -y * _DY, "attributes": attributes})
    return title, out, list(edges.values())


def graph_view(result: Any, findings: Any = None, *, height: str | None = None) -> Any:
    """A ``GraphView`` widget of ``result`` (see ``graph_elements``)."""
    title, nodes, edges = graph_elements(result, findings)
    columns = {n["x"] for n in nodes}
    tallest = max((sum(1 for n in nodes if n["x"] == x) for x in columns), default=1)
    view_height = height or f"{max(320, min(640, 110 * tallest + 120))}px"
    from .graph_widget import GraphView

    return GraphView(nodes=nodes, edges=edges, title=title, height=view_height)


def graph(result: Any, findings: Any = None, *, widget: bool | None = None) -> Any:
    """The graph of an ``attack_paths`` / ``find_paths`` / ``lateral_movement_paths`` /
    ``blast_radius`` result: a ``GraphView`` widget in a kernel (``widget=None``) or when
    ``widget=True``; else (``CLOUDG_GRAPH=off``, no kernel, no anywidget) the matplotlib
    figure ``plot_attack_paths`` draws."""
    if use_graph(widget):
        return graph_view(result, findings)
    data = _structured(result, "attack_paths")
    if "paths" in data:
        return plot_attack_paths(data, findings)
    title, _, _ = graph_elements(data)
    return plot_attack_paths({"dataset": data.get("dataset"), "paths": blast_radius_paths(data)},
                             findings, title=title, edge_labels=True)


def is_graph_result(tool: str, data: Any) -> bool:
    """Whether the magics should draw ``data`` (a result of ``tool``) as a graph."""
    if tool not in GRAPH_TOOLS or not isinstance(data, Mapping):
        return False
    if isinstance(data.get("paths"), Sequence):
        return bool(data["paths"])
    return isinstance(data.get("source"), Mapping) and bool(data.get("items"))
