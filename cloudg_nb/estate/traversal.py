"""Graph traversal queries: neighbours, edges, paths, attack and lateral-movement paths,
blast radius and dependencies.

Each takes a ``Dataset`` and references (``internet``/``0.0.0.0/0`` for the virtual internet
node); CPU-heavy ones take ``progress(progress, total, message)`` and report start, each
phase (including a first index build) and the end, strictly increasing.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from ..layer.errors import InvalidArgumentsError
from .dataset import Dataset
from .graph import Adjacency, Reach, bfs, shortest_simple_paths, type_mask
from .models import (
    ASSET_TYPE_INFO,
    AssetType,
    EdgeType,
    PathMode,
    TraversalDirection,
    parse_enum,
    parse_enum_list,
)
from .progress_callbacks import Phases, ProgressFn
from .query_results import (
    EDGE_VALUES,
    NODE_COLUMNS,
    QueryResult,
    check_depth,
    node_matrix,
    node_record,
    path_record,
)

__all__ = [
    "neighbors", "get_edges", "find_paths", "attack_paths", "lateral_movement_paths",
    "blast_radius", "depends_on", "dependents", "crown_jewels", "port_table", "SENSITIVE_TAGS",
]

#: Tag values (of data_classification / classification / sensitivity) marking crown jewels.
SENSITIVE_TAGS = frozenset({"pii", "phi", "pci", "confidential", "restricted", "secret",
                            "sensitive"})
_CLASS_KEYS = ("data_classification", "classification", "sensitivity")
_PATH_VIEWS = {PathMode.FLOW: ("flow", "flow_in"), PathMode.DIRECTED: ("out", "in"),
               PathMode.UNDIRECTED: ("both", "both")}
_DIR_VIEWS = {TraversalDirection.OUT: "out", TraversalDirection.IN: "in",
              TraversalDirection.BOTH: "both"}


def _edge_types(edge_types: str | Iterable[str] | None) -> list[EdgeType] | None:
    return parse_enum_list(EdgeType, edge_types, field="edge_types")


@functools.lru_cache(maxsize=32)
def _column_index(extra: tuple[str, ...]) -> pd.Index:
    """Column labels built once (pandas would otherwise convert them on every result)."""
    return pd.Index(["depth", *NODE_COLUMNS, *extra], dtype=object)


def _reach_frame(ds: Dataset, adj: Adjacency, reach: Reach, *, via: str = "via_id",
                 with_direction: bool = True) -> pd.DataFrame:
    """Reached nodes (BFS order: by depth, then inventory order) with the node they were
    reached from (column ``via``) and the edge used."""
    # One object block gathered with few fancy indexes, handed to pandas at once: on
    # mid-sized results, building the frame column by column costs more than the walk.
    # The depth column rides in the block and is then set as int64: cheaper than inserting
    # a column in front (pandas rebuilds its column index for an insert).
    nodes = reach.nodes
    rows = adj.arc_edge[reach.arc]
    extra = [via, "edge_id", "edge_type"] + (["edge_direction"] if with_direction else [])
    width = len(NODE_COLUMNS) + 1
    block = np.empty((len(nodes), width + len(extra)), dtype=object)
    block[:, 1:width] = node_matrix(ds)[nodes]
    block[:, width] = ds.node_arrays()["id"][reach.parent]
    real = rows >= 0
    edge_ids = np.full(len(rows), None, dtype=object)
    edge_ids[real] = ds.edge_ids()[rows[real]]
    block[:, width + 1] = edge_ids
    block[:, width + 2] = EDGE_VALUES[adj.arc_type[reach.arc]]
    if with_direction:
        block[:, width + 3] = np.where(adj.arc_forward[reach.arc], "out", "in")
    frame = pd.DataFrame(block, columns=_column_index(tuple(extra)), dtype=object, copy=False)
    frame["depth"] = reach.depth.astype(np.int64)
    return frame


def neighbors(
    ds: Dataset,
    ref: str,
    *,
    direction: str = "both",
    edge_types: Iterable[str] | str | None = None,
    depth: int = 1,
    progress: ProgressFn | None = None,
) -> QueryResult:
    """Nodes within ``depth`` (1..4) hops of ``ref`` following ``direction`` (out/in/both)
    over ``edge_types`` (all when empty).

    Items: depth, id, name, type, provider, region, account_id, via_id (the node it was
    reached from), edge_id, edge_type, edge_direction (out = stored from via_id to it).
    """
    depth = check_depth(depth)
    how = parse_enum(TraversalDirection, direction, field="direction")
    types = _edge_types(edge_types)
    ph = Phases(progress)
    ph.step(0, "resolving the reference")
    node = ds.resolve_node(ref)
    adj = ds.view(_DIR_VIEWS[how], ph.sub(5, 40))
    ph.step(40, "walking the graph")
    reach = bfs(adj, [node], depth, mask=type_mask(types),
                on_level=lambda d, k: ph.step(40 + 50 * d / depth, f"depth {d}: {k} nodes"))
    items = _reach_frame(ds, adj, reach)
    ph.done()
    counts = np.bincount(reach.depth) if len(reach.depth) else np.zeros(0, dtype=np.int64)
    by_depth = {d: int(c) for d, c in enumerate(counts.tolist()) if c}
    return QueryResult({
        "source": node_record(ds, node), "direction": how.value, "depth": depth,
        "edge_types": [t.value for t in types] if types else None, "total": len(items),
        "by_depth": by_depth,
    }, items)


def port_table(ds: Dataset) -> pd.DataFrame:
    """(row, lo, hi) port intervals of every edge with ports or a port range (cached)."""

    def build() -> pd.DataFrame:
        rows, lo, hi = [], [], []
        ports = ds.edges["ports"].tolist()
        ranges = ds.edges["port_range"].tolist()
        for i, (plist, prange) in enumerate(zip(ports, ranges, strict=True)):
            if plist:
                for p in plist:
                    rows.append(i)
                    lo.append(int(p))
                    hi.append(int(p))
            if isinstance(prange, str) and prange.strip():
                span = _parse_range(prange)
                if span is not None:
                    rows.append(i)
                    lo.append(span[0])
                    hi.append(span[1])
        return pd.DataFrame({"row": np.asarray(rows, dtype=np.int64),
                             "lo": np.asarray(lo, dtype=np.int64),
                             "hi": np.asarray(hi, dtype=np.int64)})

    return ds.cached("ports", build, label="port index")


def _parse_range(text: str) -> tuple[int, int] | None:
    t = text.strip().lower()
    if t in ("-1", "all", "*", "any"):
        return 0, 65535
    a, sep, b = t.partition("-")
    try:
        return (int(a), int(b)) if sep else (int(a), int(a))
    except ValueError:
        return None


def get_edges(
    ds: Dataset,
    *,
    ref: str | None = None,
    direction: str = "both",
    edge_types: Iterable[str] | str | None = None,
    port: int | None = None,
    protocol: str | None = None,
    source: str | None = None,
    target: str | None = None,
) -> pd.DataFrame:
    """Edges matching every filter, with source/target names.

    ``ref`` + ``direction``: edges leaving (out), entering (in) or touching (both) an asset;
    ``source``/``target``: edges from / to an asset; ``port``: edges whose ports or port
    range include it; ``protocol``: tcp/udp/... (case-insensitive).
    """
    how = parse_enum(TraversalDirection, direction, field="direction")
    types = _edge_types(edge_types)
    e = ds.edges
    g = ds.graph()
    mask = np.ones(len(e), dtype=bool)
    if ref:
        node = ds.resolve_node(ref)
        out_m, in_m = g.edge_src == node, g.edge_dst == node
        mask &= out_m if how is TraversalDirection.OUT else in_m \
            if how is TraversalDirection.IN else (out_m | in_m)
    if source:
        mask &= g.edge_src == ds.resolve_node(source, field="source")
    if target:
        mask &= g.edge_dst == ds.resolve_node(target, field="target")
    if types:
        mask &= e["edge_type"].isin([t.value for t in types]).to_numpy()
    if port is not None:
        try:
            p = int(port)
        except (TypeError, ValueError):
            p = -1
        if not 0 <= p <= 65535:
            raise InvalidArgumentsError("port must be a number from 0 to 65535.",
                                        data={"field": "port", "min": 0, "max": 65535})
        pt = port_table(ds)
        hit = np.zeros(len(e), dtype=bool)
        hit[pt["row"].to_numpy()[((pt["lo"] <= p) & (pt["hi"] >= p)).to_numpy()]] = True
        mask &= hit
    if protocol:
        mask &= (e["protocol"].astype(str).str.lower() == str(protocol).lower()).to_numpy()
    rows = np.flatnonzero(mask)
    sub = e.iloc[rows].reset_index(drop=True)
    names = ds.node_table()["name"].to_numpy(dtype=object)
    out = sub[["id", "source_id", "target_id", "edge_type", "relationship", "ports",
               "port_range", "protocol", "cidr", "direction", "description"]].copy()
    out.insert(2, "source_name", names[g.edge_src[rows]])
    out.insert(4, "target_name", names[g.edge_dst[rows]])
    return out


def _paths(ds: Dataset, src: int, dst: int, mode: PathMode, max_depth: int, max_paths: int,
           types: list[EdgeType] | None, ph: Phases) -> tuple[list[dict[str, Any]], bool]:
    fwd_name, rev_name = _PATH_VIEWS[mode]
    adj = ds.view(fwd_name, ph.sub(5, 30))
    rev = ds.view(rev_name, ph.sub(30, 50))
    ph.step(50, "searching paths")
    found, truncated = shortest_simple_paths(adj, rev, src, dst, max_depth, max_paths,
                                             mask=type_mask(types), check=ph.check)
    ph.step(90, f"{len(found)} paths found")
    return [path_record(ds, adj, nodes, arcs) for nodes, arcs in found], truncated


def find_paths(
    ds: Dataset,
    source: str,
    target: str,
    *,
    max_depth: int = 6,
    max_paths: int = 10,
    mode: str = "flow",
    edge_types: Iterable[str] | str | None = None,
    progress: ProgressFn | None = None,
) -> dict[str, Any]:
    """Up to ``max_paths`` simple paths source → target of at most ``max_depth`` (1..10)
    hops, shortest first. ``mode``: flow (how traffic/attackers move), directed, undirected.

    Returns {source, target, mode, max_depth, count, truncated, paths: [{hops, nodes, edges}]}.
    """
    max_depth = check_depth(max_depth, field="max_depth", high=10)
    max_paths = check_depth(max_paths, field="max_paths", high=100)
    how = parse_enum(PathMode, mode, field="mode")
    types = _edge_types(edge_types)
    ph = Phases(progress)
    ph.step(0, "resolving the references")
    src = ds.resolve_node(source, field="source")
    dst = ds.resolve_node(target, field="target")
    paths, truncated = _paths(ds, src, dst, how, max_depth, max_paths, types, ph)
    ph.done()
    return {"source": node_record(ds, src), "target": node_record(ds, dst), "mode": how.value,
            "max_depth": max_depth, "count": len(paths), "truncated": truncated,
            "paths": paths}


def crown_jewels(ds: Dataset) -> np.ndarray:
    """Asset rows attackers aim for: data stores and key stores, tagged-sensitive first."""
    a = ds.assets
    data_types = [t.value for t, info in ASSET_TYPE_INFO.items()
                  if info["data_store"] or t in (AssetType.KMS_KEY, AssetType.KEY_VAULT)]
    rows = np.flatnonzero(a["asset_type"].isin(data_types).to_numpy())
    sensitive = np.array([_is_sensitive(t) for t in a["tags"].iloc[rows].tolist()], dtype=bool)
    return np.concatenate([rows[sensitive], rows[~sensitive]])


def _is_sensitive(tags: Any) -> bool:
    if not isinstance(tags, dict):
        return False
    return any(str(tags.get(k, "")).lower() in SENSITIVE_TAGS for k in _CLASS_KEYS)


def _tree_path(reach: Reach, node: int, source_nodes: set[int]) -> tuple[list[int], list[int]]:
    """The BFS-tree path from a source to ``node`` (nodes, arcs)."""
    pos = {int(v): i for i, v in enumerate(reach.nodes)}
    nodes, arcs = [node], []
    cur = node
    while cur not in source_nodes:
        i = pos[cur]
        arcs.append(int(reach.arc[i]))
        cur = int(reach.parent[i])
        nodes.append(cur)
    return nodes[::-1], arcs[::-1]


def attack_paths(
    ds: Dataset,
    target: str | None = None,
    *,
    max_depth: int = 6,
    max_paths: int = 10,
    progress: ProgressFn | None = None,
) -> dict[str, Any]:
    """How an attacker gets from the internet to ``target`` over the flow view.

    With a target: its shortest simple paths from the internet node. Without: the shortest
    path to each reachable crown jewel (data and key stores, sensitive-tagged first).
    Each path adds ``entry`` (the internet entry point) and ``target_sensitive``.
    """
    max_depth = check_depth(max_depth, field="max_depth", high=10)
    max_paths = check_depth(max_paths, field="max_paths", high=100)
    ph = Phases(progress)
    ph.step(0, "resolving the target")
    internet = ds.graph(ph.sub(1, 5)).internet
    if target:
        dst = ds.resolve_node(target, field="target")
        paths, truncated = _paths(ds, internet, dst, PathMode.FLOW, max_depth, max_paths, None,
                                  ph)
        targets_reachable = 1 if paths else 0
    else:
        adj = ds.view("flow", ph.sub(5, 40))
        ph.step(40, "walking from the internet")
        reach = bfs(adj, [internet], max_depth)
        jewels = crown_jewels(ds)
        reached = jewels[reach.dist[jewels] > 0]
        order = np.argsort(reach.dist[reached], kind="stable")
        reached = reached[order]
        targets_reachable = len(reached)
        paths = [path_record(ds, adj, *_tree_path(reach, int(j), {internet}))
                 for j in reached[:max_paths]]
        truncated = len(reached) > max_paths
        ph.step(90, f"{len(paths)} paths")
    tags = ds.assets["tags"]
    row_of = ds.index.row_of_id
    for p in paths:
        p["entry"] = p["nodes"][1] if len(p["nodes"]) > 1 else None
        last = row_of.get(str(p["nodes"][-1]["id"]))
        p["target_sensitive"] = bool(last is not None and _is_sensitive(tags.iat[last]))
    ph.done()
    return {"source": node_record(ds, internet),
            "target": node_record(ds, ds.resolve_node(target, field="target"))
            if target else None,
            "max_depth": max_depth, "count": len(paths), "truncated": truncated,
            "targets_reachable": targets_reachable, "paths": paths}


def lateral_movement_paths(
    ds: Dataset,
    source: str | None = None,
    target: str | None = None,
    *,
    max_depth: int = 4,
    max_paths: int = 20,
    progress: ProgressFn | None = None,
) -> dict[str, Any]:
    """Paths over identity edges only (trust, assume-role, policy, grants), as flow.

    Both ends: shortest simple paths between them. Only ``source``: the shortest path to
    everything it can reach. Only ``target``: from everything that can reach it. Neither:
    from identity roots (principals nothing else leads to) to crown jewels.
    """
    max_depth = check_depth(max_depth, field="max_depth", high=10)
    max_paths = check_depth(max_paths, field="max_paths", high=100)
    ph = Phases(progress)
    ph.step(0, "resolving the references")
    src = ds.resolve_node(source, field="source") if source else None
    dst = ds.resolve_node(target, field="target") if target else None
    adj = ds.view("identity", ph.sub(5, 30))
    rev = ds.view("identity_in", ph.sub(30, 50))
    ph.step(50, "walking identity edges")
    truncated = False
    if src is not None and dst is not None:
        found, truncated = shortest_simple_paths(adj, rev, src, dst, max_depth, max_paths,
                                                 check=ph.check)
        paths = [path_record(ds, adj, n, a) for n, a in found]
    elif src is not None or dst is not None:
        start = src if src is not None else dst
        assert start is not None  # one of the two is given in this branch
        walk = adj if src is not None else rev
        reach = bfs(walk, [start], max_depth)
        ends = reach.nodes[:max_paths]
        truncated = len(reach.nodes) > max_paths
        paths = []
        for end in ends:
            nodes, arcs = _tree_path(reach, int(end), {start})
            if src is None:  # walked backwards: flip into source → target order
                nodes = nodes[::-1]
                arcs = [_reverse_arc(adj, rev, a) for a in arcs[::-1]]
            paths.append(path_record(ds, adj, nodes, arcs))
    else:
        has_out = np.diff(adj.indptr) > 0
        has_in = np.diff(rev.indptr) > 0
        roots = np.flatnonzero(has_out & ~has_in)
        reach = bfs(adj, roots, max_depth)
        jewels = crown_jewels(ds)
        reached = jewels[reach.dist[jewels] > 0]
        reached = reached[np.argsort(reach.dist[reached], kind="stable")]
        truncated = len(reached) > max_paths
        root_set = {int(r) for r in roots}
        paths = [path_record(ds, adj, *_tree_path(reach, int(j), root_set))
                 for j in reached[:max_paths]]
    ph.done()
    return {"source": node_record(ds, src) if src is not None else None,
            "target": node_record(ds, dst) if dst is not None else None,
            "max_depth": max_depth, "count": len(paths), "truncated": truncated,
            "paths": paths}


def _reverse_arc(adj: Adjacency, rev: Adjacency, arc: int) -> int:
    """The arc of ``adj`` matching arc ``arc`` of its transpose ``rev``."""
    u = int(rev.indices[arc])
    v = int(rev.arc_src[arc])
    lo, hi = adj.indptr[u], adj.indptr[u + 1]
    hits = np.flatnonzero(adj.indices[lo:hi] == v)
    return int(lo + hits[0])


def _dependency_walk(ds: Dataset, ref: str, view: str, max_depth: int | None,
                     progress: ProgressFn | None, what: str, via: str
                     ) -> tuple[int, Reach, pd.DataFrame]:
    ph = Phases(progress)
    ph.step(0, "resolving the reference")
    node = ds.resolve_node(ref)
    adj = ds.view(view, ph.sub(5, 30))
    ph.step(30, f"walking {what}")
    horizon = max_depth or 10

    def level(d: int, k: int) -> None:
        ph.step(30 + 60 * min(d, horizon) / horizon, f"depth {d}: {k} {what}")

    reach = bfs(adj, [node], max_depth, on_level=level)
    ph.step(92, "shaping the result")
    items = _reach_frame(ds, adj, reach, via=via, with_direction=False)
    ph.done()
    return node, reach, items


def _distinct(values: np.ndarray) -> list[str]:
    """Sorted distinct non-null values (deduplicated before the per-value checks)."""
    return sorted({str(v) for v in set(values.tolist()) if v is not None and v == v})


def blast_radius(
    ds: Dataset,
    ref: str,
    *,
    max_depth: int | None = None,
    progress: ProgressFn | None = None,
) -> QueryResult:
    """What breaks if ``ref`` goes away: its transitive dependents, by depth.

    Items (by depth, then inventory order): depth, id, name, type, provider, region,
    account_id, depends_on_id (the asset it depends on through), edge_id, edge_type.
    Summary: source, total, by_depth, max_depth_reached, accounts_affected,
    providers_affected, complete (False when ``max_depth`` cut the walk short).
    """
    if max_depth is not None:
        max_depth = check_depth(max_depth, field="max_depth", high=20)
    node, reach, items = _dependency_walk(ds, ref, "dep_in", max_depth, progress, "dependents",
                                          "depends_on_id")
    arrays = ds.node_arrays()
    counts = np.bincount(reach.depth) if len(reach.depth) else np.zeros(1, dtype=np.int64)
    by_depth = {int(d): int(c) for d, c in enumerate(counts) if d > 0 and c > 0}
    return QueryResult({
        "source": node_record(ds, node), "total": len(items), "by_depth": by_depth,
        "max_depth_reached": max(by_depth) if by_depth else 0,
        "accounts_affected": _distinct(arrays["account_id"][reach.nodes]),
        "providers_affected": _distinct(arrays["provider"][reach.nodes]),
        "complete": reach.complete,
    }, items)


def depends_on(ds: Dataset, ref: str, *, depth: int = 1,
               progress: ProgressFn | None = None) -> QueryResult:
    """What ``ref`` needs (dependency direction per edge type), up to ``depth`` (1..4).

    Items: depth, id, name, type, provider, region, account_id, needed_by_id, edge_id,
    edge_type."""
    depth = check_depth(depth)
    node, reach, items = _dependency_walk(ds, ref, "dep", depth, progress, "dependencies",
                                          "needed_by_id")
    return QueryResult({"source": node_record(ds, node), "depth": depth, "total": len(items),
                        "complete": reach.complete}, items)


def dependents(ds: Dataset, ref: str, *, depth: int = 1,
               progress: ProgressFn | None = None) -> QueryResult:
    """What needs ``ref``, up to ``depth`` (1..4); ``blast_radius`` is the unbounded form.

    Items as blast_radius (depends_on_id = the asset it depends on through)."""
    depth = check_depth(depth)
    node, reach, items = _dependency_walk(ds, ref, "dep_in", depth, progress, "dependents",
                                          "depends_on_id")
    return QueryResult({"source": node_record(ds, node), "depth": depth, "total": len(items),
                        "complete": reach.complete}, items)


