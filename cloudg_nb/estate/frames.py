"""Column layout of a dataset's four DataFrames and the normalisation every loader uses.

``normalize_*`` turn loosely typed frames (CSV text, JSON records, Parquet) into the canonical
layout: enum columns as upper-case strings, dict/list columns as Python objects (``None``
means empty), booleans as bool. Problems raise ``DatasetLoadError`` naming ``source``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable
from enum import StrEnum
from typing import Any

import numpy as np
import pandas as pd

from .errors import DatasetLoadError
from .models import (
    AssetType,
    ComplianceStatus,
    EdgeType,
    Provider,
    Severity,
    close_matches,
)

__all__ = [
    "ASSET_COLUMNS", "EDGE_COLUMNS", "FINDING_COLUMNS", "COMPLIANCE_COLUMNS",
    "normalize_assets", "normalize_edges", "normalize_findings", "normalize_compliance",
    "empty_frame", "records_frame", "risk_scores",
]

ASSET_COLUMNS = ["id", "arn", "name", "asset_type", "provider", "region", "account_id", "tags",
                 "metadata", "is_internet_exposed"]
EDGE_COLUMNS = ["id", "source_id", "target_id", "edge_type", "relationship", "properties",
                "description", "ports", "port_range", "protocol", "cidr", "direction"]
FINDING_COLUMNS = ["id", "resource_id", "resource_arn", "severity", "title", "description",
                   "evidence", "remediation", "source_tool", "source_finding_id",
                   "compliance_frameworks", "cvss_score", "detected_at", "is_suppressed",
                   "suppression_reason", "risk_score"]
COMPLIANCE_COLUMNS = ["framework", "control_id", "control_title", "status", "finding_ids"]

_COLUMNS = {"assets": ASSET_COLUMNS, "edges": EDGE_COLUMNS, "findings": FINDING_COLUMNS,
            "compliance": COMPLIANCE_COLUMNS}

_PROVIDER_ALIASES = {"AMAZON": "AWS", "AMAZON_WEB_SERVICES": "AWS", "MICROSOFT": "AZURE",
                     "MICROSOFT_AZURE": "AZURE", "GOOGLE": "GCP", "GOOGLE_CLOUD": "GCP",
                     "GOOGLE_CLOUD_PLATFORM": "GCP", "K8S": "KUBERNETES"}
_SEVERITY_ALIASES = {"INFORMATIONAL": "INFO", "INFORMATION": "INFO", "NONE": "INFO",
                     "MODERATE": "MEDIUM", "MED": "MEDIUM", "IMPORTANT": "HIGH",
                     "NEGLIGIBLE": "LOW", "FATAL": "CRITICAL"}
_STATUS_ALIASES = {"PASSED": "PASS", "OK": "PASS", "COMPLIANT": "PASS", "FAILED": "FAIL",
                   "NON_COMPLIANT": "FAIL", "NONCOMPLIANT": "FAIL", "N/A": "NOT_APPLICABLE",
                   "NA": "NOT_APPLICABLE", "SKIPPED": "NOT_APPLICABLE", "INFO": "MANUAL"}


def empty_frame(kind: str) -> pd.DataFrame:
    """An empty frame with the canonical columns of ``kind`` (assets, edges, ...)."""
    return pd.DataFrame({c: pd.Series(dtype=object) for c in _COLUMNS[kind]})


def records_frame(kind: str, records: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """A frame of ``kind``'s columns from dict records (unknown keys are dropped)."""
    cols = _COLUMNS[kind]
    rows = list(records)
    if not rows:
        return empty_frame(kind)
    return pd.DataFrame.from_records(rows, columns=[c for c in cols if c != "risk_score"])


# -- cell readers ---------------------------------------------------------------------------


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA


def _text(v: Any) -> str | None:
    if _missing(v):
        return None
    s = str(v)
    return s if s != "" else None


