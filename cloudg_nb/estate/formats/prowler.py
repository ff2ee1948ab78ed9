"""Prowler JSON-OCSF output (``prowler <provider> -M json-ocsf``): a JSON array, or JSON
lines, of OCSF findings.

Each record's first resource becomes an asset (ARN/uid as id, OCSF resource type mapped to
an ``AssetType``, labels as tags) and each account a CLOUD_ACCOUNT asset (a Kubernetes
cluster a KUBERNETES_CLUSTER one: Prowler's Kubernetes records carry no ``cloud``, the
provider and cluster are read where Prowler writes them, ``prowler_identity``); FAIL records
become findings (muted/suppressed ones suppressed); every record's compliance mapping
(``unmapped.compliance`` or ``compliance.requirements``) becomes control results: FAIL when
any failing record maps to the control, else MANUAL when a manual one does, else PASS.
Records are validated one by one (``LoadReport``): a record without a resource, a finding
id, a readable status or with a malformed ``cloud`` is skipped and reported by index (or fails
the load under ``strict``); a missing severity loads as UNKNOWN, reported; a result seen
again (same finding id, check, resource and scope: a re-scan) merges, the newest kept, and
nothing merges across providers or accounts (``prowler_identity``). Prowler emits no
relationships; the only edges are internet exposures derived from failing checks that say so
(``finding_exposure``), each naming its finding.
"""

from __future__ import annotations

import ast
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..dataset import Dataset
from ..errors import DatasetLoadError
from .json_values import text_of
from .jsonio import read_json_documents, read_json_lines, read_text
from .load_report import LoadReport
from .prowler_identity import (
    kubernetes_cluster_of_uid,
    ocsf_provider_word,
    provider_of,
    scope_word,
)
from .prowler_rows import SEVERITIES, STATUSES, dataset_of_rows

__all__ = ["read_prowler", "read_records", "dataset_of_rows", "looks_like_prowler"]

_REQ = re.compile(r"^\s*([^:]+):\s*(\[.*\])\s*$")
#: OCSF severity_id values → Severity (the words: ``prowler_rows.SEVERITIES``).
_SEVERITY_IDS = {0: "UNKNOWN", 1: "INFO", 2: "LOW", 3: "MEDIUM", 4: "HIGH", 5: "CRITICAL",
                 6: "CRITICAL"}


def looks_like_prowler(record: Any) -> bool:
    return isinstance(record, dict) and (
        "finding_info" in record or ("finding" in record and "class_uid" in record)
        or ("status_code" in record and "resources" in record))


def _requirements(record: dict[str, Any], index: int,
                  report: LoadReport) -> dict[str, list[str]]:
    unmapped = record.get("unmapped")
    comp = unmapped.get("compliance") if isinstance(unmapped, dict) else None
    if isinstance(comp, dict):
        out = {}
        for k, v in comp.items():
            if isinstance(v, list):
                out[str(k)] = [str(c) for c in v if isinstance(c, (str, int, float))]
            elif v is not None:
                report.note(index, f"unmapped.compliance.{k}", "not a list of controls; "
                                                               "this mapping was not read")
        return out
    if comp is not None:
        report.note(index, "unmapped.compliance", "not an object; the compliance mapping was "
                                                  "not read")
    out = {}
    compliance = record.get("compliance")
    reqs = compliance.get("requirements") if isinstance(compliance, dict) else None
    for line in reqs if isinstance(reqs, list) else []:
        m = _REQ.match(str(line))
        if not m:
            continue
        try:
            controls = ast.literal_eval(m.group(2))
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            continue
        if isinstance(controls, list):
            out[m.group(1).strip()] = [str(c) for c in controls]
    return out


def _categories(record: dict[str, Any]) -> list[str]:
    """The check's categories (``unmapped.categories``; ``internet-exposed`` matters)."""
    unmapped = record.get("unmapped")
    cats = unmapped.get("categories") if isinstance(unmapped, dict) else None
    return [str(c) for c in cats] if isinstance(cats, list) else []


def _status(record: dict[str, Any]) -> str | None:
    code = text_of(record.get("status_code"))
    if code is not None:
        return STATUSES.get(code.lower())
    comp = record.get("compliance")
    word = text_of(comp.get("status")) if isinstance(comp, dict) else None
    return STATUSES.get(word.lower()) if word else None


