"""Compliance queries: pass rates per framework, controls, and the failing gaps."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .dataset import Dataset
from .errors import ReferenceNotFoundError
from .models import ComplianceStatus, Severity, close_matches, parse_enum

__all__ = ["list_frameworks", "compliance_summary", "list_controls", "control_status",
           "compliance_gaps", "resolve_framework"]


def list_frameworks(ds: Dataset) -> list[str]:
    """Frameworks with compliance results, sorted."""
    return sorted(str(x) for x in ds.compliance["framework"].dropna().unique())


def resolve_framework(ds: Dataset, framework: str) -> str:
    """The framework name ``framework`` means (case-insensitive); close matches on a miss."""
    names = list_frameworks(ds)
    for name in names:
        if name.lower() == str(framework).strip().lower():
            return name
    raise ReferenceNotFoundError(
        "No compliance results for that framework; compliance_summary lists the loaded ones.",
        data={"field": "framework", "close_matches": close_matches(str(framework), names),
              "allowed": names})


def compliance_summary(ds: Dataset, framework: str | None = None) -> pd.DataFrame:
    """Per framework: controls, passed, failed, not_applicable, manual and pass_rate
    (passed / (passed + failed), None when nothing was assessed)."""
    c = ds.compliance
    if framework:
        c = c[c["framework"] == resolve_framework(ds, framework)]
    rows = []
    for fw, grp in c.groupby("framework", sort=True):
        counts = grp["status"].value_counts()
        p = int(counts.get("PASS", 0))
        f = int(counts.get("FAIL", 0))
        rows.append({"framework": str(fw), "controls": len(grp), "passed": p, "failed": f,
                     "not_applicable": int(counts.get("NOT_APPLICABLE", 0)),
                     "manual": int(counts.get("MANUAL", 0)),
                     "pass_rate": round(p / (p + f), 4) if p + f else None})
    return pd.DataFrame(rows, columns=["framework", "controls", "passed", "failed",
                                       "not_applicable", "manual", "pass_rate"])


def list_controls(ds: Dataset, framework: str, status: str | None = None) -> pd.DataFrame:
    """The controls of one framework (optionally of one status)."""
    fw = resolve_framework(ds, framework)
    c = ds.compliance[ds.compliance["framework"] == fw]
    if status:
        c = c[c["status"] == parse_enum(ComplianceStatus, status, field="status").value]
    return c.sort_values("control_id", kind="stable").reset_index(drop=True)


def control_status(ds: Dataset, framework: str, control_id: str) -> dict[str, Any]:
    """One control's status with its findings (id, severity, title, resource)."""
    fw = resolve_framework(ds, framework)
    c = ds.compliance[ds.compliance["framework"] == fw]
    hit = c[c["control_id"].astype(str) == str(control_id)]
    if hit.empty:
        raise ReferenceNotFoundError(
            "No such control in that framework; list_controls shows them.",
            data={"field": "control_id", "close_matches": close_matches(
                str(control_id), c["control_id"].astype(str).tolist())})
    rec = hit.iloc[0].to_dict()
    return {"framework": fw, "control_id": str(rec["control_id"]),
            "control_title": rec["control_title"], "status": rec["status"],
            "findings": _findings_of(ds, list(rec["finding_ids"] or []))}


def _findings_of(ds: Dataset, ids: list[str]) -> list[dict[str, Any]]:
    fidx = ds.finding_index()
    f = ds.findings
    names = ds.assets["name"].to_numpy(dtype=object)
    out = []
    for fid in ids:
        row = fidx.row_of_id.get(str(fid))
        if row is None:
            out.append({"id": str(fid), "known": False})
            continue
        arow = int(fidx.asset_row[row])
        out.append({"id": str(fid), "known": True, "severity": f["severity"].iat[row],
                    "title": f["title"].iat[row], "is_suppressed": bool(
                        f["is_suppressed"].iat[row]),
                    "resource_id": f["resource_id"].iat[row],
                    "resource_name": str(names[arow]) if arow >= 0 else None})
    return out


def compliance_gaps(ds: Dataset, framework: str | None = None) -> pd.DataFrame:
    """Failing controls, worst first: framework, control_id, control_title, findings,
    open_findings, max_severity, resources (names), finding_ids."""
    c = ds.compliance
    if framework:
        c = c[c["framework"] == resolve_framework(ds, framework)]
    c = c[c["status"] == ComplianceStatus.FAIL.value]
    fidx = ds.finding_index()
    f = ds.findings
    names = ds.assets["name"].to_numpy(dtype=object)
    rank_name = {s.rank: s.value for s in Severity}
    rows = []
    for rec in c.to_dict("records"):
        ids = [str(x) for x in (rec["finding_ids"] or [])]
        frows = [fidx.row_of_id[i] for i in ids if i in fidx.row_of_id]
        open_rows = [r for r in frows if not bool(f["is_suppressed"].iat[r])]
        ranks = [int(fidx.severity_rank[r]) for r in open_rows]
        resources = sorted({str(names[fidx.asset_row[r]]) if fidx.asset_row[r] >= 0
                            else str(f["resource_id"].iat[r]) for r in frows})
        rows.append({"framework": rec["framework"], "control_id": rec["control_id"],
                     "control_title": rec["control_title"], "findings": len(ids),
                     "open_findings": len(open_rows),
                     "max_severity": rank_name.get(max(ranks)) if ranks else None,
                     "_rank": max(ranks) if ranks else -1, "resources": resources,
                     "finding_ids": ids})
    out = pd.DataFrame(rows, columns=["framework", "control_id", "control_title", "findings",
                                      "open_findings", "max_severity", "_rank", "resources",
                                      "finding_ids"])
    if len(out):
        out = out.iloc[np.lexsort((out["control_id"].astype(str).to_numpy(),
                                   out["framework"].astype(str).to_numpy(),
                                   -out["open_findings"].to_numpy(),
                                   -out["_rank"].to_numpy()))]
    return out.drop(columns="_rank").reset_index(drop=True)
