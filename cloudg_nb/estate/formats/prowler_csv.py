"""Prowler's default CSV output (``prowler <provider> -M csv``, Prowler 4 and 5): a
semicolon-separated table with one row per check result (AUTH_METHOD;TIMESTAMP;ACCOUNT_UID;
...;FINDING_UID;PROVIDER;CHECK_ID;...;STATUS;...;SEVERITY;RESOURCE_TYPE;RESOURCE_UID;...).

Each row is turned into the OCSF record the JSON-OCSF writer would have produced for it and
read by the same validating reader (``prowler.read_records``), so both formats load alike.
COMPLIANCE is ``FRAMEWORK: control, control | FRAMEWORK: ...``; tags are ``k=v | k=v``.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from ..dataset import Dataset
from ..errors import DatasetLoadError
from .jsonio import read_text

__all__ = ["looks_like_prowler_csv", "read_prowler_csv", "REQUIRED_COLUMNS"]

#: Columns without which a CSV is not Prowler's (the others are read when present).
REQUIRED_COLUMNS = ("FINDING_UID", "CHECK_ID", "STATUS", "RESOURCE_UID")


def looks_like_prowler_csv(header_line: str) -> bool:
    """Whether a CSV's first line is Prowler's default header."""
    names = {c.strip().strip('"').upper() for c in header_line.split(";")}
    return all(c in names for c in REQUIRED_COLUMNS)


def _pairs(text: str, sep: str) -> list[tuple[str, str]]:
    out = []
    for item in text.split("|"):
        key, found, value = item.partition(sep)
        if found and key.strip():
            out.append((key.strip(), value.strip()))
    return out


def _compliance(text: str) -> dict[str, list[str]]:
    return {fw: [c.strip() for c in controls.split(",") if c.strip()]
            for fw, controls in _pairs(text, ":")}


def _tags(text: str) -> list[dict[str, str]]:
    sep = "=" if "=" in text else ":"
    return [{"Key": k, "Value": v} for k, v in _pairs(text, sep)]


def _record(row: dict[str, str]) -> dict[str, Any]:
    """The OCSF-shaped record of one CSV row (empty cells stay absent, never invented)."""
    def cell(name: str) -> str | None:
        value = (row.get(name) or "").strip()
        return value or None

    resource = {k: v for k, v in {
        "uid": cell("RESOURCE_UID"), "name": cell("RESOURCE_NAME"),
        "type": cell("RESOURCE_TYPE"), "region": cell("REGION"),
        "labels": _tags(cell("RESOURCE_TAGS") or ""),
        "group": {"name": cell("SERVICE_NAME")} if cell("SERVICE_NAME") else None,
    }.items() if v}
    record: dict[str, Any] = {
        "finding_info": {k: v for k, v in {"uid": cell("FINDING_UID"),
                                           "title": cell("CHECK_TITLE"),
                                           "desc": cell("DESCRIPTION")}.items() if v},
        "metadata": {"event_code": cell("CHECK_ID")},
        "resources": [resource] if resource.get("uid") or resource.get("name") else [],
        "cloud": {"provider": cell("PROVIDER"), "region": cell("REGION"),
                  "account": {"uid": cell("ACCOUNT_UID"), "name": cell("ACCOUNT_NAME")}},
        "status_detail": cell("STATUS_EXTENDED"), "time_dt": cell("TIMESTAMP"),
        "remediation": {"desc": cell("REMEDIATION_RECOMMENDATION_TEXT")},
        "unmapped": {"compliance": _compliance(cell("COMPLIANCE") or ""),
                     "categories": [c.strip() for c in (cell("CATEGORIES") or "").split(",")
                                    if c.strip()],
                     "muted": (cell("MUTED") or "").lower() == "true"},
    }
    for key, column in (("status_code", "STATUS"), ("severity", "SEVERITY")):
        if cell(column):
            record[key] = cell(column)
    return record


def read_prowler_csv(path: Path, *, name: str = "dataset", strict: bool = False) -> Dataset:
    """Load Prowler CSV output as a dataset, like its JSON-OCSF twin (see ``read_prowler``)."""
    from .prowler import read_records

    text = read_text(path)
    header = text.split("\n", 1)[0]
    if not looks_like_prowler_csv(header):
        from .prowler_compliance_csv import looks_like_prowler_compliance_csv

        hint = ("; it is a Prowler compliance CSV: load it with kind prowler-compliance "
                "(or auto)") if looks_like_prowler_compliance_csv(header) else ""
        raise DatasetLoadError(
            path.name, "not Prowler CSV output: the header lacks "
                       + ", ".join(REQUIRED_COLUMNS) + " (semicolon-separated)" + hint,
            data={"required_columns": list(REQUIRED_COLUMNS)})
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=";")
    try:
        rows = list(reader)
    except csv.Error:
        raise DatasetLoadError(path.name, "the CSV is malformed (an unterminated quote?)"
                               ) from None
    records = [_record({str(k).strip().upper(): v for k, v in row.items()
                        if k is not None and isinstance(v, str)}) for row in rows]
    return read_records(records, file=path.name, name=name, strict=strict)
