"""A waiting call's approval page offered through the 2026-07-28 request-retry pattern.

A 2026-07-28 request has no channel for a server request mid-call, so a client that declared
URL-mode elicitation is offered the analyst's approval page the spec's way: the tools/call's
first round answers ``input_required`` (a URL-mode ``elicitation/create`` and a
``requestState``) while the call keeps waiting for the analyst in the layer, parked here; the
client's retry with that state takes the call over and gets its result once the analyst
decides. The client's answer to the elicitation decides nothing (it is logged).

The state is our own random single-use ticket rather than the SDK's sealed
``RequestStateBoundary``: it names a call held in this process and carries no data, so there
is nothing to seal; it is checked against the caller's principal, tool and arguments.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import secrets
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..layer.context import Principal, ToolContext
from ..layer.errors import InvalidArgumentsError
from .request import log_callback, progress_callback

if TYPE_CHECKING:
    from ..layer.content import ToolResult

__all__ = ["ApprovalRounds", "INPUT_KEY", "RETRY_GRACE"]

logger = logging.getLogger("cloudg.mcp.protocol")

#: The key of the approval page's elicitation among a round's ``inputRequests``.
INPUT_KEY = "approval"
#: Seconds a parked call's result waits for the client's retry once the call is over.
RETRY_GRACE = 30.0

#: ``run(context) -> ToolResult``: the layer call, made with the context given.
Run = Callable[[ToolContext], Coroutine[Any, Any, "ToolResult"]]


def _digest(arguments: Any) -> str:
    text = json.dumps(arguments or {}, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class _Relay:
    """The parked call's progress and log messages, sent to whichever round holds it (none
    between the rounds: then they are dropped, and the last progress is repeated to the
    retry)."""

    def __init__(self, sdk_ctx: Any) -> None:
        self._progress: Callable[..., Any] | None = None
        self._log: Callable[..., Any] | None = None
        self.last_message: str | None = None
        self.attach(sdk_ctx)

    def attach(self, sdk_ctx: Any) -> None:
        self._progress, self._log = progress_callback(sdk_ctx), log_callback(sdk_ctx)

    def detach(self) -> None:
        self._progress = self._log = None

    async def progress(self, progress: float, total: float | None = None,
                       message: str | None = None) -> None:
        if message:
            self.last_message = message
        send = self._progress
        if send is not None:
            with contextlib.suppress(Exception):
                await send(progress, total, message)

    async def log(self, level: str, data: Any, logger_name: str | None = None) -> None:
        send = self._log
        if send is not None:
            with contextlib.suppress(Exception):
                await send(level, data, logger_name)


@dataclass(eq=False)
class _Parked:
    """A call waiting for the analyst between its first round and the client's retry."""

    task: asyncio.Task[ToolResult]
    principal: str
    tool: str
    digest: str
    relay: _Relay
    answer: asyncio.Future[str]
    expiry: asyncio.TimerHandle | None = field(default=None, repr=False)


class ApprovalRounds:
    """The calls parked between rounds, by ticket (the ``requestState`` the client echoes)."""

    def __init__(self, *, grace: float = RETRY_GRACE) -> None:
        self.grace = grace
        self._parked: dict[str, _Parked] = {}

    def __len__(self) -> int:
        return len(self._parked)

    async def start(self, sdk_ctx: Any, context: ToolContext, name: str, arguments: Any,
                    run: Run) -> ToolResult | dict[str, Any]:
        """Run the call; if it comes to wait for the analyst, park it and answer this round
        with ``input_required`` offering the approval page, else return its result."""
        loop = asyncio.get_running_loop()
        offered: asyncio.Future[tuple[str, str, str]] = loop.create_future()
        answer: asyncio.Future[str] = loop.create_future()
        relay = _Relay(sdk_ctx)
        context.progress_callback, context.log_callback = relay.progress, relay.log
        context.elicit_complete = None  # the retry's answer closes the elicitation

        async def offer(message: str, url: str, elicitation_id: str) -> str:
            if not offered.done():
                offered.set_result((message, url, elicitation_id))
            return await answer

        context.elicit_url = offer
        task = loop.create_task(run(context), name="cloudg-approval-round")
        try:
            either: set[asyncio.Future[Any]] = {task, offered}
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            task.cancel()
            raise
        if not offered.done():
            offered.cancel()
            return task.result()
        message, url, elicitation_id = offered.result()
        relay.detach()
        ticket = secrets.token_urlsafe(32)
        self._parked[ticket] = _Parked(task, context.principal.id, name, _digest(arguments),
                                       relay, answer)
        task.add_done_callback(lambda _: self._expire_later(ticket))
        return {
            "resultType": "input_required",
            "inputRequests": {INPUT_KEY: {"method": "elicitation/create", "params": {
                "mode": "url", "message": message, "url": url,
                "elicitationId": elicitation_id}}},
            "requestState": ticket,
        }

    async def resume(self, sdk_ctx: Any, principal: Principal, name: str, arguments: Any,
                     state: Any, responses: Any) -> ToolResult:
        """The retry of a parked call: take it over (once) and return its result when the
        analyst has decided and it has run. InvalidArgumentsError when ``state`` names no
        call of this caller with this tool and these arguments."""
        parked = self._parked.get(state) if isinstance(state, str) else None
        if parked is None or (parked.principal, parked.tool, parked.digest) != (
                principal.id, name, _digest(arguments)):
            raise InvalidArgumentsError(
                "That requestState names no call of yours waiting for the analyst: it was "
                "used already, its call is over, or it belongs to another call. Call the tool "
                "again without requestState.", data={"reason": "unknown-request-state"})
        del self._parked[state]  # single use: a replay finds nothing
        if parked.expiry is not None:
            parked.expiry.cancel()
        action = _client_answer(responses)
        logger.info("%s's client answered the approval page offer with %r; only the "
                    "analyst's decision counts", principal.id, action)
        if not parked.answer.done():
            parked.answer.set_result(action)
        parked.relay.attach(sdk_ctx)
        if not parked.task.done() and parked.relay.last_message:
            await parked.relay.progress(0, None, parked.relay.last_message)
        try:
            return await parked.task
        except asyncio.CancelledError:
            parked.task.cancel()  # the retry was cancelled or its client went away
            raise

    def _expire_later(self, ticket: str) -> None:
        parked = self._parked.get(ticket)
        if parked is not None:
            parked.expiry = asyncio.get_running_loop().call_later(
                self.grace, self._parked.pop, ticket, None)


def _client_answer(responses: Any) -> str:
    """The action the client answered the offer with (for the log only)."""
    answer = responses.get(INPUT_KEY) if isinstance(responses, dict) else None
    action = getattr(answer, "action", None)
    if action is None and isinstance(answer, dict):
        action = answer.get("action")
    return str(action)[:20] if action is not None else "nothing"
