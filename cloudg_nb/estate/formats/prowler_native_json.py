"""Prowler's native JSON (``-M json``): Prowler 3 writes a JSON array of check results
(AssessmentStartTime, FindingUniqueId, Provider, CheckID, Status, Severity, ResourceId ...;
AWS adds AccountId/Region/ResourceArn, Azure Subscription, GCP ProjectId/Location,
Kubernetes Context/Namespace); Prowler 2 wrote JSON lines ("Account Number", "Control ID",
"Resource ID" ...). Each record is mapped onto the OCSF record the Prowler reader validates
(``prowler.read_records``), so bad records are skipped by index under their own field names.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..dataset import Dataset
from ..errors import DatasetLoadError
from .json_values import first_text, object_of, text_of
from .jsonio import read_json_or_lines
from .load_report import LoadReport

__all__ = ["looks_like_prowler_native", "read_prowler_native", "native_records"]

#: Prowler 3's names of the fields the record reader reports on.
_ALIASES = {
    "resources": "ResourceId", "resources[0]": "ResourceId", "resources[0].uid": "ResourceId",
    "finding_info": "FindingUniqueId", "finding_info.uid": "FindingUniqueId",
    "status_code": "Status", "severity": "Severity", "cloud": "Provider",
    "cloud.account": "AccountId",
}
#: Prowler 2's names of the same fields.
_V2_ALIASES = dict(_ALIASES, **{
    "resources": "Resource ID", "resources[0]": "Resource ID",
    "resources[0].uid": "Resource ID", "finding_info": "Control ID",
    "finding_info.uid": "Control ID", "cloud.account": "Account Number"})
#: Why a check result is skipped, in the native format's terms.
_REASONS = {
    "resources": "missing: the check result names no resource (ResourceArn or ResourceId)",
    "finding_info.uid": "missing: the check result has no FindingUniqueId",
    "status_code": "missing or not PASS, FAIL or MANUAL",
}
_V2_REASONS = dict(_REASONS, **{
    "resources": "missing: the check result names no resource (Resource ID)",
    "finding_info.uid": "missing: without Control ID and Resource ID no finding id can be "
                        "built"})
_V2_CHECK = re.compile(r"^\s*\[([^\]]+)\]\s*")
_V2_ID_WARNING = (
    "Prowler 2 output carries no finding ids: each id was built from the check, account, "
    "region and resource (prowler-aws-<check>-<account>-<region>-<resource>, as Prowler 3 "
    "builds FindingUniqueId)")


def _is_v3(record: Any) -> bool:
    return isinstance(record, dict) and "CheckID" in record and any(
        k in record for k in ("FindingUniqueId", "AssessmentStartTime", "StatusExtended"))


def _is_v2(record: Any) -> bool:
    return isinstance(record, dict) and "Control ID" in record and "Account Number" in record


def looks_like_prowler_native(record: Any) -> bool:
    """Whether ``record`` is one Prowler 3 (or Prowler 2) native JSON check result."""
    return _is_v3(record) or _is_v2(record)


def _compliance(value: Any, index: int, report: LoadReport) -> dict[str, list[str]]:
    """Compliance: framework → list of controls (anything else is noted, not read)."""
    out: dict[str, list[str]] = {}
    for framework, controls in object_of(value).items():
        if isinstance(controls, list):
            out[str(framework)] = [str(c) for c in controls if text_of(c)]
        elif controls is not None:
            report.note(index, f"Compliance.{framework}", "not a list of controls; this "
                                                          "mapping was not read")
    if value is not None and not isinstance(value, dict):
        report.note(index, "Compliance", "not an object; the compliance mapping was not read")
    return out


def _remediation(rec: dict[str, Any]) -> str | None:
    recommendation = object_of(object_of(rec.get("Remediation")).get("Recommendation"))
    text, url = text_of(recommendation.get("Text")), text_of(recommendation.get("Url"))
    return f"{text} (see {url})" if text and url else text or url


def _account(rec: dict[str, Any], provider: str) -> tuple[str | None, str | None]:
    """(account id, account name) per provider: the AWS account (its name from
    OrganizationsInfo), the Azure subscription, the GCP project, the Kubernetes context."""
    if provider == "azure":
        sub = first_text(rec, "Subscription", "SubscriptionId")
        return sub, sub
    if provider == "gcp":
        project = first_text(rec, "ProjectId")
        return project, project
    if provider == "kubernetes":
        context = first_text(rec, "Context", "ClusterName")
        return context, context
    org = object_of(rec.get("OrganizationsInfo"))
    return first_text(rec, "AccountId"), text_of(org.get("account_details_name"))


def _v3_record(rec: dict[str, Any], index: int, report: LoadReport) -> dict[str, Any]:
    """The OCSF-shaped record of one Prowler 3 check result (absent fields stay absent)."""
    provider = (text_of(rec.get("Provider")) or "").lower()
    account_id, account_name = _account(rec, provider)
    uid = first_text(rec, "ResourceArn", "ResourceId")
    region = first_text(rec, "Region", "Location", "Namespace")
    resource = {"uid": uid, "name": first_text(rec, "ResourceName", "ResourceId"),
                "type": rec.get("ResourceType"), "region": region,
                "labels": rec.get("ResourceTags", rec.get("Tags")),
                "group": {"name": text_of(rec.get("ServiceName"))}}
    categories = rec.get("Categories")
    record: dict[str, Any] = {
        "finding_info": {"uid": rec.get("FindingUniqueId"), "title": rec.get("CheckTitle"),
                         "desc": rec.get("Description")},
        "metadata": {"event_code": text_of(rec.get("CheckID")), "product": {"name": "Prowler"}},
        "resources": [resource] if uid else [],
        "cloud": {"provider": provider or None, "region": region,
                  "account": {"uid": account_id, "name": account_name}},
        "status_code": rec.get("Status"), "status_detail": rec.get("StatusExtended"),
        "time_dt": text_of(rec.get("AssessmentStartTime")),
        "remediation": {"desc": _remediation(rec)},
        "unmapped": {"compliance": _compliance(rec.get("Compliance"), index, report),
                     "categories": [str(c) for c in categories if text_of(c)]
                     if isinstance(categories, list) else [],
                     "muted": rec.get("Muted") is True},
    }
    if rec.get("Severity") is not None:
        record["severity"] = rec["Severity"]
    return record


def _v2_record(rec: dict[str, Any]) -> dict[str, Any]:
    """The OCSF-shaped record of one Prowler 2 result; its id is built (see the warning).
    Its Compliance (ASFF compliance types such as ``ens-op.acc.1.aws.iam.4``) names no
    framework/control pair this reader can trust, so it is not read."""
    title = text_of(rec.get("Control")) or ""
    bracket = _V2_CHECK.match(title)
    check = bracket.group(1).strip() if bracket else text_of(rec.get("Control ID"))
    account, region = text_of(rec.get("Account Number")), text_of(rec.get("Region"))
    uid = text_of(rec.get("Resource ID"))
    fid = f"prowler-aws-{check}-{account}-{region}-{uid}" if check and uid else None
    record: dict[str, Any] = {
        "finding_info": {"uid": fid, "title": _V2_CHECK.sub("", title) or None,
                         "desc": rec.get("Risk")},
        "metadata": {"event_code": check, "product": {"name": "Prowler"}},
        "resources": [{"uid": uid, "region": region,
                       "group": {"name": text_of(rec.get("Service"))}}] if uid else [],
        "cloud": {"provider": "aws", "region": region,
                  "account": {"uid": account, "name": text_of(rec.get("Account Name"))}},
        "status_code": rec.get("Status"), "status_detail": rec.get("Message"),
        "time_dt": text_of(rec.get("Timestamp")),
        "remediation": {"desc": text_of(rec.get("Remediation"))},
        "unmapped": {"compliance": {}, "categories": []},
    }
    if rec.get("Severity") is not None:
        record["severity"] = rec["Severity"]
    return record


def native_records(path: Path) -> list[Any]:
    """The check results of a native JSON file (array, JSON lines, or one object)."""
    doc = read_json_or_lines(path)
    if looks_like_prowler_native(doc):
        doc = [doc]
    if not isinstance(doc, list):
        raise DatasetLoadError(path.name, "not Prowler native JSON: expected a list (or JSON "
                                          "lines) of check results")
    if doc and not any(looks_like_prowler_native(r) for r in doc):
        raise DatasetLoadError(path.name, "not Prowler native JSON: no record has CheckID "
                                          "with FindingUniqueId / AssessmentStartTime (Prowler "
                                          "3) or Control ID (Prowler 2)")
    return doc


def read_prowler_native(path: Path, *, name: str = "dataset", strict: bool = False
                        ) -> Dataset:
    """Load Prowler 2/3 native JSON as a dataset (see the module); bad records are skipped
    and reported in ``Dataset.load_report`` (or fail the load when ``strict``)."""
    from .prowler import read_records

    records = native_records(path)
    v2 = any(_is_v2(r) for r in records) and not any(_is_v3(r) for r in records)
    report = LoadReport(path.name, strict=strict, records=len(records),
                        aliases=dict(_V2_ALIASES if v2 else _ALIASES),
                        reasons=dict(_V2_REASONS if v2 else _REASONS))
    mapped: list[Any] = []
    for i, rec in enumerate(records):
        if not isinstance(rec, dict):
            report.skip(i, "record", "not a JSON object")
        elif _is_v3(rec):
            mapped.append(_v3_record(rec, i, report))
            continue
        elif _is_v2(rec):
            mapped.append(_v2_record(rec))
            continue
        else:
            report.skip(i, "record", "not a Prowler check result (no CheckID with "
                                     "FindingUniqueId, AssessmentStartTime or StatusExtended)")
        mapped.append(None)
        report.set_aside_indexes.add(i)  # skipped above; the record reader must not re-read
    if v2 and records:
        report.warnings.append(_V2_ID_WARNING)
    return read_records(mapped, file=path.name, name=name, strict=strict,
                        kind="prowler-json", report=report)
