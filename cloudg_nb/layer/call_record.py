"""One finished request as every recorder sees it (``CallRecord``), how it ended
(``outcome_of``), and what a recorder is (``CallSink``: ``record(call)``, cheap, never raising).

``middleware.recorder.CallRecorder`` builds one record per request where the final outcome is
known and hands it to its sinks: the audit log, metrics, the activity feed, the server's call
log. A record holds facts and references (the arguments as received), never copies; a sink
keeps what it needs (names, counts, keyed hashes).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from .content import ToolResult
from .enums import Outcome, RequestKind, Sensitivity
from .errors import AccessDeniedError, InputRejectedError, MCPLayerError, RateLimitedError
from .principal import Principal
from .wire import TRANSFORMS_META

if TYPE_CHECKING:
    from .calls import CallInfo

__all__ = ["REFUSALS", "CallRecord", "CallSink", "outcome_of"]

#: Outcomes that mean the layer refused the request (not that the handler failed).
REFUSALS = frozenset({Outcome.DENIED, Outcome.RATE_LIMITED, Outcome.REJECTED})

_CODE_OUTCOMES = {
    AccessDeniedError.code: Outcome.DENIED, RateLimitedError.code: Outcome.RATE_LIMITED,
}


def outcome_of(info: CallInfo, result: Any = None, error: BaseException | None = None) -> Outcome:
    """The outcome of a request that returned ``result`` or raised ``error``: ok, error,
    denied, rate_limited, rejected, cancelled or exception."""
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
        return _CODE_OUTCOMES.get(result.error_code, Outcome.ERROR)  # type: ignore[arg-type]
    return Outcome.OK


class CallRecord(NamedTuple):
    """What a request was and how it ended: every fact the recorders write, read once.

    Immutable, and shared by every sink (some run in a worker thread). A ``NamedTuple``
    rather than a frozen dataclass: one is built on every request, and a frozen dataclass
    costs ~2 µs more to build (17 ``object.__setattr__`` calls).
    """

    kind: RequestKind
    #: The tool or prompt name, the resource URI, or the completion's target.
    name: str
    principal: Principal
    outcome: Outcome
    #: From the request's start (before any middleware) until it ended.
    duration_ms: float
    #: Epoch seconds when it ended.
    ended_at: float
    #: As received (before pseudonyms are reversed): a sink keeps names or keyed hashes only.
    arguments: Mapping[str, Any]
    #: The arguments exceed the loop budget: work on them (hashes) belongs in a worker thread.
    large: bool = False
    request_id: str | int | None = None
    #: The spec's sensitivity.
    sensitivity: Sensitivity = Sensitivity.CONFIDENTIAL
    #: The class name of the exception the request raised; None when it returned.
    error_type: str | None = None
    #: The error result's code, or the raised exception's ``code`` (None when it has none).
    error_code: Any = None
    #: It returned a tool error result (``ToolResult.is_error``).
    error_result: bool = False
    #: The exception it raised is an ``MCPLayerError`` (the caller reads it as an error).
    layer_error: bool = False
    #: The result's transforms report (``ToolResult.meta[TRANSFORMS_META]``), if any.
    transforms: Mapping[str, Any] | None = None
    #: The analyst's decision when the call needed one: approved | denied | timed out |
    #: cancelled (None: not asked).
    approval: str | None = None
    #: Why the call was cut short (cancelled | timed out | abandoned); None otherwise.
    cancel_reason: str | None = None

    @classmethod
    def of(cls, info: CallInfo, result: Any = None,
           error: BaseException | None = None) -> CallRecord:
        """The record of ``info``'s request, which returned ``result`` or raised ``error``
        just now."""
        ended = _monotonic()
        outcome = Outcome.OK
        error_type = error_code = transforms = approval = None
        error_result = layer_error = False
        if error is not None:
            outcome = outcome_of(info, None, error)
            error_type = type(error).__name__
            error_code = getattr(error, "code", None)
            layer_error = isinstance(error, MCPLayerError)
        elif isinstance(result, ToolResult):
            transforms = result.meta.get(TRANSFORMS_META)
            if result.is_error:
                outcome = outcome_of(info, result, None)
                error_result = True
                error_code = result.error_code
        context = info.context  # None when a middleware is called without a layer
        if context is None:
            request_id = cancel_reason = None
        else:
            request_id, cancel_reason = context.request_id, context.cancel_reason
        if info.approval is not None:  # the analyst's decision (``oversight.approvals``)
            approval = info.approval.state
        # Built straight from the tuple (in field order): keyword arguments to the named
        # tuple's ``__new__`` cost ~1 µs more on every request.
        return _new_tuple(cls, (
            info.kind, info.name, info.principal, outcome, (ended - info.started) * 1000,
            _time(), info.arguments or {}, info.large, request_id, info.spec.sensitivity,
            error_type, error_code, error_result, layer_error, transforms, approval,
            cancel_reason,
        ))


_monotonic, _time, _new_tuple = time.monotonic, time.time, tuple.__new__


class CallSink(Protocol):
    """Keeps something of every finished request: ``record(call)`` is called once per
    request, on the serving loop (or in a worker thread for a large request's sink that
    ``grows_with_arguments``). It must be cheap; a failure is logged and the call goes on."""

    def record(self, call: CallRecord) -> None: ...
