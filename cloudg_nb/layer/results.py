"""Turning handler return values into JSON-able values and text (for tool results).

Conversion rules: pydantic models dump in JSON mode, objects with ``to_dict()`` use it,
dataclasses become dicts, containers convert recursively, enums give their value, anything
else becomes ``str``. Text is indented JSON, cut at the layer's output cap with a marker;
pydantic-core writes it (several times faster than the stdlib's pure-Python indenting
encoder) whenever its text is the stdlib's, else the stdlib does.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import math
from enum import Enum
from typing import Any

from pydantic_core import PydanticSerializationError
from pydantic_core import to_json as _fast_json

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
    """``json.dumps(value, indent=2, ensure_ascii=False, default=str)``: the same text for
    JSON values (what ``to_jsonable`` returns); non-JSON types nested in a container (sets,
    bytes, non-string keys) come out as pydantic-core writes them."""
    if _plain(value):
        try:
            text = _fast_json(value, indent=2).decode()
        except (PydanticSerializationError, UnicodeDecodeError, ValueError):
            pass  # e.g. a lone surrogate in a string: the stdlib writes it as it is
        else:
            if _same_floats(text):
                return text
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _plain(value: Any) -> bool:
    """A container: the fast encoder pays off there (a bare scalar goes to the stdlib)."""
    return type(value) is dict or type(value) is list


def _same_floats(text: str) -> bool:
    """Whether every number in ``text`` reads as the stdlib writes it: pydantic-core writes
    floats below 1e-4 as ``0.00001`` / ``1e-7`` where the stdlib writes ``1e-05`` /
    ``1e-07`` (other floats, ints and strings come out alike)."""
    if "0.0000" in text:
        return False
    i = text.find("e-")
    while i != -1:
        if i and text[i - 1].isdigit() and text[i + 2:i + 3].isdigit():
            return False
        i = text.find("e-", i + 2)
    return True


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
