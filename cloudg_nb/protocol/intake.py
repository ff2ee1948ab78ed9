"""Per-caller turns on the serving loop: a flood from one caller cannot queue ahead of everyone.

Reading a request into the SDK, parsing, validating and routing it costs the loop a
millisecond or more, and the loop serves every caller in arrival order. A caller that floods
the endpoint would fill the loop's queue, and every other caller's request would wait behind
the whole flood. So each caller (a session-owner key; None for the anonymous callers together)
holds at most ``per_caller`` turns: a POST takes one before the SDK reads it and leaves it
when its handler starts (``leave_turn``, from the binding's server middleware) or its response
starts, whichever comes first; its caller's next request then has its turn. A handler never
holds a turn (a slow tool, an approval or a listen stream keeps none, and nothing a turn
waits for depends on other requests). Waiting for a turn costs nothing.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import AsyncIterator, Hashable

import anyio

__all__ = ["DEFAULT_TURNS_PER_CALLER", "Intake", "Turn", "leave_turn"]

#: Turns one caller may hold at once: enough to keep the loop busy with its requests, few
#: enough that another caller's request waits behind at most this many of them.
DEFAULT_TURNS_PER_CALLER = 4


class Turn:
    """One request's turn, taken from its caller's semaphore; ``leave`` gives it back (once)."""

    __slots__ = ("_slots", "held")

    def __init__(self, slots: anyio.Semaphore) -> None:
        self._slots = slots
        self.held = False

    def leave(self) -> None:
        if self.held:
            self.held = False
            self._slots.release()


_turn: contextvars.ContextVar[Turn | None] = contextvars.ContextVar(
    "cloudg_intake_turn", default=None
)


def leave_turn() -> None:
    """The request being handled leaves its turn (no-op without one, or left already)."""
    turn = _turn.get()
    if turn is not None:
        turn.leave()


class Intake:
    """Turns per caller key."""

    def __init__(self, per_caller: int = DEFAULT_TURNS_PER_CALLER) -> None:
        if per_caller < 1:
            raise ValueError("per_caller must be a positive number of requests")
        self.per_caller = per_caller
        self._callers: dict[Hashable, tuple[anyio.Semaphore, list[int]]] = {}

    def requests(self, caller: Hashable) -> int:
        """Requests of ``caller`` inside ``turn`` (holding a turn, waiting for one, or past
        theirs)."""
        entry = self._callers.get(caller)
        return entry[1][0] if entry is not None else 0

    @contextlib.asynccontextmanager
    async def turn(self, caller: Hashable) -> AsyncIterator[Turn]:
        """Run the block as one of ``caller``'s requests, once a turn is free; the turn is
        left at the latest when the block ends (``leave_turn`` inside it leaves it early)."""
        entry = self._callers.get(caller)
        if entry is None:
            entry = self._callers[caller] = (anyio.Semaphore(self.per_caller), [0])
        slots, count = entry
        count[0] += 1
        turn = Turn(slots)
        try:
            await slots.acquire()
            turn.held = True
            token = _turn.set(turn)
            try:
                yield turn
            finally:
                _turn.reset(token)
        finally:
            turn.leave()
            count[0] -= 1
            if not count[0]:
                del self._callers[caller]
