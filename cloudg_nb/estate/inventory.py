"""Inventory queries: find, count and describe assets, accounts, regions, tags and types.

Every function takes a ``Dataset`` first and returns a DataFrame (ordered, ready for
``paginate``) or a dict; filters are vectorised over the asset frame so they stay fast at
100k assets. Bad enum values raise InvalidArgumentsError with close matches.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd

from ..layer.errors import InvalidArgumentsError
from .dataset import Dataset, asset_uri
from .exposure_flags import derived_exposure, derived_only, exposed_flags
from .graph import account_of_endpoint
from .models import (
    ASSET_TYPE_INFO,
    AssetType,
    Provider,
    Severity,
    close_matches,
    parse_choice,
    parse_enum,
    parse_enum_list,
)

__all__ = [
    "SORT_KEYS", "GROUP_KEYS", "BRIEF_FIELDS", "AssetSortKey", "AssetGroupKey", "BriefField",
    "asset_mask", "find_assets", "get_asset", "count_assets",
    "list_accounts", "list_regions", "list_tags", "list_asset_types", "select_fields",
    "tag_table",
]

#: sort_by values of find_assets.
AssetSortKey = Literal["name", "id", "type", "asset_type", "provider", "region", "account_id",
                       "open_findings", "max_severity", "risk"]
#: sort_by values of find_assets → (brief column, ascending).
SORT_KEYS: dict[str, tuple[str, bool]] = {
    "name": ("name", True), "id": ("id", True), "type": ("type", True),
    "asset_type": ("type", True), "provider": ("provider", True), "region": ("region", True),
    "account_id": ("account_id", True), "open_findings": ("open_findings", False),
    "max_severity": ("_sev", False), "risk": ("_risk", False),
}
#: group_by values of count_assets (plus ``tag:<key>``).
AssetGroupKey = Literal["asset_type", "provider", "region", "account_id", "internet_exposed",
                        "max_severity", "original_type"]
GROUP_KEYS: tuple[AssetGroupKey, ...] = get_args(AssetGroupKey)
#: Brief fields ``select_fields`` keeps (``exposure_derived_from`` only on a dataset with
#: exposure derived from findings).
BriefField = Literal["id", "name", "type", "provider", "region", "account_id", "arn",
                     "internet_exposed", "exposure_derived_from", "open_findings",
                     "max_severity", "uri"]
BRIEF_FIELDS: tuple[BriefField, ...] = get_args(BriefField)


def original_types(ds: Dataset) -> list[str | None]:
    """Per asset row: the type the source file gave (``metadata.original_type``), cached."""

    def build() -> list[str | None]:
        return [str(m["original_type"]) if isinstance(m, dict) and m.get("original_type")
                else None for m in ds.assets["metadata"].tolist()]

    return ds.cached("original_type", build, label="original types")


def _search_text(ds: Dataset) -> list[str]:
    """Per asset row: lower-case name, id and ARN joined (cached), for ``query``."""

    def build() -> list[str]:
        a = ds.assets
        return [f"{n}\n{i}\n{r}".lower() for n, i, r in
                zip(a["name"].tolist(), a["id"].tolist(), a["arn"].fillna("").tolist(),
                    strict=True)]

    return ds.cached("search_text", build, label="search text")


def tag_table(ds: Dataset) -> pd.DataFrame:
    """Every (row, key, value) tag triple of the assets (cached per version)."""

    def build() -> pd.DataFrame:
        rows, keys, values = [], [], []
        for i, tags in enumerate(ds.assets["tags"].tolist()):
            if tags:
                for k, v in tags.items():
                    rows.append(i)
                    keys.append(str(k))
                    values.append(str(v))
        return pd.DataFrame({"row": np.asarray(rows, dtype=np.int64),
                             "key": pd.Series(keys, dtype=object),
                             "value": pd.Series(values, dtype=object)})

    return ds.cached("tags", build, label="tag index")


def _tag_index(ds: Dataset) -> dict[str, dict[str, np.ndarray]]:
    """key → value → asset rows (cached)."""

    def build() -> dict[str, dict[str, np.ndarray]]:
        index: dict[str, dict[str, list[int]]] = {}
        for i, tags in enumerate(ds.assets["tags"].tolist()):
            if tags:
                for k, v in tags.items():
                    index.setdefault(str(k), {}).setdefault(str(v), []).append(i)
        return {k: {v: np.asarray(rows, dtype=np.int64) for v, rows in vals.items()}
                for k, vals in index.items()}

    return ds.cached("tag_index", build, label="tag index")


def _tag_rows(ds: Dataset, tag: str) -> np.ndarray:
    key, sep, value = str(tag).partition("=")
    values = _tag_index(ds).get(key.strip(), {})
    if sep:
        return values.get(value.strip(), np.zeros(0, dtype=np.int64))
    return np.concatenate(list(values.values())) if values else np.zeros(0, dtype=np.int64)


def _as_list(value: str | Iterable[str] | None) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v) for v in value]


def asset_mask(
    ds: Dataset,
    *,
    query: str | None = None,
    provider: str | Iterable[str] | None = None,
    asset_types: str | Iterable[str] | None = None,
    region: str | None = None,
    account_id: str | None = None,
    tag: str | Iterable[str] | None = None,
    internet_exposed: bool | None = None,
    has_findings: bool | None = None,
    min_severity: str | None = None,
    original_type: str | Iterable[str] | None = None,
) -> np.ndarray:
    """Boolean mask over asset rows for the find_assets filters (all must hold);
    ``original_type`` matches the source file's resource type, case-insensitively."""
    a = ds.assets
    mask = np.ones(len(a), dtype=bool)
    providers = parse_enum_list(Provider, provider, field="provider")
    if providers:
        mask &= _in_codes(ds, "provider", [p.value for p in providers])
    types = parse_enum_list(AssetType, asset_types, field="asset_types")
    if types:
        mask &= _in_codes(ds, "asset_type", [t.value for t in types])
    if region:
        codes, uniques = ds.codes("region")
        wanted = [u for u in uniques if str(u).lower() == str(region).lower()]
        mask &= np.isin(codes, [list(uniques).index(u) for u in wanted])
    if account_id:
        mask &= _in_codes(ds, "account_id", [str(account_id)])
    if internet_exposed is not None:
        mask &= exposed_flags(ds) == bool(internet_exposed)
    if has_findings is not None or min_severity:
        fidx = ds.finding_index()
        if has_findings is not None:
            mask &= (fidx.open_count > 0) == bool(has_findings)
        if min_severity:
            floor = parse_enum(Severity, min_severity, field="min_severity").rank
            mask &= fidx.max_rank >= floor
    wanted_types = {t.lower() for t in _as_list(original_type)}
    if wanted_types:
        mask &= np.fromiter((isinstance(t, str) and t.lower() in wanted_types
                             for t in original_types(ds)), dtype=bool, count=len(a))
    for t in _as_list(tag):
        tagged = np.zeros(len(a), dtype=bool)
        tagged[_tag_rows(ds, t)] = True
        mask &= tagged
    if query and mask.any():
        rows = np.flatnonzero(mask)
        text = _search_text(ds)
        needle = str(query).lower()
        hit = np.fromiter((needle in text[r] for r in rows), dtype=bool, count=len(rows))
        mask[rows[~hit]] = False
    return mask


