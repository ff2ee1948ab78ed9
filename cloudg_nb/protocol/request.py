"""Per-request plumbing between the SDK's request context and the layer's ``ToolContext``.

Builds the layer context for one request (principal, progress callback with the monotonic
rule, log callback honouring ``logging/setLevel`` or the 2026 per-request opt-in) and maps
layer errors to JSON-RPC errors.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, get_args

import mcp_types as types
from mcp.server.connection import allowed_log_levels
from mcp.shared.exceptions import MCPError
from mcp_types.methods import SERVER_NOTIFICATIONS
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from ..layer.context import Principal, ToolContext
from ..layer.errors import MCPLayerError, NotFoundError
from ..layer.jsonable import to_jsonable
from ..layer.wire import INTERNAL_ERROR, LOG_LEVEL_STATE_KEY, META_PREFIX, RESOURCE_NOT_FOUND
from .sdk_internals import connection_of

if TYPE_CHECKING:
    from ..layer.layer import CloudGMCPLayer

__all__ = [
    "DEFAULT_LOG_LEVEL",
    "connection_of",
    "declares_url_elicitation",
    "log_callback",
    "progress_callback",
    "is_modern",
    "layer_context",
    "hide_server_paths",
    "is_remote",
    "set_log_level",
    "to_mcp_error",
    "RESOURCE_NOT_FOUND",
]

logger = logging.getLogger("cloudg.mcp.protocol")

#: Severity-ascending MCP log levels (RFC 5424), from the SDK's own literal.
LOG_LEVEL_ORDER: tuple[str, ...] = get_args(types.LoggingLevel)
DEFAULT_LOG_LEVEL = "info"


def is_modern(sdk_ctx: Any) -> bool:
    return getattr(sdk_ctx, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS


def set_log_level(sdk_ctx: Any, level: str) -> None:
    """Remember a handshake-era connection's ``logging/setLevel`` choice."""
    connection = connection_of(sdk_ctx)
    if connection is not None:
        connection.state[LOG_LEVEL_STATE_KEY] = level


def _log_allowed(sdk_ctx: Any, level: str) -> bool:
    version = getattr(sdk_ctx, "protocol_version", None) or ""
    if version in MODERN_PROTOCOL_VERSIONS:
        return level in allowed_log_levels(version, sdk_ctx.meta)
    connection = connection_of(sdk_ctx)
    floor = (connection.state.get(LOG_LEVEL_STATE_KEY) if connection else None) \
        or DEFAULT_LOG_LEVEL
    return LOG_LEVEL_ORDER.index(level) >= LOG_LEVEL_ORDER.index(floor)


def progress_callback(sdk_ctx: Any) -> Callable[..., Any]:
    """A callback sending progress for this request.

    The SDK delivers it only when the caller asked for progress: on JSON-RPC transports the
    request's ``_meta.progressToken`` (none, nothing is sent), in-process the caller's own
    callback. The layer's monotonic rule is repeated here, so a value is never sent twice
    even when two code paths report it.
    """
    last: list[float] = []

    async def send(progress: float, total: float | None = None,
                   message: str | None = None) -> None:
        if last and progress <= last[0]:
            return
        last[:] = [progress]
        await sdk_ctx.session.report_progress(progress, total, message)

    return send


def log_callback(sdk_ctx: Any) -> Callable[..., Any]:
    async def send(level: str, data: Any, logger_name: str | None = None) -> None:
        if level not in LOG_LEVEL_ORDER or not _log_allowed(sdk_ctx, level):
            return
        note = types.LoggingMessageNotification(
            params=types.LoggingMessageNotificationParams(
                level=level, data=to_jsonable(data), logger=logger_name  # type: ignore[arg-type]
            )
        )
        # Request-scoped: the entry rides the stream that carries this request's response.
        await sdk_ctx.session.send_notification(note, related_request_id=sdk_ctx.request_id)

    return send


#: The notification that closes a URL-mode elicitation (2025-11-25; the 2026-07-28 era's
#: request-retry pattern has no such notification: the retried request's answer closes it).
ELICITATION_COMPLETE = "notifications/elicitation/complete"


def declares_url_elicitation(sdk_ctx: Any) -> bool:
    """The request's client declared URL-mode elicitation (``capabilities.elicitation.url``;
    in the 2026-07-28 era per request)."""
    capabilities = getattr(getattr(sdk_ctx, "session", None), "client_capabilities", None)
    return getattr(getattr(capabilities, "elicitation", None), "url", None) is not None


