"""Classifying a finished request for audit and metrics: ok, error, denied, rate_limited,
rejected, cancelled or exception."""

from __future__ import annotations

import asyncio
from typing import Any

from ..calls import CallInfo
from ..content import ToolResult
from ..enums import Outcome
from ..errors import AccessDeniedError, InputRejectedError, RateLimitedError
from ..wire import ERROR_CODE_META

__all__ = ["outcome_of", "REFUSALS"]

#: Outcomes that mean the layer refused the request (not that the handler failed).
REFUSALS = frozenset({Outcome.DENIED, Outcome.RATE_LIMITED, Outcome.REJECTED})

_CODE_OUTCOMES = {
    AccessDeniedError.code: Outcome.DENIED, RateLimitedError.code: Outcome.RATE_LIMITED,
}


def outcome_of(info: CallInfo, result: Any = None, error: BaseException | None = None) -> Outcome:
    """The outcome of a request that returned ``result`` or raised ``error``."""
    if error is not None:
        if isinstance(error, asyncio.CancelledError):
            return Outcome.CANCELLED
        if isinstance(error, InputRejectedError):
            return Outcome.REJECTED
        if isinstance(error, RateLimitedError):
            return Outcome.RATE_LIMITED
        if isinstance(error, AccessDeniedError):
            return Outcome.DENIED
        return Outcome(info.outcome) if info.outcome else Outcome.EXCEPTION
    if isinstance(result, ToolResult) and result.is_error:
        if info.outcome:
            return Outcome(info.outcome)
        return _CODE_OUTCOMES.get(result.meta.get(ERROR_CODE_META), Outcome.ERROR)  # type: ignore[arg-type]
    return Outcome.OK
