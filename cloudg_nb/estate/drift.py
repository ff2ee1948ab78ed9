"""What got worse (and what improved) from one dataset to another, as a security review reads
it: protections lost, attack paths to crown jewels opened or closed, internet exposure gained
or weakened, findings opened or closed, with a short plain-words summary first.

``drift(base, target, changes)`` takes the field-level ``diff`` result (findings, exposure)
and walks each estate once from the internet. An attack path is *open* when it reaches a crown
jewel through an entry point with no WAF in front; losing the WAF of an entry opens the paths
behind it even though no edge between the entry and the jewel changed.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..layer.jsonable import to_jsonable
from .dataset import Dataset
from .exposure import internet_exposure
from .graph import Adjacency, bfs
from .models import AssetType, EdgeType, Severity
from .traversal import crown_jewels

__all__ = ["DRIFT_DEPTH", "drift"]

#: Hops from the internet an attack path may take (as ``attack_paths``' default).
DRIFT_DEPTH = 6
#: Asset types whose attachment filters traffic to what they are attached to.
_FILTERS = frozenset({AssetType.WAF.value, AssetType.SECURITY_GROUP.value, AssetType.NSG.value})
_PROTECTS = EdgeType.PROTECTS.value
_ATTACHED = EdgeType.ATTACHED_TO.value


def _keys(a: pd.DataFrame) -> np.ndarray:
    """Per asset row, the key that matches it across datasets (ARN, else id), as ``diff``."""
    arn = a["arn"].astype(object)
    return arn.where(arn.notna() & (arn.astype(str) != ""), a["id"].astype(object)) \
        .astype(str).to_numpy(dtype=object)


class _Estate:
    """One dataset's facts the comparison needs, read once."""

    def __init__(self, ds: Dataset) -> None:
        a = ds.assets
        self.ds = ds
        self.keys = _keys(a)
        self.row_of_key = {k: i for i, k in enumerate(self.keys.tolist())}
        self.ids = a["id"].astype(str).to_numpy(dtype=object)
        self.names = a["name"].to_numpy(dtype=object)
        self.types = a["asset_type"].astype(str).to_numpy(dtype=object)
        exposed = internet_exposure(ds).items
        row_of = ds.index.row_of_id
        self.exposure: dict[str, dict[str, Any]] = {}
        for rec in exposed[["id", "waf_protected", "protected_by", "sensitive_ports"]] \
                .to_dict("records"):
            row = row_of.get(str(rec["id"]))
            if row is not None:
                self.exposure[str(self.keys[row])] = {str(k): v for k, v in rec.items()}

    def brief(self, row: int) -> dict[str, Any]:
        return to_jsonable({"id": self.ids[row], "name": self.names[row],
                            "type": self.types[row]})

    def label(self, row: int) -> str:
        name = self.names[row]
        return str(name) if isinstance(name, str) and name else str(self.ids[row])

    @functools.cached_property
    def protections(self) -> dict[tuple[str, str, str], tuple[int, int]]:
        """(protector key, protected key, edge type) -> (protector row, protected row) for
        each PROTECTS edge and each attachment to a WAF, security group or NSG."""
        e = self.ds.edges
        e = e.loc[e["edge_type"].isin([_PROTECTS, _ATTACHED]).to_numpy(),
                  ["source_id", "target_id", "edge_type"]]
        row_of = self.ds.index.row_of_id
        found: dict[tuple[str, str, str], tuple[int, int]] = {}
        for src, dst, kind in zip(e["source_id"].tolist(), e["target_id"].tolist(),
                                  e["edge_type"].tolist(), strict=True):
            s, d = row_of.get(str(src)), row_of.get(str(dst))
            if s is None or d is None:
                continue
            if kind == _ATTACHED:  # either end may be the filter
                if self.types[d] in _FILTERS:
                    s, d = d, s
                elif self.types[s] not in _FILTERS:
                    continue
            found[(str(self.keys[s]), str(self.keys[d]), str(kind))] = (s, d)
        return found


@dataclass
class _Paths:
    """Crown jewels the internet reaches (keys), and those it reaches without passing a
    WAF-guarded asset, each with its path (asset rows from the internet's first hop on)."""

    reached: set[str]
    open: dict[str, list[int]]


def _guards(est: _Estate) -> dict[int, int]:
    """Graph nodes a path through which is guarded by a WAF -> the WAF-protected asset row:
    the protected assets themselves, and the security groups / NSGs whose every member is
    one (traffic a rule admits into such a group reaches only WAF-guarded members)."""
    guarded = {est.row_of_key[k]: est.row_of_key[k] for k, rec in est.exposure.items()
               if rec["waf_protected"]}
    if not guarded:
        return guarded
    members: dict[int, set[int]] = {}
    for (_, _, kind), (f, m) in est.protections.items():
        if kind == _ATTACHED and est.types[f] != AssetType.WAF.value:
            members.setdefault(f, set()).add(m)
    for group, held in members.items():
        if held and held <= guarded.keys():
            guarded.setdefault(group, min(held))
    return guarded


