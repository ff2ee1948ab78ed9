"""Prowler JSON-OCSF output (``prowler <provider> -M json-ocsf``): a JSON array, or JSON
lines, of OCSF findings.

Each record's first resource becomes an asset (ARN/uid as id, OCSF resource type mapped to
an ``AssetType``, labels as tags) and each account a CLOUD_ACCOUNT asset; FAIL records
become findings (muted/suppressed ones suppressed); every record's compliance mapping
(``unmapped.compliance`` or ``compliance.requirements``) becomes control results: FAIL when
any failing record maps to the control, else MANUAL when a manual one does, else PASS.
Prowler emits no relationships; the only edges are internet exposures derived from
failing checks that say so (``finding_exposure``), each naming its finding.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pandas as pd

from ..dataset import Dataset
from ..errors import DatasetLoadError
from ..finding_exposure import exposure_edges
from ..frames import (
    normalize_assets,
    normalize_compliance,
    normalize_edges,
    normalize_findings,
)
from .jsonio import read_json, read_json_lines, read_text

__all__ = ["read_prowler", "looks_like_prowler", "RESOURCE_TYPES"]

#: OCSF/Prowler resource types → asset types (others: heuristics, then OTHER).
RESOURCE_TYPES = {
    "awsec2instance": "EC2", "awsec2securitygroup": "SECURITY_GROUP", "awss3bucket": "S3_BUCKET",
    "awsiamrole": "IAM_ROLE", "awsiamuser": "IAM_USER", "awsiampolicy": "IAM_POLICY",
    "awsrdsdbinstance": "RDS_INSTANCE", "awskmskey": "KMS_KEY",
    "awslambdafunction": "LAMBDA_FUNCTION", "awselbv2loadbalancer": "LOAD_BALANCER",
    "awselbloadbalancer": "LOAD_BALANCER", "awsec2vpc": "VPC", "awsec2subnet": "SUBNET",
    "awssecretsmanagersecret": "SECRET", "awsaccount": "CLOUD_ACCOUNT",
    "awswafv2webacl": "WAF", "awslogsloggroup": "LOG_GROUP", "awsecrrepository":
    "CONTAINER_IMAGE", "awsec2networkacl": "SECURITY_GROUP",
    "microsoft.compute/virtualmachines": "VIRTUAL_MACHINE",
    "microsoft.network/networksecuritygroups": "NSG", "microsoft.keyvault/vaults": "KEY_VAULT",
    "microsoft.storage/storageaccounts": "STORAGE_ACCOUNT",
    "microsoft.sql/servers": "SQL_DATABASE", "microsoft.network/virtualnetworks": "VNET",
    "instance": "GCE_INSTANCE", "bucket": "GCS_BUCKET", "firewall": "SECURITY_GROUP",
    "serviceaccount": "SERVICE_ACCOUNT", "cryptokey": "KMS_KEY",
}
_HEURISTICS = [("securitygroup", "SECURITY_GROUP"), ("bucket", "S3_BUCKET"),
               ("role", "IAM_ROLE"), ("lambda", "LAMBDA_FUNCTION"), ("kms", "KMS_KEY"),
               ("secret", "SECRET"), ("loadbalancer", "LOAD_BALANCER")]
_REQ = re.compile(r"^\s*([^:]+):\s*(\[.*\])\s*$")
_PROVIDERS = {"aws": "AWS", "azure": "AZURE", "gcp": "GCP", "google": "GCP"}


def looks_like_prowler(record: Any) -> bool:
    return isinstance(record, dict) and (
        "finding_info" in record or ("finding" in record and "class_uid" in record)
        or ("status_code" in record and "resources" in record))


def _asset_type(raw: str, provider: str) -> str | None:
    key = raw.strip().lower()
    if key in RESOURCE_TYPES:
        t = RESOURCE_TYPES[key]
        return "GCS_BUCKET" if t == "S3_BUCKET" and provider == "GCP" else t
    for needle, t in _HEURISTICS:
        if needle in key:
            if t == "S3_BUCKET" and provider == "GCP":
                return "GCS_BUCKET"
            return t
    return None


def _labels(labels: Any) -> dict[str, str]:
    tags: dict[str, str] = {}
    for item in labels or []:
        if isinstance(item, dict):
            k = item.get("Key", item.get("key"))
            if k is not None:
                tags[str(k)] = str(item.get("Value", item.get("value", "")))
        elif isinstance(item, str):
            k, _, v = item.partition(":")
            if k:
                tags[k.strip()] = v.strip()
    return tags


def _requirements(record: dict[str, Any]) -> dict[str, list[str]]:
    unmapped = record.get("unmapped") or {}
    comp = unmapped.get("compliance") if isinstance(unmapped, dict) else None
    if isinstance(comp, dict):
        return {str(k): [str(c) for c in (v or [])] for k, v in comp.items()}
    out: dict[str, list[str]] = {}
    reqs = (record.get("compliance") or {}).get("requirements") or []
    for line in reqs:
        m = _REQ.match(str(line))
        if not m:
            continue
        try:
            controls = ast.literal_eval(m.group(2))
        except (ValueError, SyntaxError):
            continue
        out[m.group(1).strip()] = [str(c) for c in controls]
    return out


def _categories(record: dict[str, Any]) -> list[str]:
    """The check's categories (``unmapped.categories``; ``internet-exposed`` matters)."""
    unmapped = record.get("unmapped")
    cats = unmapped.get("categories") if isinstance(unmapped, dict) else None
    return [str(c) for c in cats] if isinstance(cats, list) else []


