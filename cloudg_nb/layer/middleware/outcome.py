"""Classifying a finished request for audit and metrics: ok, error, denied, rate_limited,
rejected, cancelled or exception."""

from __future__ import annotations

import asyncio
from typing import Any

from ..content import ToolResult
from ..errors import AccessDeniedError, InputRejectedError, RateLimitedError

__all__ = ["outcome_of", "REFUSALS"]

#: Outcomes that mean the layer refused the request (not that the handler failed).
REFUSALS = frozenset({"denied", "rate_limited", "rejected"})

_CODE_OUTCOMES = {AccessDeniedError.code: "denied", RateLimitedError.code: "rate_limited"}


def outcome_of(info: Any, result: Any = None, error: BaseException | None = None) -> str:
    """The outcome of a request that returned ``result`` or raised ``error``."""
    if error is not None:
        if isinstance(error, asyncio.CancelledError):
            return "cancelled"
        if isinstance(error, InputRejectedError):
            return "rejected"
        if isinstance(error, RateLimitedError):
            return "rate_limited"
        if isinstance(error, AccessDeniedError):
            return "denied"
        return info.outcome or "exception"
    if isinstance(result, ToolResult) and result.is_error:
        if info.outcome:
            return info.outcome
        return _CODE_OUTCOMES.get(result.meta.get("cloudg/error_code"), "error")  # type: ignore[arg-type]
    return "ok"
