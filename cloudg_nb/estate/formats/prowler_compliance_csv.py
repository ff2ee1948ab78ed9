"""Prowler compliance CSVs (``output/compliance/<scan>_<framework>_<provider>.csv``: CIS, ENS,
ISO 27001, MITRE ATT&CK, generic), recognised by their core columns. Requirements become
control results (FAIL if any row fails, else MANUAL, else PASS; ``manual_check`` rows MANUAL);
check results become assets, failing ones findings (severity UNKNOWN: the files carry none)
linked from their controls. Bad rows are skipped and reported by index.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import pandas as pd

from ..dataset import Dataset
from ..errors import DatasetLoadError
from ..finding_exposure import exposure_edges
from ..frames import normalize_assets, normalize_compliance, normalize_edges, normalize_findings
from .jsonio import read_text
from .load_report import LoadReport
from .prowler_identity import provider_of

__all__ = ["looks_like_prowler_compliance_csv", "read_prowler_compliance_csv",
           "framework_name", "CORE_COLUMNS"]

#: Columns every framework's compliance CSV has (a requirement id column is needed too).
CORE_COLUMNS = ("PROVIDER", "ASSESSMENTDATE", "STATUS", "RESOURCEID", "CHECKID")
#: Where the requirement (control) id is: every framework but Prowler 4's ISO 27001 has
#: REQUIREMENTS_ID; that one names its objective.
_CONTROL_COLUMNS = ("REQUIREMENTS_ID", "REQUIREMENTS_ATTRIBUTES_OBJETIVE_ID")
_TITLE_COLUMNS = ("REQUIREMENTS_NAME", "REQUIREMENTS_DESCRIPTION",
                  "REQUIREMENTS_ATTRIBUTES_OBJETIVE_NAME")
#: The account column per provider (AWS and generic, Azure, GCP, Kubernetes, M365).
_ACCOUNT_COLUMNS = ("ACCOUNTID", "SUBSCRIPTIONID", "PROJECTID", "CONTEXT", "TENANTID")
_REGION_COLUMNS = ("REGION", "LOCATION", "NAMESPACE")
_STATUSES = {"pass": "PASS", "fail": "FAIL", "manual": "MANUAL"}
#: What Prowler writes for a requirement that no check covers.
_MANUAL_CHECK, _MANUAL_RESOURCE = "manual", "manual_check"
#: The provider at the end of a compliance file's name (``<scan>_cis_2.0_aws.csv``).
_PROVIDER_SUFFIX = re.compile(r"_(aws|azure|gcp|kubernetes|m365|github)$", re.IGNORECASE)


def _columns(header_line: str) -> set[str]:
    return {c.strip().strip('"').upper() for c in header_line.split(";")}


def looks_like_prowler_compliance_csv(header_line: str) -> bool:
    """Whether a CSV's first line is the header of a Prowler compliance CSV."""
    names = _columns(header_line)
    return all(c in names for c in CORE_COLUMNS) and any(c in names for c in _CONTROL_COLUMNS)


def framework_name(framework: str | None, file: str) -> str:
    """``CIS-2.0`` for FRAMEWORK ``CIS`` in ``..._cis_2.0_aws.csv`` (Prowler's own key for
    the framework); FRAMEWORK alone when the file name holds no version; without a FRAMEWORK
    column (Prowler 3 to 4.2) the file name's compliance part in that spelling (``cis_2.0`` →
    ``CIS-2.0``, ``iso27001_2013`` → ``ISO27001-2013``; only the case may differ from Prowler's)."""
    stem = _PROVIDER_SUFFIX.sub("", Path(file).stem)
    if not framework:
        return stem.split("_", 1)[-1].upper().replace("_", "-")
    slug = re.sub(r"[^a-z0-9]+", "_", framework.lower()).strip("_")
    at = stem.lower().rfind(f"_{slug}_")
    version = stem[at + len(slug) + 2:] if at >= 0 else ""
    if not version or "_" in version:
        return framework
    # file names are lower case; an upper-case framework has upper-case versions (ENS-RD2022)
    return f"{framework}-{version.upper() if framework.isupper() else version}"


