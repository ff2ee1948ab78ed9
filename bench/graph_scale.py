"""Estate graph queries at scale, side by side with straightforward networkx versions.

For ``scaled(100_000)`` (≈ 380k edges) it prints: load time (generate + build every index),
the median time of find_assets (filtered), neighbors depth 2, blast_radius (twice: the
organisation-wide key that 5% of all stores use, and ``blast_radius_typical``, the busiest
ordinary key), attack_paths and find_paths — each next to a plain networkx implementation of
the same query on a graph built from the same edges (ratio = networkx / ours) — whether both
answers agree, and peak RSS (after our part, and for the whole run including the networkx
graphs).

Run from the repository root:  ``python bench/graph_scale.py [--quick] [--n N] [--json]``
(needs the ``bench`` extra for networkx: ``pip install -e '.[bench]'``). Figures, never a
timed test; a MISS is information, the script exits 0 either way.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import resource
import statistics
import sys
import time
from collections.abc import Callable
from itertools import islice, pairwise
from typing import Any

try:
    import networkx as nx
except ImportError:
    print(
        "bench/graph_scale.py compares against networkx, which is not installed.\n"
        "Install the bench extra from the repository root:  pip install -e '.[bench]'",
        file=sys.stderr,
    )
    sys.exit(2)

import numpy as np

from cloudg_nb.estate import (
    attack_paths,
    blast_radius,
    find_assets,
    find_paths,
    neighbors,
    scaled,
)
from cloudg_nb.estate.graph import EDGE_TYPES, VIEWS, bfs

#: Targets: seconds (load, queries), speed-up over networkx, peak RSS in MiB.
LOAD_TARGET_S = 3.0
QUERY_TARGET_S = 0.5
SPEEDUP_TARGETS = {"blast_radius": 3.0, "blast_radius_typical": 3.0, "attack_paths": 3.0}
RSS_TARGET_MB = 2048
MAX_DEPTH = 6
MAX_PATHS = 10


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def pick_targets(ds: Any) -> dict[str, Any]:
    """Deterministic query subjects: the organisation-wide key (most dependents), the most
    used ordinary key (the next one), a database reachable from the internet, an exposed load
    balancer, an EC2 instance."""
    g = ds.graph()
    a = ds.assets
    dep_in = ds.view("dep_in")
    keys = np.flatnonzero(a["asset_type"].isin(["KMS_KEY", "KEY_VAULT"]).to_numpy())
    by_use = keys[np.argsort(-dep_in.degree()[keys], kind="stable")]
    key = int(by_use[0])  # the organisation-wide key: a deliberately huge blast radius
    typical = int(by_use[1]) if len(by_use) > 1 else key  # the busiest ordinary key
    reach = bfs(ds.view("flow"), [g.internet], MAX_DEPTH)
    dbs = np.flatnonzero(a["asset_type"].isin(["RDS_INSTANCE", "SQL_DATABASE"]).to_numpy())
    reachable = dbs[reach.dist[dbs] >= 3]
    db = int(reachable[0]) if len(reachable) else int(dbs[0])
    lbs = np.flatnonzero((a["asset_type"] == "LOAD_BALANCER").to_numpy()
                         & a["is_internet_exposed"].to_numpy(dtype=bool))
    lb = int(lbs[0])
    ec2 = int(np.flatnonzero((a["asset_type"] == "EC2").to_numpy())[0])
    ids = a["id"].to_numpy(dtype=object)
    return {"key": str(ids[key]), "key_typical": str(ids[typical]), "db": str(ids[db]),
            "lb": str(ids[lb]), "ec2": str(ids[ec2])}


def build_networkx(ds: Any) -> dict[str, Any]:
    """networkx graphs with the same arcs as our views (flow, dependents, undirected), nodes
    carrying the asset attributes and edges their id and type."""
    names = ds.node_table()["id"].to_numpy(dtype=object)
    arrays = ds.node_arrays()
    edge_ids = ds.edges["id"].to_numpy(dtype=object)
    type_names = np.array([t.value for t in EDGE_TYPES], dtype=object)
    node_attrs = [
        (i, {"name": n, "type": t, "provider": p, "region": r, "account_id": a})
        for i, n, t, p, r, a in zip(names, arrays["name"], arrays["type"], arrays["provider"],
                                    arrays["region"], arrays["account_id"], strict=True)
    ]

    def fill(G: Any, view: str) -> Any:
        adj = ds.view(view)
        G.add_nodes_from(node_attrs)
        eids = np.where(adj.arc_edge >= 0, edge_ids[np.maximum(adj.arc_edge, 0)], None)
        G.add_edges_from(
            (u, v, {"id": e, "edge_type": t}) for u, v, e, t in zip(
                names[adj.arc_src], names[adj.indices], eids, type_names[adj.arc_type],
                strict=True))
        return G

    attrs = nx.DiGraph()
    a = ds.assets
    for rec in zip(a["id"], a["name"], a["asset_type"], a["provider"], a["tags"],
                   a["account_id"], strict=True):
        attrs.add_node(rec[0], name=rec[1], type=rec[2], provider=rec[3], tags=rec[4] or {},
                       account_id=rec[5])
    return {"flow": fill(nx.DiGraph(), "flow"), "dep_in": fill(nx.DiGraph(), "dep_in"),
            "undirected": fill(nx.Graph(), "both"), "attrs": attrs}


def nx_find_assets(G: nx.DiGraph) -> list[str]:
    hits = [(d["name"], n) for n, d in G.nodes(data=True)
            if d["provider"] == "AWS" and d["type"] == "EC2"
            and d["tags"].get("env") == "prod" and "compute-1" in d["name"].lower()]
    return [n for _, n in sorted(hits)]


def nx_blast(G: nx.DiGraph, node: str) -> dict[str, Any]:
    """Dependents by depth with the asset each depends on through, and accounts affected."""
    depth = {node: 0}
    items = []
    for parent, child in nx.bfs_edges(G, node):
        depth[child] = depth[parent] + 1
        attrs = G.nodes[child]
        edge = G.edges[parent, child]
        items.append({"depth": depth[child], "id": child, "name": attrs["name"],
                      "type": attrs["type"], "provider": attrs["provider"],
                      "region": attrs["region"], "account_id": attrs["account_id"],
                      "depends_on_id": parent, "edge_id": edge["id"],
                      "edge_type": edge["edge_type"]})
    by_depth: dict[int, int] = {}
    for it in items:
        by_depth[it["depth"]] = by_depth.get(it["depth"], 0) + 1
    accounts = sorted({it["account_id"] for it in items if it["account_id"]})
    return {"total": len(items), "by_depth": by_depth, "accounts": accounts, "items": items}


def nx_neighbors(G: nx.Graph, node: str, depth: int) -> list[dict[str, Any]]:
    """Nodes within ``depth`` hops with the node each was reached from and the edge used."""
    level = {node: 0}
    items = []
    for parent, child in nx.bfs_edges(G, node, depth_limit=depth):
        level[child] = level[parent] + 1
        items.append({"depth": level[child], "id": child, **G.nodes[child], "via_id": parent,
                      "edge_id": G.edges[parent, child]["id"],
                      "edge_type": G.edges[parent, child]["edge_type"]})
    return items


def nx_paths(G: Any, s: str, t: str) -> list[dict[str, Any]]:
    """Up to MAX_PATHS shortest simple paths of at most MAX_DEPTH hops, as node/edge records."""
    paths = []
    for p in islice(nx.shortest_simple_paths(G, s, t), MAX_PATHS):
        if len(p) - 1 > MAX_DEPTH:
            break
        nodes = [{"id": v, **G.nodes[v]} for v in p]
        edges = [{"from": u, "to": v, **G.edges[u, v]} for u, v in pairwise(p)]
        paths.append({"hops": len(p) - 1, "nodes": nodes, "edges": edges})
    return paths


def run(n: int, reps: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    ds = scaled(n)
    t_gen = time.perf_counter() - t0
    t1 = time.perf_counter()
    ds.index  # noqa: B018
    g = ds.graph()
    for view in VIEWS:
        g.view(view)
    ds.finding_index()
    ds.node_table()
    t_build = time.perf_counter() - t1
    load = t_gen + t_build
    targets = pick_targets(ds)
    for q in ("find", "neighbors", "blast", "attack", "paths"):  # our peak, before networkx
        {"find": lambda: find_assets(ds, query="compute-1", provider="AWS"),
         "neighbors": lambda: neighbors(ds, targets["ec2"], depth=2),
         "blast": lambda: blast_radius(ds, targets["key"]),
         "attack": lambda: attack_paths(ds, targets["db"]),
         "paths": lambda: find_paths(ds, targets["lb"], targets["db"], mode="undirected")}[q]()
    rss_ours = peak_rss_mb()

    t2 = time.perf_counter()
    graphs = build_networkx(ds)
    t_nx_build = time.perf_counter() - t2
    queries: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {
        "find_assets": (
            lambda: find_assets(ds, query="compute-1", provider="AWS", asset_types=["EC2"],
                                tag="env=prod"),
            lambda: nx_find_assets(graphs["attrs"])),
        "neighbors_d2": (
            lambda: neighbors(ds, targets["ec2"], depth=2),
            lambda: nx_neighbors(graphs["undirected"], targets["ec2"], 2)),
        "blast_radius": (
            lambda: blast_radius(ds, targets["key"]),
            lambda: nx_blast(graphs["dep_in"], targets["key"])),
        "blast_radius_typical": (
            lambda: blast_radius(ds, targets["key_typical"]),
            lambda: nx_blast(graphs["dep_in"], targets["key_typical"])),
        "attack_paths": (
            lambda: attack_paths(ds, targets["db"], max_depth=MAX_DEPTH, max_paths=MAX_PATHS),
            lambda: nx_paths(graphs["flow"], "internet", targets["db"])),
        "find_paths": (
            lambda: find_paths(ds, targets["lb"], targets["db"], mode="undirected",
                               max_depth=MAX_DEPTH, max_paths=MAX_PATHS),
            lambda: nx_paths(graphs["undirected"], targets["lb"], targets["db"])),
    }
    ours: dict[str, tuple[float, Any]] = {}
    theirs: dict[str, tuple[float, Any]] = {}
    for name, (mine, peer) in queries.items():
        mine()  # warm-up (first-use caches such as the tag index)
        peer()
        gc.collect()
        mine_t, peer_t = [], []
        mine_r = peer_r = None
        for _ in range(reps):  # interleaved, so machine noise hits both alike
            t_a = time.perf_counter()
            mine_r = mine()
            mine_t.append(time.perf_counter() - t_a)
            t_b = time.perf_counter()
            peer_r = peer()
            peer_t.append(time.perf_counter() - t_b)
        ours[name] = (statistics.median(mine_t), mine_r)
        theirs[name] = (statistics.median(peer_t), peer_r)
    agree = {
        "find_assets": len(ours["find_assets"][1]) == len(theirs["find_assets"][1]),
        "neighbors_d2": ours["neighbors_d2"][1].summary["total"]
        == len(theirs["neighbors_d2"][1]),
        "blast_radius": ours["blast_radius"][1].summary["total"]
        == theirs["blast_radius"][1]["total"],
        "blast_radius_typical": ours["blast_radius_typical"][1].summary["total"]
        == theirs["blast_radius_typical"][1]["total"],
        "attack_paths": sorted(p["hops"] for p in ours["attack_paths"][1]["paths"])
        == sorted(p["hops"] for p in theirs["attack_paths"][1]),
        "find_paths": sorted(p["hops"] for p in ours["find_paths"][1]["paths"])
        == sorted(p["hops"] for p in theirs["find_paths"][1]),
    }
    sizes = {
        "find_assets": len(ours["find_assets"][1]),
        "neighbors_d2": ours["neighbors_d2"][1].summary["total"],
        "blast_radius": ours["blast_radius"][1].summary["total"],
        "blast_radius_typical": ours["blast_radius_typical"][1].summary["total"],
        "attack_paths": ours["attack_paths"][1]["count"],
        "find_paths": ours["find_paths"][1]["count"],
    }
    rows = [{"query": "load (generate + build)", "ours_s": round(load, 4), "networkx_s":
             round(t_nx_build, 4), "ratio": None, "agree": None,
             "target": f"<= {LOAD_TARGET_S} s", "pass": load <= LOAD_TARGET_S,
             "detail": {"generate_s": round(t_gen, 4), "build_s": round(t_build, 4)}}]
    for name in ours:
        o, t = ours[name][0], theirs[name][0]
        ratio = t / o if o > 0 else float("inf")
        goal = SPEEDUP_TARGETS.get(name)
        ok = o <= QUERY_TARGET_S and (goal is None or ratio >= goal)
        target = f"<= {QUERY_TARGET_S} s" + (f", >= {goal:g}x networkx" if goal else "")
        rows.append({"query": name, "ours_s": round(o, 5), "networkx_s": round(t, 5),
                     "ratio": round(ratio, 2), "agree": agree[name], "items": sizes[name],
                     "target": target, "pass": ok})
    rss_all = peak_rss_mb()
    return {
        "n_assets": len(ds.assets), "n_edges": len(ds.edges), "targets": targets,
        "rows": rows,
        "rss": {"ours_mb": round(rss_ours, 1), "whole_run_mb": round(rss_all, 1),
                "target_mb": RSS_TARGET_MB, "pass": rss_ours <= RSS_TARGET_MB},
        "environment": {"python": platform.python_version(), "networkx": nx.__version__,
                        "numpy": np.__version__, "machine": platform.machine(),
                        "reps": reps},
    }


def render(report: dict[str, Any]) -> str:
    lines = [f"cloudg-nb graph_scale: {report['n_assets']:,} assets, "
             f"{report['n_edges']:,} edges",
             f"{'query':<24} {'ours':>10} {'networkx':>10} {'ratio':>8} {'agree':>6} "
             f"{'items':>6}  {'target':<28} result"]
    for r in report["rows"]:
        ratio = f"{r['ratio']:.1f}x" if r["ratio"] is not None else "-"
        agree = "-" if r["agree"] is None else ("yes" if r["agree"] else "NO")
        nx_label = f"{r['networkx_s'] * 1000:.2f}ms"
        if r["query"].startswith("load"):
            nx_label = f"({r['networkx_s']:.2f}s)"
        items = str(r.get("items", "-"))
        lines.append(f"{r['query']:<24} {r['ours_s'] * 1000:>8.2f}ms {nx_label:>10} "
                     f"{ratio:>8} {agree:>6} {items:>6}  {r['target']:<28} "
                     f"{'ok' if r['pass'] else 'MISS'}")
    rss = report["rss"]
    lines.append(f"{'peak RSS (ours)':<24} {rss['ours_mb']:>8.0f}MB {'':>10} {'':>8} {'':>6} "
                 f"{'':>6}  "
                 f"{'<= 2048 MB':<28} {'ok' if rss['pass'] else 'MISS'}")
    lines.append(f"{'peak RSS (whole run)':<24} {rss['whole_run_mb']:>8.0f}MB  (includes the "
                 "networkx graphs)")
    lines.append("load row: networkx column = time to build the networkx graphs (not a "
                 "target); ratio = networkx / ours")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="20,000 assets, fewer repeats")
    parser.add_argument("--n", type=int, default=None, help="number of assets")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    n = args.n or (20_000 if args.quick else 100_000)
    reps = 3 if args.quick else 21
    report = run(n, reps)
    print(json.dumps(report, indent=1) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
