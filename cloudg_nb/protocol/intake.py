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

import asyncio
import contextvars
from collections.abc import Hashable
from types import TracebackType

__all__ = ["DEFAULT_TURNS_PER_CALLER", "Intake", "Turn", "leave_turn"]

#: Turns one caller may hold at once: enough to keep the loop busy with its requests, few
#: enough that another caller's request waits behind at most this many of them.
DEFAULT_TURNS_PER_CALLER = 4


class _Caller:
    """One caller's turns (an asyncio semaphore: no loop round trip when a turn is free)
    and how many of its requests are inside ``Intake.turn``."""

    __slots__ = ("requests", "slots")

    def __init__(self, turns: int) -> None:
        self.slots = asyncio.Semaphore(turns)
        self.requests = 0


class Turn:
    """One request's turn; ``leave`` gives it back (once)."""

    __slots__ = ("_slots", "held")

    def __init__(self, slots: asyncio.Semaphore) -> None:
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


class _TurnScope:
    """``async with intake.turn(caller) as turn``: waits for a turn, leaves it at the end."""

    __slots__ = ("_caller", "_intake", "_key", "_token", "_turn")

    def __init__(self, intake: Intake, key: Hashable) -> None:
        self._intake = intake
        self._key = key

    async def __aenter__(self) -> Turn:
        callers = self._intake._callers
        caller = callers.get(self._key)
        if caller is None:
            caller = callers[self._key] = _Caller(self._intake.per_caller)
        caller.requests += 1
        self._caller = caller
        turn = self._turn = Turn(caller.slots)
        try:
            await caller.slots.acquire()
        except BaseException:
            self._done()
            raise
        turn.held = True
        self._token = _turn.set(turn)
        return turn

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        _turn.reset(self._token)
        self._turn.leave()
        self._done()

    def _done(self) -> None:
        self._caller.requests -= 1
        if not self._caller.requests:
            del self._intake._callers[self._key]


class Intake:
    """Turns per caller key."""

    def __init__(self, per_caller: int = DEFAULT_TURNS_PER_CALLER) -> None:
        if per_caller < 1:
            raise ValueError("per_caller must be a positive number of requests")
        self.per_caller = per_caller
        self._callers: dict[Hashable, _Caller] = {}

    def requests(self, caller: Hashable) -> int:
        """Requests of ``caller`` inside ``turn`` (holding a turn, waiting for one, or past
        theirs)."""
        entry = self._callers.get(caller)
        return entry.requests if entry is not None else 0

    def turn(self, caller: Hashable) -> _TurnScope:
        """``async with`` it to run a block as one of ``caller``'s requests, once a turn is
        free; the turn is left at the latest when the block ends (``leave_turn`` inside it
        leaves it early)."""
        return _TurnScope(self, caller)