def _paths(est: _Estate, depth: int) -> tuple[_Paths, dict[int, int]]:
    ds = est.ds
    internet = ds.graph().internet
    adj = ds.view("flow")
    jewels = crown_jewels(ds)
    everything = bfs(adj, [internet], depth)
    reached = {str(est.keys[j]) for j in jewels[everything.dist[jewels] > 0].tolist()}
    guards = _guards(est)
    walk_on = adj
    if guards:  # the same view without the arcs into guarded nodes
        keep = ~np.isin(adj.indices, np.fromiter(guards, dtype=np.int64))
        walk_on = Adjacency(adj.n, adj.arc_src[keep], adj.indices[keep], adj.arc_edge[keep],
                            adj.arc_type[keep], adj.arc_forward[keep])
    walk = bfs(walk_on, [internet], depth)
    open_rows = sorted((j for j in jewels.tolist() if walk.dist[j] > 0),
                       key=lambda j: int(walk.dist[j]))
    pos = {int(v): i for i, v in enumerate(walk.nodes.tolist())}
    parent = walk.parent.tolist()
    paths: dict[str, list[int]] = {}
    for j in open_rows:
        path, cur = [j], j
        while True:
            cur = int(parent[pos[cur]])
            if cur == internet:
                break
            path.append(cur)
        if all(r < len(est.keys) for r in path):  # through assets only (no external ends)
            paths[str(est.keys[j])] = path[::-1]
    return _Paths(reached, paths), guards


def _lost_protections(was: _Estate, now: _Estate) -> tuple[list[dict[str, Any]],
                                                            list[dict[str, Any]]]:
    before, after = was.protections, now.protections

    def record(est: _Estate, rows: tuple[int, int], kind: str, how: str) -> dict[str, Any]:
        p, q = rows
        words = "protects" if kind == _PROTECTS else "filters"
        return {"protector": est.brief(p), "protected": est.brief(q), "edge_type": kind,
                "how": how, "text": f"{est.label(p)} ({est.types[p]}) {words} "
                                    f"{est.label(q)}"}

    lost = []
    for key, rows in before.items():
        if key in after or key[1] not in now.row_of_key:
            continue  # still there, or the protected asset itself is gone
        how = "protector removed" if key[0] not in now.row_of_key else "protection removed"
        lost.append(record(was, rows, key[2], how))
    gained = [record(now, rows, key[2], "protection added") for key, rows in after.items()
              if key not in before and key[1] in was.row_of_key]
    first = {_PROTECTS: 0}  # WAFs and other PROTECTS edges before filter attachments
    lost.sort(key=lambda p: first.get(p["edge_type"], 1))
    gained.sort(key=lambda p: first.get(p["edge_type"], 1))
    return lost, gained


def _path_record(est: _Estate, rows: list[int], why: str) -> dict[str, Any]:
    jewel = rows[-1]
    return {"crown_jewel": est.brief(jewel), "entry": est.brief(rows[0]),
            "path": ["internet", *(est.label(r) for r in rows)], "hops": len(rows),
            "why": why}


