"""Prowler CSV's columns and cell grammar, shared by its row and column-wise readers.

COMPLIANCE is ``FRAMEWORK: control, control | FRAMEWORK: ...`` (a framework named twice keeps
its last list), RESOURCE_TAGS ``k=v | k=v`` (or ``k:v``), CATEGORIES ``a,b``; cells are
already stripped. A row whose cells are the header's names is the header again: two CSVs
concatenated (``header_again``).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import DatasetLoadError

__all__ = ["READ_COLUMNS", "READ_SET", "HEADER_WORDS", "compliance_of", "tags_of",
           "categories_of", "header_again", "headers_warning", "NO_RESOURCE", "NO_FINDING_UID",
           "BAD_STATUS", "severity_note"]

#: The columns the readers use, in the order ``prowler_csv._check_results`` unpacks them.
READ_COLUMNS = (
    "PROVIDER", "ACCOUNT_UID", "ACCOUNT_NAME", "REGION", "RESOURCE_UID", "RESOURCE_NAME",
    "RESOURCE_TYPE", "RESOURCE_TAGS", "SERVICE_NAME", "FINDING_UID", "STATUS", "SEVERITY",
    "CHECK_TITLE", "DESCRIPTION", "STATUS_EXTENDED", "REMEDIATION_RECOMMENDATION_TEXT",
    "CHECK_ID", "TIMESTAMP", "MUTED", "COMPLIANCE", "CATEGORIES")
READ_SET = frozenset(READ_COLUMNS)
#: Every column name of Prowler's CSV (``prowler/lib/outputs/csv/csv.py``): a STATUS cell
#: holding one of these is a header row's.
HEADER_WORDS = READ_SET | frozenset((
    "AUTH_METHOD", "ACCOUNT_EMAIL", "ACCOUNT_ORGANIZATION_UID", "ACCOUNT_ORGANIZATION_NAME",
    "ACCOUNT_TAGS", "CHECK_TYPE", "SUBSERVICE_NAME", "RESOURCE_DETAILS", "PARTITION", "RISK",
    "RELATED_URL", "REMEDIATION_RECOMMENDATION_URL", "REMEDIATION_CODE_NATIVEIAC",
    "REMEDIATION_CODE_TERRAFORM", "REMEDIATION_CODE_CLI", "REMEDIATION_CODE_OTHER",
    "DEPENDS_ON", "RELATED_TO", "NOTES", "PROWLER_VERSION", "ADDITIONAL_URLS",
    "ACCOUNT_OU_UID", "ACCOUNT_OU_NAME"))

#: Why a row is skipped, in the CSV's own terms (reported under RESOURCE_UID, FINDING_UID,
#: STATUS; a SEVERITY note by ``severity_note``).
NO_RESOURCE = "empty, and so is RESOURCE_NAME: the row names no resource"
NO_FINDING_UID = "empty: the row has no finding id"
BAD_STATUS = "empty or not PASS, FAIL or MANUAL"


def severity_note(word: str) -> str:
    """The note on a SEVERITY cell this reader cannot read."""
    return (f"{'not low, medium, high, critical or informational' if word else 'empty'}; "
            "loaded as UNKNOWN")


def header_again(cells: Mapping[str, str], *, file: str, index: int) -> bool:
    """Whether row ``index`` (``cells``: the read columns present, by name; its STATUS cell
    holds a column name) repeats the header, as ``cat`` of two Prowler CSVs leaves it. A
    header of another column order (CSVs of different Prowler versions) is a
    DatasetLoadError: the rows under it would be read into the wrong columns."""
    if all(value.upper() == name for name, value in cells.items()):
        return True
    raise DatasetLoadError(
        file, f"row {index} is a CSV header with the columns in another order (Prowler CSV "
              "files of different versions concatenated?): the rows under it cannot be read "
              "by the first header; load each file on its own",
        data={"index": index})


def headers_warning(rows: list[int]) -> str:
    """The load report's warning for header rows found again at ``rows``."""
    listed = ", ".join(map(str, rows[:10])) + (" ..." if len(rows) > 10 else "")
    return (f"the header is repeated {len(rows)} time(s) (rows {listed}): Prowler CSV files "
            "were concatenated; every part was read, the repeated headers are not counted as "
            "records (row indexes count them)")


def _pairs(text: str, sep: str) -> list[tuple[str, str]]:
    out = []
    for item in text.split("|"):
        key, found, value = item.partition(sep)
        if found and key.strip():
            out.append((key.strip(), value.strip()))
    return out


def compliance_of(text: str) -> dict[str, list[str]]:
    """Framework → control ids of a COMPLIANCE cell."""
    return {fw: [c.strip() for c in controls.split(",") if c.strip()]
            for fw, controls in _pairs(text, ":")}


def tags_of(text: str) -> list[dict[str, str]]:
    """A RESOURCE_TAGS cell as OCSF-style labels (``Key``/``Value`` dicts)."""
    sep = "=" if "=" in text else ":"
    return [{"Key": k, "Value": v} for k, v in _pairs(text, sep)]


def categories_of(text: str) -> list[str]:
    """A CATEGORIES cell's categories."""
    return [c.strip() for c in text.split(",") if c.strip()] if text else []
