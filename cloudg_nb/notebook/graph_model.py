"""A graph result as the assets and edges it holds, before anything is drawn: an
``attack_paths`` / ``find_paths`` / ``lateral_movement_paths`` result (its ``paths``) or a
``blast_radius`` result (``source`` and ``items``, each with ``depth`` and ``depends_on_id``;
as rows or as columns). ``graph_drawing`` decides what of it is shown and where.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .plots import _category, _structured

__all__ = ["MAX_FETCHED", "GraphModel", "blast_radius_paths", "complete_items", "model_of",
           "result_items"]

#: A blast radius is fetched whole up to this many assets; beyond, the graph says how many
#: it left out.
MAX_FETCHED = 50_000
_ASSET_FIELDS = ("id", "name", "type", "provider", "region", "account_id")
#: The largest page the tools give (``estate.paging.MAX_LIMIT``; not imported: the kernel
#: side does not load the estate package for a constant).
_PAGE = 500


@dataclass
class GraphModel:
    """What a result holds: ``assets`` by id (with ``depth``: hops from the start),
    ``edges`` (``source`` -> ``target`` in the direction of reach), which assets are entry
    points, sensitive targets and the start, and how many the result had in all (``total``,
    more than ``len(assets) - 1`` when only some pages were fetched)."""

    kind: str  # "paths" or "blast_radius"
    title: str
    assets: dict[str, dict[str, Any]] = field(default_factory=dict)
    edges: list[dict[str, Any]] = field(default_factory=list)
    entries: set[str] = field(default_factory=set)
    sensitive: set[str] = field(default_factory=set)
    starts: set[str] = field(default_factory=set)
    total: int = 0
    dataset: str | None = None

    @property
    def direction(self) -> str:
        """What an arrow means, in words (the legend's)."""
        if self.kind == "blast_radius":
            return "arrows point the way harm spreads: from an asset to what depends on it"
        return "arrows point the way an attacker moves: from the internet towards the target"

    def predecessors(self) -> dict[str, set[str]]:
        preds: dict[str, set[str]] = {}
        for edge in self.edges:
            preds.setdefault(edge["target"], set()).add(edge["source"])
        return preds


def result_items(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The rows of a list result: its ``items``, or its ``columns`` decoded."""
    items = data.get("items")
    if isinstance(items, list):
        return [i for i in items if isinstance(i, Mapping)]
    from .frame_from_columns import decode_columns, is_columns

    columns = data.get("columns")
    if is_columns(columns) and isinstance(columns, Mapping):
        frame = decode_columns(columns)
        return [{str(k): v for k, v in row.items()}  # (NaN: see _record)
                for row in frame.to_dict("records")]
    return []


def complete_items(result: Any, client: Any) -> tuple[Mapping[str, Any], str | None]:
    """A paged blast-radius ``result`` with all its rows (up to ``MAX_FETCHED``) fetched
    through ``client``; the data as it was (and why) when that is not possible."""
    data = _structured(result, "blast_radius")
    tool = getattr(result, "tool", None)
    arguments = getattr(result, "arguments", None)
    if not data.get("next_cursor") or client is None or not tool or arguments is None:
        return data, None
    total = data.get("total")
    if isinstance(total, int) and total > MAX_FETCHED:
        return data, f"{total:,} assets: only the first page is drawn (over {MAX_FETCHED:,})"
    args = {k: v for k, v in dict(arguments).items() if k not in ("cursor", "limit")}
    args["limit"] = _PAGE  # the largest page a tool gives: fewer round trips
    try:
        frame = client.frame(tool, progress=False, **args)
    except Exception as exc:  # the first page still makes a graph
        code = getattr(getattr(exc, "error", None), "code", None) or type(exc).__name__
        return data, f"only the first page is drawn: fetching the rest failed ({code})"
    rows = frame.to_dict("records")
    full = {k: v for k, v in data.items() if k not in ("items", "columns", "next_cursor")}
    return {**full, "items": rows}, None


def blast_radius_paths(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A ``blast_radius`` result as paths from its source to each asset it reaches (the
    chain of ``depends_on_id``), the shape ``plot_attack_paths`` draws."""
    source = data.get("source") if isinstance(data.get("source"), Mapping) else None
    items = [i for i in result_items(data) if i.get("id")]
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
    return {k: node.get(k) for k in _ASSET_FIELDS}


def _record(node: Mapping[str, Any]) -> dict[str, Any]:
    """An asset as the graph keeps it: its scalar fields and its category."""
    record = {k: v for k, v in node.items() if v is not None and v == v and not isinstance(
        v, (Mapping, list))}  # (v == v: a DataFrame's NaN is missing too)
    record["id"] = str(node.get("id"))
    record["category"] = _category(str(node.get("type") or ""))
    return record


def _edge(source: str, target: str, edge: Mapping[str, Any], edge_id: Any) -> dict[str, Any]:
    return {"source": source, "target": target, "edge_id": edge_id,
            "edge_type": str(edge.get("edge_type") or ""), "virtual": bool(edge.get("virtual"))}


def _paths_model(data: Mapping[str, Any], where: str) -> GraphModel:
    paths: Sequence[Mapping[str, Any]] = [
        p for p in data.get("paths") or () if isinstance(p, Mapping) and p.get("nodes")]
    ends = "".join(f" {word} {end.get('name') or end.get('id')}"
                   for word, end in (("from", data.get("source")), ("to", data.get("target")))
                   if isinstance(end, Mapping))
    title = f"{len(paths)} path{'' if len(paths) == 1 else 's'}{ends}{where}"
    model = GraphModel("paths", title, dataset=data.get("dataset"))
    seen: set[tuple[str, str]] = set()
    for path in paths:
        ids = [str(node.get("id")) for node in path["nodes"]]
        for i, node in enumerate(path["nodes"]):
            record = model.assets.setdefault(ids[i], _record(node))
            record["depth"] = min(int(record.get("depth", i)), i)
        model.starts.add(ids[0])
        if isinstance(path.get("entry"), Mapping):
            model.entries.add(str(path["entry"]["id"]))
        if path.get("target_sensitive"):
            model.sensitive.add(ids[-1])
        for edge in path.get("edges") or ():
            key = (str(edge.get("from")), str(edge.get("to")))
            if key[0] in model.assets and key[1] in model.assets and key not in seen:
                seen.add(key)
                model.edges.append(_edge(*key, edge, edge.get("id")))
    model.total = len(model.assets)
    return model


def _blast_model(data: Mapping[str, Any], where: str) -> GraphModel:
    source = data.get("source") if isinstance(data.get("source"), Mapping) else {}
    items = [i for i in result_items(data) if i.get("id")]
    total = data.get("total")
    total = total if isinstance(total, int) else len(items)
    name = (source or {}).get("name") or (source or {}).get("id") or "?"
    title = f"Blast radius of {name} · {total:,} assets{where}"
    model = GraphModel("blast_radius", title, dataset=data.get("dataset"), total=total + 1)
    if not source:
        return model
    start = str(source.get("id"))
    model.assets[start] = {**_record(source), "depth": 0}
    model.starts.add(start)
    for item in items:
        model.assets.setdefault(str(item["id"]), {**_record(item),
                                                  "depth": int(item.get("depth") or 1)})
    for item in items:
        up, down = str(item.get("depends_on_id")), str(item["id"])
        if up in model.assets and up != down:
            model.edges.append(_edge(up, down, item, item.get("edge_id")))
    return model


def model_of(result: Any) -> GraphModel:
    """The ``GraphModel`` of a paths or blast-radius result (a Result, ToolResult or dict)."""
    data = _structured(result, "attack_paths")
    dataset = data.get("dataset")
    where = f" · dataset {dataset}" if dataset else ""
    if "paths" in data:
        return _paths_model(data, where)
    return _blast_model(data, where)
