"""JSON-ASFF findings: Prowler's ``-M json-asff`` output (a JSON array of AWS Security Finding
Format findings) and ``aws securityhub get-findings`` output (``{"Findings": [...]}``).

Each finding is mapped field by field onto the OCSF record the Prowler reader validates
(``prowler.read_records``): bad findings are skipped and reported by index under their ASFF
field names, nothing is invented. RecordState ARCHIVED findings are set aside (counted, not
loaded); Workflow.Status SUPPRESSED / RESOLVED findings load suppressed, saying which.
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

__all__ = ["looks_like_asff", "looks_like_asff_document", "read_asff", "asff_records"]

#: Compliance.Status → the status words the record reader takes. WARNING and NOT_AVAILABLE
#: say the check gave no pass/fail (Prowler writes its muted results as WARNING).
_STATUSES = {"PASSED": "PASS", "FAILED": "FAIL", "WARNING": "MANUAL", "NOT_AVAILABLE": "MANUAL"}
#: The ASFF names of the fields the record reader reports on.
_ALIASES = {
    "resources": "Resources", "resources[0]": "Resources[0]",
    "resources[0].uid": "Resources[0].Id", "finding_info": "Id", "finding_info.uid": "Id",
    "status_code": "Compliance.Status", "severity": "Severity.Label",
    "cloud": "AwsAccountId", "cloud.account": "AwsAccountId",
}
#: Why a finding is skipped, in ASFF's terms (by the record reader's field names).
_REASONS = {
    "resources": "missing or empty: the finding names no resource",
    "resources[0]": "not an object (an ASFF resource has Type and Id)",
    "resources[0].uid": "missing: the finding's first resource has no Id",
    "finding_info.uid": "missing: the finding has no Id",
    "status_code": "not PASSED, FAILED, WARNING or NOT_AVAILABLE",
}
#: ``arn:partition:service:region:account:resource`` (the resource part may hold ``/``, ``:``).
_ARN = re.compile(r"^arn:[^:]*:[^:]*:[^:]*:[^:]*:(.+)$")
#: Prowler cuts each RelatedRequirements entry to 63 characters.
_PROWLER_CUT = 63


def looks_like_asff(record: Any) -> bool:
    """Whether ``record`` is one ASFF finding (its required identifying fields)."""
    return isinstance(record, dict) and ("ProductArn" in record or "SchemaVersion" in record) \
        and any(k in record for k in ("GeneratorId", "AwsAccountId", "Resources"))


def looks_like_asff_document(doc: Any) -> bool:
    """Whether ``doc`` is Security Hub's ``get-findings`` answer (``{"Findings": [...]}``)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("Findings"), list):
        return False
    findings = doc["Findings"]
    return not findings or looks_like_asff(findings[0]) or set(doc) <= {"Findings", "NextToken"}


def _product(rec: dict[str, Any]) -> str | None:
    """The product that wrote the finding: ``product/<company>/<product>`` of ProductArn
    (``prowler``, ``securityhub``, ``guardduty`` ...), else ProductName."""
    arn = text_of(rec.get("ProductArn")) or ""
    _, found, tail = arn.partition(":product/")
    if found and tail.strip("/"):
        return tail.strip("/").rsplit("/", 1)[-1].lower()
    name = text_of(rec.get("ProductName"))
    return name.lower().replace(" ", "") if name else None


def _check(rec: dict[str, Any], product: str | None) -> str | None:
    """The check's id: Prowler's check name (GeneratorId ``prowler-<check>``); for Security
    Hub controls the control id (``EC2.13``), else the GeneratorId."""
    generator = text_of(rec.get("GeneratorId"))
    if product == "prowler" and generator and generator.startswith("prowler-"):
        return generator[len("prowler-"):]
    compliance = object_of(rec.get("Compliance"))
    return (text_of(compliance.get("SecurityControlId"))
            or text_of(object_of(rec.get("ProductFields")).get("ControlId")) or generator)


