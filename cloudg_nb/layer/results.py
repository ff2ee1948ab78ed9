"""Turning handler return values into JSON-able values and text (for tool results).

Conversion rules: pydantic models dump in JSON mode, objects with ``to_dict()`` use it,
dataclasses become dicts, containers convert recursively, enums give their value, anything
else becomes ``str``. Text is indented JSON, cut at the layer's output cap with a marker.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import math
from enum import Enum
from typing import Any

__all__ = ["to_jsonable", "render_text", "truncate_text"]

_SCALARS = (str, int, bool, type(None))


def to_jsonable(value: Any) -> Any:
    """Convert a handler result into plain JSON types (dict, list, str, number, bool, None)."""
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return [to_jsonable(v) for v in items]
    if isinstance(value, Enum):
        return to_jsonable(value.value)
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            return to_jsonable(dump(mode="json"))
        except TypeError:
            return to_jsonable(dump())
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_jsonable(to_dict())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    item = getattr(value, "item", None)  # numpy scalars
    if callable(item):
        try:
            return to_jsonable(item())
        except (TypeError, ValueError):
            pass
    return str(value)


def render_text(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def truncate_text(text: str, limit: int | None) -> tuple[str, int]:
    """Cut ``text`` to ``limit`` characters plus a marker line; return (text, removed)."""
    if not limit or len(text) <= limit:
        return text, 0
    removed = len(text) - limit
    marker = (
        f"\n… [output truncated: {removed} characters removed; the full result is in "
        "structuredContent, or narrow the request with filters / a smaller limit]"
    )
    return text[:limit] + marker, removed
