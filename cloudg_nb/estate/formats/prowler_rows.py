"""The check results of one Prowler scan become a dataset, whichever file they were read from
(JSON-OCSF records in ``prowler``, CSV rows in ``prowler_csv`` and ``prowler_csv_columns``):
the severity and status words both spell, results seen again merged (``prowler_identity``),
asset ids kept apart across scopes, failing results as findings, every result's compliance
mapping as control results.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pandas as pd

from ..dataset import Dataset
from ..finding_exposure import exposure_edges
from ..frames import (
    normalize_assets,
    normalize_compliance,
    normalize_edges,
    normalize_findings,
)
from .load_report import LoadReport
from .prowler_identity import (
    account_asset_id,
    is_kubernetes,
    merge_repeats,
    report_kept_apart,
    scoped_asset_id,
    summarise_providers,
)
from .resource_types import asset_type_of

__all__ = ["SEVERITIES", "STATUSES", "dataset_of_rows"]

#: Prowler/OCSF severity words → Severity.
SEVERITIES = {"critical": "CRITICAL", "fatal": "CRITICAL", "high": "HIGH", "medium": "MEDIUM",
              "low": "LOW", "informational": "INFO", "info": "INFO", "unknown": "UNKNOWN"}
#: Prowler/OCSF status words → PASS, FAIL or MANUAL.
STATUSES = {"pass": "PASS", "success": "PASS", "fail": "FAIL", "failure": "FAIL",
            "failed": "FAIL", "manual": "MANUAL", "warning": "MANUAL", "info": "MANUAL"}


def _labels(labels: Any) -> dict[str, str]:
    tags: dict[str, str] = {}
    if isinstance(labels, dict):
        return {str(k): str(v) for k, v in labels.items() if isinstance(v, (str, int, float))}
    for item in labels if isinstance(labels, list) else []:
        if isinstance(item, dict):
            k = item.get("Key", item.get("key"))
            if k is not None:
                tags[str(k)] = str(item.get("Value", item.get("value", "")))
        elif isinstance(item, str):
            k, _, v = item.partition(":")
            if k:
                tags[k.strip()] = v.strip()
    return tags


def _ident_scope(row: dict[str, Any]) -> tuple[str, str | None, str | None]:
    """The scope of a result: provider word, account and (Kubernetes) namespace."""
    return (row["word"], row["account_id"],
            row["res_region"] if is_kubernetes(row["word"]) else None)


def _merge_duplicates(rows: list[dict[str, Any]], report: LoadReport) -> list[dict[str, Any]]:
    """One row per result (``prowler_identity.merge_repeats``): a result seen again merged
    to the newest, results sharing a finding id otherwise kept under new ids."""
    counts = Counter(row["fid"] for row in rows)
    repeated = [row for row in rows if counts[row["fid"]] > 1]
    if not repeated:
        return rows
    kept, renamed = merge_repeats(
        [row["index"] for row in repeated], [row["fid"] for row in repeated],
        [(_ident_scope(row), row["uid"], row["check"]) for row in repeated],
        [row["detected_at"] for row in repeated],
        [(row["word"], row["account_id"]) for row in repeated], counts, report)
    keep = set(kept)
    out = []
    for row in rows:
        if counts[row["fid"]] > 1:
            if row["index"] not in keep:
                continue
            if row["index"] in renamed:
                row = {**row, "fid": renamed[row["index"]]}
        out.append(row)
    return out


def _asset_ids(rows: list[dict[str, Any]], report: LoadReport
               ) -> tuple[list[str], list[str | None]]:
    """Per row: its resource's asset id and its account's (None without an account); ids
    given under several scopes are kept apart (``prowler_identity``) and reported."""
    scopes: dict[str, dict[tuple[Any, ...], None]] = {}
    words: dict[str, dict[str, None]] = {}
    for row in rows:
        scopes.setdefault(row["uid"], {})[_ident_scope(row)] = None
        if row["account_id"]:
            words.setdefault(row["account_id"], {})[row["word"]] = None
    ids: list[str] = []
    accounts: list[str | None] = []
    split: dict[str, dict[str, None]] = {}
    split_accounts: dict[str, dict[str, None]] = {}
    for row in rows:
        uid, acct = row["uid"], row["account_id"]
        if len(scopes[uid]) > 1:
            ids.append(scoped_asset_id(row["word"], acct, row["res_region"], uid))
            split.setdefault(uid, {})[ids[-1]] = None
        else:
            ids.append(uid)
        if acct is None:
            accounts.append(None)
            continue
        shared = len(words[acct]) > 1
        key = account_asset_id(row["word"], acct, shared)
        accounts.append(key)
        if shared:
            split_accounts.setdefault(acct, {})[key] = None
    report_kept_apart(report, {k: list(v) for k, v in split.items()},
                      {k: list(v) for k, v in split_accounts.items()})
    return ids, accounts


def dataset_of_rows(rows: list[dict[str, Any]], report: LoadReport, *, file: str,
                    name: str = "dataset", kind: str = "prowler") -> Dataset:
    """The dataset of validated check results (the dicts ``_record`` returns, which a
    columnar reader may build directly: the Prowler CSV), counted in ``report``."""
    written = Counter(row["word"] for row in rows)
    rows = _merge_duplicates(rows, report)
    asset_ids, account_ids = _asset_ids(rows, report)
    assets: dict[str, dict[str, Any]] = {}
    findings: list[dict[str, Any]] = []
    finding_providers: list[str] = []
    controls: dict[tuple[str, str], dict[str, Any]] = {}
    categories: dict[str, list[str]] = {}  # per failing finding: its check's categories
    for row, asset_id, account_key in zip(rows, asset_ids, account_ids, strict=True):
        provider, acct_id, uid, fid = row["provider"], row["account_id"], row["uid"], row["fid"]
        other = {"provider": row["word"]} if provider == "OTHER" else {}
        if account_key and account_key not in assets:
            assets[account_key] = {
                "id": account_key, "name": row["account_name"],
                "asset_type": "KUBERNETES_CLUSTER" if provider == "KUBERNETES"
                else "CLOUD_ACCOUNT", "provider": provider, "account_id": acct_id,
                "region": "global", "arn": None, "tags": {}, "metadata": dict(other)}
        if asset_id not in assets:
            raw_type = row["res_type"]
            meta: dict[str, Any] = {"original_type": raw_type} if raw_type else {}
            if row["service"]:
                meta["service"] = row["service"]
            meta.update(other)
            assets[asset_id] = {
                "id": asset_id, "name": row["res_name"] or uid.rsplit("/", 1)[-1],
                "asset_type": asset_type_of(raw_type, provider) or "OTHER",
                "provider": provider, "account_id": acct_id,
                "region": row["res_region"] or row["cloud_region"] or "global",
                "arn": uid if uid.startswith("arn:") else None,
                "tags": _labels(row["labels"]), "metadata": meta}
        status, reqs = row["status"], row["reqs"]
        if status == "FAIL":
            report.findings += 1
            categories[fid] = row["categories"]
            muted = row["muted"]
            finding_providers.append(provider)
            findings.append({
                "id": fid, "resource_id": asset_id,
                "resource_arn": uid if uid.startswith("arn:") else None,
                "severity": row["severity"], "title": row["title"] or fid,
                "description": row["desc"], "evidence": row["evidence"],
                "remediation": row["remediation"], "source_tool": row["tool"],
                "source_finding_id": row["check"] or fid,
                "compliance_frameworks": sorted(reqs), "detected_at": row["detected_at"],
                "is_suppressed": muted,
                "suppression_reason": row["muted_reason"] if muted else None,
            })
        elif status == "PASS":
            report.passed += 1
        else:
            report.manual += 1
        for fw, ids in reqs.items():
            for control in ids:
                c = controls.get((fw, control))
                if c is None:  # (not setdefault: that builds the dict for every mapping)
                    c = controls[(fw, control)] = {
                        "framework": fw, "control_id": control, "control_title": control,
                        "statuses": set(), "finding_ids": []}
                c["statuses"].add(status)
                if status == "FAIL":
                    c["finding_ids"].append(fid)
    comp_rows = []
    for c in controls.values():
        st = c.pop("statuses")
        c["status"] = "FAIL" if "FAIL" in st else "MANUAL" if "MANUAL" in st else "PASS"
        comp_rows.append(c)
    # object columns: the normalisers read Python values, so pandas' string inference (and
    # its conversion back) would be wasted work
    a = normalize_assets(pd.DataFrame(list(assets.values()), dtype=object), source=file)
    f = normalize_findings(pd.DataFrame(findings, dtype=object), source=file)
    comp = normalize_compliance(pd.DataFrame(comp_rows, dtype=object), source=file)
    e = normalize_edges(exposure_edges(f, assets, categories), source=file)
    summarise_providers(report, written, Counter(a["provider"].tolist()),
                        Counter(finding_providers))
    ds = Dataset(a, e, f, comp, normalize=False, name=name, source=file, kind=kind)
    ds.load_report = report.to_dict()
    return ds
