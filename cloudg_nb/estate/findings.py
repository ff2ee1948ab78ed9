"""Finding queries: filtered lists, summaries, per-asset findings and the top risks.

Suppression is a dataset mutation (``Dataset.suppress_findings``); these functions only
read. ``top_risks`` scores each asset with open findings as
max finding risk × exposure (1.5 within two flow hops of the internet, else 1)
× blast factor (1 + min(1, log10(1 + direct dependents) / 2))
× volume factor (1 + min(0.5, 0.1 × (open findings − 1))).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd

from ..layer.wire import FINDING_URI_PREFIX, finding_uri
from .dataset import Dataset, asset_uri
from .exposure import exposure_levels
from .finding_exposure import derived_rows
from .frames import text_array
from .models import Finding, Severity, parse_choice, parse_enum, parse_enum_list
from .progress_callbacks import Phases, ProgressFn

__all__ = ["FINDING_SORT_KEYS", "FINDING_GROUP_KEYS", "FindingSortKey", "FindingGroupKey",
           "list_findings", "get_finding",
           "findings_summary", "findings_for_asset", "top_risks", "list_frameworks_of_findings"]

#: sort_by values of list_findings.
FindingSortKey = Literal["severity", "risk", "detected_at", "id", "source_tool", "resource"]
FINDING_SORT_KEYS: tuple[FindingSortKey, ...] = get_args(FindingSortKey)
#: group_by values of findings_summary.
FindingGroupKey = Literal["severity", "source_tool", "framework", "resource", "asset_type",
                          "account_id", "provider"]
FINDING_GROUP_KEYS: tuple[FindingGroupKey, ...] = get_args(FindingGroupKey)
_LIST_COLUMNS = ["id", "severity", "risk_score", "title", "resource_id", "resource_name",
                 "resource_type", "in_inventory", "source_tool", "compliance_frameworks",
                 "cvss_score", "detected_at", "is_suppressed", "suppression_reason", "uri"]


def _frame(ds: Dataset) -> pd.DataFrame:
    """Findings joined with the asset they concern (name/type/account, in_inventory)."""

    def build() -> pd.DataFrame:
        f = ds.findings
        fidx = ds.finding_index()
        rows = fidx.asset_row
        a = ds.assets
        known = rows >= 0
        safe = np.where(known, rows, 0)

        def from_assets(col: str) -> Any:
            if not len(a):
                return np.full(len(f), None, dtype=object)
            column = a[col]
            if isinstance(column.dtype, pd.StringDtype):  # text stays text: one take
                return column.array.take(np.where(known, rows, -1), allow_fill=True)
            # (else converting every asset would cost more than it saves)
            text = _text_of(column) if len(a) <= 4 * len(f) else None
            if text is not None:  # Arrow's take: the text column of the cells taken
                import pyarrow as pa

                return pd.array(text.take(pa.array(rows, mask=~known)), dtype=TEXT_DTYPE)
            vals = column.to_numpy(dtype=object)[safe]
            vals[~known] = None
            return vals

        out = f.copy(deep=False)  # (new columns only: the dataset's frame is not changed)
        # the listed text fields as text columns, once per version: each list then takes and
        # tells apart their values in Arrow, with no conversion of its own
        for col in _TEXT_FIELDS:
            if col in f and (text := _text_of(f[col])) is not None:
                out[col] = pd.array(text, dtype=TEXT_DTYPE)
        # a finding mapped to no framework lists none (the frame stores None for that)
        out["compliance_frameworks"] = [v if isinstance(v, list) else []
                                        for v in f["compliance_frameworks"].tolist()]
        out["resource_name"] = from_assets("name")
        out["resource_type"] = from_assets("asset_type")
        out["account_id"] = from_assets("account_id")
        out["provider"] = from_assets("provider")
        out["in_inventory"] = known
        ids = out["id"]
        out["uri"] = (FINDING_URI_PREFIX + ids if isinstance(ids.dtype, pd.StringDtype) and
                      not ids.isna().any() else
                      [finding_uri(i) for i in ids.tolist()])
        out["_rank"] = fidx.severity_rank
        return out

    return ds.cached("findings_frame", build, label="findings table")


#: The dtype pandas gives a column of text cells (pandas 3: its Arrow-backed text).
TEXT_DTYPE = pd.Series(["text"]).dtype
#: The findings' own text fields that lists show (the findings table holds them as text).
_TEXT_FIELDS = ("id", "severity", "title", "resource_id", "source_tool", "detected_at",
                "suppression_reason")


def _text_of(column: pd.Series) -> Any:
    """An object column as the Arrow text pandas would make a column of its cells (pandas 3),
    or None when pandas keeps objects: pandas 2, cells that are not text, or all missing."""
    if not isinstance(TEXT_DTYPE, pd.StringDtype) or column.dtype != object:
        return None
    text = text_array(column)
    return text if text is not None and text.null_count < len(text) else None


def list_findings(
    ds: Dataset,
    *,
    severities: Iterable[str] | str | None = None,
    min_severity: str | None = None,
    source_tool: str | None = None,
    framework: str | None = None,
    resource: str | None = None,
    query: str | None = None,
    include_suppressed: bool = False,
    sort_by: str = "severity",
) -> pd.DataFrame:
    """Findings matching every filter, as rows of ``_LIST_COLUMNS``.

    ``resource`` is an asset reference (or, for findings outside the inventory, the exact
    resource id/ARN); ``query`` searches title and description; ``sort_by``: severity (most
    severe, then highest risk), risk, detected_at (newest first), id, source_tool, resource.
    """
    parse_choice(sort_by, FINDING_SORT_KEYS, field="sort_by")
    f = _frame(ds)
    mask = np.ones(len(f), dtype=bool)
    if not include_suppressed:
        mask &= ~f["is_suppressed"].to_numpy(dtype=bool)
    sevs = parse_enum_list(Severity, severities, field="severities")
    if sevs:
        mask &= f["severity"].isin([s.value for s in sevs]).to_numpy()
    if min_severity:
        mask &= f["_rank"].to_numpy() >= parse_enum(Severity, min_severity,
                                                     field="min_severity").rank
    if source_tool:
        mask &= (f["source_tool"].astype(str).str.lower() == str(source_tool).lower()).to_numpy()
    if framework:
        fw = str(framework).lower()
        mask &= np.array([any(str(x).lower() == fw for x in (v or []))
                          for v in f["compliance_frameworks"].tolist()], dtype=bool)
    if resource:
        raw = str(resource)
        direct = (f["resource_id"] == raw) | (f["resource_arn"] == raw)
        if direct.any():
            mask &= direct.to_numpy()
        else:
            row = ds.resolve(raw, field="resource")
            mask &= ds.finding_index().asset_row == row
    if query:
        q = str(query).lower()
        text = (f["title"].fillna("").astype(str) + "\n" + f["description"].fillna("")
                .astype(str)).str.lower()
        mask &= text.str.contains(q, regex=False).to_numpy()
    order = _order(ds, f, sort_by)
    return f[_LIST_COLUMNS].iloc[order[mask[order]]].reset_index(drop=True)


#: sort_by -> (columns, ascending) of list_findings' stable sort (missing values last).
_SORTS: dict[str, tuple[list[str], list[bool]]] = {
    "severity": (["_rank", "risk_score", "id"], [False, False, True]),
    "risk": (["risk_score", "id"], [False, True]),
    "detected_at": (["detected_at", "id"], [False, True]),
    "resource": (["resource_id", "id"], [True, True]),
}


def _order(ds: Dataset, f: pd.DataFrame, sort_by: str) -> np.ndarray:
    """The positions of every finding in ``sort_by`` order, sorted once per dataset version
    (a stable sort: the findings a filter keeps come out in this order too)."""

    def build() -> np.ndarray:
        by, ascending = _SORTS.get(sort_by, ([sort_by, "id"], [True, True]))
        keys = f[list(dict.fromkeys(by))].reset_index(drop=True)  # (by may name id twice)
        order = _arrow_order(keys, by, ascending)
        if order is not None:
            return order
        return keys.sort_values(by, ascending=ascending, kind="stable",
                                na_position="last").index.to_numpy()

    return ds.cached(f"findings_order:{sort_by}", build, label="findings order")


def _arrow_order(keys: pd.DataFrame, by: list[str], ascending: list[bool]) -> np.ndarray | None:
    """pandas' stable sort of ``keys`` (missing values last) done by Arrow, three times
    faster at 500k rows (text compared in C++, not as Python objects); None when a column is
    neither numbers nor text (pandas then sorts)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    columns = {}
    for name in dict.fromkeys(by):
        column = keys[name]
        values = column.to_numpy(dtype=object) if column.dtype == object else column
        try:
            columns[name] = pa.array(values, from_pandas=True)  # (NaN and None: null)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            return None
        kind = columns[name].type
        if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)
                or pa.types.is_integer(kind) or pa.types.is_floating(kind)
                or pa.types.is_boolean(kind) or pa.types.is_null(kind)):
            return None
    order = pc.sort_indices(pa.table(columns), sort_keys=[
        (name, "ascending" if up else "descending") for name, up in zip(by, ascending,
                                                                         strict=True)])
    return np.asarray(order.to_numpy(), dtype=np.intp)