def _severity(rec: dict[str, Any]) -> str | None:
    """Severity.Label; else the label of Severity.Normalized (0-100) per the ASFF docs; else
    whatever Label holds (the record reader reports it) or None (reported as missing)."""
    sev = object_of(rec.get("Severity"))
    label = text_of(sev.get("Label"))
    if label is not None:
        return label
    score = sev.get("Normalized")
    if isinstance(score, (int, float)) and not isinstance(score, bool) and 0 <= score <= 100:
        return ("INFORMATIONAL" if score == 0 else "LOW" if score < 40 else "MEDIUM"
                if score < 70 else "HIGH" if score < 90 else "CRITICAL")
    return sev.get("Label")  # None (missing) or unreadable: the record reader reports it


def _status(rec: dict[str, Any]) -> Any:
    """Compliance.Status as PASS/FAIL/MANUAL; a finding without a compliance status (GuardDuty,
    Inspector ...) is an open finding: FAIL. An unreadable status is passed on as written
    (the record reader skips and reports it)."""
    compliance = rec.get("Compliance")
    if not isinstance(compliance, dict) or compliance.get("Status") is None:
        return "FAIL"
    word = text_of(compliance["Status"])
    return _STATUSES.get(word.upper(), word) if word else compliance["Status"]


def _workflow(rec: dict[str, Any]) -> str | None:
    """SUPPRESSED / RESOLVED from Workflow.Status (or the older WorkflowState), else None."""
    word = (text_of(object_of(rec.get("Workflow")).get("Status"))
            or text_of(rec.get("WorkflowState")))
    word = (word or "").upper()
    return word if word in ("SUPPRESSED", "RESOLVED") else None


def _requirements(rec: dict[str, Any], index: int, report: LoadReport
                  ) -> dict[str, list[str]]:
    """Framework → controls from Compliance.RelatedRequirements (Prowler: ``<framework>
    <control> <control>``; Security Hub: ``NIST.800-53.r5 AC-4``, ``PCI DSS v3.2.1/1.2.1``)
    and, for a Security Hub control, its SecurityControlId under each AssociatedStandards."""
    compliance = object_of(rec.get("Compliance"))
    listed = compliance.get("AssociatedStandards")
    standards = [s for s in (text_of(object_of(item).get("StandardsId"))
                             for item in (listed if isinstance(listed, list) else [])) if s]
    reqs = compliance.get("RelatedRequirements")
    out: dict[str, list[str]] = {}
    used: set[str] = set()
    for k, item in enumerate(reqs if isinstance(reqs, list) else []):
        text = text_of(item)
        if text is None:
            continue
        std = next((s for s in standards if text.startswith(s + " ")), None)
        if std:
            framework, controls = std, text[len(std):].split()
            used.add(std)
        elif "/" in text:
            framework, _, control = text.rpartition("/")
            controls = [control.strip()]
        else:
            framework, _, rest = text.partition(" ")
            controls = rest.split()
        framework = framework.strip()
        if not framework or not controls:
            continue
        if len(text) == _PROWLER_CUT and std:
            report.note(index, f"Compliance.RelatedRequirements[{k}]",
                        f"{_PROWLER_CUT} characters long: Prowler cuts longer entries, so its "
                        "last control may be cut short")
        known = out.setdefault(framework, [])
        known.extend(c for c in controls if c not in known)
    security_control = text_of(compliance.get("SecurityControlId"))
    for std in standards:
        if security_control and std not in used and std not in out:
            out[std] = [security_control]
    return out


def _resource_name(uid: Any) -> str | None:
    """The last part of an ARN's resource (``sg-0123`` of ``…:security-group/sg-0123``); the
    account id of Security Hub's account resource (``AWS::::Account:111122223333``)."""
    text = text_of(uid)
    if text and text.startswith("AWS::::Account:"):
        return text.rsplit(":", 1)[-1] or None
    m = _ARN.match(text or "")
    if not m:
        return None
    return re.split(r"[/:]", m.group(1))[-1] or None


def _remediation(rec: dict[str, Any]) -> str | None:
    rec_ = object_of(object_of(rec.get("Remediation")).get("Recommendation"))
    text, url = text_of(rec_.get("Text")), text_of(rec_.get("Url"))
    if text and url:
        return f"{text} (see {url})"
    return text or url


