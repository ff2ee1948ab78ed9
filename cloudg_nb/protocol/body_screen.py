"""What a POST body may hold before the SDK parses it on the serving loop.

The SDK parses and validates every request on the loop, in single C calls that hold the GIL
(so no worker thread can take them off it): about 0.3 µs of loop time per JSON value. A body
with more than ``MAX_REQUEST_VALUES`` commas is therefore refused unparsed (a count of bytes:
a millisecond for 4 MB); commas inside strings count too, and no tool takes a string that
long. A JSON-RPC ``id`` that is not a string or an integer is refused too (a body over
``INLINE_PARSE_BYTES`` is parsed for it in a worker thread).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
import pydantic_core

from ..layer.wire import INVALID_PARAMS, INVALID_REQUEST

__all__ = ["INLINE_PARSE_BYTES", "MAX_REQUEST_VALUES", "Refusal", "screen_body"]

#: The most commas (so about the most values: object members, list items) one request may
#: hold: the SDK's parsing and validation of 25k object members takes about 10 ms of loop.
MAX_REQUEST_VALUES = 25_000
#: The largest body parsed on the loop to look at its id (about 1 ms of parsing per 64 KB).
INLINE_PARSE_BYTES = 64 * 1024
#: Cheap pre-filter: an ``"id"`` key whose value is not a string or an integer (object, array,
#: null, true/false, fraction or exponent). Only bodies it matches are parsed for the id.
_ODD_ID = re.compile(rb'"id"\s*:\s*(?:[\[{ntf]|-?\d+(?:\.|[eE]))')

_TOO_MANY_VALUES = (
    "The request holds too many values (over {limit:,} separators). Send only the arguments "
    "the tool declares, and page large inputs (smaller lists, several calls)."
)
_ODD_ID_MESSAGE = (
    "The JSON-RPC id must be a string or an integer (not an object, array, null, boolean or "
    "fraction); send the request again with such an id."
)


@dataclass(frozen=True, slots=True)
class Refusal:
    """The HTTP status, JSON-RPC error code and message that answer a refused body."""

    status: int
    code: int
    message: str


async def screen_body(body: bytes) -> Refusal | None:
    """Why ``body`` (a POST's) is refused before the SDK sees it, or None to pass it on."""
    if not body:
        return None
    if body.count(b",") > MAX_REQUEST_VALUES:
        return Refusal(413, INVALID_PARAMS, _TOO_MANY_VALUES.format(limit=MAX_REQUEST_VALUES))
    if _ODD_ID.search(body) is None:
        return None
    if len(body) > INLINE_PARSE_BYTES:
        odd = await anyio.to_thread.run_sync(_has_odd_id, body)
    else:
        odd = _has_odd_id(body)
    return Refusal(400, INVALID_REQUEST, _ODD_ID_MESSAGE) if odd else None


def _has_odd_id(body: bytes) -> bool:
    try:
        message: Any = pydantic_core.from_json(body)
    except ValueError:
        return False  # the SDK answers the parse error
    if not isinstance(message, dict) or "id" not in message:
        return False
    if "method" not in message and "result" not in message:
        return False  # an error reply may carry a null id
    ident = message["id"]
    return isinstance(ident, bool) or not isinstance(ident, str | int)