def _severity(record: dict[str, Any], index: int, report: LoadReport) -> str:
    """The record's severity; UNKNOWN (reported) when it has none this reader can read."""
    raw = record.get("severity")
    word = text_of(raw)
    if word is not None and word.lower() in SEVERITIES:
        return SEVERITIES[word.lower()]
    sid = record.get("severity_id")
    if isinstance(sid, int) and not isinstance(sid, bool) and sid in _SEVERITY_IDS:
        return _SEVERITY_IDS[sid]
    reason = "missing" if raw is None else "not a severity this reader knows"
    report.note(index, "severity", f"{reason}; loaded as UNKNOWN")
    return "UNKNOWN"


def _iso(value: Any) -> str | None:
    """ISO-8601 text of an ISO string or a Unix time in seconds or milliseconds."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        seconds = value / 1000.0 if value > 1e11 else float(value)
        try:
            return datetime.fromtimestamp(seconds, tz=UTC).isoformat().replace("+00:00", "Z")
        except (OverflowError, OSError, ValueError):
            return None
    return text_of(value)


def _detected_at(record: dict[str, Any], info: dict[str, Any]) -> str | None:
    """When the check ran: ``time_dt`` / ``time`` (Prowler 4.5+), ``event_time`` (4.0-4.4),
    else the finding's created time."""
    for value in (record.get("time_dt"), record.get("event_time"),
                  info.get("created_time_dt"), record.get("time"), info.get("created_time")):
        text = _iso(value)
        if text:
            return text
    return None


def _muted(record: dict[str, Any]) -> bool:
    unmapped = record.get("unmapped")
    flagged = isinstance(unmapped, dict) and unmapped.get("muted") is True
    status = text_of(record.get("status"))
    return flagged or (status or "").lower() in ("suppressed", "muted")


def _records(path: Path) -> tuple[list[Any], int]:
    """The records of an OCSF file and how many JSON arrays held them (``cat`` of several
    scans' files gives one array after another)."""
    text = read_text(path)
    stripped = text.lstrip()
    arrays = 1
    if stripped.startswith("["):
        docs = read_json_documents(path, text)
        if not all(isinstance(d, list) for d in docs):
            raise DatasetLoadError(path.name, "not Prowler OCSF output: a JSON array is "
                                              "followed by other JSON (expected arrays of "
                                              "findings, or JSON lines)")
        doc: Any = docs[0] if len(docs) == 1 else [r for d in docs for r in d]
        arrays = len(docs)
    else:
        doc = read_json_lines(path, text)
    if isinstance(doc, dict) and looks_like_prowler(doc):
        doc = [doc]
    if not isinstance(doc, list):
        raise DatasetLoadError(path.name, "not Prowler OCSF output: expected a list of "
                                          "findings")
    if doc and not any(looks_like_prowler(r) for r in doc):
        raise DatasetLoadError(path.name, "not Prowler OCSF output: no record has "
                                          "finding_info or resources")
    return doc, arrays


