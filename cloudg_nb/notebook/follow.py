"""Follower: the lifecycle of every display that follows the workspace (LiveFrame, activity
feed, approvals). It subscribes, then reads; on ``resources/updated`` it refreshes on the client
loop, one at a time, after ``_delay()`` (``debounce``, and ``min_interval`` after the last
refresh began; changes coalesce); a failed refresh keeps what was shown. Subclasses make
widgets on the constructing thread (``_make_widgets``), read on the loop (``_read``) and change
widgets only by trait assignment there (``_render``).
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from .progress import kernel_shell
from .result import CloudGError, ErrorInfo

if TYPE_CHECKING:
    from .client_api import ClientAPI
    from .loop import LoopThread

__all__ = ["Follower", "RECONNECT_NOTE_SECONDS", "ago", "reconnect_note"]

logger = logging.getLogger("cloudg.notebook")
F = TypeVar("F", bound="Follower")

#: How long a caption says "reconnected ... ago" after the client re-established its session.
RECONNECT_NOTE_SECONDS = 600.0


def ago(seconds: float) -> str:
    """``2 s ago``, ``3 min ago``, ``2 h ago``."""
    if seconds < 60:
        return f"{int(seconds)} s ago"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    return f"{int(seconds // 3600)} h ago"


def reconnect_note(client: ClientAPI) -> str | None:
    """``reconnected 12 s ago`` while the client's last reconnection is recent, else None."""
    at = client.reconnected_at
    if at is None:
        return None
    age = time.time() - at
    return f"reconnected {ago(max(0.0, age))}" if age < RECONNECT_NOTE_SECONDS else None


