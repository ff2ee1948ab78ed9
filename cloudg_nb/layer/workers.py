"""Bounded worker lanes for sync handlers: daemon threads, per-caller fairness, two lanes.

``WorkerPool.run(lane, principal, fn, *args)`` runs ``fn`` in a thread of ``lane`` (``light``
or ``heavy``) and awaits its result on the calling loop. Each lane has at most ``size``
threads; one owner (keyed by principal id) holds at most ``per_owner`` of them, guests
(``is_guest(principal)``: the assistants) together at most ``size - reserved``, and queued
jobs are served owners' first, then round-robin across owners. Threads are daemon threads
that exit when idle, so a stuck handler never blocks interpreter exit (``ThreadPoolExecutor``
joins its threads at exit).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .principal import Principal

__all__ = ["LIGHT", "HEAVY", "LANES", "WorkerPool", "LaneStats", "RunInWorker"]

logger = logging.getLogger("cloudg.mcp")

LIGHT = "light"
HEAVY = "heavy"
LANES = (LIGHT, HEAVY)
#: Seconds an idle worker thread waits for work before it exits.
IDLE_SECONDS = 20.0


class RunInWorker(Exception):
    """Raised by a tool's ``inline`` fast path (run on the event loop): this call needs more
    than cached reads, so the layer runs the tool's handler in its worker lane instead."""
#: Least seconds between two returns of freed heap memory to the system.
TRIM_INTERVAL = 2.0


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim`` (None elsewhere). Heavy handlers free large temporaries in
    their worker threads' own malloc arenas, which glibc keeps mapped; trimming when the lane
    falls idle hands those pages back, so a long-running server's RSS follows its work."""
    try:
        import ctypes

        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


_TRIM = _malloc_trim()


@dataclass(slots=True)
class LaneStats:
    """A lane at one moment: threads alive, jobs running and queued (by owner)."""

    name: str
    size: int
    per_owner: int
    threads: int
    running: dict[str, int]
    queued: dict[str, int]
    #: Threads only owners (non-guests) may use.
    reserved: int = 0


@dataclass(eq=False, slots=True)
class _Job:
    owner: str
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    loop: asyncio.AbstractEventLoop
    waiter: asyncio.Future[Any]
    #: Whether its owner is a guest (limited to the lane's unreserved threads).
    guest: bool = False
    context: contextvars.Context = field(default_factory=contextvars.copy_context)
    #: Set on the loop when the awaiting call is cancelled: a queued job is then skipped.
    abandoned: bool = False

    def run(self) -> None:
        if self.abandoned:
            return
        try:
            result = self.context.run(self.fn, *self.args, **self.kwargs)
        except BaseException as exc:  # delivered to the awaiting call, re-raised there
            if isinstance(exc, StopIteration):  # a Future refuses StopIteration
                exc = RuntimeError(f"handler raised StopIteration: {exc}")
            self._deliver(None, exc)
        else:
            self._deliver(result, None)

    def _deliver(self, result: Any, exc: BaseException | None) -> None:
        if self.abandoned:
            return
        # RuntimeError: the loop closed while the handler ran, so nobody is waiting.
        with contextlib.suppress(RuntimeError):
            self.loop.call_soon_threadsafe(_settle, self.waiter, result, exc)


def _settle(waiter: asyncio.Future[Any], result: Any, exc: BaseException | None) -> None:
    if waiter.done():
        return
    if exc is not None:
        waiter.set_exception(exc)
    else:
        waiter.set_result(result)