def _record(rec: Any, index: int, report: LoadReport) -> dict[str, Any] | None:
    """The fields of one record this reader uses, validated; None (reported) if unusable."""
    if not isinstance(rec, dict):
        report.skip(index, "record", "not a JSON object")
        return None
    if not looks_like_prowler(rec):
        report.skip(index, "record", "not a Prowler finding (no finding_info or resources)")
        return None
    cloud = rec.get("cloud")
    if cloud is None:
        cloud = {}
    if not isinstance(cloud, dict):
        report.skip(index, "cloud", "must be an object with provider, account and region")
        return None
    account = cloud.get("account")
    if account is not None and not isinstance(account, dict):
        report.skip(index, "cloud.account", "must be an object with uid and name")
        return None
    account = account or {}
    resources = rec.get("resources")
    if not isinstance(resources, list) or not resources:
        report.skip(index, "resources", "missing or empty: the finding names no resource")
        return None
    res = resources[0]
    if not isinstance(res, dict):
        report.skip(index, "resources[0]", "not an object")
        return None
    uid = text_of(res.get("uid")) or text_of(res.get("name"))
    if uid is None:
        report.skip(index, "resources[0].uid", "missing: the resource has no uid or name")
        return None
    info = rec.get("finding_info", rec.get("finding"))
    if not isinstance(info, dict):
        report.skip(index, "finding_info", "missing or not an object")
        return None
    fid = text_of(info.get("uid"))
    if fid is None:
        report.skip(index, "finding_info.uid", "missing: the finding has no id")
        return None
    status = _status(rec)
    if status is None:
        report.skip(index, "status_code", "missing or not PASS, FAIL or MANUAL")
        return None
    group = res.get("group")
    metadata = rec.get("metadata")
    meta = metadata if isinstance(metadata, dict) else {}
    unmapped = rec.get("unmapped")
    extra = unmapped if isinstance(unmapped, dict) else {}
    check = text_of(meta.get("event_code"))
    word = scope_word(ocsf_provider_word(
        text_of(cloud.get("provider")), text_of(extra.get("provider")), fid,
        meta.get("profiles"), "namespace" in res))
    provider = provider_of(word)
    provider_uid = text_of(extra.get("provider_uid"))
    acct_id = text_of(account.get("uid"))
    acct_name = text_of(account.get("name"))
    region = text_of(res.get("region"))
    if provider == "KUBERNETES":  # Prowler names the cluster in the finding uid only
        acct_id = acct_id or acct_name or kubernetes_cluster_of_uid(fid, check) or provider_uid
        if acct_name is None and provider_uid and provider_uid != acct_id:
            acct_name = f"context: {provider_uid}"
        namespace = text_of(res.get("namespace"))
        region = region or (f"namespace: {namespace}" if namespace else None)
    acct_id = acct_id or provider_uid
    remediation = rec.get("remediation")
    product = meta.get("product")
    tool = text_of(product.get("name")) if isinstance(product, dict) else None
    muted_reason = text_of(extra.get("muted_reason"))
    return {
        "index": index, "word": word, "provider": provider, "account_id": acct_id,
        "account_name": acct_name or acct_id,
        "cloud_region": text_of(cloud.get("region")), "uid": uid,
        "res_name": text_of(res.get("name")), "res_type": text_of(res.get("type")) or "",
        "res_region": region, "labels": res.get("labels"),
        "service": text_of(group.get("name")) if isinstance(group, dict) else None,
        "fid": fid, "status": status, "severity": _severity(rec, index, report),
        "title": text_of(info.get("title")), "desc": text_of(info.get("desc")),
        "evidence": text_of(rec.get("status_detail")) or text_of(rec.get("message")),
        "remediation": text_of(remediation.get("desc")) if isinstance(remediation, dict)
        else None,
        "check": check,
        "detected_at": _detected_at(rec, info), "muted": _muted(rec),
        "reqs": _requirements(rec, index, report), "categories": _categories(rec),
        "tool": (tool or "prowler").lower(), "muted_reason": muted_reason or "muted in Prowler",
    }


def read_prowler(path: Path, *, name: str = "dataset", strict: bool = False) -> Dataset:
    """Load Prowler JSON-OCSF output (or Prowler CSV, recognised by its header) as a dataset
    (assets, findings, compliance); bad records are skipped and reported in
    ``Dataset.load_report`` (or fail the load when ``strict``)."""
    if path.suffix.lower() == ".csv":
        from .prowler_csv import read_prowler_csv

        return read_prowler_csv(path, name=name, strict=strict)
    records, arrays = _records(path)
    report = LoadReport(path.name, strict=strict, records=len(records))
    if arrays > 1:
        report.warnings.append(
            f"the file holds {arrays} JSON arrays one after another (Prowler outputs "
            "concatenated): all were read as one list, record indexes counting across them")
    return read_records(records, file=path.name, name=name, strict=strict, report=report)


def read_records(records: list[Any], *, file: str, name: str = "dataset",
                 strict: bool = False, kind: str = "prowler",
                 report: LoadReport | None = None) -> Dataset:
    """The dataset of OCSF-shaped Prowler ``records`` read from ``file`` (see the module).

    A reader that maps another format onto these records may pass its own ``report``
    (field aliases, records it set aside) and the dataset ``kind``; the product name
    (``metadata.product.name``) is the findings' source tool and ``unmapped.muted_reason``
    their suppression reason."""
    report = report or LoadReport(file, strict=strict, records=len(records))
    rows = [r for i, rec in enumerate(records) if i not in report.set_aside_indexes
            and (r := _record(rec, i, report)) is not None]
    return dataset_of_rows(rows, report, file=file, name=name, kind=kind)