def name_rank(ds: Dataset) -> np.ndarray:
    """Each asset row's place in (name, id) order (cached: it reads the assets alone)."""

    def build() -> np.ndarray:
        a = ds.assets
        order = np.lexsort((a["id"].to_numpy(dtype=object).astype(str),
                            a["name"].to_numpy(dtype=object).astype(str)))
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        return rank

    return ds.cached("name_rank", build, label="name order")


def _in_codes(ds: Dataset, column: str, values: list[str]) -> np.ndarray:
    codes, uniques = ds.codes(column)
    index = {u: i for i, u in enumerate(uniques)}
    wanted = [index[v] for v in values if v in index]
    return np.isin(codes, wanted) if wanted else np.zeros(len(codes), dtype=bool)


def find_assets(ds: Dataset, *, sort_by: str = "name", **filters: Any) -> pd.DataFrame:
    """Asset briefs (``Dataset.briefs``) matching ``filters`` (see ``asset_mask``), sorted.

    ``sort_by``: name, id, type, provider, region, account_id, open_findings, max_severity,
    risk (max open finding risk); counts and severities sort descending, then by name.
    """
    parse_choice(sort_by, tuple(SORT_KEYS), field="sort_by")
    rows = np.flatnonzero(asset_mask(ds, **filters))
    col, asc = SORT_KEYS[sort_by]
    if col == "name":  # the rows in name order, then one gather
        return ds.briefs(rows[np.argsort(name_rank(ds)[rows], kind="stable")])
    briefs = ds.briefs(rows)
    if col in ("_sev", "_risk"):
        fidx = ds.finding_index()
        briefs[col] = fidx.max_rank[rows] if col == "_sev" else fidx.max_risk[rows]
    briefs = briefs.sort_values([col, "name", "id"], ascending=[asc, True, True],
                                kind="stable", na_position="last")
    return briefs[[c for c in briefs.columns if not c.startswith("_")]].reset_index(drop=True)


