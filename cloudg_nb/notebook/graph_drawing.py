"""What a graph shows of a ``GraphModel``: each asset as a node, or, for a large result, the
assets of each hop grouped by type or account (a group is one node, expandable) with a
summary of what the groups hide; laid out in columns by hops, never taller than ``ROWS_MAX``
nodes a column; with the legend of what is drawn. Pure data in, JSON-ready dicts out (the
``GraphView`` widget sends them to ``static/graph_view.js``).

Why our own grouping and layout: cytoscape's compound nodes and layouts (dagre, elk) would
need the 14,000 assets of a large blast radius in the browser first; here only what is drawn
travels, and the layered picture is the one ``plots`` draws for the figure.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .graph_findings import severity_rank
from .graph_model import GraphModel
from .plots import CATEGORY_COLOURS, SEVERITY_COLOURS, SEVERITY_ORDER, layered_positions

__all__ = ["GROUP_ABOVE", "GROUP_BY", "LAYER_GROUPS_MAX", "MEMBERS_PER_EXPAND", "ROWS_MAX",
           "Drawing", "draw"]

#: A result with more assets than this is drawn as groups (``group_by="auto"``).
GROUP_ABOVE = 40
#: How assets may be grouped: by asset type or by account (within each hop).
GROUP_BY = ("type", "account")
#: At most this many groups a hop; the smallest others share one "other" group.
LAYER_GROUPS_MAX = 10
#: Each click on a group shows this many more of its assets (worst findings first).
MEMBERS_PER_EXPAND = 12
#: A hop with more nodes than this takes several columns (no vertical line of dots).
ROWS_MAX = 8
#: Node findings sent for the panel (the rest are counted).
FINDINGS_SHOWN = 10
#: A group's assets with the worst findings, named in its panel.
WORST_SHOWN = 5
#: Pixels between hops (x), between the columns of one hop, and between rows (y).
_DX, _DX_SUB, _DY = 205.0, 180.0, 100.0
#: Room under a node for its label (two lines of 12 px text and margins).
_LABEL_ROOM = 52.0
_INTERNET = "INTERNET"
_OTHER = "*other*"


@dataclass
class Drawing:
    """The nodes and edges to draw, the legend, one line saying what is hidden, and the
    groups drawn (id -> member ids) for expanding."""

    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    legend: dict[str, Any]
    summary: str
    groups: dict[str, list[str]] = field(default_factory=dict)


def _group_value(asset: Mapping[str, Any], by: str) -> str:
    value = asset.get("type") if by == "type" else asset.get("account_id")
    return str(value or "unknown")


def _group_id(depth: int, by: str, value: str) -> str:
    return f"group:{depth}:{by}:{value}"


def _worst(findings: Mapping[str, Sequence[Mapping[str, Any]]], asset_id: str) -> str | None:
    found = findings.get(asset_id)
    return str(found[0]["severity"]) if found else None


class _Grouping:
    """Which element (an asset's own id, or a group id) stands for each asset."""

    def __init__(self, model: GraphModel, by: str | None, expanded: Sequence[str],
                 findings: Mapping[str, Sequence[Mapping[str, Any]]]) -> None:
        self.element: dict[str, str] = {}
        self.groups: dict[str, list[str]] = {}  # group id -> all its assets
        self.drawn_groups: dict[str, list[str]] = {}  # drawn group id -> assets it hides
        self.labels: dict[str, str] = {}
        self.member_of: dict[str, str] = {}  # asset shown by an expansion -> its group
        self.expand_to: dict[str, str] = {}  # drawn group id -> the group a click expands
        clicks = Counter(expanded)
        if by is None:
            self.element = {a: a for a in model.assets}
            return
        rank = {a: (severity_rank(_worst(findings, a)), str(model.assets[a].get("name") or a))
                for a in model.assets}
        # the start, the internet and (when few) the sensitive targets are always drawn
        pinned = set(model.starts) | (model.sensitive if len(model.sensitive) <= ROWS_MAX
                                      else set())
        layers: dict[int, dict[str, list[str]]] = {}
        for asset_id, asset in model.assets.items():
            if asset_id in pinned or asset.get("type") == _INTERNET:
                self.element[asset_id] = asset_id
                continue
            depth = int(asset.get("depth") or 0)
            value = _group_value(asset, by)
            layers.setdefault(depth, {}).setdefault(value, []).append(asset_id)
        for depth, by_value in layers.items():
            if sum(len(members) for members in by_value.values()) <= ROWS_MAX:
                for members in by_value.values():  # a hop that fits a column: one by one
                    self.element.update((a, a) for a in members)
                continue
            ordered = sorted(by_value.items(), key=lambda kv: (-len(kv[1]), kv[0]))
            kept, rest = ordered[:LAYER_GROUPS_MAX - 1], ordered[LAYER_GROUPS_MAX - 1:]
            if len(rest) == 1:
                kept, rest = ordered, []
            other = _group_id(depth, by, _OTHER)
            if rest and not clicks.get(other):
                members = [a for _, assets in rest for a in assets]
                self._group(other, members, rank, clicks)
                kinds = "types" if by == "type" else "accounts"
                self.labels[other] = f"{len(rest)} other {kinds}"
            else:
                kept = ordered
            for value, members in kept:
                gid = _group_id(depth, by, value)
                self.labels[gid] = value
                self._group(gid, members, rank, clicks)

    def _group(self, gid: str, members: list[str], rank: Mapping[str, tuple[int, str]],
               clicks: Counter[str]) -> None:
        self.groups[gid] = members
        if len(members) == 1:
            self.element[members[0]] = members[0]
            return
        shown = sorted(members, key=lambda a: rank[a])[:clicks.get(gid, 0) * MEMBERS_PER_EXPAND]
        for asset_id in shown:
            self.element[asset_id] = asset_id
            self.member_of[asset_id] = gid
        hidden = [a for a in members if a not in set(shown)]
        if not hidden:
            return
        drawn = gid if not shown else f"{gid}:more"
        self.drawn_groups[drawn] = hidden
        self.expand_to[drawn] = gid
        for asset_id in hidden:
            self.element[asset_id] = drawn


def _layout(depth: Mapping[str, int], preds: Mapping[str, set[str]], names: Mapping[str, str],
            sizes: Mapping[str, float]) -> dict[str, tuple[float, float]]:
    """Pixel positions: one column per hop (``layered_positions`` orders each), a hop with
    more than ``ROWS_MAX`` nodes split into side-by-side columns; rows far enough apart for
    the largest node of the hop and its two-line label."""
    ranks = layered_positions(depth, preds, names)
    layers: dict[int, list[str]] = {}
    for node_id in sorted(ranks, key=lambda n: -ranks[n][1]):
        layers.setdefault(int(ranks[node_id][0]), []).append(node_id)
    out: dict[str, tuple[float, float]] = {}
    x = 0.0
    for level in sorted(layers):
        members = layers[level]
        columns = math.ceil(len(members) / ROWS_MAX)
        rows = math.ceil(len(members) / columns)
        dy = max(_DY, max(sizes[n] for n in members) + _LABEL_ROOM)
        for i, node_id in enumerate(members):
            column, row = divmod(i, rows)
            out[node_id] = (x + column * _DX_SUB, (row - (rows - 1) / 2) * dy)
        x += (columns - 1) * _DX_SUB + _DX
    return out


def _counts(values: Sequence[str | None]) -> dict[str, int]:
    return {str(k): v for k, v in Counter(v for v in values if v).items()}


def _asset_node(model: GraphModel, asset_id: str, findings: Sequence[Mapping[str, Any]],
                group: str | None) -> dict[str, Any]:
    asset = model.assets[asset_id]
    asset_type = str(asset.get("type") or "")
    severity = str(findings[0]["severity"]) if findings else None
    attributes = {k: v for k, v in asset.items() if k != "depth"}
    if model.kind == "blast_radius":
        attributes["depth"] = asset.get("depth", 0)
    else:
        attributes["hops from start"] = asset.get("depth", 0)
    if severity:
        attributes["worst open finding"] = severity
    if asset_id in model.entries:
        attributes["entry point"] = True
    if asset_id in model.sensitive:
        attributes["sensitive target"] = True
    name = str(asset.get("name") or asset_id)
    category = str(asset.get("category") or "other")
    return {
        "id": asset_id, "kind": "asset", "name": name,
        "label": name if asset_type == _INTERNET else f"{name}\n{asset_type}",
        "type": asset_type, "category": category, "severity": severity,
        "fill": CATEGORY_COLOURS.get(category, "#f0f0f0"), "ring": SEVERITY_COLOURS[severity],
        "ring_width": 4 if severity else 1.5, "size": 34,
        "shape": "diamond" if asset_type == _INTERNET else "ellipse",
        "entry": asset_id in model.entries, "sensitive": asset_id in model.sensitive,
        "findings": [dict(f) for f in findings[:FINDINGS_SHOWN]],
        "findings_total": len(findings), "group": group, "attributes": attributes}


def _group_node(model: GraphModel, gid: str, label: str, members: Sequence[str],
                findings: Mapping[str, Sequence[Mapping[str, Any]]], by: str,
                expand: str) -> dict[str, Any]:
    worsts = [_worst(findings, a) for a in members]
    by_severity = {s: n for s, n in ((s, worsts.count(s)) for s in SEVERITY_ORDER) if n}
    severity = next(iter(by_severity), None)
    types = _counts([str(model.assets[a].get("type") or "") for a in members])
    categories = Counter(str(model.assets[a].get("category") or "other") for a in members)
    category = categories.most_common(1)[0][0]
    accounts = _counts([str(model.assets[a].get("account_id") or "") for a in members])
    depth = int(model.assets[members[0]].get("depth") or 0)
    more = gid.endswith(":more")
    count = len(members)
    head = f"+{count:,} more" if more else f"{count:,} assets"
    kind = label if by == "type" or label.endswith(("types", "accounts")) else f"account {label}"
    attributes: dict[str, Any] = {
        "assets": count, "grouped by": by, "hop": depth,
        "types": ", ".join(f"{t} ({n:,})" for t, n in Counter(types).most_common(4))
        + (" …" if len(types) > 4 else ""),
        "accounts": len(accounts)}
    if by_severity:
        attributes["with open findings"] = sum(by_severity.values())
    ranked = sorted((a for a in members if findings.get(a)),
                    key=lambda a: (severity_rank(_worst(findings, a)),
                                   str(model.assets[a].get("name") or a)))
    worst_assets = [{"id": a, "name": str(model.assets[a].get("name") or a),
                     "severity": findings[a][0]["severity"], "title": findings[a][0]["title"]}
                    for a in ranked[:WORST_SHOWN]]
    return {
        "id": gid, "kind": "group", "name": f"{kind} · {head}", "label": f"{kind}\n{head}",
        "type": label if by == "type" else "", "category": category, "severity": severity,
        "fill": CATEGORY_COLOURS.get(category, "#f0f0f0"), "ring": SEVERITY_COLOURS[severity],
        "ring_width": 5 if severity else 2, "size": round(40 + 9 * math.log10(count)),
        "shape": "round-rectangle", "entry": False, "sensitive": False, "count": count,
        "by_severity": by_severity, "worst_assets": worst_assets, "expand": expand,
        "findings": [], "findings_total": 0, "group": None, "attributes": attributes}


def _edges(model: GraphModel, element: Mapping[str, str]) -> list[dict[str, Any]]:
    """The model's edges between the elements that stand for their ends (several edges
    between two groups are one edge with their count; edges inside a group are not drawn)."""
    joined: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for edge in model.edges:
        ends = (element[edge["source"]], element[edge["target"]])
        if ends[0] != ends[1]:
            joined.setdefault(ends, []).append(edge)
    out: list[dict[str, Any]] = []
    for (source, target), edges in joined.items():
        kinds = Counter(e["edge_type"] for e in edges)
        kind = kinds.most_common(1)[0][0] if len(kinds) == 1 else "MIXED"
        words = kind.lower().replace("_", " ") if len(kinds) == 1 else f"{len(kinds)} kinds"
        count = len(edges)
        out.append({"source": source, "target": target, "edge_type": kind,
                    "edge_id": edges[0].get("edge_id") if count == 1 else None,
                    "label": words if count == 1 else f"{words} ×{count:,}", "count": count,
                    "kinds": dict(kinds), "virtual": all(e["virtual"] for e in edges),
                    "directed": True, "width": round(1.6 + 1.2 * math.log10(count), 2)})
    return out


def _legend(model: GraphModel, nodes: Sequence[Mapping[str, Any]], grouping: _Grouping,
            by: str | None, findings: Mapping[str, Sequence[Mapping[str, Any]]],
            note: str | None) -> dict[str, Any]:
    assets = model.assets
    categories = Counter(str(a.get("category") or "other") for a in assets.values())
    worst = Counter(_worst(findings, a) for a in assets)
    kinds = Counter(e["edge_type"] for e in model.edges)
    virtual = {e["edge_type"] for e in model.edges if e["virtual"]}
    severities = [{"key": s.lower(), "label": s.lower(), "assets": worst[s]}
                  for s in SEVERITY_ORDER if worst.get(s)]
    severities.append({"key": "none", "label": "no open finding", "assets": worst.get(None, 0)})
    marks = []
    if model.entries:
        marks.append({"key": "entry", "label": "entry point (dashed outline)"})
    if model.sensitive:
        marks.append({"key": "sensitive", "label": "sensitive target (bold name)"})
    if grouping.drawn_groups:
        marks.append({"key": "group", "label": "group of assets: click to expand"})
    hidden = sum(len(m) for m in grouping.drawn_groups.values())
    return {
        "categories": [{"key": c, "label": c, "assets": categories[c]}
                       for c in CATEGORY_COLOURS if categories.get(c)],
        "severities": severities,
        "edges": [{"kind": k, "label": k.lower().replace("_", " ") or "edge", "count": n,
                   "virtual": k in virtual} for k, n in kinds.most_common()],
        "direction": model.direction, "marks": marks,
        "hidden": {"assets": hidden, "groups": len(grouping.drawn_groups), "by": by,
                   "shown": sum(1 for n in nodes if n["kind"] == "asset"),
                   "not_fetched": max(0, model.total - len(assets)), "note": note}}


def _summary(model: GraphModel, legend: Mapping[str, Any]) -> str:
    hidden = legend["hidden"]
    parts = [f"{len(model.assets):,} assets, {len(model.edges):,} edges"]
    if hidden["groups"]:
        parts.append(f"{hidden['assets']:,} of them in {hidden['groups']} groups by "
                     f"{hidden['by']} and hop; {hidden['shown']:,} drawn one by one"
                     " · click a group to expand it")
    flagged = sum(s["assets"] for s in legend["severities"] if s["key"] != "none")
    if flagged:
        parts.append(f"{flagged:,} with open findings (ringed)")
    if hidden["not_fetched"]:
        parts.append(f"{hidden['not_fetched']:,} not fetched")
    if hidden["note"]:
        parts.append(str(hidden["note"]))
    return " · ".join(parts)


def draw(model: GraphModel, findings: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
         *, group_by: str | None = "auto", expanded: Sequence[str] = (),
         note: str | None = None) -> Drawing:
    """What to draw of ``model``: ``findings`` by asset id (``findings_by_asset``) ring the
    nodes and fill their panels; ``group_by`` "type", "account", None (every asset its own
    node) or "auto" (by type above ``GROUP_ABOVE`` assets); ``expanded``: group ids clicked
    (each click shows ``MEMBERS_PER_EXPAND`` more of the group's assets); ``note``: what
    could not be fetched, for the summary."""
    findings = findings or {}
    by: str | None
    if group_by == "auto":
        by = "type" if len(model.assets) > GROUP_ABOVE else None
    elif group_by in GROUP_BY or group_by is None:
        by = group_by
    else:
        raise ValueError(f"group_by must be one of auto, type, account or None, "
                         f"not {group_by!r}")
    grouping = _Grouping(model, by, expanded, findings)
    element = grouping.element
    nodes: dict[str, dict[str, Any]] = {}
    for asset_id in model.assets:
        if element[asset_id] == asset_id:
            nodes[asset_id] = _asset_node(model, asset_id, findings.get(asset_id, ()),
                                          grouping.member_of.get(asset_id))
    for gid, members in grouping.drawn_groups.items():
        base = grouping.expand_to[gid]
        label = grouping.labels[base]
        nodes[gid] = _group_node(model, gid, label, members, findings, by or "type",
                                 grouping.expand_to[gid])
    edges = _edges(model, element)
    depth = {n: int(model.assets[n]["depth"]) if n in model.assets
             else int(model.assets[grouping.drawn_groups[n][0]]["depth"]) for n in nodes}
    preds: dict[str, set[str]] = {}
    for edge in edges:
        preds.setdefault(edge["target"], set()).add(edge["source"])
    positions = _layout(depth, preds, {n: str(v["name"]) for n, v in nodes.items()},
                        {n: float(v["size"]) for n, v in nodes.items()})
    for node_id, node in nodes.items():
        node["x"], node["y"] = positions[node_id]
    legend = _legend(model, list(nodes.values()), grouping, by, findings, note)
    return Drawing(list(nodes.values()), edges, legend, _summary(model, legend),
                   dict(grouping.groups))
