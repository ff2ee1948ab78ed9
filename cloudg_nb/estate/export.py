"""Subgraph export around seed assets: d3 (nodes/links), cytoscape (elements) or GraphML.

GraphML is written with the standard library's ElementTree (no graph library needed).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..layer.jsonable import to_jsonable
from .dataset import Dataset
from .graph import EDGE_TYPES, bfs, type_mask
from .models import EdgeType, ExportFormat, parse_enum, parse_enum_list
from .progress_callbacks import Phases, ProgressFn
from .query_results import check_depth, node_frame

__all__ = ["subgraph_export", "MAX_EXPORT_NODES"]

MAX_EXPORT_NODES = 5000


def subgraph_export(
    ds: Dataset,
    seeds: Iterable[str] | str,
    *,
    depth: int = 1,
    format: str = "d3",
    edge_types: Iterable[str] | str | None = None,
    max_nodes: int = 500,
    progress: ProgressFn | None = None,
) -> dict[str, Any]:
    """The nodes within ``depth`` (0..4) hops of ``seeds`` (any direction) and every edge
    among them, as ``format``: d3 ``{nodes, links}``, cytoscape ``{elements: {nodes,
    edges}}`` or graphml (an XML string). Nearest nodes win when more than ``max_nodes``.

    Returns {format, node_count, edge_count, truncated, seeds, graph}.
    """
    depth = check_depth(depth, low=0)
    max_nodes = check_depth(max_nodes, field="max_nodes", high=MAX_EXPORT_NODES)
    fmt = parse_enum(ExportFormat, format, field="format")
    types = parse_enum_list(EdgeType, edge_types, field="edge_types")
    seed_list = [seeds] if isinstance(seeds, str) else list(seeds)
    ph = Phases(progress)
    ph.step(0, "resolving seeds")
    nodes = np.unique([ds.resolve_node(s, field="seeds") for s in seed_list]).astype(np.int64)
    adj = ds.view("both", ph.sub(5, 30))
    ph.step(30, "collecting the neighbourhood")
    reach = bfs(adj, nodes, depth, mask=type_mask(types))
    chosen = np.concatenate([nodes, reach.nodes])
    truncated = len(chosen) > max_nodes
    chosen = chosen[:max_nodes]
    ph.step(60, "collecting edges")
    g = ds.graph()
    inside = np.zeros(g.n_nodes, dtype=bool)
    inside[chosen] = True
    emask = inside[g.edge_src] & inside[g.edge_dst]
    if types:
        emask &= np.isin(g.edge_code, [EDGE_TYPES.index(t) for t in types])
    rows = np.flatnonzero(emask)
    nf = node_frame(ds, chosen)
    node_recs = [to_jsonable(r) for r in nf.to_dict("records")]
    ids = ds.node_table()["id"].to_numpy(dtype=object)
    e = ds.edges.iloc[rows]
    edge_recs = [
        {"id": str(eid), "source": str(ids[s]), "target": str(ids[t]), "edge_type": str(et),
         "relationship": to_jsonable(rel)}
        for eid, s, t, et, rel in zip(e["id"], g.edge_src[rows], g.edge_dst[rows],
                                      e["edge_type"], e["relationship"], strict=True)
    ]
    virtual = [int(v) for v in g.virtual_targets if inside[v]] if inside[g.internet] else []
    for v in virtual:
        edge_recs.append({"id": f"internet->{ids[v]}", "source": "internet",
                          "target": str(ids[v]), "edge_type": "INTERNET_EXPOSED",
                          "relationship": "virtual"})
    ph.step(85, "rendering")
    if fmt is ExportFormat.D3:
        graph: dict[str, Any] | str = {
            "nodes": node_recs, "links": [{**r, "type": r["edge_type"]} for r in edge_recs]}
    elif fmt is ExportFormat.CYTOSCAPE:
        graph = {"elements": {"nodes": [{"data": r} for r in node_recs],
                              "edges": [{"data": r} for r in edge_recs]}}
    else:
        graph = _graphml(node_recs, edge_recs)
    ph.done()
    return {"format": fmt.value, "node_count": len(node_recs), "edge_count": len(edge_recs),
            "truncated": truncated, "seeds": [str(ids[s]) for s in nodes], "graph": graph}


def _graphml(nodes: list[dict[str, Any]], edges: list[dict[str, Any]]) -> str:
    ns = "http://graphml.graphdrawing.org/xmlns"
    root = ET.Element("graphml", {"xmlns": ns})
    node_keys = ["name", "type", "provider", "region", "account_id"]
    edge_keys = ["edge_type", "relationship"]
    for k in node_keys:
        ET.SubElement(root, "key", {"id": f"n_{k}", "for": "node", "attr.name": k,
                                    "attr.type": "string"})
    for k in edge_keys:
        ET.SubElement(root, "key", {"id": f"e_{k}", "for": "edge", "attr.name": k,
                                    "attr.type": "string"})
    graph = ET.SubElement(root, "graph", {"id": "estate", "edgedefault": "directed"})
    for n in nodes:
        el = ET.SubElement(graph, "node", {"id": str(n["id"])})
        for k in node_keys:
            if n.get(k) is not None:
                ET.SubElement(el, "data", {"key": f"n_{k}"}).text = str(n[k])
    for e in edges:
        el = ET.SubElement(graph, "edge", {"id": e["id"], "source": e["source"],
                                           "target": e["target"]})
        for k in edge_keys:
            if e.get(k) is not None:
                ET.SubElement(el, "data", {"key": f"e_{k}"}).text = str(e[k])
    return ET.tostring(root, encoding="unicode", xml_declaration=True)
