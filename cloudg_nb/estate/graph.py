"""The estate as graphs: node numbering, CSR adjacency views and the traversal primitives.

Nodes are asset rows ``0..n-1``, then the virtual internet node (``n``, linked to every
internet entry point), then edge endpoints missing from the inventory (CIDRs, external
principals). Each view is a CSR adjacency built once per dataset version with numpy:

- ``out`` / ``in`` / ``both``: edges as stored (plus internet → exposed assets);
- ``flow`` / ``flow_in``: how traffic or an attacker moves (rules by direction, LB → target,
  workload → role → resource, trusted principal → role, internet → entry points; a group
  open to the internet does not lead on to a member attached with ``public_ip: false``);
- ``dep`` / ``dep_in``: "depends on" and "is depended on by" (dependency direction per type);
- ``identity`` / ``identity_in``: identity edges only, oriented like ``flow``.

Traversals (level-synchronous BFS, k shortest simple paths, sampled betweenness) are written
here on numpy rather than taken from networkx because they run 10-100x faster on these
arrays (see bench/graph_scale.py); scipy is used for connected components.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .models import (
    EDGE_TYPE_INFO,
    INTERNET_CIDRS,
    INTERNET_REF,
    AssetType,
    DependencyDirection,
    EdgeFamily,
    EdgeType,
)
from .progress_callbacks import CancelCheck, ProgressFn, checker, report

__all__ = [
    "EDGE_TYPES", "EDGE_CODE", "VIEWS", "Adjacency", "EstateGraph", "Reach", "bfs",
    "shortest_simple_paths", "betweenness", "type_mask", "family_mask", "account_of_endpoint",
]

EDGE_TYPES: list[EdgeType] = list(EdgeType)
EDGE_CODE: dict[str, int] = {t.value: i for i, t in enumerate(EDGE_TYPES)}
VIEWS = ("out", "in", "both", "flow", "flow_in", "dep", "dep_in", "identity", "identity_in")

_C = EDGE_CODE
_RULES = [_C["SECURITY_GROUP_RULE"], _C["NACL_RULE"]]
_FLOW_FORWARD = [_C[t] for t in ("LOAD_BALANCER_TARGET", "ROUTE", "ASSUMES_ROLE",
                                 "GRANTS_ACCESS", "IAM_POLICY_ATTACHMENT", "INVOKES")]
_IDENTITY_FORWARD = [_C[t] for t in ("ASSUMES_ROLE", "GRANTS_ACCESS", "IAM_POLICY_ATTACHMENT")]
_DEP_FORWARD = [_C[t.value] for t in EdgeType
                if EDGE_TYPE_INFO[t]["dependency"] is DependencyDirection.FORWARD]
_DEP_REVERSE = [_C[t.value] for t in EdgeType
                if EDGE_TYPE_INFO[t]["dependency"] is DependencyDirection.REVERSE]
_NETWORK_CONTROLS = {AssetType.SECURITY_GROUP.value, AssetType.NSG.value}
_ACCOUNT_IN_ARN = re.compile(r"^arn:[^:]*:[^:]*:[^:]*:(\d{12}):")
_BARE_ACCOUNT = re.compile(r"^\d{12}$")


def type_mask(edge_types: list[EdgeType] | None) -> np.ndarray | None:
    """A boolean mask over edge-type codes (None = every type)."""
    if not edge_types:
        return None
    mask = np.zeros(len(EDGE_TYPES), dtype=bool)
    for t in edge_types:
        mask[_C[EdgeType(t).value]] = True
    return mask


def account_of_endpoint(value: str) -> str | None:
    """The account id an external endpoint names (an ARN's account or a bare 12-digit id)."""
    m = _ACCOUNT_IN_ARN.match(value)
    if m:
        return m.group(1)
    return value if _BARE_ACCOUNT.match(value) else None


class Adjacency:
    """A CSR adjacency: arcs of node ``u`` are ``indptr[u]:indptr[u+1]``.

    Per arc: ``indices`` (the node reached), ``arc_edge`` (edge row, -1 for virtual internet
    links), ``arc_type`` (edge-type code), ``arc_forward`` (True when the arc follows the
    stored source → target direction).
    """

    __slots__ = ("arc_edge", "arc_forward", "arc_src", "arc_type", "indices", "indptr", "n")

    def __init__(self, n: int, u: np.ndarray, v: np.ndarray, edge: np.ndarray,
                 etype: np.ndarray, forward: np.ndarray) -> None:
        self.n = n
        key = u.astype(np.int64) * n + v.astype(np.int64)
        order = np.argsort(key, kind="stable")
        ks = key[order]
        keep = np.ones(len(ks), dtype=bool)
        keep[1:] = ks[1:] != ks[:-1]
        order = order[keep]
        us = u[order]
        self.indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(us, minlength=n), out=self.indptr[1:])
        self.arc_src = us.astype(np.int32)
        self.indices = v[order].astype(np.int32)
        self.arc_edge = edge[order].astype(np.int64)
        self.arc_type = etype[order].astype(np.int8)
        self.arc_forward = forward[order].astype(bool)

    @property
    def arcs(self) -> int:
        return len(self.indices)

    def degree(self) -> np.ndarray:
        return np.diff(self.indptr)

    def gather(self, frontier: np.ndarray) -> np.ndarray:
        """Arc positions of every arc leaving the nodes in ``frontier``."""
        starts = self.indptr[frontier]
        lens = self.indptr[frontier + 1] - starts
        total = int(lens.sum())
        if total == 0:
            return np.zeros(0, dtype=np.int64)
        shift = np.repeat(starts - (np.cumsum(lens) - lens), lens)
        return shift + np.arange(total, dtype=np.int64)


