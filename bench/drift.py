"""The drift report at scale: ``diff_datasets`` on a large estate a week later, side by side
with networkx for the part that walks the graph.

For ``scaled(100_000)`` and a twin that lost 10% of its WAFs (asset and PROTECTS edge) and 1%
of its security-group attachments, it prints the median of repeated runs of: the field-level
``diff``, the drift report on top of it (``drift``: protections, attack paths, exposure), and
the crown jewels reachable from the internet with no WAF in front computed both by ours and by
networkx on a graph built from the same arcs (``agree``: the same jewels). Then what the report
found, as counts.

Run from the repository root:  ``python bench/drift.py [--quick] [--n N] [--json]`` (needs the
``bench`` extra for networkx). Figures, never a timed test; the script exits 0 either way.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

try:
    import networkx as nx
except ImportError:
    print("bench/drift.py compares against networkx, which is not installed.\n"
          "Install the bench extra from the repository root:  pip install -e '.[bench]'",
          file=sys.stderr)
    sys.exit(2)

from cloudg_nb.estate import Dataset, diff, scaled
from cloudg_nb.estate.drift import DRIFT_DEPTH, _Estate, _guards, _paths, drift
from cloudg_nb.estate.traversal import crown_jewels

#: Target: the drift report adds at most this share to the diff it builds on.
DRIFT_SHARE_TARGET = 0.5


def week_later(base: Dataset) -> Dataset:
    """``base`` with every tenth WAF gone (asset and edges) and every hundredth
    security-group attachment removed."""
    a, e = base.assets, base.edges
    wafs = a.loc[a["asset_type"] == "WAF", "id"].tolist()[::10]
    sg = set(a.loc[a["asset_type"] == "SECURITY_GROUP", "id"])
    attach = e.loc[(e["edge_type"] == "ATTACHED_TO") & e["target_id"].isin(sg), "id"].tolist()
    gone_edges = set(attach[::100]) | set(
        e.loc[e["source_id"].isin(wafs) | e["target_id"].isin(wafs), "id"])
    out = base.copy("week-later")
    out.update(assets=a[~a["id"].isin(wafs)].reset_index(drop=True),
               edges=e[~e["id"].isin(gone_edges)].reset_index(drop=True), normalize=False)
    return out


def networkx_open_jewels(ds: Dataset) -> set[str]:
    """Crown jewels reachable from the internet within DRIFT_DEPTH flow hops without entering
    a WAF-guarded node, with networkx."""
    est = _Estate(ds)
    adj = ds.view("flow")
    graph = nx.DiGraph()
    graph.add_edges_from(zip(adj.arc_src.tolist(), adj.indices.tolist(), strict=True))
    graph.remove_nodes_from(list(_guards(est)))
    internet = ds.graph().internet
    reached = nx.single_source_shortest_path_length(graph, internet, cutoff=DRIFT_DEPTH)
    return {str(est.keys[j]) for j in crown_jewels(ds).tolist() if j in reached and j != internet}


def ours_open_jewels(ds: Dataset) -> set[str]:
    paths, _ = _paths(_Estate(ds), DRIFT_DEPTH)
    return set(paths.open)


def median_time(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    times, value = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times), value


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=None, help="assets (default 100000)")
    parser.add_argument("--quick", action="store_true", help="20000 assets, 2 repeats")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    n = args.n or (20_000 if args.quick else 100_000)
    repeats = 2 if args.quick else 3
    base = scaled(n)
    target = week_later(base)
    base.graph(), target.graph()  # indexes built once, as a loaded dataset has them
    diff_s, changes = median_time(lambda: diff(base, target), repeats)
    drift_s, report = median_time(lambda: drift(base, target, changes), repeats)
    ours_s, ours = median_time(lambda: ours_open_jewels(target), repeats)
    peer_s, peer = median_time(lambda: networkx_open_jewels(target), repeats)
    share = drift_s / diff_s if diff_s else 0.0
    rows = [
        {"step": "diff (field by field)", "ours_s": diff_s},
        {"step": "drift report on top", "ours_s": drift_s, "share_of_diff": share,
         "target": DRIFT_SHARE_TARGET, "met": share <= DRIFT_SHARE_TARGET},
        {"step": "open paths to crown jewels", "ours_s": ours_s, "networkx_s": peer_s,
         "ratio": peer_s / ours_s if ours_s else 0.0, "agree": ours == peer,
         "jewels_open": len(ours)},
    ]
    out = {"n_assets": n, "repeats": repeats, "rows": rows, "found": report["counts"],
           "headline": report["summary"][:300]}
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"drift of scaled({n:,}) against a week later (median of {repeats})")
    for row in rows:
        line = f"  {row['step']:<28} {row['ours_s']:8.3f} s"
        if "networkx_s" in row:
            line += (f"   networkx {row['networkx_s']:.3f} s  ×{row['ratio']:.1f}  "
                     f"agree={row['agree']}  ({row['jewels_open']:,} jewels open)")
        if "share_of_diff" in row:
            line += (f"   {row['share_of_diff']:.0%} of the diff (target ≤ "
                     f"{row['target']:.0%}: {'ok' if row['met'] else 'MISS'})")
        print(line)
    print("found: " + ", ".join(f"{k} {v:,}" for k, v in report["counts"].items() if v))
    print("headline: " + out["headline"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