def _dict_cell(source: str, column: str) -> Callable[[Any], dict | None]:
    def read(v: Any) -> dict | None:
        if _missing(v):
            return None
        if isinstance(v, dict):
            return v or None
        if isinstance(v, str):
            if not v.strip():
                return None
            try:
                parsed = json.loads(v)
            except json.JSONDecodeError:
                raise DatasetLoadError(
                    source, f"column '{column}' holds text that is not a JSON object"
                ) from None
            if isinstance(parsed, dict):
                return parsed or None
        if isinstance(v, (list, np.ndarray)):  # key/value pairs, e.g. from Parquet maps
            try:
                return {str(k): val for k, val in v} or None
            except (TypeError, ValueError):
                pass
        raise DatasetLoadError(source, f"column '{column}' must hold JSON objects")

    return read


_SPLIT = re.compile(r"[;,\s|]+")


def _list_cell(source: str, column: str, item: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def read(v: Any) -> list | None:
        if isinstance(v, (list, tuple, np.ndarray)):
            out = [item(x) for x in v]
            return out or None
        if _missing(v):
            return None
        if isinstance(v, str):
            s = v.strip()
            if not s:
                return None
            if s.startswith("["):
                try:
                    parsed = json.loads(s)
                except json.JSONDecodeError:
                    raise DatasetLoadError(
                        source, f"column '{column}' holds text that is not a JSON list"
                    ) from None
                return [item(x) for x in parsed] or None
            return [item(x) for x in _SPLIT.split(s) if x] or None
        if isinstance(v, (int, np.integer)):
            return [item(v)]
        raise DatasetLoadError(source, f"column '{column}' must hold lists")

    return read


def _bool_cell(v: Any) -> bool:
    if _missing(v):
        return False
    if isinstance(v, str):
        return v.strip().lower() in ("true", "1", "yes", "y", "t")
    return bool(v)


def _map_enum(
    series: pd.Series, enum: type[StrEnum], *, source: str, column: str, aliases: dict[str, str],
    fallback: str | None = None, default: str | None = None,
) -> tuple[pd.Series, pd.Series | None]:
    """Map a column onto enum values; returns (mapped, mask of rows that used the fallback)."""
    allowed = {m.value for m in enum}
    uniques = series.dropna().unique()
    mapping: dict[Any, str] = {}
    unknown: list[str] = []
    for u in uniques:
        key = str(u).strip().upper().replace("-", "_").replace(" ", "_")
        key = aliases.get(key, key)
        if key in allowed:
            mapping[u] = key
        elif fallback is not None:
            mapping[u] = fallback
        else:
            unknown.append(str(u))
    if unknown:
        raise DatasetLoadError(
            source, f"column '{column}' has values that are not known {column} names",
            data={"column": column, "close_matches": close_matches(unknown[0], sorted(allowed)),
                  "allowed": sorted(allowed)},
        )
    mapped = series.map(mapping).astype(object)
    if default is not None:
        mapped = mapped.fillna(default)
    elif mapped.isna().any():
        raise DatasetLoadError(source, f"column '{column}' is empty on some rows")
    fell_back = None
    if fallback is not None:  # decided per distinct value; a missing value never falls back
        unknown_values = [u for u in uniques if aliases.get(
            key := str(u).strip().upper().replace("-", "_").replace(" ", "_"), key)
            not in allowed]
        fell_back = series.isin(unknown_values) if unknown_values else pd.Series(
            False, index=series.index)
    return mapped.astype(object), fell_back


def _require(df: pd.DataFrame, columns: list[str], source: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise DatasetLoadError(
            source, f"required column(s) missing: {', '.join(missing)}",
            data={"missing_columns": missing, "columns": [str(c) for c in df.columns][:50]},
        )


def text_array(column: pd.Series) -> Any:
    """An object column of text and missing cells (None, NaN: null) as an Arrow string
    array; None when a cell is something else (numbers, flags, bytes that are not UTF-8 ...)."""
    import pyarrow as pa

    try:
        return pa.array(column.to_numpy(dtype=object), pa.string(), from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None


def _text_col(df: pd.DataFrame, col: str) -> pd.Series:
    if col not in df.columns:
        return pd.Series([None] * len(df), index=df.index, dtype=object)
    return pd.Series([v if type(v) is str and v else _text(v) for v in df[col].tolist()],
                     index=df.index, dtype=object)


def _obj_col(df: pd.DataFrame, col: str, reader: Callable[[Any], Any]) -> pd.Series:
    if col not in df.columns:
        return pd.Series([None] * len(df), index=df.index, dtype=object)
    return pd.Series([reader(v) for v in df[col].tolist()], index=df.index, dtype=object)


def _bool_col(df: pd.DataFrame, col: str) -> np.ndarray:
    """A flag column read cell by cell (``_bool_cell``); all False when the column is absent."""
    if col not in df.columns:
        return np.zeros(len(df), dtype=bool)
    return np.array([_bool_cell(v) for v in df[col].tolist()], dtype=bool)


def _unique_ids(ids: pd.Series, source: str, what: str) -> None:
    if ids.isna().any():
        raise DatasetLoadError(source, f"some {what} have no id")
    dup = ids[ids.duplicated()]
    if len(dup):
        raise DatasetLoadError(source, f"{what} ids must be unique; {len(dup)} are repeated",
                               data={"example_duplicates": [str(x) for x in dup.head(3)]})


def _infer_provider(arn: Any) -> str | None:
    if not isinstance(arn, str):
        return None
    if arn.startswith("arn:aws"):
        return "AWS"
    if arn.lower().startswith("/subscriptions/"):
        return "AZURE"
    if arn.startswith("//") or arn.startswith("projects/"):
        return "GCP"
    return None


# -- normalisers ----------------------------------------------------------------------------


def normalize_assets(df: pd.DataFrame, *, source: str = "assets") -> pd.DataFrame:
    """Canonical asset frame; unknown asset types become OTHER (original kept in metadata)."""
    if not len(df):
        return empty_frame("assets")
    _require(df, ["id"], source)
    out = pd.DataFrame(index=pd.RangeIndex(len(df)))
    df = df.reset_index(drop=True)
    out["id"] = _text_col(df, "id")
    _unique_ids(out["id"], source, "assets")
    out["arn"] = _text_col(df, "arn")
    names = _text_col(df, "name")
    out["name"] = names.where(names.notna(), out["id"])
    raw_type = df["asset_type"] if "asset_type" in df.columns else df.get("type")
    if raw_type is None:
        raw_type = pd.Series([None] * len(df), dtype=object)
    out["asset_type"], fell_back = _map_enum(
        raw_type.astype(object), AssetType, source=source, column="asset_type", aliases={},
        fallback="OTHER", default="OTHER")
    raw_prov = df["provider"].astype(object) if "provider" in df.columns else pd.Series(
        [None] * len(df), dtype=object)
    raw_prov = raw_prov.where(raw_prov.notna(), out["arn"].map(_infer_provider))
    out["provider"], _ = _map_enum(raw_prov, Provider, source=source, column="provider",
                                   aliases=_PROVIDER_ALIASES, fallback="OTHER", default="OTHER")
    region = _text_col(df, "region")
    out["region"] = region.where(region.notna(), "global")
    out["account_id"] = _text_col(df, "account_id")
    out["tags"] = _obj_col(df, "tags", _dict_cell(source, "tags"))
    out["metadata"] = _obj_col(df, "metadata", _dict_cell(source, "metadata"))
    if fell_back is not None and fell_back.any():
        metas: list[Any] = out["metadata"].tolist()
        for i in np.flatnonzero(fell_back.to_numpy()):
            meta = dict(metas[i] or {})
            meta.setdefault("original_type", str(raw_type.iloc[i]))
            metas[i] = meta
        out["metadata"] = pd.Series(metas, index=out.index, dtype=object)
    out["is_internet_exposed"] = _bool_col(df, "is_internet_exposed")
    return out


def normalize_edges(df: pd.DataFrame, *, source: str = "edges") -> pd.DataFrame:
    """Canonical edge frame; an edge without an id gets ``e<row>``; unknown types are errors."""
    if not len(df):
        return empty_frame("edges")
    df = df.reset_index(drop=True)
    _require(df, ["source_id", "target_id", "edge_type"], source)
    out = pd.DataFrame(index=pd.RangeIndex(len(df)))
    ids = _text_col(df, "id")
    fallback_ids = pd.Series([f"e{i}" for i in range(len(df))], dtype=object)
    out["id"] = ids.where(ids.notna(), fallback_ids)
    _unique_ids(out["id"], source, "edges")
    out["source_id"] = _text_col(df, "source_id")
    out["target_id"] = _text_col(df, "target_id")
    if out["source_id"].isna().any() or out["target_id"].isna().any():
        raise DatasetLoadError(source, "some edges have no source_id or target_id")
    out["edge_type"], _ = _map_enum(df["edge_type"].astype(object), EdgeType, source=source,
                                    column="edge_type", aliases={})
    out["relationship"] = _text_col(df, "relationship")
    out["properties"] = _obj_col(df, "properties", _dict_cell(source, "properties"))
    out["description"] = _text_col(df, "description")

    def port(x: Any) -> int:
        try:
            return int(x)
        except (TypeError, ValueError):
            raise DatasetLoadError(source, "column 'ports' holds a value that is not a port "
                                           "number") from None

    out["ports"] = _obj_col(df, "ports", _list_cell(source, "ports", port))
    out["port_range"] = _text_col(df, "port_range")
    protocol = _text_col(df, "protocol")
    out["protocol"] = protocol.map(lambda p: p.lower() if isinstance(p, str) else p)
    out["cidr"] = _text_col(df, "cidr")
    direction = _text_col(df, "direction")
    out["direction"] = direction.map(lambda d: d.lower() if isinstance(d, str) else d)
    return out


def risk_scores(severity: pd.Series, cvss: pd.Series) -> pd.Series:
    """Base risk of each severity, averaged with CVSS where present (vectorised)."""
    base = severity.map({s.value: s.risk for s in Severity}).astype(float)
    cv = pd.to_numeric(cvss, errors="coerce")
    return base.where(cv.isna(), ((base + cv) / 2.0).round(2))


def normalize_findings(df: pd.DataFrame, *, source: str = "findings") -> pd.DataFrame:
    """Canonical finding frame with a computed ``risk_score`` column."""
    if not len(df):
        return empty_frame("findings")
    df = df.reset_index(drop=True)
    _require(df, ["id", "severity"], source)
    out = pd.DataFrame(index=pd.RangeIndex(len(df)))
    out["id"] = _text_col(df, "id")
    _unique_ids(out["id"], source, "findings")
    out["resource_id"] = _text_col(df, "resource_id")
    out["resource_arn"] = _text_col(df, "resource_arn")
    if (out["resource_id"].isna() & out["resource_arn"].isna()).any():
        raise DatasetLoadError(source, "some findings name no resource_id or resource_arn")
    out["severity"], _ = _map_enum(df["severity"].astype(object), Severity, source=source,
                                   column="severity", aliases=_SEVERITY_ALIASES)
    title = _text_col(df, "title")
    out["title"] = title.where(title.notna(), out["id"])
    for col in ("description", "evidence", "remediation", "source_tool", "source_finding_id"):
        out[col] = _text_col(df, col)
    out["compliance_frameworks"] = _obj_col(
        df, "compliance_frameworks", _list_cell(source, "compliance_frameworks", str))
    cvss = (pd.to_numeric(df["cvss_score"], errors="coerce") if "cvss_score" in df.columns
            else pd.Series(np.nan, index=df.index))
    out["cvss_score"] = cvss.astype(float)
    out["detected_at"] = _text_col(df, "detected_at")
    out["is_suppressed"] = _bool_col(df, "is_suppressed")
    out["suppression_reason"] = _text_col(df, "suppression_reason")
    out["risk_score"] = risk_scores(out["severity"], out["cvss_score"])
    return out


def normalize_compliance(df: pd.DataFrame, *, source: str = "compliance") -> pd.DataFrame:
    """Canonical compliance frame (one row per framework control)."""
    if not len(df):
        return empty_frame("compliance")
    df = df.reset_index(drop=True)
    _require(df, ["framework", "control_id", "status"], source)
    out = pd.DataFrame(index=pd.RangeIndex(len(df)))
    out["framework"] = _text_col(df, "framework")
    out["control_id"] = _text_col(df, "control_id")
    if out["framework"].isna().any() or out["control_id"].isna().any():
        raise DatasetLoadError(source, "some compliance results have no framework or control_id")
    title = _text_col(df, "control_title")
    out["control_title"] = title.where(title.notna(), out["control_id"])
    out["status"], _ = _map_enum(df["status"].astype(object), ComplianceStatus, source=source,
                                 column="status", aliases=_STATUS_ALIASES)
    out["finding_ids"] = _obj_col(df, "finding_ids", _list_cell(source, "finding_ids", str))
    return out