class _Lane:
    """One lane: fair queues (owner -> jobs, served round-robin; owners' before guests') and
    its worker threads."""

    def __init__(self, name: str, size: int, per_owner: int, idle_seconds: float,
                 reserved: int = 0) -> None:
        self.name = name
        self.size = size
        self.per_owner = per_owner
        self.idle_seconds = idle_seconds
        self.reserved = reserved
        self.cond = threading.Condition(threading.Lock())
        self.queues: OrderedDict[str, deque[_Job]] = OrderedDict()
        self.guest_queues: OrderedDict[str, deque[_Job]] = OrderedDict()
        self.running: dict[str, int] = {}
        #: Threads running guests' jobs (at most ``size - reserved``).
        self.guests = 0
        self.threads = 0
        self.idle = 0
        self.wakeups = 0  # notifies sent to idle threads not yet woken
        self.serial = 0
        #: Whether to return freed heap memory when the lane falls idle (the heavy lane).
        self.trim = _TRIM is not None and name == HEAVY
        self.trimmed_at = 0.0

    def submit(self, job: _Job) -> None:
        with self.cond:
            queues = self.guest_queues if job.guest else self.queues
            queues.setdefault(job.owner, deque()).append(job)
            if self.idle > self.wakeups:
                self.wakeups += 1
                self.cond.notify()
            elif self.threads < self.size:
                self.threads += 1
                self.serial += 1
                threading.Thread(target=self._work, name=f"cloudg-{self.name}-{self.serial}",
                                 daemon=True).start()
            # else every thread is busy: the next one to finish picks the job up

    def discard(self, job: _Job) -> None:
        """Drop a queued job (its call was cancelled before a thread took it)."""
        with self.cond:
            queues = self.guest_queues if job.guest else self.queues
            queue = queues.get(job.owner)
            if queue is None:
                return
            try:
                queue.remove(job)
            except ValueError:
                return
            if not queue:
                del queues[job.owner]

    def _next(self) -> _Job | None:
        """The first queued job whose owner is under its cap: owners' jobs first, then, while
        guests hold fewer than the unreserved threads, guests'; round-robin in each."""
        job = self._take(self.queues)
        if job is None and self.guest_queues and self.guests < self.size - self.reserved:
            job = self._take(self.guest_queues)
            if job is not None:
                self.guests += 1
        return job

    def _take(self, queues: OrderedDict[str, deque[_Job]]) -> _Job | None:
        for owner in queues:
            if self.running.get(owner, 0) >= self.per_owner:
                continue
            queue = queues[owner]
            job = queue.popleft()
            if queue:
                queues.move_to_end(owner)  # the next job goes to another owner first
            else:
                del queues[owner]
            self.running[owner] = self.running.get(owner, 0) + 1
            return job
        return None

    def _work(self) -> None:
        job: _Job | None = None
        while True:
            trim = False
            with self.cond:
                if job is not None:
                    left = self.running[job.owner] - 1
                    if left:
                        self.running[job.owner] = left
                    else:
                        del self.running[job.owner]
                    if job.guest:
                        self.guests -= 1
                    trim = self._trim_due()
                job = None if trim else self._next()
                while job is None and not trim:
                    self.idle += 1
                    woken = self.cond.wait(self.idle_seconds)
                    self.idle -= 1
                    if self.wakeups:
                        self.wakeups -= 1
                    job = self._next()
                    if job is None and not woken:
                        self.threads -= 1
                        return
            if job is None:  # the lane fell idle: return freed memory, then look again
                _TRIM(0)  # type: ignore[misc]
                continue
            try:
                job.run()
            except BaseException:  # pragma: no cover - run() delivers everything
                logger.exception("worker job failed outside its handler")

    def _trim_due(self) -> bool:
        """Whether this thread should return freed memory now: the lane has just fallen
        idle (nothing running, nothing queued) and it did not trim in the last moments."""
        if not self.trim or self.running or self.queues or self.guest_queues:
            return False
        now = time.monotonic()
        if now - self.trimmed_at < TRIM_INTERVAL:
            return False
        self.trimmed_at = now
        return True

    def stats(self) -> LaneStats:
        with self.cond:
            queued = {owner: len(q) for owner, q in self.queues.items()}
            queued.update((owner, len(q)) for owner, q in self.guest_queues.items())
            return LaneStats(self.name, self.size, self.per_owner, self.threads,
                             dict(self.running), queued, self.reserved)


class WorkerPool:
    """The layer's worker threads for sync handlers, in a light and a heavy lane.

    ``light_workers`` / ``heavy_workers``: threads per lane (defaults 4 and 2 suit a 2-core
    machine: CPU-bound Python threads beyond two only add GIL contention, which slows the
    loop and the light lane). ``per_owner``: how many of a
    lane's threads one owner may hold at once (default: half the heavy lane, all but one
    thread of the light lane; at least 1), so another caller always finds a thread free.
    ``is_guest(principal)``: which principals are guests (None: nobody). Guests together hold at
    most ``size - reserved`` threads of a lane (``reserved`` default: half of each lane,
    never all of it), and owners' queued jobs go before theirs: the analyst never waits for
    a thread behind an assistant's work, and on a 2-core box an assistant's CPU-bound work
    holds one heavy thread, not both (fewer threads contending for the GIL with the loop).
    """

    def __init__(self, *, light_workers: int = 4, heavy_workers: int = 2,
                 per_owner: int | None = None, idle_seconds: float = IDLE_SECONDS,
                 is_guest: Callable[[Principal], bool] | None = None,
                 reserved: int | None = None) -> None:
        for label, value in (("light_workers", light_workers), ("heavy_workers", heavy_workers)):
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{label} must be a positive integer (got {value!r})")
        if per_owner is not None and (not isinstance(per_owner, int) or per_owner < 1):
            raise ValueError(f"per_owner must be a positive integer or None (got {per_owner!r})")
        if reserved is not None and (not isinstance(reserved, int) or reserved < 0):
            raise ValueError(f"reserved must be 0 or more, or None (got {reserved!r})")
        self.is_guest = is_guest

        def cap(size: int, default: int) -> int:
            return min(size, per_owner) if per_owner is not None else max(1, default)

        def kept(size: int) -> int:
            if is_guest is None:
                return 0
            return min(size - 1, size // 2 if reserved is None else reserved)

        self.lanes: dict[str, _Lane] = {
            LIGHT: _Lane(LIGHT, light_workers, cap(light_workers, light_workers - 1),
                         idle_seconds, kept(light_workers)),
            HEAVY: _Lane(HEAVY, heavy_workers, cap(heavy_workers, heavy_workers // 2),
                         idle_seconds, kept(heavy_workers)),
        }

    def __repr__(self) -> str:
        sizes = ", ".join(f"{n}={lane.size}/{lane.per_owner}/{lane.reserved}"
                          for n, lane in self.lanes.items())
        return f"WorkerPool({sizes})"

    async def run(self, lane: str, principal: Principal, fn: Callable[..., Any], /,
                  *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` in a thread of ``lane`` for ``principal``; cancelling the
        await drops a queued job (a running one runs on: it must check for cancellation)."""
        target = self.lanes.get(lane)
        if target is None:
            raise ValueError(f"Unknown worker lane {lane!r}; use one of {', '.join(LANES)}")
        loop = asyncio.get_running_loop()
        guest = self.is_guest is not None and bool(self.is_guest(principal))
        job = _Job(principal.id, fn, args, kwargs, loop, loop.create_future(), guest)
        target.submit(job)
        try:
            return await job.waiter
        except asyncio.CancelledError:
            job.abandoned = True
            target.discard(job)
            raise

    def stats(self) -> dict[str, LaneStats]:
        """Each lane's threads, running and queued jobs (for status pages and tests)."""
        return {name: lane.stats() for name, lane in self.lanes.items()}
