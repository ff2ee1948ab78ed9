"""The MCP edge: a layer bound into the official ``mcp`` SDK, served over stdio or HTTP.

``bind_layer`` (SDK server, both eras), ``ChangeFanout`` (change notifications),
``PrincipalResolver`` / ``BearerTokens`` (who calls), ``serve_stdio`` / ``build_http_app``,
``session_manager`` / ``SessionLimits`` (bounded HTTP sessions for any ASGI host).
Names load on first use, so ``cloudg_nb.protocol.client_config`` works without ``mcp``.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "LayerBinding": "binding",
    "bind_layer": "binding",
    "CHANGE_KINDS": "fanout",
    "ChangeFanout": "fanout",
    "HostOriginGuard": "host_origin_guard",
    "build_http_app": "http",
    "run_http": "http",
    "session_manager": "http",
    "LimitedSessionManager": "sessions",
    "SessionLimits": "sessions",
    "BearerTokens": "principal",
    "PrincipalResolver": "principal",
    "RequestInfo": "principal",
    "parse_token_spec": "principal",
    "run_stdio": "stdio",
    "serve_stdio": "stdio",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'cloudg_nb.protocol' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
