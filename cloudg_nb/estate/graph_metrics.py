"""Whole-graph measures: the most central assets and overall graph statistics.

Betweenness is exact up to ``EXACT_BETWEENNESS_NODES`` nodes and estimated from a
deterministic sample of source nodes above that (Brandes, scaled by n / samples).
"""

from __future__ import annotations

from typing import Any, Literal, get_args

import numpy as np
import pandas as pd

from .dataset import Dataset
from .graph import EDGE_TYPES, betweenness
from .models import parse_choice
from .progress_callbacks import Phases, ProgressFn
from .query_results import QueryResult, check_depth, node_frame

__all__ = ["CENTRALITY_METRICS", "CentralityMetric", "EXACT_BETWEENNESS_NODES",
           "centrality_top", "graph_stats"]

CentralityMetric = Literal["degree", "in_degree", "out_degree", "betweenness"]
CENTRALITY_METRICS: tuple[CentralityMetric, ...] = get_args(CentralityMetric)
EXACT_BETWEENNESS_NODES = 1500


def centrality_top(
    ds: Dataset,
    *,
    metric: str = "degree",
    top: int = 20,
    samples: int = 64,
    seed: int = 0,
    include_virtual: bool = False,
    progress: ProgressFn | None = None,
) -> QueryResult:
    """The ``top`` (1..500) assets by ``metric``: degree (distinct neighbours), in_degree,
    out_degree (stored edges), or betweenness (exact ≤ 1,500 nodes, else sampled).

    Items: rank, id, name, type, provider, account_id, score. The internet node and
    external endpoints are left out unless ``include_virtual``.
    """
    parse_choice(metric, CENTRALITY_METRICS, field="metric")
    top = check_depth(top, field="top", high=500)
    ph = Phases(progress)
    ph.step(0, f"computing {metric}")
    g = ds.graph(ph.sub(1, 5))
    sampled = False
    used = 0
    if metric == "betweenness":
        adj = ds.view("both", ph.sub(5, 20))
        n = adj.n
        if n <= EXACT_BETWEENNESS_NODES:
            sources = np.arange(n)
        else:
            rng = np.random.default_rng(seed)
            sources = rng.choice(n, size=min(int(samples), n), replace=False)
            sampled = True
        used = len(sources)
        scores = betweenness(adj, sources, on_source=lambda k: ph.step(
            20 + 70 * k / max(1, used), f"{k}/{used} sources"))
        scores = scores / 2.0  # undirected: each pair counted from both ends
        if sampled:
            scores = scores * (n / used)
    else:
        view = {"degree": "both", "in_degree": "in", "out_degree": "out"}[metric]
        adj = ds.view(view, ph.sub(5, 60))
        scores = adj.degree().astype(np.float64)
    ph.step(92, "ranking")
    limit = g.n_nodes if include_virtual else g.n_assets
    cand = scores[:limit]
    k = min(top, len(cand))
    if k == 0:
        items = pd.DataFrame(columns=["rank", "id", "name", "type", "provider", "account_id",
                                      "score"])
    else:
        part = np.argpartition(-cand, k - 1)[:k] if k < len(cand) else np.arange(len(cand))
        ids = ds.node_table()["id"].to_numpy(dtype=object)[part].astype(str)
        order = np.lexsort((ids, -cand[part]))
        best = part[order]
        items = node_frame(ds, best)[["id", "name", "type", "provider", "account_id"]]
        items.insert(0, "rank", np.arange(1, len(best) + 1))
        items["score"] = np.round(cand[best], 4)
    ph.done()
    return QueryResult({"metric": metric, "top": top, "sampled": sampled,
                        "samples": used if metric == "betweenness" else None,
                        "nodes": int(g.n_nodes)}, items)


def graph_stats(ds: Dataset, *, progress: ProgressFn | None = None) -> dict[str, Any]:
    """Size, edge mix, components, degrees and internet entry points of the estate graph."""
    ph = Phases(progress)
    ph.step(0, "building the graph")
    g = ds.graph(ph.sub(1, 20))
    both = ds.view("both", ph.sub(20, 50))
    ph.step(50, "connected components")
    count, labels = g.components()
    sizes = np.bincount(labels)
    ph.step(80, "degrees")
    deg = both.degree()[: g.n_assets]
    n = g.n_assets
    flow = ds.view("flow")
    entry = int(flow.degree()[g.internet])
    by_type = pd.Series([EDGE_TYPES[c].value for c in g.edge_code], dtype=object) \
        .value_counts().sort_index()
    top = int(np.argmax(deg)) if n else None
    ph.done()
    return {
        "assets": n, "edges": len(g.edge_src), "external_nodes": len(g.external_ids),
        "nodes": int(g.n_nodes), "edge_types": {str(k): int(v) for k, v in by_type.items()},
        "connected_components": count, "largest_component": int(sizes.max()) if len(sizes)
        else 0,
        "isolated_assets": int((deg == 0).sum()) if n else 0,
        "average_degree": round(float(deg.mean()), 3) if n else 0.0,
        "max_degree": int(deg.max()) if n else 0,
        "max_degree_asset": str(ds.assets["id"].iat[top]) if top is not None else None,
        "density": round(len(g.edge_src) / (n * (n - 1)), 8) if n > 1 else 0.0,
        "internet_entry_points": entry,
    }