def _path_changes(was: _Estate, now: _Estate, depth: int
                  ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    (before, guarded), (after, _) = _paths(was, depth), _paths(now, depth)
    guard_by_key = {str(was.keys[r]): p for r, p in guarded.items()}
    opened = []
    for key, rows in after.open.items():
        if key in before.open:
            continue
        lost = [guard_by_key[str(now.keys[r])] for r in rows if str(now.keys[r]) in guard_by_key]
        if lost:
            asset = lost[0]
            wafs = was.exposure[str(was.keys[asset])]["protected_by"]
            why = f"{was.label(asset)} lost its WAF ({', '.join(map(str, wafs)) or 'a WAF'})"
        elif key in before.reached:
            why = "a new way in that no WAF guards"
        else:
            why = "a new route from the internet"
        opened.append(_path_record(now, rows, why))
    closed = []
    for key, rows in before.open.items():
        if key in after.open:
            continue
        why = ("now reached only through a WAF" if key in after.reached else
               "gone from the estate" if key not in now.row_of_key else
               "no longer reachable from the internet")
        closed.append(_path_record(was, rows, why))
    return opened, closed


def _exposure_changes(was: _Estate, now: _Estate) -> tuple[list[dict[str, Any]],
                                                            list[dict[str, Any]]]:
    """Entry points exposed in both whose WAF went away (or came) or whose sensitive open
    ports grew (or shrank)."""
    weaker, stronger = [], []
    for key, rec in now.exposure.items():
        old = was.exposure.get(key)
        if old is None:
            continue
        row = now.row_of_key[key]
        more = sorted(set(rec["sensitive_ports"] or []) - set(old["sensitive_ports"] or []))
        fewer = sorted(set(old["sensitive_ports"] or []) - set(rec["sensitive_ports"] or []))
        worse, better = [], []
        if old["waf_protected"] and not rec["waf_protected"]:
            worse.append(f"no WAF in front any more (was {', '.join(old['protected_by'])})")
        if rec["waf_protected"] and not old["waf_protected"]:
            better.append(f"now behind a WAF ({', '.join(rec['protected_by'])})")
        if more:
            worse.append("sensitive ports newly open: " + ", ".join(map(str, more)))
        if fewer:
            better.append("sensitive ports closed: " + ", ".join(map(str, fewer)))
        if worse:
            weaker.append({"asset": now.brief(row), "changes": worse})
        if better:
            stronger.append({"asset": now.brief(row), "changes": better})
    return weaker, stronger


def _ranked(severity: Any) -> int:
    try:
        return Severity(str(severity)).rank
    except ValueError:
        return 0


def drift(base: Dataset, target: Dataset, changes: dict[str, Any], *,
          depth: int = DRIFT_DEPTH) -> dict[str, Any]:
    """``{"summary": str, "worse": {...}, "better": {...}, "counts": {...}}`` from base to
    target; ``changes`` is ``diff(base, target)`` (its finding and exposure lists, uncut)."""
    was, now = _Estate(base), _Estate(target)
    lost, gained = _lost_protections(was, now)
    opened, closed = _path_changes(was, now, depth)
    weaker, stronger = _exposure_changes(was, now)
    f = changes["findings"]
    raised = [c for c in f["severity_changed"] if _ranked(c["to"]) > _ranked(c["from"])]
    lowered = [c for c in f["severity_changed"] if _ranked(c["to"]) < _ranked(c["from"])]
    worse = {"lost_protections": lost, "attack_paths_opened": opened,
             "newly_internet_exposed": changes["newly_internet_exposed"],
             "exposure_weakened": weaker, "findings_opened": f["new"],
             "severity_raised": raised}
    better = {"protections_gained": gained, "attack_paths_closed": closed,
              "no_longer_internet_exposed": changes["no_longer_internet_exposed"],
              "exposure_strengthened": stronger, "findings_closed": f["resolved"],
              "severity_lowered": lowered}
    counts = {f"worse_{k}": len(v) for k, v in worse.items()}
    counts |= {f"better_{k}": len(v) for k, v in better.items()}
    return {"summary": summary_text(worse, better), "worse": worse, "better": better,
            "counts": counts}


def _names(items: list[dict[str, Any]], pick: Any, most: int = 3) -> str:
    shown = [str(pick(i)) for i in items[:most]]
    more = len(items) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def summary_text(worse: dict[str, list[Any]], better: dict[str, list[Any]]) -> str:
    """A few sentences: what got worse first, then what improved."""
    bad: list[str] = []
    if worse["lost_protections"]:
        bad.append(_plural(len(worse["lost_protections"]), "protection") + " lost ("
                   + _names(worse["lost_protections"], lambda i: i["text"]) + ")")
    if worse["attack_paths_opened"]:
        opened = worse["attack_paths_opened"]
        reasons = sorted({i["why"] for i in opened})
        bad.append(_plural(len(opened), "new attack path") + " to crown jewels ("
                   + _names(opened, lambda i: i["crown_jewel"]["name"] or i["crown_jewel"]["id"])
                   + "): " + "; ".join(reasons[:2]))
    if worse["newly_internet_exposed"]:
        bad.append(_plural(len(worse["newly_internet_exposed"]), "asset")
                   + " newly exposed to the internet ("
                   + _names(worse["newly_internet_exposed"], lambda i: i["name"] or i["id"])
                   + ")")
    if worse["exposure_weakened"]:
        bad.append(_plural(len(worse["exposure_weakened"]), "exposed asset")
                   + " less protected (" + _names(worse["exposure_weakened"],
                                                  lambda i: i["asset"]["name"]) + ")")
    if worse["findings_opened"]:
        bad.append(_plural(len(worse["findings_opened"]), "new finding"))
    if worse["severity_raised"]:
        bad.append(_plural(len(worse["severity_raised"]), "finding") + " more severe")
    good: list[str] = []
    if better["protections_gained"]:
        good.append(_plural(len(better["protections_gained"]), "protection") + " added")
    if better["attack_paths_closed"]:
        good.append(_plural(len(better["attack_paths_closed"]), "attack path")
                    + " to crown jewels closed")
    if better["no_longer_internet_exposed"]:
        good.append(_plural(len(better["no_longer_internet_exposed"]), "asset")
                    + " no longer exposed to the internet")
    if better["exposure_strengthened"]:
        good.append(_plural(len(better["exposure_strengthened"]), "exposed asset")
                    + " better protected")
    if better["findings_closed"]:
        good.append(_plural(len(better["findings_closed"]), "finding") + " closed ("
                    + _names(better["findings_closed"], lambda i: i["id"]) + ")")
    if better["severity_lowered"]:
        good.append(_plural(len(better["severity_lowered"]), "finding") + " less severe")
    first = ("Worse: " + "; ".join(bad) + ".") if bad else "Nothing got worse."
    second = ("Improved: " + "; ".join(good) + ".") if good else "Nothing improved."
    return f"{first} {second}"

