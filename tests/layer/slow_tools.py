"""A test tool whose sync handler spins until its call is cancelled, counting its threads.

``SpinningWork.spec()`` is a heavy-lane tool (``spin``) that checks ``ctx.check_cancelled()``
every few milliseconds; ``running`` says how many of its handler threads are still alive,
``started`` / ``stopped`` how many began and ended. ``status_spec()`` exposes the counts
as a light tool (``spin_status``) for tests that drive a server over a socket.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from cloudg_nb.layer import ToolContext, ToolSpec


class SpinningWork:
    """The counters of every ``spin`` handler thread; thread-safe."""

    def __init__(self, name: str = "spin") -> None:
        self.name = name
        self._lock = threading.Lock()
        self.running = 0
        self.started = 0
        self.stopped = 0
        self.threads: set[str] = set()

    def handler(self, ctx: ToolContext, seconds: float = 60.0) -> dict[str, Any]:
        with self._lock:
            self.running += 1
            self.started += 1
            self.threads.add(threading.current_thread().name)
        try:
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                ctx.check_cancelled()
                time.sleep(0.005)
            return {"finished": True}
        finally:
            with self._lock:
                self.running -= 1
                self.stopped += 1

    def status(self) -> dict[str, int]:
        with self._lock:
            return {"running": self.running, "started": self.started, "stopped": self.stopped}

    def spec(self, **options: Any) -> ToolSpec:
        def spin(ctx: ToolContext, seconds: float = 60.0) -> dict[str, Any]:
            """Spin until cancelled or ``seconds`` pass."""
            return self.handler(ctx, seconds)

        return ToolSpec(name=self.name, handler=spin, category="graph", **options)

    def status_spec(self) -> ToolSpec:
        def spin_status(ctx: ToolContext) -> dict[str, int]:
            """How many spin handler threads run, started and stopped."""
            return self.status()

        return ToolSpec(name=f"{self.name}_status", handler=spin_status, category="meta")

    def wait(self, predicate: Any, timeout: float = 10.0) -> float:
        """Poll until ``predicate(status)`` holds; the seconds it took (AssertionError late)."""
        start = time.monotonic()
        while not predicate(self.status()):
            if time.monotonic() - start > timeout:
                raise AssertionError(f"condition not met within {timeout:g} s: {self.status()}")
            time.sleep(0.005)
        return time.monotonic() - start

    async def until(self, predicate: Any, timeout: float = 10.0) -> float:
        """``wait`` for async tests: polls without blocking the event loop."""
        import asyncio

        start = time.monotonic()
        while not predicate(self.status()):
            if time.monotonic() - start > timeout:
                raise AssertionError(f"condition not met within {timeout:g} s: {self.status()}")
            await asyncio.sleep(0.005)
        return time.monotonic() - start
