"""The open findings of each asset a graph shows: worst first, for its severity ring and the
node panel. Findings link to assets by ``resource_id`` (the asset's id, as ``list_findings``
reports it); suppressed ones are left out. ``fetch_findings`` asks a client for them once
per graph (all pages, as columns: tens of thousands of rows in well under a second).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any

from .plots import SEVERITY_ORDER, _finding_records

__all__ = ["FINDING_FIELDS", "fetch_findings", "findings_by_asset", "severity_rank"]

#: What the node panel shows of each finding.
FINDING_FIELDS = ("id", "severity", "title", "cvss_score", "risk_score", "source_tool")
_RANK = {severity: i for i, severity in enumerate(SEVERITY_ORDER)}


def severity_rank(severity: str | None) -> int:
    """0 for CRITICAL ... 5 for UNKNOWN; 6 for no open finding (sorts worst first)."""
    return _RANK.get(str(severity or "").upper(), len(SEVERITY_ORDER))


def _plain(value: Any) -> Any:
    """A JSON-safe cell: NaN (a DataFrame's missing number) as None, numpy scalars as Python."""
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _rows(findings: Any, assets: Collection[str] | None) -> list[Mapping[str, Any]]:
    """The finding records, a DataFrame's cut to ``assets`` and the panel's columns first
    (30,000 findings of a large estate: a twentieth of the time of all their rows)."""
    if hasattr(findings, "columns") and hasattr(findings, "to_dict") and \
            "resource_id" in findings.columns:
        frame = findings
        if assets is not None:
            frame = frame[frame["resource_id"].isin(list(assets))]
        keep = [c for c in (*FINDING_FIELDS, "resource_id", "is_suppressed")
                if c in frame.columns]
        return list(frame[keep].to_dict("records"))
    return _finding_records(findings)


def findings_by_asset(findings: Any, assets: Collection[str] | None = None
                      ) -> dict[str, list[dict[str, Any]]]:
    """Per asset id (of ``assets`` when given), its open findings (``FINDING_FIELDS``),
    worst severity first, then the highest risk score. ``findings``: a ``list_findings``
    result, its data, a DataFrame or a list of dicts with ``resource_id`` and ``severity``."""
    out: dict[str, list[dict[str, Any]]] = {}
    for finding in _rows(findings, assets):
        if not isinstance(finding, Mapping) or finding.get("is_suppressed") is True:
            continue
        resource = _plain(finding.get("resource_id"))
        severity = str(finding.get("severity") or "").upper()
        if not resource or severity not in _RANK or (
                assets is not None and str(resource) not in assets):
            continue
        record = {k: _plain(finding.get(k)) for k in FINDING_FIELDS}
        record["severity"] = severity
        out.setdefault(str(resource), []).append(record)
    for records in out.values():
        records.sort(key=lambda f: (_RANK[f["severity"]], -(f.get("risk_score") or 0),
                                    str(f.get("id"))))
    return out


def fetch_findings(client: Any, dataset: str | None) -> tuple[Any, str | None]:
    """Every open finding of ``dataset`` through ``client`` (a DataFrame), or None and why
    not in words (the graph is drawn without rings then, and says so)."""
    try:
        frame = client.frame("list_findings", dataset=dataset or "", progress=False)
    except Exception as exc:  # a refusal or a lost server must not stop the graph
        code = getattr(getattr(exc, "error", None), "code", None) or type(exc).__name__
        return None, f"findings not shown: list_findings failed ({code})"
    return frame, None