def select_fields(frame: pd.DataFrame, fields: Iterable[str] | None) -> pd.DataFrame:
    """Only ``fields`` of ``frame`` (``id`` always kept); unknown names → close matches."""
    wanted = _as_list(fields) if not isinstance(fields, list) else [str(f) for f in fields]
    if not wanted:
        return frame
    cols = [str(c) for c in frame.columns]
    unknown = [f for f in wanted if f not in cols]
    if unknown:
        raise InvalidArgumentsError(
            "Unknown field name in fields; use the allowed field names.",
            data={"field": "fields", "close_matches": close_matches(unknown[0], cols),
                  "allowed": cols})
    keep = ["id"] + [f for f in wanted if f != "id"] if "id" in cols else wanted
    return frame[keep]


def get_asset(ds: Dataset, ref: str) -> dict[str, Any]:
    """Everything about one asset: record, brief fields, findings, edge counts by type.

    A point lookup: cells come from the dataset's cached column arrays and row groupings
    (no DataFrame is built), so it costs microseconds at any estate size."""
    row = ds.resolve(ref)
    record = ds.record("assets", row)
    fidx = ds.finding_index()
    out = {k: record[k] for k in ("id", "arn", "name", "asset_type", "provider", "region",
                                  "account_id")}
    out["tags"] = dict(record.get("tags") or {})
    out["metadata"] = dict(record.get("metadata") or {})
    out["is_internet_exposed"] = bool(exposed_flags(ds)[row])
    if derived_exposure(ds):
        out["exposure_derived_from"] = derived_only(ds, [row])[0]
    out["open_findings"] = int(fidx.open_count[row])
    out["max_severity"] = fidx.max_severity([row])[0]
    out["uri"] = asset_uri(str(record["id"]))
    out["category"] = ASSET_TYPE_INFO[AssetType(record["asset_type"])]["category"]
    f = ds.columns("findings")
    found = [
        {"id": f["id"][i], "severity": f["severity"][i], "title": f["title"][i],
         "source_tool": f["source_tool"][i], "is_suppressed": bool(f["is_suppressed"][i]),
         "risk_score": float(f["risk_score"][i])}
        for i in ds.finding_rows_of(row)
    ]
    found.sort(key=lambda r: r["id"])
    found.sort(key=lambda r: r["risk_score"], reverse=True)
    out["findings"] = found
    edge_type = ds.columns("edges")["edge_type"]
    out["edges"] = {
        direction: dict(sorted(
            Counter(str(t) for i in ds.edge_rows_of(row, outgoing=outgoing)
                    if not pd.isna(t := edge_type[i])).items()))
        for direction, outgoing in (("outgoing", True), ("incoming", False))
    }
    return out


def count_assets(ds: Dataset, *, group_by: str = "asset_type", **filters: Any) -> pd.DataFrame:
    """Counts of matching assets per ``group_by`` value: columns ``group``, ``count``.

    ``group_by``: asset_type, provider, region, account_id, internet_exposed, max_severity,
    original_type (the source file's resource type), or ``tag:<key>`` (assets without the
    tag count under None).
    """
    rows = np.flatnonzero(asset_mask(ds, **filters))
    a = ds.assets
    if group_by.startswith("tag:"):
        key = group_by[4:]
        keys = pd.Series([(t or {}).get(key) for t in a["tags"].iloc[rows].tolist()],
                         dtype=object)
    elif group_by == "max_severity":
        keys = pd.Series(ds.finding_index().max_severity(rows), dtype=object)
    elif group_by == "original_type":
        every = original_types(ds)
        keys = pd.Series([every[r] for r in rows], dtype=object)
    elif group_by == "internet_exposed":
        keys = pd.Series(exposed_flags(ds)[rows], dtype=bool)
    elif group_by in GROUP_KEYS:
        keys = a[group_by].iloc[rows].astype(object).reset_index(drop=True)
    else:
        parse_choice(group_by, [*GROUP_KEYS, "tag:<key>"], field="group_by")
    counts = keys.value_counts(dropna=False)
    groups = [None if isinstance(v, float) and np.isnan(v) else v for v in counts.index]
    out = pd.DataFrame({"group": pd.Series(groups, dtype=object),
                        "count": counts.to_numpy(dtype=np.int64)})
    out["_key"] = out["group"].astype(str)
    return out.sort_values(["count", "_key"], ascending=[False, True], kind="stable") \
        .drop(columns="_key").reset_index(drop=True)


