"""ConcurrencyLimitMiddleware: how many calls run at once — overall, per principal, and a
fair share for guests (assistants) that never reaches the slots reserved for owners.

Owners (every principal ``is_guest`` does not pick: the analyst) may use all ``limit`` slots;
guests together at most ``limit - reserved``, each at most ``per_guest`` running and
``guest_queue`` waiting: a guest call beyond that is refused at once ("Server busy", a
RateLimitedError with ``retry_after`` in its data; past a burst, refusals are paced).
Freed slots go to waiting owners first, then round-robin between waiting principals; a call
waiting past ``queue_timeout`` is refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import weakref
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from typing import Any

from ..calls import CallInfo, Handler
from ..errors import RateLimitedError
from ..principal import Principal

__all__ = ["ConcurrencyLimitMiddleware"]

#: Callers remembered per event loop before idle ones are forgotten.
MAX_CALLERS = 256
#: Bounds of the retry hint (seconds) given with a guest's refusal, by default.
GUEST_RETRY = (1.0, 10.0)
#: Refusals a guest gets at once before the next ones are paced, by default.
GUEST_BURST = 8


class _Caller:
    """One principal on one loop: its class, cap, running calls and waiting calls (FIFO)."""

    __slots__ = ("cap", "guest", "key", "refill_at", "refusals", "running", "seconds",
                 "waiters")

    def __init__(self, key: str, guest: bool, cap: int | None, burst: int) -> None:
        self.key = key
        self.guest = guest
        self.cap = cap
        self.running = 0
        self.waiters: deque[asyncio.Future[None]] = deque()
        #: Seconds its calls take, smoothed: the retry hint when it is refused.
        self.seconds = 0.0
        #: Refusals it may get at once (a bucket refilled at burst per retry hint; below
        #: zero: promised to calls held until their turn), and when it was last refilled.
        self.refusals = float(burst)
        self.refill_at = 0.0


class _Slots:
    """One event loop's slots: calls running (all, guests'), the callers, and the rings of
    callers with waiting calls (owners', guests'), each served round-robin."""

    __slots__ = ("callers", "guests", "guests_waiting", "owners_waiting", "running")

    def __init__(self) -> None:
        self.running = 0
        self.guests = 0
        self.callers: dict[str, _Caller] = {}
        self.owners_waiting: OrderedDict[str, _Caller] = OrderedDict()
        self.guests_waiting: OrderedDict[str, _Caller] = OrderedDict()


class ConcurrencyLimitMiddleware:
    """Bound the calls of ``kinds`` running at once, sharing slots fairly between principals.

    ``limit``: calls running at once (None: no overall bound). ``per_principal``: running
    calls one owner may hold (None: no cap). ``queue_timeout``: seconds a call may wait for
    a slot before it is refused. ``is_guest(principal)``: which principals are guests
    (None: nobody); guests together hold at most ``limit - reserved`` slots, each at most
    ``per_guest`` (default ``per_principal``) running and ``guest_queue`` waiting.

    A guest's call beyond its share is refused at once, with ``retry_after``: about one of
    its calls' duration, within ``guest_retry`` (default 1-10 s). Up to ``guest_burst``
    refusals come at once; past that (a client looping on refusals from many connections,
    not waiting as told) a guest gets ``guest_burst`` refusals per ``retry_after``, each
    call held until its turn (at most the hint's upper bound) without a slot, and one that
    finds room by then runs. So refusals, cheap as each is, cannot keep the loop busy.

    Written here rather than with ``asyncio.Semaphore``: a semaphore has one class of
    waiter, serves them first come first served (one caller with 40 connections queues
    ahead of everyone) and cannot refuse at once; this needs owners ahead of guests,
    round-robin between principals and refusals paced per principal. The uncontended path
    is a few counter updates (``bench/layer_overhead.py``).
    """

    def __init__(
        self,
        limit: int | None = 8,
        per_principal: int | None = None,
        queue_timeout: float = 30.0,
        kinds: Iterable[str] = ("tool",),
        *,
        is_guest: Callable[[Principal], bool] | None = None,
        reserved: int = 0,
        per_guest: int | None = None,
        guest_queue: int = 0,
        guest_retry: tuple[float, float] = GUEST_RETRY,
        guest_burst: int = GUEST_BURST,
    ) -> None:
        for label, value in (("limit", limit), ("per_principal", per_principal),
                             ("per_guest", per_guest)):
            if value is not None and value < 1:
                raise ValueError(f"Concurrency limits must be at least 1 ({label}={value})")
        if reserved < 0 or guest_queue < 0:
            raise ValueError("reserved and guest_queue must be 0 or more")
        if guest_burst < 1:
            raise ValueError(f"guest_burst must be at least 1 (got {guest_burst})")
        if not 0 < guest_retry[0] <= guest_retry[1]:
            raise ValueError(f"guest_retry must be (least, most) seconds, 0 < least <= most "
                             f"(got {guest_retry!r})")
        if limit is not None and is_guest is not None and reserved >= limit:
            raise ValueError(f"reserved ({reserved}) must leave guests a slot of the limit "
                             f"({limit})")
        self.limit = limit
        self.per_principal = per_principal
        self.queue_timeout = queue_timeout
        self.kinds = frozenset(kinds)
        self.is_guest = is_guest
        self.reserved = reserved if is_guest is not None else 0
        self.per_guest = per_guest if per_guest is not None else per_principal
        self.guest_queue = guest_queue
        self.guest_retry = guest_retry
        self.guest_burst = guest_burst
        #: Slots guests may hold together (None: no bound but ``limit``'s).
        self.guest_limit = limit - self.reserved if limit is not None else None
        # Waiters are futures of one event loop: keep the slots per loop.
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Slots] = (
            weakref.WeakKeyDictionary())
        #: The last loop's slots, found without the weak dictionary's lookup.
        self._last: tuple[weakref.ref[asyncio.AbstractEventLoop], _Slots] | None = None
        self.running = 0

    # -- the call ------------------------------------------------------------------------

    async def __call__(self, info: CallInfo, call_next: Handler) -> Any:
        if info.kind not in self.kinds:
            return await call_next(info)
        loop = asyncio.get_running_loop()
        last = self._last
        slots = last[1] if last is not None and last[0]() is loop else self._slots(loop)
        caller = slots.callers.get(info.principal.id)
        if caller is None:
            caller = self._caller(slots, info.principal)
        if self._free(slots, caller):
            self._start(slots, caller)  # a free slot: no future, no timer, no extra loop turn
        else:
            await self._wait(slots, caller, loop)
        started = time.monotonic() if caller.guest else 0.0
        self.running += 1
        try:
            return await call_next(info)
        finally:
            self.running -= 1
            if caller.guest:
                took = time.monotonic() - started
                caller.seconds = took if not caller.seconds else (
                    0.7 * caller.seconds + 0.3 * took)
            self._release(slots, caller)

    # -- slots ---------------------------------------------------------------------------

    def _slots(self, loop: asyncio.AbstractEventLoop) -> _Slots:
        slots = self._loops.get(loop)
        if slots is None:
            slots = self._loops[loop] = _Slots()
        self._last = (weakref.ref(loop), slots)
        return slots

    def _caller(self, slots: _Slots, principal: Principal) -> _Caller:
        key = principal.id
        if len(slots.callers) >= MAX_CALLERS:  # forget idle callers
            slots.callers = {k: c for k, c in slots.callers.items() if c.running or c.waiters}
        guest = self.is_guest is not None and bool(self.is_guest(principal))
        caller = _Caller(key, guest, self.per_guest if guest else self.per_principal,
                         self.guest_burst)
        slots.callers[key] = caller
        return caller

    def _eligible(self, slots: _Slots, caller: _Caller) -> bool:
        """Whether one more call of ``caller`` may run now (ignoring who waits)."""
        if caller.cap is not None and caller.running >= caller.cap:
            return False
        if self.limit is not None and slots.running >= self.limit:
            return False
        return not (caller.guest and self.guest_limit is not None
                    and slots.guests >= self.guest_limit)

    def _free(self, slots: _Slots, caller: _Caller) -> bool:
        """Whether a new call of ``caller`` starts at once: a slot it may use is free and
        none of its own calls waits before it. (A free slot that a waiting call may use is
        never left free: every release hands it over at once.)"""
        return not caller.waiters and self._eligible(slots, caller)

    def _start(self, slots: _Slots, caller: _Caller) -> None:
        caller.running += 1
        slots.running += 1
        if caller.guest:
            slots.guests += 1

    def _release(self, slots: _Slots, caller: _Caller) -> None:
        caller.running -= 1
        slots.running -= 1
        if caller.guest:
            slots.guests -= 1
        if slots.owners_waiting or slots.guests_waiting:
            self._hand_over(slots)

    def _hand_over(self, slots: _Slots) -> None:
        """Give free slots to waiting calls: owners' first, then guests'; within each, one
        call per principal in turn (round-robin), skipping principals at their cap."""
        for ring in (slots.owners_waiting, slots.guests_waiting):
            while ring:
                picked = next((c for c in ring.values() if self._eligible(slots, c)), None)
                if picked is None:
                    break
                waiter = picked.waiters.popleft()
                if picked.waiters:
                    ring.move_to_end(picked.key)  # its next call goes after the others'
                else:
                    del ring[picked.key]
                if waiter.done():  # cancelled; its task has not cleaned up yet
                    continue
                self._start(slots, picked)
                waiter.set_result(None)

    # -- waiting -------------------------------------------------------------------------

    async def _wait(self, slots: _Slots, caller: _Caller,
                    loop: asyncio.AbstractEventLoop) -> None:
        """Queue one call of ``caller`` until a slot is handed over; refuse it when
        ``caller`` is a guest over its share (at once, or at its turn past a burst of
        refusals), or after ``queue_timeout``."""
        if caller.guest and len(caller.waiters) >= self.guest_queue:
            held = self._turn(caller, loop)
            if held:  # a refusal past the burst: answered at its turn
                await asyncio.sleep(held)
                if self._free(slots, caller):
                    self._start(slots, caller)
                    return
            if len(caller.waiters) >= self.guest_queue:
                raise self._over_share(caller)
        waiter: asyncio.Future[None] = loop.create_future()
        caller.waiters.append(waiter)
        ring = slots.guests_waiting if caller.guest else slots.owners_waiting
        if caller.key not in ring:
            ring[caller.key] = caller
        try:
            async with asyncio.timeout(self.queue_timeout):
                await waiter
        except BaseException as exc:
            if waiter.done() and not waiter.cancelled():
                self._release(slots, caller)  # handed a slot just as it gave up: pass it on
            else:
                with contextlib.suppress(ValueError):  # a hand-over may have dropped it
                    caller.waiters.remove(waiter)
                if not caller.waiters:
                    ring.pop(caller.key, None)
            if isinstance(exc, TimeoutError):
                raise self._timed_out(slots, caller) from None
            raise

    def _retry_after(self, caller: _Caller) -> float:
        least, most = self.guest_retry
        return round(min(most, max(least, caller.seconds)), 2)

    def _turn(self, caller: _Caller, loop: asyncio.AbstractEventLoop) -> float:
        """Seconds before a guest's refusal is due: 0 within its burst, else its turn at
        ``guest_burst`` refusals per retry hint (promised now; at most the hint's upper
        bound, and then not promised)."""
        now = loop.time()
        rate = self.guest_burst / self._retry_after(caller)
        caller.refusals = min(float(self.guest_burst),
                              caller.refusals + (now - caller.refill_at) * rate)
        caller.refill_at = now
        if caller.refusals >= 1.0:
            caller.refusals -= 1.0
            return 0.0
        wait = (1.0 - caller.refusals) / rate
        if wait > self.guest_retry[1]:
            return self.guest_retry[1]
        caller.refusals -= 1.0
        return wait

    def _over_share(self, caller: _Caller) -> RateLimitedError:
        """The refusal of a guest's call beyond its share, with a retry hint of about one of
        its calls' duration."""
        retry = self._retry_after(caller)
        running, waiting = caller.running, len(caller.waiters)
        data: dict[str, Any] = {"retry_after": retry, "running": running, "waiting": waiting}
        if caller.cap is not None and running >= caller.cap:
            data.update(scope="principal", limit=caller.cap)
            text = (f"this caller already has {running} call(s) running and {waiting} "
                    "waiting, its share of the server")
        else:
            data.update(scope="guests", limit=self.guest_limit)
            text = "the slots this kind of caller may use are all taken by others"
        return RateLimitedError(
            f"Server busy: {text}. Retry in about {retry:g} s (data.retry_after; retries "
            "sent sooner are answered more slowly) and run fewer calls at once.", data=data)

    def _timed_out(self, slots: _Slots, caller: _Caller) -> RateLimitedError:
        """The refusal of a call that waited ``queue_timeout``, naming the limit in its way."""
        limit: int | None
        if caller.cap is not None and caller.running >= caller.cap:
            scope, limit = "principal", caller.cap
        elif self.limit is not None and slots.running >= self.limit:
            scope, limit = "global", self.limit
        else:
            scope, limit = "guests", self.guest_limit
        return RateLimitedError(
            f"Server busy: {limit} requests are already running ({scope} limit). "
            "Retry in a few seconds.",
            data={"retry_after": max(1.0, self.queue_timeout / 10), "limit": limit,
                  "scope": scope})