def _cell(row: dict[str, str], *names: str) -> str | None:
    for name in names:
        value = (row.get(name) or "").strip()
        if value:
            return value
    return None


def _rows(path: Path) -> list[dict[str, str]]:
    text = read_text(path)
    header = text.split("\n", 1)[0]
    if not looks_like_prowler_compliance_csv(header):
        raise DatasetLoadError(  # (load_path adds which kind fits the file)
            path.name, "not a Prowler compliance CSV: the header lacks "
                       + ", ".join(CORE_COLUMNS) + " and REQUIREMENTS_ID (semicolon-separated)",
            data={"required_columns": [*CORE_COLUMNS, "REQUIREMENTS_ID"]})
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=";")
    try:
        rows = list(reader)
    except csv.Error:
        raise DatasetLoadError(path.name, "the CSV is malformed (an unterminated quote?)"
                               ) from None
    return [{str(k).strip().upper(): v for k, v in row.items()
             if k is not None and isinstance(v, str)} for row in rows]


def _account(row: dict[str, str]) -> str | None:
    acct = _cell(row, *_ACCOUNT_COLUMNS)
    if acct and acct.lower().startswith("context:"):  # Kubernetes: "context: <name>"
        acct = acct.split(":", 1)[1].strip() or None
    return acct


def read_prowler_compliance_csv(path: Path, *, name: str = "dataset", strict: bool = False
                                ) -> Dataset:
    """Load one Prowler compliance CSV as a dataset (see the module); bad rows are skipped
    and reported in ``Dataset.load_report`` (or fail the load when ``strict``)."""
    rows = _rows(path)
    report = LoadReport(path.name, strict=strict, records=len(rows))
    return _dataset(rows, path.name, name, report)


def _dataset(rows: list[dict[str, str]], file: str, name: str, report: LoadReport
             ) -> Dataset:
    assets: dict[str, dict[str, Any]] = {}
    results: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    manual_requirements: set[tuple[str, str]] = set()
    controls: dict[tuple[str, str], dict[str, Any]] = {}
    for index, row in enumerate(rows):
        checked = _checked(row, index, report)
        if checked is None:
            continue
        control, status, check, uid = checked
        fw = framework_name(_cell(row, "FRAMEWORK"), file)
        c = controls.setdefault((fw, control), {
            "framework": fw, "control_id": control,
            "control_title": _cell(row, *_TITLE_COLUMNS) or control,
            "statuses": set(), "finding_ids": []})
        c["statuses"].add(status)
        if check is None or uid is None:  # a requirement no check covers
            if (fw, control) not in manual_requirements:
                manual_requirements.add((fw, control))
                report.manual += 1
            continue
        provider = provider_of(_cell(row, "PROVIDER") or "")
        acct, region = _account(row), _cell(row, *_REGION_COLUMNS)
        key = (check, acct or "", region or "", uid)
        result = results.get(key)
        if result is None:
            res_name = _cell(row, "RESOURCENAME")
            result = results[key] = {
                # the id Prowler gives this check result in its JSON-OCSF and CSV output
                "id": f"prowler-{provider.lower()}-{check}-{acct or ''}-{region or ''}-"
                      f"{res_name or uid}",
                "status": status, "check": check, "uid": uid,
                "detected_at": _cell(row, "ASSESSMENTDATE"),
                "evidence": _cell(row, "STATUSEXTENDED"),
                "muted": (_cell(row, "MUTED") or "").lower() == "true", "frameworks": set()}
            _add_assets(assets, provider, acct, uid, res_name, region)
            if status == "FAIL":
                report.findings += 1
            elif status == "PASS":
                report.passed += 1
            else:
                report.manual += 1
        result["frameworks"].add(fw)
        if result["status"] == "FAIL" and result["id"] not in c["finding_ids"]:
            c["finding_ids"].append(result["id"])
    findings = [_finding(r) for r in results.values() if r["status"] == "FAIL"]
    comp_rows = []
    for c in controls.values():
        st = c.pop("statuses")
        c["status"] = "FAIL" if "FAIL" in st else "MANUAL" if "MANUAL" in st else "PASS"
        comp_rows.append(c)
    _explain(report, len(comp_rows), sorted({c["framework"] for c in comp_rows}))
    a = normalize_assets(pd.DataFrame(list(assets.values())), source=file)
    f = normalize_findings(pd.DataFrame(findings), source=file)
    comp = normalize_compliance(pd.DataFrame(comp_rows), source=file)
    e = normalize_edges(exposure_edges(f, assets), source=file)
    ds = Dataset(a, e, f, comp, normalize=False, name=name, source=file, kind="prowler")
    ds.load_report = report.to_dict()
    return ds


