"""ConcurrencyLimitMiddleware: bound how many requests run at once (overall and per principal).

A request that waits longer than ``queue_timeout`` for a slot is refused with
RateLimitedError ("Server busy"), carrying ``retry_after``, ``limit`` and ``scope``.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Iterable
from typing import Any

from ..calls import CallInfo, Handler
from ..errors import RateLimitedError

__all__ = ["ConcurrencyLimitMiddleware"]


class ConcurrencyLimitMiddleware:
    def __init__(
        self,
        limit: int = 8,
        per_principal: int | None = None,
        queue_timeout: float = 30.0,
        kinds: Iterable[str] = ("tool",),
    ) -> None:
        if limit < 1 or (per_principal is not None and per_principal < 1):
            raise ValueError("Concurrency limits must be at least 1")
        self.limit = limit
        self.per_principal = per_principal
        self.queue_timeout = queue_timeout
        self.kinds = frozenset(kinds)
        # Semaphores belong to one event loop; keep a set per loop.
        self._global: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )
        self._principals: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]] = weakref.WeakKeyDictionary()
        self.running = 0

    def _semaphores(self, principal_id: str) -> list[tuple[str, int, asyncio.Semaphore]]:
        loop = asyncio.get_running_loop()
        sems = []
        if self.per_principal is not None:
            table = self._principals.setdefault(loop, {})
            sem = table.get(principal_id)
            if sem is None:
                sem = table[principal_id] = asyncio.Semaphore(self.per_principal)
            sems.append(("principal", self.per_principal, sem))
        glob = self._global.get(loop)
        if glob is None:
            glob = self._global[loop] = asyncio.Semaphore(self.limit)
        sems.append(("global", self.limit, glob))
        return sems

    async def __call__(self, info: CallInfo, call_next: Handler) -> Any:
        if info.kind not in self.kinds:
            return await call_next(info)
        acquired: list[asyncio.Semaphore] = []
        try:
            for scope, limit, sem in self._semaphores(info.principal.id):
                try:
                    if sem.locked():
                        async with asyncio.timeout(self.queue_timeout):
                            await sem.acquire()
                    else:
                        await sem.acquire()  # a free slot: no timer, no extra loop turn
                except TimeoutError:
                    raise RateLimitedError(
                        f"Server busy: {limit} requests are already running ({scope} limit). "
                        "Retry in a few seconds.",
                        data={"retry_after": max(1.0, self.queue_timeout / 10), "limit": limit,
                              "scope": scope},
                    ) from None
                acquired.append(sem)
            self.running += 1
            try:
                return await call_next(info)
            finally:
                self.running -= 1
        finally:
            for sem in acquired:
                sem.release()