class Follower:
    """Follow ``uri`` of ``client``: ``refreshes`` and ``renders`` count what happened,
    ``error`` holds the last failed refresh's error; ``pause()``, ``resume()``, ``refresh()``
    and ``close()``."""

    #: The resource followed (subclasses following several override ``_subscribe``).
    uri: ClassVar[str] = ""
    #: What ``refresh`` after ``close`` tells the user to make instead.
    remake: ClassVar[str] = ""

    def __init__(self, client: ClientAPI, *, min_interval: float, debounce: float = 0.03,
                 widget: bool | None = None, start: bool = True) -> None:
        self.client = client
        self.min_interval = min_interval
        self.debounce = debounce
        self.refreshes = 0
        self.renders = 0
        self.error: ErrorInfo | None = None
        self.widget: Any = None
        self._paused = self._closed = self._stale = self._dirty = False
        self._last_refresh = -math.inf  # when the last refresh began (loop clock)
        self._refreshed_at = -math.inf  # when the last refresh ended (loop clock)
        self._timer: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[None] | None = None
        self._lock: asyncio.Lock | None = None
        self._subscribed: dict[str, Callable[[], Awaitable[None]]] = {}
        self._forget_reconnect: Callable[[], None] | None = None
        if widget if widget is not None else kernel_shell() is not None:
            self._make_widgets()
        if start:
            self._open()

    def _open(self) -> None:
        """Subscribe and read (blocking); a failure leaves nothing subscribed or made."""
        try:
            self._loop.run(self._start())
        except BaseException:
            self._loop.run(self._stop())
            self._drop_widgets()
            raise

    @classmethod
    async def aopen(cls: type[F], client: ClientAPI, *args: Any, **options: Any) -> F:
        """Build one from async code: widgets made on the calling thread, the first read
        awaited without blocking its loop."""
        made = cls(client, *args, start=False, **options)
        try:
            await asyncio.wrap_future(made._loop.submit(made._start()))
        except BaseException:
            await asyncio.wrap_future(made._loop.submit(made._stop()))
            made._drop_widgets()
            raise
        return made

    # -- public ----------------------------------------------------------------------------

    @property
    def _loop(self) -> LoopThread:
        return self.client.loop

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def closed(self) -> bool:
        return self._closed

    def refresh(self) -> None:
        """Read now (blocks until done); a failure keeps what is shown and sets ``error``."""
        if self._closed:
            raise RuntimeError(f"this {type(self).__name__} is closed; make a new one with "
                               f"{self.remake}")
        self._loop.run(self._refresh())

    def pause(self) -> None:
        """Stop following (changes are remembered)."""
        self._paused = True
        self._loop.call_soon(self._render_caption)

    def resume(self) -> None:
        """Follow again; reads now if something changed while paused."""
        self._paused = False
        self._loop.call_soon(self._resumed)

    def close(self) -> None:
        """Unsubscribe and stop for good; what was last shown stays."""
        if self._closed:
            return
        self._closed = True
        if self._loop.alive:
            self._loop.run(self._stop())

    def state(self) -> str:
        """``closed``, ``paused (changes waiting)``, ``refresh failed: ...`` or ""."""
        parts: list[str] = []
        if self._closed:
            parts.append("closed")
        elif self._paused:
            parts.append("paused" + (" (changes waiting)" if self._stale else ""))
        if self.error is not None:
            parts.append(f"refresh failed: {self.error.message}")
        note = reconnect_note(self.client)
        if note is not None:
            parts.append(note)
        return " · ".join(parts)

    def _drop_widgets(self) -> None:
        """Close the widget tree of one that failed to start (it is never shown)."""
        def close(widget: Any) -> None:
            for child in getattr(widget, "children", ()):
                close(child)
            for part in ("layout", "style"):
                inner = getattr(widget, part, None)
                if inner is not None and hasattr(inner, "close"):
                    inner.close()
            widget.close()

        if self.widget is not None:
            close(self.widget)
            self.widget = None

    # -- for subclasses --------------------------------------------------------------------

    def _make_widgets(self) -> None:
        raise NotImplementedError

    async def _read(self) -> None:
        """Read the resource and update the subclass's state (on the loop)."""
        raise NotImplementedError

    def _render(self) -> None:
        """Show the current state (on the loop; trait assignments only)."""
        raise NotImplementedError

    def _render_caption(self) -> None:
        """Show a changed state line (paused, closed, failed) without re-rendering all."""
        self._render()

    async def _subscribe(self) -> None:
        """Subscribe before the first read, so no change between the two is missed."""
        await self._follow([self.uri])

    def _failed(self, exc: Exception) -> None:
        """A refresh failed (not the first read, which raises): keep what is shown, say why."""
        self.error = exc.error if isinstance(exc, CloudGError) else ErrorInfo(
            "connection", f"{type(exc).__name__}: {exc}")
        self._render_caption()

    def _refreshed(self) -> None:
        """A refresh ended (read or failed), outside the refresh lock."""

    def _delay(self) -> float:
        """Seconds from a change to its refresh: ``debounce``, and at least ``min_interval``
        after the last refresh began."""
        return max(self.debounce, self._last_refresh + self.min_interval - self._loop.loop.time())

    def _reconnected(self) -> None:
        """A new session replaced one that ended (loop thread, before the re-read): forget
        what depends on the old server's state."""

    # -- on the client loop ----------------------------------------------------------------

    async def _start(self) -> None:
        self._lock = asyncio.Lock()
        self._forget_reconnect = self.client.on_reconnect(self._reconnected)
        await self._subscribe()
        await self._refresh(raise_errors=True)

    async def _follow(self, uris: Iterable[str]) -> None:
        """Be subscribed to exactly ``uris``: drop the others, then subscribe to the new."""
        wanted = list(uris)
        for uri in [u for u in self._subscribed if u not in wanted]:
            unsubscribe = self._subscribed.pop(uri)
            try:
                await unsubscribe()
            except Exception:
                logger.debug("unsubscribing %s failed", uri, exc_info=True)
        for uri in wanted:
            if uri not in self._subscribed:
                self._subscribed[uri] = await self.client.asubscribe(uri, self._changed)

    async def _refresh(self, *, raise_errors: bool = False) -> None:
        assert self._lock is not None
        async with self._lock:
            self._dirty = False
            self._last_refresh = self._loop.loop.time()
            try:
                await self._read()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if raise_errors:
                    raise
                self._failed(exc)
            else:
                self.error = None
                self.refreshes += 1
                self.renders += 1
                self._render()
            finally:
                self._refreshed_at = self._loop.loop.time()
        self._refreshed()

    def _changed(self, uri: str) -> None:
        if self._closed:
            return
        if self._paused:
            self._stale = True
            self._render_caption()
            return
        self._dirty = True
        self._schedule()

    def _schedule(self) -> None:
        if self._timer is not None or (self._task is not None and not self._task.done()):
            return
        self._timer = self._loop.loop.call_later(self._delay(), self._fire)

    def _fire(self) -> None:
        self._timer = None
        if self._closed or self._paused:
            return
        self._task = self._loop.loop.create_task(self._refresh_dirty())

    async def _refresh_dirty(self) -> None:
        try:
            if self._dirty:  # (a refresh since the change has read it already)
                await self._refresh()
        except Exception:
            logger.exception("cloudg: %s refresh failed", type(self).__name__)
        self._task = None
        if self._dirty and not self._closed and not self._paused:
            self._schedule()

    def _resumed(self) -> None:
        if self._closed:
            return
        if self._stale:
            self._stale = False
            self._changed(self.uri)
        else:
            self._render_caption()

    async def _stop(self) -> None:
        if self._forget_reconnect is not None:
            self._forget_reconnect()
            self._forget_reconnect = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._task is not None and not self._task.done() and \
                self._task is not asyncio.current_task():
            self._task.cancel()
        await self._follow([])
        self._render_caption()