def list_accounts(ds: Dataset) -> pd.DataFrame:
    """One row per account of a provider (an id two providers use is two accounts): id, name,
    provider, assets, exposed, open findings, external. The name comes from the account's
    own asset: a CLOUD_ACCOUNT, or a Kubernetes cluster's ``account:`` asset."""
    a = ds.assets
    fidx = ds.finding_index()
    frame = pd.DataFrame({"account_id": a["account_id"], "provider": a["provider"],
                          "exposed": exposed_flags(ds).astype(int),
                          "open_findings": fidx.open_count})
    frame = frame[frame["account_id"].notna()]
    grouped = frame.groupby(["account_id", "provider"], sort=True).agg(
        assets=("exposed", "size"), internet_exposed=("exposed", "sum"),
        open_findings=("open_findings", "sum"))
    own = (a["asset_type"] == AssetType.CLOUD_ACCOUNT.value) | (
        (a["asset_type"] == AssetType.KUBERNETES_CLUSTER.value)
        & a["id"].astype(str).str.startswith("account:"))
    acct_assets = a[own]
    keys = list(zip(acct_assets["account_id"], acct_assets["provider"], strict=True))
    names = dict(zip(keys, acct_assets["name"], strict=True))
    external = {key for key, meta in zip(keys, acct_assets["metadata"], strict=True)
                if isinstance(meta, dict) and meta.get("external")}
    out = grouped.reset_index()
    pairs = list(zip(out["account_id"], out["provider"], strict=True))
    out.insert(1, "name", pd.Series([names.get(p) for p in pairs], dtype=object))
    out["external"] = [p in external for p in pairs]
    out = out[["account_id", "name", "provider", "assets", "internet_exposed", "open_findings",
               "external"]]
    for col in ("assets", "internet_exposed", "open_findings"):
        out[col] = out[col].astype(np.int64)
    return out.reset_index(drop=True)


def list_regions(ds: Dataset) -> pd.DataFrame:
    """Regions with their provider and asset count, most assets first."""
    a = ds.assets
    out = a.groupby(["region", "provider"], sort=True).size().reset_index(name="assets")
    return out.sort_values(["assets", "region"], ascending=[False, True], kind="stable") \
        .reset_index(drop=True)


def list_tags(ds: Dataset, key: str | None = None) -> pd.DataFrame:
    """Without ``key``: tag keys with how many assets and distinct values; with ``key``:
    that key's values and their asset counts."""
    table = tag_table(ds)
    if key:
        sub = table[table["key"] == key]
        out = sub.groupby("value", sort=True).size().reset_index(name="assets")
        out.insert(0, "key", key)
        return out.sort_values(["assets", "value"], ascending=[False, True], kind="stable") \
            .reset_index(drop=True)
    out = table.groupby("key", sort=True).agg(assets=("row", "nunique"),
                                              values=("value", "nunique")).reset_index()
    return out.sort_values(["assets", "key"], ascending=[False, True], kind="stable") \
        .reset_index(drop=True)


def list_asset_types(ds: Dataset) -> pd.DataFrame:
    """Asset types present with count, category and description."""
    counts = ds.assets["asset_type"].value_counts()
    rows = []
    for t, c in counts.items():
        info = ASSET_TYPE_INFO[AssetType(str(t))]
        rows.append({"asset_type": str(t), "assets": int(c), "category": info["category"],
                     "description": info["description"]})
    out = pd.DataFrame(rows, columns=["asset_type", "assets", "category", "description"])
    return out.sort_values(["assets", "asset_type"], ascending=[False, True], kind="stable") \
        .reset_index(drop=True)


def endpoint_account(ds: Dataset, node: int) -> str | None:
    """The account of a graph node (asset account, or the account an external id names)."""
    g = ds.graph()
    if node < g.n_assets:
        v = ds.assets["account_id"].iat[node]
        return None if v is None or (isinstance(v, float) and np.isnan(v)) else str(v)
    if node == g.internet:
        return None
    return account_of_endpoint(str(g.node_ids[node]))