def _checked(row: dict[str, str], index: int, report: LoadReport
             ) -> tuple[str, str, str | None, str | None] | None:
    """(requirement id, status, check, resource) of a valid row; check and resource are
    None for a requirement no check covers; None (skipped, reported) for a bad row."""
    control = _cell(row, *_CONTROL_COLUMNS)
    if control is None:
        report.skip(index, "REQUIREMENTS_ID", "missing: the row names no requirement")
        return None
    status = _STATUSES.get((_cell(row, "STATUS") or "").lower())
    if status is None:
        report.skip(index, "STATUS", "missing or not PASS, FAIL or MANUAL")
        return None
    check, uid = _cell(row, "CHECKID"), _cell(row, "RESOURCEID")
    if check == _MANUAL_CHECK or uid == _MANUAL_RESOURCE:
        return control, status, None, None
    if check is None:
        report.skip(index, "CHECKID", "missing: the row names no check")
        return None
    if uid is None:
        report.skip(index, "RESOURCEID", "missing: the row names no resource")
        return None
    return control, status, check, uid


def _add_assets(assets: dict[str, dict[str, Any]], provider: str, acct: str | None, uid: str,
                res_name: str | None, region: str | None) -> None:
    if acct and f"account:{acct}" not in assets:
        assets[f"account:{acct}"] = {
            "id": f"account:{acct}", "name": acct,
            "asset_type": "KUBERNETES_CLUSTER" if provider == "KUBERNETES" else "CLOUD_ACCOUNT",
            "provider": provider, "account_id": acct, "region": "global", "arn": None,
            "tags": {}, "metadata": {}}
    if uid not in assets:
        assets[uid] = {
            "id": uid, "name": res_name or uid.rsplit("/", 1)[-1], "asset_type": "OTHER",
            "provider": provider, "account_id": acct, "region": region or "global",
            "arn": uid if uid.startswith("arn:") else None, "tags": {}, "metadata": {}}


def _finding(result: dict[str, Any]) -> dict[str, Any]:
    uid, muted = result["uid"], result["muted"]
    return {
        "id": result["id"], "resource_id": uid,
        "resource_arn": uid if uid.startswith("arn:") else None, "severity": "UNKNOWN",
        "title": result["check"], "description": None, "evidence": result["evidence"],
        "remediation": None, "source_tool": "prowler", "source_finding_id": result["check"],
        "compliance_frameworks": sorted(result["frameworks"]),
        "detected_at": result["detected_at"], "is_suppressed": muted,
        "suppression_reason": "muted in Prowler" if muted else None}


def _explain(report: LoadReport, controls: int, frameworks: list[str]) -> None:
    report.explanation = (
        f"{report.records} rows read: {report.skipped_count} skipped; the rest hold "
        f"{controls} requirements of {', '.join(frameworks) or 'no framework'} and "
        f"{report.findings + report.passed + report.manual} check results: "
        f"{report.findings} failing (findings), {report.passed} passed, {report.manual} "
        "manual")
    if report.findings:
        report.warnings.append(
            f"a compliance CSV carries no severities: its {report.findings} finding(s) load "
            "as UNKNOWN; load the scan's .ocsf.json or CSV for severities and resource types")
