"""Input bounds checked before any work: argument count, nesting depth and total size.

``check_arguments`` walks the arguments iteratively and stops at the first cap exceeded; the
error names at most a few argument names (identifier-like ones only) and counts, never the
list. ``checked_on_loop`` is the serving loop's version: it checks arguments within the loop
budget (``LOOP_VALUES``, ``LOOP_CHARS``) and says False for larger ones, whose check, like
every other per-value step of their request, then runs in a worker thread.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from .errors import InvalidArgumentsError
from .schema import _unknown_name

__all__ = [
    "LOOP_CHARS", "LOOP_VALUES", "InputBounds", "check_arguments", "check_uri", "checked_on_loop",
    "within_loop_budget",
]

#: How many argument names an error message and its data show at most.
NAMES_SHOWN = 5
#: The most values (objects, lists, keys, scalars) and characters (keys and strings) a
#: request's arguments may hold for their checks, transforms, validation and audit hashes to
#: run on the serving loop: about 10 ms of loop time at these sizes. Larger arguments are
#: handled in a worker thread, so one large request does not hold up every other caller.
LOOP_VALUES = 5_000
LOOP_CHARS = 65_536


@dataclass(frozen=True, slots=True)
class InputBounds:
    """Caps for one request's arguments.

    ``max_arguments``: keys of the top-level object; ``max_depth``: nesting of objects and
    lists; ``max_values``: objects, lists, keys and scalars in total; ``max_chars``:
    characters of all keys and strings together (a proxy for the request's size);
    ``max_uri_chars``: characters of a resource URI (read or subscribed to).
    """

    max_arguments: int = 64
    max_depth: int = 32
    max_values: int = 100_000
    max_chars: int = 1_000_000
    max_uri_chars: int = 16_384

    def __post_init__(self) -> None:
        for name in ("max_arguments", "max_depth", "max_values", "max_chars", "max_uri_chars"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer (got {value!r})")


def _refuse(what: str, count: int | str, limit: int, hint: str, **extra: Any) -> None:
    raise InvalidArgumentsError(
        f"Arguments too large: {what} ({count}) exceeds the limit of {limit}. {hint}",
        data={"limit": what, "count": count, "max": limit, **extra},
    )


def check_uri(uri: Any, bounds: InputBounds) -> None:
    """Raise InvalidArgumentsError when the resource URI ``uri`` is longer than
    ``bounds.max_uri_chars`` (before a template is matched against it)."""
    if isinstance(uri, str) and len(uri) > bounds.max_uri_chars:
        raise InvalidArgumentsError(
            f"Resource URI too long: {len(uri)} characters exceeds the limit of "
            f"{bounds.max_uri_chars}. Read resources by the URIs that resources/list and "
            "resources/templates/list describe.",
            data={"limit": "uri length", "count": len(uri), "max": bounds.max_uri_chars},
        )


def check_arguments(arguments: Any, bounds: InputBounds) -> None:
    """Raise InvalidArgumentsError when ``arguments`` exceed ``bounds``; no-op otherwise."""
    if isinstance(arguments, dict):  # else validation reports the type
        if len(arguments) > bounds.max_arguments:
            _too_many_arguments(arguments, bounds)
        _walk(arguments, bounds, bounds.max_values, bounds.max_chars)


def checked_on_loop(arguments: Any, bounds: InputBounds) -> bool:
    """Check ``arguments`` against ``bounds`` if they fit the loop budget and say True; say
    False as soon as they prove larger (then nothing is decided: check them with
    ``check_arguments`` off the loop). Costs at most the budget's walk."""
    if not isinstance(arguments, dict):
        return True
    if len(arguments) > bounds.max_arguments:
        _too_many_arguments(arguments, bounds)
    max_values, max_chars = bounds.max_values, bounds.max_chars
    return _walk(arguments, bounds, LOOP_VALUES if max_values > LOOP_VALUES else max_values,
                 LOOP_CHARS if max_chars > LOOP_CHARS else max_chars)


def within_loop_budget(value: Any) -> bool:
    """Whether ``value`` holds at most ``LOOP_VALUES`` values and ``LOOP_CHARS`` characters
    (walked no further than that)."""
    return _walk(value, _UNCAPPED, LOOP_VALUES, LOOP_CHARS)


def _too_many_arguments(arguments: dict[Any, Any], bounds: InputBounds) -> None:
    names = [_unknown_name(k)[:40] for _, k in zip(range(NAMES_SHOWN), arguments, strict=False)]
    _refuse("argument count", len(arguments), bounds.max_arguments,
            "Send only the arguments the tool declares (tools/list shows them).",
            first_names=names)


def _walk(root: Any, bounds: InputBounds, stop_values: int, stop_chars: int) -> bool:
    """Raise when a cap of ``bounds`` is exceeded; False when ``stop_values`` or
    ``stop_chars`` (at most the caps) is exceeded first; True when the walk stayed within."""
    if isinstance(root, str):
        return len(root) <= stop_chars or _over(bounds, len(root) > bounds.max_chars)
    values = 0
    chars = 0
    stack: list[tuple[Any, int]] = [(root, 1)] if isinstance(root, dict | list | tuple) else []
    while stack:
        node, depth = stack.pop()
        if depth > bounds.max_depth:
            _refuse("nesting depth", f"over {bounds.max_depth}", bounds.max_depth,
                    "Flatten the arguments.")
        values += len(node)  # counted before walking them: a huge container stops here
        if values > stop_values:
            if values > bounds.max_values:
                _refuse("value count", f"over {bounds.max_values}", bounds.max_values,
                        "Send fewer values (narrow filters, page with a cursor).")
            return False
        deeper = depth + 1
        if isinstance(node, dict):
            for key, value in node.items():
                chars += len(key) if isinstance(key, str) else 8
                if isinstance(value, str):
                    chars += len(value)
                elif isinstance(value, dict | list | tuple):
                    stack.append((value, deeper))
        else:
            for value in node:
                if isinstance(value, str):
                    chars += len(value)
                elif isinstance(value, dict | list | tuple):
                    stack.append((value, deeper))
        if chars > stop_chars:
            return _over(bounds, chars > bounds.max_chars)
    return True


def _over(bounds: InputBounds, over_bounds: bool) -> bool:
    """Characters went past the walk's stop: refused when over the bounds, else False (over
    the budget only)."""
    if over_bounds:
        _too_big(bounds)
    return False


def _too_big(bounds: InputBounds) -> None:
    _refuse("total size in characters", f"over {bounds.max_chars}", bounds.max_chars,
            "Send smaller arguments.")


#: Caps no value reaches: ``within_loop_budget`` only measures.
_UNCAPPED = InputBounds(max_arguments=sys.maxsize, max_depth=sys.maxsize,
                        max_values=sys.maxsize, max_chars=sys.maxsize,
                        max_uri_chars=sys.maxsize)
