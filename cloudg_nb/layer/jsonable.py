"""Turning handler return values into JSON values and text (for tool results).

``to_jsonable`` is the one converter to JSON (tool results, page rows, resources, prompts):
a missing value (NaN, pandas NA / NaT, numpy NaT) becomes null; ±inf is not missing and
becomes "inf" / "-inf" (JSON has neither). numpy / pandas values are recognised by duck
typing, so the layer imports neither. Text is indented JSON cut at the output cap, written
by pydantic-core (several times faster) whenever its text is the stdlib's.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
from collections.abc import Mapping
from enum import Enum
from typing import Any

from pydantic_core import PydanticSerializationError
from pydantic_core import to_json as _fast_json

__all__ = ["to_jsonable", "PLAIN_TYPES", "render_text", "truncate_text"]

#: Types ``to_jsonable`` returns unchanged (exact types, not subclasses): a caller converting
#: many cells may test ``type(v) in PLAIN_TYPES`` inline and skip the call for most of them.
PLAIN_TYPES = frozenset({str, int, bool, type(None)})
#: pandas' missing-value singletons' types (``pd.NA``, ``pd.NaT``), by name: no pandas import.
_PANDAS_MISSING = frozenset({"NAType", "NaTType"})


def to_jsonable(value: Any) -> Any:
    """``value`` as plain JSON types (dict, list, str, int, float, bool, None).

    NaN, pandas ``NA`` / ``NaT`` and numpy NaT -> None; ±inf -> "inf" / "-inf". numpy scalars
    and arrays by their ``tolist()``; dates and pandas Timestamps by ``isoformat()``;
    pydantic models dump in JSON mode, objects with ``to_dict()`` use it, dataclasses become
    dicts, containers convert recursively (sets sorted by ``repr``, keys as ``str``), enums
    give their value; anything else becomes ``str``."""
    t = type(value)
    if t in PLAIN_TYPES:
        return value
    if t is float:
        return value if value - value == 0.0 else _non_finite(value)
    if t is dict:
        return {k if type(k) is str else str(k): v if type(v) in PLAIN_TYPES else to_jsonable(v)
                for k, v in value.items()}
    if t is list or t is tuple:
        return [v if type(v) in PLAIN_TYPES else to_jsonable(v) for v in value]
    return _convert(value, t)


def _non_finite(value: float) -> str | None:
    """NaN -> None (a missing value); ±inf -> "inf" / "-inf"."""
    if value != value:
        return None
    return "inf" if value > 0 else "-inf"


def _convert(value: Any, t: type) -> Any:
    """The rarer types, after ``to_jsonable``'s fast paths for plain values and containers."""
    if isinstance(value, float):  # numpy float64 and other float subclasses
        f = float(value)
        return f if f - f == 0.0 else _non_finite(f)
    if isinstance(value, Enum):
        return to_jsonable(value.value)
    if isinstance(value, str):  # str / int subclasses (numpy str_): their plain value
        return str.__str__(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return [to_jsonable(v) for v in sorted(value, key=repr)]
    if t.__name__ in _PANDAS_MISSING and t.__module__.startswith("pandas"):
        return None
    if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
        return value.isoformat()  # pandas Timestamp is a datetime
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
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    return _numpy_like(value, t)


def _numpy_like(value: Any, t: type) -> Any:
    """numpy scalars and arrays by their ``tolist()`` (Python scalars, nested lists; NaT ->
    None); a datetime64 / timedelta64 with ns precision, whose ``tolist()`` is an int, as its
    ISO text. Anything else as ``str``."""
    tolist = getattr(value, "tolist", None)
    if callable(tolist):
        try:
            plain = tolist()
        except (TypeError, ValueError):
            pass
        else:
            if type(plain) is int and t.__name__ in ("datetime64", "timedelta64"):
                return str(value)
            if plain is not value:
                return to_jsonable(plain)
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
