"""Prowler CSV's columns and cell grammar, shared by its row and column-wise readers.

COMPLIANCE is ``FRAMEWORK: control, control | FRAMEWORK: ...`` (a framework named twice keeps
its last list), RESOURCE_TAGS ``k=v | k=v`` (or ``k:v``), CATEGORIES ``a,b``; cells are
already stripped.
"""

from __future__ import annotations

__all__ = ["READ_COLUMNS", "READ_SET", "compliance_of", "tags_of", "categories_of"]

#: The columns the readers use, in the order ``prowler_csv._check_results`` unpacks them.
READ_COLUMNS = (
    "PROVIDER", "ACCOUNT_UID", "ACCOUNT_NAME", "REGION", "RESOURCE_UID", "RESOURCE_NAME",
    "RESOURCE_TYPE", "RESOURCE_TAGS", "SERVICE_NAME", "FINDING_UID", "STATUS", "SEVERITY",
    "CHECK_TITLE", "DESCRIPTION", "STATUS_EXTENDED", "REMEDIATION_RECOMMENDATION_TEXT",
    "CHECK_ID", "TIMESTAMP", "MUTED", "COMPLIANCE", "CATEGORIES")
READ_SET = frozenset(READ_COLUMNS)


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