@dataclass
class Reach:
    """Result of a BFS: reached nodes in BFS order (sources excluded) with their depth, the
    node they were reached from and the arc used; ``dist`` is per node (-1 = not reached)."""

    nodes: np.ndarray
    depth: np.ndarray
    parent: np.ndarray
    arc: np.ndarray
    dist: np.ndarray
    complete: bool  # False when max_depth stopped the walk before it ran out of nodes


def bfs(
    adj: Adjacency,
    sources: np.ndarray | list[int],
    max_depth: int | None = None,
    *,
    mask: np.ndarray | None = None,
    on_level: Callable[[int, int], None] | None = None,
) -> Reach:
    """Level-synchronous BFS from ``sources`` over arcs whose type passes ``mask``."""
    n = adj.n
    dist = np.full(n, -1, dtype=np.int32)
    frontier = np.unique(np.asarray(sources, dtype=np.int64))
    dist[frontier] = 0
    levels: list[np.ndarray] = []
    level_arcs: list[np.ndarray] = []  # the arc that reached each node, level by level
    depth = 0
    complete = True
    while len(frontier):
        if max_depth is not None and depth >= max_depth:
            arcs = adj.gather(frontier)
            if mask is not None and len(arcs):
                arcs = arcs[mask[adj.arc_type[arcs]]]
            complete = not bool((dist[adj.indices[arcs]] < 0).any())
            break
        arcs = adj.gather(frontier)
        if mask is not None and len(arcs):
            arcs = arcs[mask[adj.arc_type[arcs]]]
        nbr = adj.indices[arcs]
        fresh = dist[nbr] < 0
        arcs, nbr = arcs[fresh], nbr[fresh]
        if not len(nbr):
            break
        new, first = np.unique(nbr, return_index=True)
        depth += 1
        dist[new] = depth
        levels.append(new)
        level_arcs.append(arcs[first])
        frontier = new
        if on_level is not None:
            on_level(depth, len(new))
    nodes = np.concatenate(levels) if levels else np.zeros(0, dtype=np.int64)
    arc = np.concatenate(level_arcs) if level_arcs else np.zeros(0, dtype=np.int64)
    return Reach(nodes=nodes, depth=dist[nodes], parent=adj.arc_src[arc].astype(np.int32),
                 arc=arc.astype(np.int64, copy=False), dist=dist, complete=complete)


