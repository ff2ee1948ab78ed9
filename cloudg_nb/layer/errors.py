"""Errors a caller (a user or a model) reads, with JSON-RPC codes (numbers in ``wire``).

Messages say what was wrong and what to do; they never echo argument values or secrets.
Details go in ``data``, which adapters send as JSON-RPC error data or ``cloudg/error_data``.
"""

from __future__ import annotations

import concurrent.futures
from typing import Any

from .wire import ACCESS_DENIED, INTERNAL_ERROR, INVALID_PARAMS, RATE_LIMITED

__all__ = [
    "MCPLayerError",
    "InvalidArgumentsError",
    "NotFoundError",
    "AccessDeniedError",
    "RateLimitedError",
    "InputRejectedError",
    "CallCancelledError",
]


class MCPLayerError(Exception):
    """Base of every error the layer turns into an MCP error (JSON-RPC -32603)."""

    code: int = INTERNAL_ERROR

    def __init__(self, message: str, *, data: Any = None, code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.data = data
        if code is not None:
            self.code = code

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, code={self.code})"


class InvalidArgumentsError(MCPLayerError):
    """Arguments failed validation (JSON-RPC invalid params, -32602)."""

    code = INVALID_PARAMS


class NotFoundError(MCPLayerError):
    """An unknown (or hidden) tool, resource, prompt or domain object (-32602)."""

    code = INVALID_PARAMS


class AccessDeniedError(MCPLayerError):
    """The policy refused the call (-31001)."""

    code = ACCESS_DENIED


class RateLimitedError(MCPLayerError):
    """A rate limit or concurrency limit refused the call (-31029); data has retry_after."""

    code = RATE_LIMITED


class InputRejectedError(InvalidArgumentsError):
    """An input transform refused an argument value (e.g. it looks like a secret)."""


class CallCancelledError(concurrent.futures.CancelledError):
    """Raised inside a handler's worker thread once its call was cancelled, timed out or
    its client went away (``ctx.check_cancelled()``, ``ctx.report_progress_sync``).

    Not an ``MCPLayerError``: nobody reads the result of a cancelled call. It derives from
    ``concurrent.futures.CancelledError`` so code that swallows advisory failures (progress
    callbacks) can let it through by catching that stdlib type first.
    """

    def __init__(self, reason: str = "cancelled") -> None:
        super().__init__(f"The call was {reason}; its work stopped.")
        self.reason = reason
