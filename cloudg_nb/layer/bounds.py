"""Input bounds checked before any work: argument count, nesting depth and total size.

``check_arguments`` walks the arguments iteratively and stops at the first cap exceeded, so
a hostile request (300k keys, 4 MB, 100k levels) is refused in microseconds to milliseconds
of loop time, before middleware, input transforms and validation see it. The error names
at most a few argument names (identifier-like ones only) and carries counts, never the list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import InvalidArgumentsError
from .schema import _unknown_name

__all__ = ["InputBounds", "check_arguments"]

#: How many argument names an error message and its data show at most.
NAMES_SHOWN = 5


@dataclass(frozen=True, slots=True)
class InputBounds:
    """Caps for one request's arguments.

    ``max_arguments``: keys of the top-level object; ``max_depth``: nesting of objects and
    lists; ``max_values``: objects, lists, keys and scalars in total; ``max_chars``:
    characters of all keys and strings together (a proxy for the request's size).
    """

    max_arguments: int = 64
    max_depth: int = 32
    max_values: int = 100_000
    max_chars: int = 1_000_000

    def __post_init__(self) -> None:
        for name in ("max_arguments", "max_depth", "max_values", "max_chars"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer (got {value!r})")


def _refuse(what: str, count: int | str, limit: int, hint: str, **extra: Any) -> None:
    raise InvalidArgumentsError(
        f"Arguments too large: {what} ({count}) exceeds the limit of {limit}. {hint}",
        data={"limit": what, "count": count, "max": limit, **extra},
    )


def check_arguments(arguments: Any, bounds: InputBounds) -> None:
    """Raise InvalidArgumentsError when ``arguments`` exceed ``bounds``; no-op otherwise."""
    if not isinstance(arguments, dict):
        return  # validation reports the type
    if len(arguments) > bounds.max_arguments:
        names = [_unknown_name(k)[:40] for _, k in zip(range(NAMES_SHOWN), arguments,
                                                         strict=False)]
        _refuse("argument count", len(arguments), bounds.max_arguments,
                "Send only the arguments the tool declares (tools/list shows them).",
                first_names=names)
    values = 0
    chars = 0
    stack: list[tuple[Any, int]] = [(arguments, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, str):
            chars += len(node)
            if chars > bounds.max_chars:
                _too_big(bounds)
            continue
        if not isinstance(node, (dict, list, tuple)):
            continue
        if depth > bounds.max_depth:
            _refuse("nesting depth", f"over {bounds.max_depth}", bounds.max_depth,
                    "Flatten the arguments.")
        values += len(node)  # counted before walking them: a huge container stops here
        if values > bounds.max_values:
            _refuse("value count", f"over {bounds.max_values}", bounds.max_values,
                    "Send fewer values (narrow filters, page with a cursor).")
        if isinstance(node, dict):
            for key, value in node.items():
                chars += len(key) if isinstance(key, str) else 8
                stack.append((value, depth + 1))
            if chars > bounds.max_chars:
                _too_big(bounds)
        else:
            stack.extend((value, depth + 1) for value in node)


def _too_big(bounds: InputBounds) -> None:
    _refuse("total size in characters", f"over {bounds.max_chars}", bounds.max_chars,
            "Send smaller arguments.")