def get_finding(ds: Dataset, finding_id: str) -> dict[str, Any]:
    """One finding with every field, its risk score and the asset brief it concerns.

    A point lookup: the row, its asset's brief and its controls come from cached indexes and
    column arrays (no DataFrame is built)."""
    row = ds.finding_row(finding_id)
    record = Finding.from_row(ds.record("findings", row)).to_dict()
    arow = int(ds.finding_index().asset_row[row])
    record["in_inventory"] = arow >= 0
    record["asset"] = ds.brief(arow) if arow >= 0 else None
    record["uri"] = finding_uri(record["id"])
    record["controls"] = ds.controls_of(record["id"])
    return record


def findings_summary(
    ds: Dataset, *, group_by: str = "severity", include_suppressed: bool = False
) -> dict[str, Any]:
    """Counts of findings per ``group_by`` value (severity, source_tool, framework,
    resource, asset_type, account_id, provider) plus totals and per-severity counts."""
    parse_choice(group_by, FINDING_GROUP_KEYS, field="group_by")
    f = _frame(ds)
    suppressed = f["is_suppressed"].to_numpy(dtype=bool)
    sel = f if include_suppressed else f[~suppressed]
    if group_by == "severity":
        counts = sel["severity"].value_counts()
        groups = [{"key": s.value, "count": int(counts.get(s.value, 0))}
                  for s in Severity.ordered()]
    else:
        if group_by == "framework":
            keys = sel["compliance_frameworks"].explode().dropna()
        elif group_by == "resource":
            keys = sel["resource_name"].where(sel["resource_name"].notna(), sel["resource_id"])
        elif group_by == "asset_type":
            keys = sel["resource_type"].fillna("NOT_IN_INVENTORY")
        else:
            keys = sel[group_by].dropna()
        counts = keys.astype(str).value_counts()
        pairs = sorted(((str(k), int(v)) for k, v in counts.items()),
                       key=lambda kv: (-kv[1], kv[0]))
        groups = [{"key": k, "count": v} for k, v in pairs]
    open_f = f[~suppressed]
    by_sev = open_f["severity"].value_counts()
    return {
        "group_by": group_by, "include_suppressed": include_suppressed,
        "total": len(f), "open": int((~suppressed).sum()), "suppressed": int(suppressed.sum()),
        "not_in_inventory": int((~f["in_inventory"].to_numpy(dtype=bool)).sum()),
        "by_severity": {s.value: int(by_sev.get(s.value, 0)) for s in Severity.ordered()},
        "groups": groups,
    }


