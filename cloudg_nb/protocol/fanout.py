"""ChangeFanout: layer change events -> MCP change notifications for every connected client.

Handshake-era sessions get ``list_changed`` (all) and ``resources/updated`` (subscribers);
2026-07-28 clients get the same events on ``subscriptions/listen`` streams (the SDK's
``ListenHandler``). Events hop from any thread onto the serving loop, in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server.connection import Connection
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
    ServerEvent,
    SubscriptionBus,
    ToolsListChanged,
)

from ..layer.enums import ChangeKind

if TYPE_CHECKING:
    from ..layer.layer import CloudGMCPLayer

__all__ = ["ChangeFanout", "CHANGE_KINDS"]

logger = logging.getLogger("cloudg.mcp.protocol")

#: Change kinds the layer reports, and the MCP notification each becomes.
CHANGE_KINDS: dict[ChangeKind, str] = {
    ChangeKind.TOOLS: "notifications/tools/list_changed",
    ChangeKind.PROMPTS: "notifications/prompts/list_changed",
    ChangeKind.RESOURCES: "notifications/resources/list_changed",
    ChangeKind.RESOURCE: "notifications/resources/updated",
}

_EVENTS: dict[ChangeKind, ServerEvent] = {
    ChangeKind.TOOLS: ToolsListChanged(),
    ChangeKind.PROMPTS: PromptsListChanged(),
    ChangeKind.RESOURCES: ResourcesListChanged(),
}

#: A notification that cannot be written within this many seconds counts as a failed send.
SEND_TIMEOUT = 10.0


def _weak_listener(fanout: ChangeFanout, layer: CloudGMCPLayer) -> Callable[[], None]:
    """Register a layer listener that holds ``fanout`` weakly and removes itself once the
    fanout is gone, so a discarded server never keeps receiving (or pinning) events."""
    ref = weakref.ref(fanout)
    holder: list[Callable[[], None]] = []

    def listener(kind: str, uri: str | None = None) -> None:
        target = ref()
        if target is None:
            if holder:
                holder[0]()
            return
        target.publish(kind, uri)

    unsubscribe = layer.on_change(listener)
    holder.append(unsubscribe)
    return unsubscribe


class ChangeFanout:
    """Deliver a layer's change events to every MCP session bound to it.

    The layer holds the fan-out only weakly. A session whose send fails or stalls past
    ``SEND_TIMEOUT`` is dropped; a connection that closes removes itself.
    """

    def __init__(
        self, layer: CloudGMCPLayer | None = None, *, bus: SubscriptionBus | None = None
    ) -> None:
        self.bus: SubscriptionBus = bus or InMemorySubscriptionBus()
        #: The SDK's ``subscriptions/listen`` handler over :attr:`bus` (2026-07-28 clients).
        self.listen_handler = ListenHandler(self.bus)
        self._sessions: dict[Connection, set[str]] = {}
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tail: asyncio.Future[Any] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._unsubscribe: Callable[[], None] | None = None
        if layer is not None:
            self._unsubscribe = _weak_listener(self, layer)

    def __repr__(self) -> str:
        return f"ChangeFanout(sessions={len(self._sessions)})"

    # -- lifecycle -----------------------------------------------------------------------

    def bind_loop(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Deliver on ``loop`` (default: the running loop). Called when serving starts."""
        self._loop = loop or asyncio.get_running_loop()

    def close(self) -> None:
        """Stop listening to the layer and end every ``subscriptions/listen`` stream."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.listen_handler.close()
        with self._lock:
            self._sessions.clear()

    # -- sessions ------------------------------------------------------------------------

    @property
    def session_count(self) -> int:
        return len(self._sessions)

    def track(self, connection: Connection) -> None:
        """Start delivering to a handshake-era ``connection``; it drops itself when closed."""
        with self._lock:
            if connection in self._sessions:
                return
            self._sessions[connection] = set()
        if self._loop is None:
            with contextlib.suppress(RuntimeError):  # no loop yet: bind_loop() sets it
                self._loop = asyncio.get_running_loop()
        connection.exit_stack.callback(self.drop, connection)

    def drop(self, connection: Connection) -> None:
        with self._lock:
            self._sessions.pop(connection, None)

    def subscribe(self, connection: Connection, uri: str) -> None:
        self.track(connection)
        with self._lock:
            subs = self._sessions.get(connection)
            if subs is not None:
                subs.add(uri)

    def unsubscribe(self, connection: Connection, uri: str) -> None:
        with self._lock:
            subs = self._sessions.get(connection)
            if subs is not None:
                subs.discard(uri)

    def subscriptions(self, connection: Connection) -> frozenset[str]:
        with self._lock:
            return frozenset(self._sessions.get(connection, ()))

    def describe_sessions(self) -> list[dict[str, Any]]:
        """The handshake-era sessions receiving events: which client (as it named itself),
        protocol version, a short session-id prefix (never the whole id) and subscriptions."""
        with self._lock:
            items = [(conn, len(subs)) for conn, subs in self._sessions.items()]
        out = []
        for conn, subscribed in items:
            params = conn.client_params
            info = params.client_info if params is not None else None
            session_id = conn.session_id or ""
            out.append({
                "client": getattr(info, "name", None),
                "client_version": getattr(info, "version", None),
                "protocol_version": conn.protocol_version,
                "session": session_id[:8] or None,
                "subscriptions": subscribed,
            })
        return out

    # -- events --------------------------------------------------------------------------

    def publish(self, kind: str, uri: str | None = None) -> None:
        """Report a change from any thread; delivery happens on the serving loop, in order."""
        if kind not in CHANGE_KINDS or (kind == ChangeKind.RESOURCE and not uri):
            logger.debug("ignored change event %r", kind)
            return
        kind = ChangeKind(kind)
        loop = self._loop
        if loop is None or loop.is_closed():
            return  # nothing is being served yet: no session could receive it
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._enqueue(kind, uri)
        else:
            with contextlib.suppress(RuntimeError):  # loop closed between check and call
                loop.call_soon_threadsafe(self._enqueue, kind, uri)

    def _enqueue(self, kind: ChangeKind, uri: str | None) -> None:
        previous = self._tail
        task = asyncio.ensure_future(self._deliver_after(previous, kind, uri))
        self._tail = task
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _deliver_after(
        self, previous: asyncio.Future[Any] | None, kind: ChangeKind, uri: str | None
    ) -> None:
        if previous is not None and not previous.done():
            await asyncio.wait([previous])
        try:
            await self.deliver(kind, uri)
        except Exception:
            logger.exception("change notification %s failed", kind)

    async def deliver(self, kind: ChangeKind, uri: str | None = None) -> None:
        """Send one change event now (on the serving loop)."""
        method = CHANGE_KINDS[kind]
        params = {"uri": uri} if kind == ChangeKind.RESOURCE else None
        with self._lock:
            targets = [
                conn for conn, subs in self._sessions.items()
                if kind != ChangeKind.RESOURCE or uri in subs
            ]
        for connection in targets:
            try:
                with anyio.fail_after(SEND_TIMEOUT):
                    await connection.outbound.notify(method, params)
            except Exception:
                logger.info("dropping an MCP session whose %s notification failed", kind)
                self.drop(connection)
        event = _EVENTS.get(kind) or ResourceUpdated(uri=str(uri))
        await self.bus.publish(event)
