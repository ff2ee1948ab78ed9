"""The notebook client's background event loop: one daemon thread running asyncio.

Sync callers (magics, plain cells) block in ``LoopThread.run`` on a coroutine that runs on this
loop; a KeyboardInterrupt while waiting (the kernel's stop button) cancels the coroutine, waits
at most ``SETTLE_SECONDS`` for it to unwind, and re-raises. This replaces nest_asyncio: the
kernel's own loop is never re-entered. ``shared_loop()`` is the one instance per process.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import threading
from collections.abc import Callable, Coroutine
from typing import Any, Protocol, TypeVar

__all__ = ["SETTLE_SECONDS", "LoopThread", "Waiting", "shared_loop"]

T = TypeVar("T")

#: How long an interrupted call may take to unwind (cancel sent, task finished) before the
#: KeyboardInterrupt is re-raised anyway.
SETTLE_SECONDS = 1.5
#: How often a blocked caller wakes up; signals interrupt the wait either way.
_POLL_SECONDS = 0.25


class Waiting(Protocol):
    """What a blocked caller polls while it waits (``progress.DeferredProgress``)."""

    wake: threading.Event

    def poll(self) -> float | None: ...


async def _tracked(coro: Coroutine[Any, Any, T], settled: threading.Event) -> T:
    try:
        return await coro
    finally:
        settled.set()


class LoopThread:
    """An asyncio loop in a daemon thread, and ways for other threads to use it."""

    def __init__(self, name: str = "cloudg-nb-client") -> None:
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self.thread = threading.Thread(target=self._main, name=name, daemon=True)
        self.thread.start()
        self._ready.wait()

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.call_soon(self._ready.set)
        try:
            self.loop.run_forever()
        finally:
            self.loop.close()

    @property
    def alive(self) -> bool:
        return self.thread.is_alive() and not self.loop.is_closed()

    def in_loop_thread(self) -> bool:
        return threading.current_thread() is self.thread

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Schedule ``coro`` on the loop; its result arrives in the returned future."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def call_soon(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the loop thread, soon (from any thread)."""
        self.loop.call_soon_threadsafe(fn, *args)

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None,
            waiting: Waiting | None = None) -> T:
        """Run ``coro`` on the loop and block until it finishes; return its result.

        KeyboardInterrupt while waiting cancels the coroutine (a remote call sends
        ``notifications/cancelled``), waits up to ``SETTLE_SECONDS`` for it to unwind and
        re-raises KeyboardInterrupt. ``timeout`` cancels the same way and raises TimeoutError.
        ``waiting`` (a deferred progress display) is polled from this thread while it waits:
        when its ``wake`` is set and when the seconds its ``poll`` names have passed.
        """
        if self.in_loop_thread():
            coro.close()
            raise RuntimeError("a blocking client call was made on the client's own loop "
                               "thread; use the awaitable method (acall, aread, ...) there")
        settled = threading.Event()
        future = self.submit(_tracked(coro, settled))
        deadline = None if timeout is None else self.loop.time() + timeout
        if waiting is not None:
            wake = waiting.wake
            future.add_done_callback(lambda _: wake.set())
        try:
            while True:
                wait = _POLL_SECONDS
                if deadline is not None:
                    wait = min(wait, max(0.0, deadline - self.loop.time()))
                if waiting is not None:
                    due = waiting.poll()
                    if due is None:  # made: nothing more to poll for
                        waiting = None
                    else:  # until a report, the answer, or the display is due
                        waiting.wake.wait(min(wait, due))
                        waiting.wake.clear()
                        wait = 0.0
                try:
                    return future.result(wait)
                except concurrent.futures.TimeoutError:
                    if deadline is not None and self.loop.time() >= deadline:
                        self._cancel(future, settled)
                        raise TimeoutError(f"the call did not finish within {timeout:g} s; "
                                           "it was cancelled") from None
        except KeyboardInterrupt:
            self._cancel(future, settled)
            raise

    @staticmethod
    def _cancel(future: concurrent.futures.Future[Any], settled: threading.Event) -> None:
        future.cancel()
        with contextlib.suppress(KeyboardInterrupt):  # a second interrupt: stop waiting
            settled.wait(SETTLE_SECONDS)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the loop and join the thread (pending tasks are abandoned)."""
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        if not self.in_loop_thread():
            self.thread.join(timeout)


_shared: LoopThread | None = None
_shared_pid: int | None = None
_shared_lock = threading.Lock()


def shared_loop() -> LoopThread:
    """The process's client loop, started on first use and restarted if it died (or after
    a fork, where the thread does not survive)."""
    global _shared, _shared_pid
    with _shared_lock:
        if _shared is None or _shared_pid != os.getpid() or not _shared.alive:
            _shared = LoopThread()
            _shared_pid = os.getpid()
        return _shared