def shortest_simple_paths(
    adj: Adjacency,
    rev: Adjacency,
    source: int,
    target: int,
    max_depth: int,
    max_paths: int,
    *,
    mask: np.ndarray | None = None,
    budget: int = 20_000,
    check: CancelCheck | None = None,
) -> tuple[list[tuple[list[int], list[int]]], bool]:
    """Up to ``max_paths`` simple paths source → target of at most ``max_depth`` arcs,
    shortest first: ([(nodes, arcs)], truncated).

    Distances to the target (a BFS over ``rev``, the transpose of ``adj``) prune the search:
    paths of each length L are enumerated in turn, expanding only neighbours that can still
    reach the target in the hops left. ``budget`` caps node expansions; ``truncated`` says
    it ran out (or more paths exist than were returned). ``check`` is called every 1,000
    expansions (it raises to stop a cancelled search).
    """
    check = check or checker(None)
    if source == target:
        return [], False
    # Distances to the target grow one BFS level at a time, only as far as the path length
    # being enumerated needs (horizon ≥ length - 1), so short answers stay cheap.
    dist_t = np.full(rev.n, -1, dtype=np.int32)
    dist_t[target] = 0
    frontier = np.array([target], dtype=np.int64)
    horizon = 0

    def grow() -> None:
        nonlocal frontier, horizon
        arcs = rev.gather(frontier)
        if mask is not None and len(arcs):
            arcs = arcs[mask[rev.arc_type[arcs]]]
        nbr = rev.indices[arcs]
        new = np.unique(nbr[dist_t[nbr] < 0])
        horizon += 1
        dist_t[new] = horizon
        frontier = new

    while dist_t[source] < 0 and horizon < max_depth and len(frontier):
        grow()
    if dist_t[source] < 0:
        return [], False
    indptr, indices, atype = adj.indptr, adj.indices, adj.arc_type
    found: list[tuple[list[int], list[int]]] = []
    expansions = 0
    exhausted = False

    def candidates(u: int, remaining: int) -> np.ndarray:
        lo, hi = indptr[u], indptr[u + 1]
        vs = indices[lo:hi]
        dv = dist_t[vs]
        ok = (dv >= 0) & (dv <= remaining - 1)
        if remaining > 1:
            ok &= vs != target
        if mask is not None:
            ok &= mask[atype[lo:hi]]
        pos = np.flatnonzero(ok)
        if len(pos) > 1:
            pos = pos[np.argsort(dv[pos], kind="stable")]
        return pos + lo

    for length in range(int(dist_t[source]), max_depth + 1):
        while horizon < length - 1 and len(frontier):
            grow()
        on_path = {source}
        nodes = [source]
        arcs: list[int] = []
        stack = [(candidates(source, length), 0)]
        while stack:
            cand, i = stack[-1]
            if i >= len(cand):
                stack.pop()
                if arcs:
                    arcs.pop()
                    on_path.discard(nodes.pop())
                continue
            stack[-1] = (cand, i + 1)
            arc = int(cand[i])
            v = int(indices[arc])
            if v in on_path:
                continue
            remaining = length - len(arcs) - 1
            if remaining == 0:
                if v == target:
                    found.append(([*nodes, v], [*arcs, arc]))
                    if len(found) >= max_paths:
                        return found, True
                continue
            expansions += 1
            if not expansions % 1000:
                check()
            if expansions > budget:
                exhausted = True
                break
            nodes.append(v)
            arcs.append(arc)
            on_path.add(v)
            stack.append((candidates(v, remaining), 0))
        if exhausted:
            break
    return found, exhausted


def betweenness(
    adj: Adjacency, sources: np.ndarray, *, on_source: Callable[[int], None] | None = None
) -> np.ndarray:
    """Brandes betweenness over ``adj`` accumulated from ``sources`` (vectorised per level).

    Unnormalised; with a sample of sources, scale by ``n / len(sources)`` for an estimate.
    """
    n = adj.n
    bc = np.zeros(n, dtype=np.float64)
    for k, s in enumerate(sources):
        dist = np.full(n, -1, dtype=np.int32)
        sigma = np.zeros(n, dtype=np.float64)
        dist[s] = 0
        sigma[s] = 1.0
        levels = [np.array([s], dtype=np.int64)]
        d = 0
        while True:
            frontier = levels[-1]
            arcs = adj.gather(frontier)
            if not len(arcs):
                break
            src = adj.arc_src[arcs]
            dst = adj.indices[arcs]
            new = np.unique(dst[dist[dst] < 0])
            dist[new] = d + 1
            on_next = dist[dst] == d + 1
            if on_next.any():
                sigma += np.bincount(dst[on_next], weights=sigma[src[on_next]], minlength=n)
            if not len(new):
                break
            levels.append(new)
            d += 1
        delta = np.zeros(n, dtype=np.float64)
        for level in reversed(levels[1:]):
            arcs = adj.gather(level)
            w = adj.arc_src[arcs]
            v = adj.indices[arcs]
            pred = dist[v] == dist[w] - 1
            w, v = w[pred], v[pred]
            contrib = sigma[v] / sigma[w] * (1.0 + delta[w])
            delta += np.bincount(v, weights=contrib, minlength=n)
        delta[s] = 0.0
        bc += delta
        if on_source is not None:
            on_source(k + 1)
    return bc


