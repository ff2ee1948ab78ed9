"""Wire constants in one place: JSON-RPC / MCP error codes, MCP header names, the error body.

Stdlib only and free of other cloudg_nb imports, so the layer's errors, the protocol edge, the
Jupyter extension and the notebook client all take their numbers from here rather than
spelling them out (``tests/layer/test_wire.py`` checks them against the SDK's own constants
and looks for copies elsewhere). The error mapping: ``MCPLayerError`` goes out as
``INTERNAL_ERROR``, ``InvalidArgumentsError`` and ``NotFoundError`` as ``INVALID_PARAMS``,
``AccessDeniedError`` as ``ACCESS_DENIED``, ``RateLimitedError`` as ``RATE_LIMITED``; an unknown
resource is ``RESOURCE_NOT_FOUND`` on handshake-era requests only; an HTTP refusal at the edge
is ``INVALID_REQUEST`` (4xx) or ``INTERNAL_ERROR`` (5xx).
"""

from __future__ import annotations

from typing import Any, Final

__all__ = [
    "ACCESS_DENIED",
    "ARROW_FORMAT",
    "CHANGED_SINCE_META",
    "COLUMNS_UNAVAILABLE",
    "FORMAT_META",
    "MAX_ROWS_META",
    "CONNECTION_CLOSED",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "JSONRPC_VERSION",
    "LAST_EVENT_ID_HEADER",
    "MCP_METHOD_HEADER",
    "MCP_NAME_HEADER",
    "MCP_PROTOCOL_VERSION_HEADER",
    "MCP_SESSION_ID_HEADER",
    "METHOD_NOT_FOUND",
    "NOT_FOUND_CODES",
    "PARSE_ERROR",
    "RATE_LIMITED",
    "REQUEST_CANCELLED",
    "RESOURCE_NOT_FOUND",
    "error_response",
]

JSONRPC_VERSION: Final = "2.0"

# -- JSON-RPC 2.0 ------------------------------------------------------------------------------
PARSE_ERROR: Final = -32700
#: Also the SDK's code for a 404 on an unknown or ended session ("Session not found").
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
#: Invalid arguments, and every "not found" of the layer (tools, prompts, domain objects).
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603

# -- MCP and the SDK ---------------------------------------------------------------------------
#: The SDK's error for a request on a connection that closed before it was answered.
CONNECTION_CLOSED: Final = -32000
#: Resource not found in the handshake-era protocol (retired at 2026-07-28, where an unknown
#: resource is ``INVALID_PARAMS``).
RESOURCE_NOT_FOUND: Final = -32002
#: The SDK's answer to a cancelled handshake-era request over HTTP; also ours for calls ended
#: by a server shutdown.
REQUEST_CANCELLED: Final = -32800

# -- the layer's own ---------------------------------------------------------------------------
#: The policy refused the call.
ACCESS_DENIED: Final = -31001
#: A rate limit or concurrency limit refused the call (error data has ``retry_after``).
RATE_LIMITED: Final = -31029

#: Codes a caller may read as "no such thing" (either era).
NOT_FOUND_CODES: Final = frozenset({INVALID_PARAMS, RESOURCE_NOT_FOUND})

# -- Streamable HTTP headers (lower case, as ASGI carries them) --------------------------------
MCP_SESSION_ID_HEADER: Final = "mcp-session-id"
MCP_PROTOCOL_VERSION_HEADER: Final = "mcp-protocol-version"
MCP_METHOD_HEADER: Final = "mcp-method"
MCP_NAME_HEADER: Final = "mcp-name"
LAST_EVENT_ID_HEADER: Final = "last-event-id"

# -- cloudg's request ``_meta`` keys (what the notebook client asks list tools for) ------------
#: The ``delta_base`` of a result the caller holds: answer only the rows changed since.
CHANGED_SINCE_META: Final = "cloudg/changed_since"
#: ``ARROW_FORMAT``: the whole result (up to ``MAX_ROWS_META`` rows) as Arrow IPC columns.
FORMAT_META: Final = "cloudg/format"
MAX_ROWS_META: Final = "cloudg/max_rows"
ARROW_FORMAT: Final = "arrow"
#: The error code of a columns request the policy cannot serve (the caller reads pages).
COLUMNS_UNAVAILABLE: Final = "columns_unavailable"


def error_response(code: int, message: str, data: Any = None, *,
                   request_id: str | int | None = None) -> dict[str, Any]:
    """A JSON-RPC error message (``data`` only when given), for edges that answer without the
    SDK: refusals before a request reaches it, and shutdown answers."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": JSONRPC_VERSION, "id": request_id, "error": error}