def _url_elicitation(sdk_ctx: Any) -> tuple[Any, Any]:
    """``(elicit_url, elicit_complete)`` callbacks for a handshake-era client that declared
    URL-mode elicitation (``capabilities.elicitation.url``), else ``(None, None)``. Both ride
    the stream of the request that asks; ``elicit_complete`` is None where the negotiated
    version has no ``notifications/elicitation/complete``. A 2026-07-28 request has no channel
    for a server request mid-call: ``approval_rounds`` offers the page instead."""
    session = getattr(sdk_ctx, "session", None)
    if is_modern(sdk_ctx) or not declares_url_elicitation(sdk_ctx):
        return None, None
    related = getattr(sdk_ctx, "request_id", None)
    version = str(getattr(sdk_ctx, "protocol_version", None) or "")

    async def elicit_url(message: str, url: str, elicitation_id: str) -> str:
        result = await session.elicit_url(message, url, elicitation_id,  # type: ignore[union-attr]
                                          related_request_id=related)
        return str(getattr(result, "action", "cancel"))

    async def elicit_complete(elicitation_id: str) -> None:
        await session.send_elicit_complete(elicitation_id,  # type: ignore[union-attr]
                                           related_request_id=related)

    completes = (ELICITATION_COMPLETE, version) in SERVER_NOTIFICATIONS
    return elicit_url, (elicit_complete if completes else None)


def layer_context(layer: CloudGMCPLayer, sdk_ctx: Any, principal: Principal) -> ToolContext:
    """A layer ``ToolContext`` for one SDK request."""
    elicit_url, elicit_complete = _url_elicitation(sdk_ctx)
    return ToolContext(
        layer=layer,
        principal=principal,
        request_id=getattr(sdk_ctx, "request_id", None),
        progress_callback=progress_callback(sdk_ctx),
        log_callback=log_callback(sdk_ctx),
        meta={"request": request_meta(sdk_ctx)},
        elicit_url=elicit_url,
        elicit_complete=elicit_complete,
    )


def request_meta(sdk_ctx: Any) -> dict[str, Any]:
    """The request's ``_meta`` entries in the ``cloudg/`` namespace (e.g.
    ``cloudg/changed_since``), for handlers; everything else in ``_meta`` is the SDK's."""
    meta = getattr(sdk_ctx, "meta", None)
    if not isinstance(meta, dict):
        return {}
    return {k: v for k, v in meta.items() if isinstance(k, str) and k.startswith(META_PREFIX)}


#: A multi-segment absolute POSIX path in text (not part of a URI or a relative path).
_ABSOLUTE_PATH = re.compile(r"(?<![\w:/.~-])/(?:[\w.@+-]+/)+[\w.@+-]*")


def _server_prefixes() -> list[tuple[str, str]]:
    prefixes = []
    for path, label in ((os.getcwd, "."), (lambda: os.path.expanduser("~"), "~")):
        with contextlib.suppress(OSError):
            where = os.path.realpath(path())
            if where not in ("/", ""):
                prefixes.append((where, label))
    return sorted(prefixes, key=lambda item: -len(item[0]))


def hide_server_paths(value: Any) -> Any:
    """``value`` (JSON-like) with the server's absolute paths hidden from remote callers: under
    the working directory relative to it (``./data``), under the home folder ``~/...``,
    elsewhere ``<server>/<last name>``. A second line of defence behind the workspace's own
    relative root labels."""
    if isinstance(value, str):
        if "/" not in value:
            return value
        for prefix, label in _server_prefixes():
            value = re.sub(re.escape(prefix) + r"(?=/|$|[^\w.-])", label, value)
        return _ABSOLUTE_PATH.sub(
            lambda m: "<server>/" + (m.group(0).rstrip("/").rsplit("/", 1)[-1]), value)
    if isinstance(value, dict):
        return {key: hide_server_paths(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [hide_server_paths(item) for item in value]
    return value


def to_mcp_error(exc: MCPLayerError, sdk_ctx: Any, *, resource: bool = False) -> MCPError:
    """A layer error as a JSON-RPC error with the layer's code and data (for remote callers
    with server paths hidden).

    An unknown resource is -32002 on handshake-era requests (their spec's code); from
    2026-07-28 on it is invalid params (-32602), the layer's own code.
    """
    code = exc.code
    if resource and isinstance(exc, NotFoundError) and not is_modern(sdk_ctx):
        code = RESOURCE_NOT_FOUND
    data = to_jsonable(exc.data) if exc.data is not None else None
    message = exc.message
    if is_remote(sdk_ctx):
        data, message = hide_server_paths(data), hide_server_paths(message)
    return MCPError(code=code, message=message, data=data)


def is_remote(sdk_ctx: Any) -> bool:
    """The request came over HTTP (not stdio or in-process): its caller is not the local user."""
    return getattr(sdk_ctx, "request", None) is not None


def internal_error(method: str) -> MCPError:
    """What a caller sees when a handler fails unexpectedly (details stay in the log)."""
    return MCPError(
        code=INTERNAL_ERROR,
        message=f"The server failed to handle {method}; the server log has the details. "
        "Try again, or report the problem.",
    )