class EstateGraph:
    """Node numbering and lazily built adjacency views of one dataset version."""

    def __init__(self, assets: pd.DataFrame, edges: pd.DataFrame,
                 row_of_arn: dict[str, int] | None = None, *,
                 check: CancelCheck | None = None) -> None:
        check = check or checker(None)
        n = len(assets)
        self.n_assets = n
        self.internet = n
        ids = assets["id"].to_numpy(dtype=object)
        id_index = pd.Index(ids)
        src_ids = edges["source_id"].to_numpy(dtype=object)
        dst_ids = edges["target_id"].to_numpy(dtype=object)
        src = id_index.get_indexer(src_ids).astype(np.int64)
        dst = id_index.get_indexer(dst_ids).astype(np.int64)
        externals: dict[str, int] = {}
        check()
        for arr, raw in ((src, src_ids), (dst, dst_ids)):
            for k, i in enumerate(np.flatnonzero(arr < 0)):
                if not k % 50_000:
                    check()
                key = str(raw[i])
                if key.lower() in INTERNET_CIDRS:
                    arr[i] = n
                    continue
                row = row_of_arn.get(key) if row_of_arn else None
                if row is not None:
                    arr[i] = row
                    continue
                arr[i] = externals.setdefault(key, n + 1 + len(externals))
        self.external_ids = list(externals)
        self.n_nodes = n + 1 + len(externals)
        self.node_ids = np.concatenate(
            [ids, np.array([INTERNET_REF, *self.external_ids], dtype=object)])
        self.edge_src = src
        self.edge_dst = dst
        self.edge_code = (edges["edge_type"].map(_C).to_numpy(dtype=np.int64)
                          if len(edges) else np.zeros(0, dtype=np.int64))
        check()
        direction = edges["direction"].to_numpy(dtype=object)
        self.edge_egress = np.array([d == "egress" for d in direction], dtype=bool)
        self.edge_no_public_ip = _no_public_ip(edges, self.edge_code)
        self.is_exposed = np.zeros(self.n_nodes, dtype=bool)
        self.is_exposed[:n] = assets["is_internet_exposed"].to_numpy(dtype=bool)
        self.is_network_control = np.zeros(self.n_nodes, dtype=bool)
        self.is_network_control[:n] = assets["asset_type"].isin(_NETWORK_CONTROLS).to_numpy()
        exposed_rows = np.flatnonzero(self.is_exposed)
        self.virtual_targets = exposed_rows
        self._views: dict[str, Adjacency] = {}
        self._lock = threading.RLock()

    def node_of_id(self, node_id: str) -> int | None:
        """The node of an internet alias or an external endpoint id (assets: use resolve)."""
        if str(node_id).strip().lower() in INTERNET_CIDRS:
            return self.internet
        try:
            return self.n_assets + 1 + self.external_ids.index(str(node_id))
        except ValueError:
            return None

    # -- views -------------------------------------------------------------------------

    def view(self, name: str, progress: ProgressFn | None = None) -> Adjacency:
        """The adjacency ``name`` (one of VIEWS); its first build reports 0/1 then 1/1."""
        adj = self._views.get(name)
        if adj is not None:
            return adj
        with self._lock:
            adj = self._views.get(name)
            if adj is None:
                if name not in VIEWS:
                    raise ValueError(f"unknown graph view {name!r}")
                report(progress, 0, 1, f"building the {name} graph index")
                checker(progress)()
                adj = self._build(name)
                self._views[name] = adj
                report(progress, 1, 1, f"{name} graph index ready")
        return adj

    def _arcs(self, name: str) -> tuple[np.ndarray, ...]:
        s, d, c = self.edge_src, self.edge_dst, self.edge_code
        rows = np.arange(len(s), dtype=np.int64)
        vt = self.virtual_targets.astype(np.int64)
        v_src = np.full(len(vt), self.internet, dtype=np.int64)
        v_rows = np.full(len(vt), -1, dtype=np.int64)
        v_code = np.full(len(vt), _C["INTERNET_EXPOSED"], dtype=np.int64)
        true = np.ones
        false = np.zeros
        if name in ("out", "in", "both"):
            u = np.concatenate([s, v_src])
            v = np.concatenate([d, vt])
            e = np.concatenate([rows, v_rows])
            t = np.concatenate([c, v_code])
            f = true(len(u), dtype=bool)
            if name == "out":
                return u, v, e, t, f
            if name == "in":
                return v, u, e, t, false(len(u), dtype=bool)
            return (np.concatenate([u, v]), np.concatenate([v, u]), np.concatenate([e, e]),
                    np.concatenate([t, t]), np.concatenate([f, ~f]))
        if name in ("dep", "dep_in"):
            fw = np.isin(c, _DEP_FORWARD)
            rv = np.isin(c, _DEP_REVERSE)
            u = np.concatenate([s[fw], d[rv]])
            v = np.concatenate([d[fw], s[rv]])
            e = np.concatenate([rows[fw], rows[rv]])
            t = np.concatenate([c[fw], c[rv]])
            f = np.concatenate([true(fw.sum(), dtype=bool), false(rv.sum(), dtype=bool)])
            return (u, v, e, t, f) if name == "dep" else (v, u, e, t, ~f)
        if name in ("identity", "identity_in"):
            fw = np.isin(c, _IDENTITY_FORWARD)
            rv = c == _C["IAM_TRUST"]
            u = np.concatenate([s[fw], d[rv]])
            v = np.concatenate([d[fw], s[rv]])
            e = np.concatenate([rows[fw], rows[rv]])
            t = np.concatenate([c[fw], c[rv]])
            f = np.concatenate([true(fw.sum(), dtype=bool), false(rv.sum(), dtype=bool)])
            return (u, v, e, t, f) if name == "identity" else (v, u, e, t, ~f)
        # flow
        rule = np.isin(c, _RULES)
        ingress = rule & ~self.edge_egress
        egress = rule & self.edge_egress
        fw = np.isin(c, _FLOW_FORWARD) | egress
        rv = ingress | (c == _C["IAM_TRUST"])
        att = c == _C["ATTACHED_TO"]
        to_control = att & self.is_network_control[d]
        # a member without a public IP is not reached through its group's internet rules
        world = np.zeros(self.n_nodes, dtype=bool)
        open_rule = ingress & ((s == self.internet) | (d == self.internet))
        world[np.where(s[open_rule] == self.internet, d[open_rule], s[open_rule])] = True
        att_rev = to_control & ~(self.edge_no_public_ip & world[d])
        att_fw = att & ~to_control
        peer = c == _C["PEERING"]
        exp = c == _C["INTERNET_EXPOSED"]
        exp_end = np.where(s[exp] == self.internet, d[exp], s[exp])
        parts_u = [s[fw], d[rv], d[att_rev], s[att_fw], s[peer], d[peer],
                   np.full(exp.sum(), self.internet, dtype=np.int64), v_src]
        parts_v = [d[fw], s[rv], s[att_rev], d[att_fw], d[peer], s[peer], exp_end, vt]
        parts_e = [rows[fw], rows[rv], rows[att_rev], rows[att_fw], rows[peer], rows[peer],
                   rows[exp], v_rows]
        parts_t = [c[fw], c[rv], c[att_rev], c[att_fw], c[peer], c[peer], c[exp], v_code]
        parts_f = [true(fw.sum(), dtype=bool), false(rv.sum(), dtype=bool),
                   false(att_rev.sum(), dtype=bool), true(att_fw.sum(), dtype=bool),
                   true(peer.sum(), dtype=bool), false(peer.sum(), dtype=bool),
                   s[exp] == self.internet, true(len(vt), dtype=bool)]
        u, v, e, t, f = (np.concatenate(p) for p in (parts_u, parts_v, parts_e, parts_t,
                                                     parts_f))
        return (u, v, e, t, f) if name == "flow" else (v, u, e, t, ~f)

    def _build(self, name: str) -> Adjacency:
        u, v, e, t, f = self._arcs(name)
        return Adjacency(self.n_nodes, u, v, e, t, f)

    def components(self) -> tuple[int, np.ndarray]:
        """Weakly connected components over every node: (count, label per node)."""
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import connected_components

        adj = self.view("both")
        mat = csr_matrix(
            (np.ones(adj.arcs, dtype=np.int8), adj.indices, adj.indptr),
            shape=(self.n_nodes, self.n_nodes),
        )
        count, labels = connected_components(mat, directed=False)
        return int(count), labels


def _no_public_ip(edges: pd.DataFrame, codes: np.ndarray) -> np.ndarray:
    """Per edge: an ATTACHED_TO edge of a member without a public IP (inventory readers set
    ``properties.public_ip`` false), which internet rules of the group do not reach."""
    out = np.zeros(len(codes), dtype=bool)
    rows = np.flatnonzero(codes == _C["ATTACHED_TO"])
    if len(rows):
        props = edges["properties"].to_numpy(dtype=object)[rows]
        out[rows] = [isinstance(p, dict) and p.get("public_ip") is False for p in props]
    return out


def family_mask(family: EdgeFamily) -> np.ndarray:
    """A type mask of every edge type in ``family``."""
    mask = np.zeros(len(EDGE_TYPES), dtype=bool)
    for t in EdgeType:
        if EDGE_TYPE_INFO[t]["family"] is family:
            mask[_C[t.value]] = True
    return mask