def findings_for_asset(ds: Dataset, ref: str, *, include_suppressed: bool = False
                       ) -> pd.DataFrame:
    """The findings of one asset, most severe first."""
    return list_findings(ds, resource=ref, include_suppressed=include_suppressed)


def _exposing_findings(ds: Dataset, rows: np.ndarray) -> list[list[str]]:
    """Per asset row: the findings its internet exposure is derived from (may be empty)."""
    e = ds.edges
    by_row: dict[int, list[str]] = {}
    derived = np.flatnonzero(derived_rows(e).to_numpy(dtype=bool))
    if len(derived):
        dst = ds.graph().edge_dst
        props = e["properties"].to_numpy(dtype=object)
        for r in derived.tolist():
            p = props[r]
            if isinstance(p, dict) and p.get("derived_from_finding"):
                by_row.setdefault(int(dst[r]), []).append(str(p["derived_from_finding"]))
    return [by_row.get(int(r), []) for r in rows]


def top_risks(ds: Dataset, *, progress: ProgressFn | None = None) -> pd.DataFrame:
    """Assets with open findings ranked by risk score (see the module docstring).

    Columns: rank, id, name, type, provider, account_id, score, max_risk, exposure_factor,
    blast_factor, volume_factor, open_findings, max_severity, internet_exposed,
    exposed_by_findings (the findings an exposure of the asset is derived from), dependents,
    top_finding_id, top_finding_title, uri.
    """
    ph = Phases(progress)
    ph.step(0, "collecting findings")
    fidx = ds.finding_index()
    rows = np.flatnonzero(fidx.open_count > 0)
    ph.step(10, "building the graph")
    ds.graph(ph.sub(10, 40))
    exposed = exposure_levels(ds)
    ph.step(60, "counting dependents")
    dep_in = ds.view("dep_in")
    dependents = dep_in.degree()[: len(ds.assets)]
    ph.step(80, "scoring")
    max_risk = fidx.max_risk[rows]
    exposure = np.where(exposed[rows], 1.5, 1.0)
    blast = 1.0 + np.minimum(1.0, np.log10(1.0 + dependents[rows]) / 2.0)
    volume = 1.0 + np.minimum(0.5, 0.1 * (fidx.open_count[rows] - 1))
    score = np.round(max_risk * exposure * blast * volume, 3)
    f = ds.findings
    open_rows = np.flatnonzero(~f["is_suppressed"].to_numpy(dtype=bool)
                               & (fidx.asset_row >= 0))
    top_of: dict[int, int] = {}
    risk = f["risk_score"].to_numpy(dtype=np.float64)
    for fr in open_rows[np.lexsort((f["id"].to_numpy(dtype=object)[open_rows].astype(str),
                                    -risk[open_rows]))]:
        top_of.setdefault(int(fidx.asset_row[fr]), int(fr))
    briefs = ds.briefs(rows)
    fid = f["id"].to_numpy(dtype=object)
    ftitle = f["title"].to_numpy(dtype=object)
    tops = [top_of[int(r)] for r in rows]
    out = pd.DataFrame({
        "id": briefs["id"], "name": briefs["name"], "type": briefs["type"],
        "provider": briefs["provider"], "account_id": briefs["account_id"], "score": score,
        "max_risk": max_risk, "exposure_factor": exposure, "blast_factor": np.round(blast, 3),
        "volume_factor": np.round(volume, 3), "open_findings": fidx.open_count[rows],
        "max_severity": briefs["max_severity"], "internet_exposed": exposed[rows],
        "exposed_by_findings": _exposing_findings(ds, rows),
        "dependents": dependents[rows].astype(np.int64),
        "top_finding_id": fid[tops] if tops else [], "top_finding_title": ftitle[tops]
        if tops else [],
        "uri": [asset_uri(i) for i in briefs["id"]],
    })
    out = out.iloc[np.lexsort((out["id"].astype(str).to_numpy(), -out["score"].to_numpy()))]
    out.insert(0, "rank", np.arange(1, len(out) + 1))
    ph.done()
    return out.reset_index(drop=True)


def list_frameworks_of_findings(ds: Dataset) -> list[str]:
    """Frameworks named by findings (compliance results may name others)."""
    return sorted({str(x) for v in ds.findings["compliance_frameworks"].tolist()
                   for x in (v or [])})
