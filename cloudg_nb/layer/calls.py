"""One request as middleware sees it (``CallInfo``) and the middleware contract.

A middleware is ``async (info, call_next) -> result``; it may also have ``attach(layer)``
(``layer.AttachesToLayer``), which the layer calls once when the middleware is added. Work that
grows with a request's arguments goes through ``argument_work``: on the loop for arguments
within the loop budget, in a worker thread for larger ones (``CallInfo.large``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, cast

from .context import Principal, ToolContext
from .enums import Outcome, RequestKind
from .plan import CallPlan
from .specs import AnySpec
from .workers import LIGHT

__all__ = ["ApprovalState", "CallInfo", "Handler", "Middleware", "argument_work"]

T = TypeVar("T")


class ApprovalState(Protocol):
    """What the layer knows of the analyst's approval a call waited for (the oversight's
    ``Approval``): its id and its state (pending, approved, denied, ...)."""

    @property
    def id(self) -> str: ...

    @property
    def state(self) -> str: ...


@dataclass(slots=True)
class CallInfo:
    """What middleware sees of one request (arguments as received, before un-pseudonymising).

    ``kind`` and ``outcome`` are ``StrEnum`` members, so they also equal their plain values
    (``info.kind == "tool"``); a plain string given here is turned into the member.
    """

    kind: RequestKind
    name: str
    spec: AnySpec
    arguments: dict[str, Any]
    principal: Principal
    context: ToolContext
    started: float = field(default_factory=time.monotonic)
    #: Set by the terminal when it refuses a call: denied | rate_limited | rejected.
    outcome: Outcome | None = None
    #: The request's transform plan; the layer sets it when the request enters.
    plan: CallPlan | None = None
    #: The arguments exceed the loop budget (``bounds.LOOP_VALUES`` / ``LOOP_CHARS``): work
    #: on them (checks, transforms, validation, hashes) runs in a worker thread.
    large: bool = False
    #: The approval the call waited for; set by the approval middleware when it puts the call
    #: before the analyst, read by the middleware around it (the activity feed).
    approval: ApprovalState | None = None

    def __post_init__(self) -> None:
        if type(self.kind) is not RequestKind:  # the layer passes members: no work then
            self.kind = RequestKind(self.kind)
        if self.outcome is not None:
            self.outcome = Outcome(self.outcome)


async def argument_work(info: CallInfo, fn: Callable[..., T], /, *args: Any) -> T:
    """``fn(*args)``, work that grows with ``info``'s arguments: called at once for a request
    within the loop budget, else run in a light-lane worker thread of the caller (a thread of
    asyncio's default pool for a request that came without a layer)."""
    if not info.large:
        return fn(*args)
    layer = info.context.layer
    if layer is None:
        return await asyncio.to_thread(fn, *args)
    return cast(T, await layer.workers.run(LIGHT, info.principal, fn, *args))


#: The rest of the chain, as a middleware calls it: ``await call_next(info)``.
Handler = Callable[[CallInfo], Awaitable[Any]]


class Middleware(Protocol):
    """``await mw(info, call_next)``: runs around every request (``layer.use(mw)``)."""

    def __call__(self, info: CallInfo, call_next: Handler, /) -> Awaitable[Any]: ...
