"""Per-caller turns on the serving loop: a flood from one caller cannot queue ahead of everyone.

Reading, parsing, validating and routing a request, and shaping and writing its response,
cost the loop a millisecond or more each, and the loop serves every caller in arrival order.
A caller that floods the endpoint would fill the loop's queue, and every other caller's
request would wait behind the whole flood. So each caller (a session-owner key; None for the
anonymous callers together) holds at most ``per_caller`` turns: a POST takes one before the SDK
reads it, gives it back while its handler runs (``without_turn``, from the binding's server
middleware: a slow tool, an approval or a listen stream holds no turn, and the layer's own
limits answer at once), takes one again for its response, and gives it back when the
response ends. Waiting for a turn costs nothing.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import AsyncIterator, Awaitable, Hashable
from typing import TypeVar

import anyio

__all__ = ["DEFAULT_TURNS_PER_CALLER", "Intake", "without_turn"]

T = TypeVar("T")

#: Turns one caller may hold at once: enough to keep the loop busy with its requests, few
#: enough that another caller's request waits behind at most this many of them.
DEFAULT_TURNS_PER_CALLER = 4


class _Turn:
    """One request's turn: held or not, taken from its caller's semaphore; once the request
    has ended (``close``) it is never taken again."""

    __slots__ = ("_slots", "closed", "held")

    def __init__(self, slots: anyio.Semaphore) -> None:
        self._slots = slots
        self.held = False
        self.closed = False

    async def take(self) -> None:
        if self.closed:
            return
        await self._slots.acquire()
        if self.closed:  # the request ended while this waited
            self._slots.release()
            return
        self.held = True

    def give(self) -> None:
        if self.held:
            self.held = False
            self._slots.release()

    def close(self) -> None:
        self.give()
        self.closed = True


_turn: contextvars.ContextVar[_Turn | None] = contextvars.ContextVar(
    "cloudg_intake_turn", default=None
)


async def without_turn(call: Awaitable[T]) -> T:
    """Await ``call`` (a request's handler) without holding the request's turn, then take
    one again for the response (not when the call failed or was cancelled)."""
    turn = _turn.get()
    if turn is None:
        return await call
    turn.give()
    result = await call
    await turn.take()
    return result


class Intake:
    """Turns per caller key."""

    def __init__(self, per_caller: int = DEFAULT_TURNS_PER_CALLER) -> None:
        if per_caller < 1:
            raise ValueError("per_caller must be a positive number of requests")
        self.per_caller = per_caller
        self._callers: dict[Hashable, tuple[anyio.Semaphore, list[int]]] = {}

    def requests(self, caller: Hashable) -> int:
        """Requests of ``caller`` in intake (holding a turn, waiting for one, or in the
        layer between turns)."""
        entry = self._callers.get(caller)
        return entry[1][0] if entry is not None else 0

    @contextlib.asynccontextmanager
    async def turn(self, caller: Hashable) -> AsyncIterator[None]:
        """Run the block as one of ``caller``'s requests: it starts once a turn is free, and
        ``without_turn`` inside it gives the turn back while a handler works."""
        entry = self._callers.get(caller)
        if entry is None:
            entry = self._callers[caller] = (anyio.Semaphore(self.per_caller), [0])
        slots, count = entry
        count[0] += 1
        turn = _Turn(slots)
        try:
            await turn.take()
            token = _turn.set(turn)
            try:
                yield
            finally:
                _turn.reset(token)
        finally:
            turn.close()
            count[0] -= 1
            if not count[0]:
                del self._callers[caller]
