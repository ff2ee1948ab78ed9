"""Reading values out of parsed JSON records, the same way in every reader: a field is text
only when it is a non-empty string or number, an object only when it is a dict. Readers map
what these return; a value they refuse is reported by the reader, never guessed at."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["text_of", "object_of", "first_text"]


def text_of(value: Any) -> str | None:
    """A non-empty string or number as text; None for anything else."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (str, int, float)):
        text = str(value).strip()
        return text or None
    return None


def object_of(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one (a missing or odd field)."""
    return value if isinstance(value, dict) else {}


def first_text(record: Mapping[str, Any], *keys: str) -> str | None:
    """The text (``text_of``) of the first of ``keys`` that holds some, else None."""
    return next((t for t in (text_of(record.get(k)) for k in keys) if t), None)