def _status(record: dict[str, Any]) -> str:
    code = str(record.get("status_code") or "").upper()
    if code:
        return code
    comp = str((record.get("compliance") or {}).get("status") or "").lower()
    return "PASS" if comp in ("success", "pass") else "FAIL"


def _records(path: Path) -> list[dict[str, Any]]:
    text = read_text(path)
    stripped = text.lstrip()
    doc = read_json(path) if stripped.startswith("[") else read_json_lines(path, text)
    if not isinstance(doc, list) or not doc:
        raise DatasetLoadError(path.name, "not Prowler OCSF output: expected a list of "
                                          "findings")
    if not all(looks_like_prowler(r) for r in doc):
        raise DatasetLoadError(path.name, "not Prowler OCSF output: some records have no "
                                          "finding_info/resources")
    return doc


def read_prowler(path: Path, *, name: str = "dataset") -> Dataset:
    """Load Prowler JSON-OCSF output as a dataset (assets, findings, compliance)."""
    records = _records(path)
    assets: dict[str, dict[str, Any]] = {}
    findings: list[dict[str, Any]] = []
    controls: dict[tuple[str, str], dict[str, Any]] = {}
    seen_ids: dict[str, int] = {}
    categories: dict[str, list[str]] = {}  # per failing finding: its check's categories
    for rec in records:
        cloud = rec.get("cloud") or {}
        provider = _PROVIDERS.get(str(cloud.get("provider") or "").lower(), "OTHER")
        account = (cloud.get("account") or {})
        acct_id = str(account.get("uid") or "") or None
        if acct_id and f"account:{acct_id}" not in assets:
            assets[f"account:{acct_id}"] = {
                "id": f"account:{acct_id}", "name": account.get("name") or acct_id,
                "asset_type": "CLOUD_ACCOUNT", "provider": provider, "account_id": acct_id,
                "region": "global", "arn": None, "tags": {}, "metadata": {}}
        resources = rec.get("resources") or [{}]
        res = resources[0] if isinstance(resources[0], dict) else {}
        uid = str(res.get("uid") or res.get("name") or acct_id or "unknown")
        raw_type = str(res.get("type") or "")
        if uid not in assets:
            atype = _asset_type(raw_type, provider)
            meta: dict[str, Any] = {"original_type": raw_type} if raw_type else {}
            group = (res.get("group") or {}).get("name")
            if group:
                meta["service"] = group
            assets[uid] = {
                "id": uid, "name": res.get("name") or uid.rsplit("/", 1)[-1],
                "asset_type": atype or "OTHER", "provider": provider, "account_id": acct_id,
                "region": res.get("region") or cloud.get("region") or "global",
                "arn": uid if uid.startswith("arn:") else None,
                "tags": _labels(res.get("labels")), "metadata": meta}
        info = rec.get("finding_info") or rec.get("finding") or {}
        status = _status(rec)
        fid = str(info.get("uid") or f"prowler-{len(findings)}")
        if fid in seen_ids:
            seen_ids[fid] += 1
            fid = f"{fid}#{seen_ids[fid]}"
        else:
            seen_ids[fid] = 1
        reqs = _requirements(rec)
        if status == "FAIL":
            categories[fid] = _categories(rec)
            muted = str(rec.get("status") or "").lower() in ("suppressed", "muted") or bool(
                (rec.get("unmapped") or {}).get("muted")) if isinstance(rec.get("unmapped"),
                                                                        dict) else False
            meta = rec.get("metadata") or {}
            findings.append({
                "id": fid, "resource_id": uid, "resource_arn": uid if uid.startswith("arn:")
                else None, "severity": str(rec.get("severity") or "INFO"),
                "title": info.get("title") or fid, "description": info.get("desc"),
                "evidence": rec.get("status_detail") or rec.get("message"),
                "remediation": (rec.get("remediation") or {}).get("desc"),
                "source_tool": "prowler",
                "source_finding_id": meta.get("event_code") or info.get("uid"),
                "compliance_frameworks": sorted(reqs),
                "detected_at": rec.get("time_dt") or info.get("created_time_dt")
                or (str(rec["time"]) if rec.get("time") is not None else None),
                "is_suppressed": muted,
                "suppression_reason": "muted in Prowler" if muted else None,
            })
        for fw, ids in reqs.items():
            for control in ids:
                c = controls.setdefault((fw, control), {
                    "framework": fw, "control_id": control, "control_title": control,
                    "statuses": set(), "finding_ids": []})
                c["statuses"].add(status)
                if status == "FAIL":
                    c["finding_ids"].append(fid)
    comp_rows = []
    for c in controls.values():
        st = c.pop("statuses")
        c["status"] = "FAIL" if "FAIL" in st else "MANUAL" if "MANUAL" in st else "PASS"
        comp_rows.append(c)
    a = normalize_assets(pd.DataFrame(list(assets.values())), source=path.name)
    f = normalize_findings(pd.DataFrame(findings), source=path.name)
    c = normalize_compliance(pd.DataFrame(comp_rows), source=path.name)
    e = normalize_edges(exposure_edges(f, assets, categories), source=path.name)
    return Dataset(a, e, f, c, normalize=False, name=name, source=path.name, kind="prowler")