def _evidence(rec: dict[str, Any], product: str | None) -> str | None:
    """What the check saw: Prowler writes its status text as Description; Security Hub
    gives Compliance.StatusReasons."""
    if product == "prowler":
        return text_of(rec.get("Description"))
    reasons = object_of(rec.get("Compliance")).get("StatusReasons")
    texts = [t for t in (text_of(object_of(r).get("Description"))
                         for r in (reasons if isinstance(reasons, list) else [])) if t]
    return " ".join(texts) or None


def _ocsf(rec: dict[str, Any], index: int, report: LoadReport) -> dict[str, Any]:
    """The OCSF-shaped record of one ASFF finding (absent fields stay absent)."""
    product = _product(rec)
    resources = rec.get("Resources")
    if isinstance(resources, list) and resources and isinstance(resources[0], dict):
        first = resources[0]
        uid = first.get("Id")
        resource: Any = {"uid": uid, "name": _resource_name(uid), "type": first.get("Type"),
                         "region": first.get("Region"), "labels": first.get("Tags")}
        resources = [resource]
    region = text_of(rec.get("Region"))
    if region is None and isinstance(resources, list) and resources:
        region = text_of(object_of(resources[0]).get("region"))
    workflow = _workflow(rec)
    record: dict[str, Any] = {
        "finding_info": {"uid": rec.get("Id"), "title": rec.get("Title"),
                         "desc": rec.get("Description"),
                         "created_time_dt": text_of(rec.get("CreatedAt"))},
        "metadata": {"event_code": _check(rec, product), "product": {"name": product}},
        "resources": resources,
        "cloud": {"provider": "aws", "region": region,
                  "account": {"uid": rec.get("AwsAccountId")}},
        "status_code": _status(rec),
        "status_detail": _evidence(rec, product),
        "time_dt": first_text(rec, "UpdatedAt", "LastObservedAt", "FirstObservedAt"),
        "remediation": {"desc": _remediation(rec)},
        "unmapped": {"compliance": _requirements(rec, index, report), "categories": [],
                     "muted": workflow is not None,
                     "muted_reason": f"{workflow.lower()} in Security Hub (Workflow.Status "
                                     f"{workflow})" if workflow else None},
    }
    severity = _severity(rec)
    if severity is not None:
        record["severity"] = severity
    return record


def asff_records(path: Path) -> list[Any]:
    """The findings of an ASFF file: a JSON array, ``{"Findings": [...]}``, one finding, or
    JSON lines of findings; any other shape is a DatasetLoadError."""
    doc = read_json_or_lines(path)
    if looks_like_asff_document(doc):
        doc = doc["Findings"]
    elif looks_like_asff(doc):
        doc = [doc]
    if not isinstance(doc, list):
        raise DatasetLoadError(
            path.name, "not JSON-ASFF: expected a list of ASFF findings or Security Hub's "
                       '{"Findings": [...]}')
    if doc and not any(looks_like_asff(r) for r in doc):
        raise DatasetLoadError(path.name, "not JSON-ASFF: no record has ProductArn, "
                                          "GeneratorId, AwsAccountId and Resources")
    return doc


def read_asff(path: Path, *, name: str = "dataset", strict: bool = False) -> Dataset:
    """Load JSON-ASFF / Security Hub findings as a dataset (see the module); bad findings
    are skipped and reported in ``Dataset.load_report`` (or fail the load when ``strict``)."""
    from .prowler import read_records

    records = asff_records(path)
    report = LoadReport(path.name, strict=strict, records=len(records),
                        aliases=dict(_ALIASES), reasons=dict(_REASONS))
    mapped: list[Any] = []
    for i, rec in enumerate(records):
        mapped.append(None)
        if not isinstance(rec, dict):
            report.skip(i, "record", "not a JSON object")
        elif not looks_like_asff(rec):
            report.skip(i, "record", "not an ASFF finding (no ProductArn or SchemaVersion "
                                     "with GeneratorId, AwsAccountId or Resources)")
        elif (text_of(rec.get("RecordState")) or "").upper() == "ARCHIVED":
            report.set_aside(i, "RecordState", "ARCHIVED: Security Hub archived this finding "
                                               "(its resource or check is gone); not loaded")
            continue
        else:
            mapped[i] = _ocsf(rec, i, report)
            continue
        report.set_aside_indexes.add(i)  # skipped above; the record reader must not re-read
    return read_records(mapped, file=path.name, name=name, strict=strict, kind="asff",
                        report=report)
