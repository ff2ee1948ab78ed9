"""``ChangeFanout``: layer change events become MCP notifications on the serving loop.

Sessions are real SDK ``Connection`` objects over ``JSONRPCDispatcher`` memory streams (what
stdio and HTTP sessions use); we read what each one would put on the wire. Also covered:
events raised in worker threads hop onto the serving loop and keep their order, 2026-07-28
listeners get events through the subscription bus, a session that cannot be written to or
has closed is dropped, and the layer holds the fan-out only weakly.
"""

from __future__ import annotations

import asyncio
import gc
import threading
import weakref
from typing import Any

import anyio
import pytest
from mcp.server.connection import Connection
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp.shared.message import SessionMessage

from cloudg_nb.layer import ChangeKind, CloudGMCPLayer, Registry
from cloudg_nb.protocol import ChangeFanout
from cloudg_nb.protocol import fanout as fanout_module


class Peer:
    """A handshake-era connection plus the receiving end of what it writes."""

    def __init__(self, buffer: int = 100) -> None:
        write, self.wire = anyio.create_memory_object_stream[SessionMessage](buffer)
        _, read = anyio.create_memory_object_stream[Any](1)
        self.connection = Connection(JSONRPCDispatcher(read, write), protocol_version="2025-11-25")

    def received(self) -> list[tuple[str, Any]]:
        out = []
        while True:
            try:
                message = self.wire.receive_nowait().message
            except (anyio.WouldBlock, anyio.EndOfStream):
                return out
            out.append((message.method, message.params))


def _layer() -> CloudGMCPLayer:
    return CloudGMCPLayer(registry=Registry(), policy="open")


async def _settle(fanout: ChangeFanout) -> None:
    for _ in range(50):
        await asyncio.sleep(0.01)
        if not fanout._tasks:
            return


async def test_list_changed_goes_to_every_session() -> None:
    fanout = ChangeFanout(_layer())
    fanout.bind_loop()
    a, b = Peer(), Peer()
    fanout.track(a.connection)
    fanout.track(b.connection)
    fanout.publish("tools")
    fanout.publish("prompts")
    fanout.publish("resources")
    await _settle(fanout)
    expected = [("notifications/tools/list_changed", None),
                ("notifications/prompts/list_changed", None),
                ("notifications/resources/list_changed", None)]
    assert a.received() == expected
    assert b.received() == expected


async def test_resource_updated_goes_only_to_its_subscribers() -> None:
    fanout = ChangeFanout(_layer())
    fanout.bind_loop()
    subscriber, other = Peer(), Peer()
    fanout.subscribe(subscriber.connection, "fx://a")
    fanout.subscribe(other.connection, "fx://b")
    fanout.publish("resource", "fx://a")
    await _settle(fanout)
    assert subscriber.received() == [("notifications/resources/updated", {"uri": "fx://a"})]
    assert other.received() == []


async def test_layer_changes_reach_sessions_through_the_layer_listener() -> None:
    layer = _layer()
    fanout = ChangeFanout(layer)
    fanout.bind_loop()
    peer = Peer()
    fanout.subscribe(peer.connection, "cloudg://workspace")
    layer.workspace.notify("resource", "cloudg://workspace")
    await _settle(fanout)
    assert peer.received() == [("notifications/resources/updated", {"uri": "cloudg://workspace"})]


async def test_events_from_worker_threads_are_delivered_on_the_loop_in_order() -> None:
    fanout = ChangeFanout(_layer())
    fanout.bind_loop()
    peer = Peer()
    fanout.subscribe(peer.connection, "fx://x")
    delivered_on: set[int] = set()
    fanout.bus.subscribe(lambda event: delivered_on.add(threading.get_ident()))

    def burst() -> None:
        for i in range(20):
            fanout.publish("resource", f"fx://x#{i}")
            fanout.publish("resource", "fx://x")
            fanout.publish("tools")

    await asyncio.to_thread(burst)
    await _settle(fanout)
    methods = [m for m, _ in peer.received()]
    assert methods == ["notifications/resources/updated", "notifications/tools/list_changed"] * 20
    assert delivered_on == {threading.get_ident()}


async def test_listen_streams_get_events_through_the_bus() -> None:
    fanout = ChangeFanout(_layer())
    fanout.bind_loop()
    events: list[Any] = []
    fanout.bus.subscribe(events.append)
    fanout.publish("resource", "fx://a")
    fanout.publish("prompts")
    await _settle(fanout)
    assert [type(e).__name__ for e in events] == ["ResourceUpdated", "PromptsListChanged"]
    assert events[0].uri == "fx://a"


async def test_closed_session_is_dropped() -> None:
    fanout = ChangeFanout(_layer())
    fanout.bind_loop()
    peer = Peer()
    fanout.track(peer.connection)
    assert fanout.session_count == 1
    await peer.connection.exit_stack.aclose()
    assert fanout.session_count == 0


async def test_session_whose_send_fails_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fanout_module, "SEND_TIMEOUT", 0.2)
    fanout = ChangeFanout(_layer())
    fanout.bind_loop()
    stuck, healthy = Peer(buffer=0), Peer()  # nobody reads the stuck peer's unbuffered wire
    fanout.track(stuck.connection)
    fanout.track(healthy.connection)
    fanout.publish("tools")
    await asyncio.sleep(0.5)
    await _settle(fanout)
    assert fanout.session_count == 1
    assert healthy.received() == [("notifications/tools/list_changed", None)]


async def test_unknown_change_kinds_are_ignored() -> None:
    fanout = ChangeFanout(_layer())
    fanout.bind_loop()
    peer = Peer()
    fanout.track(peer.connection)
    fanout.publish("weather")
    fanout.publish("resource")  # a resource event without a URI
    await _settle(fanout)
    assert peer.received() == []


def test_layer_holds_the_fanout_weakly() -> None:
    layer = _layer()
    fanout = ChangeFanout(layer)
    ref = weakref.ref(fanout)
    del fanout
    gc.collect()
    assert ref() is None
    layer.notify_change("tools")  # the orphaned listener removes itself quietly


def test_every_change_kind_becomes_its_mcp_notification() -> None:
    assert fanout_module.CHANGE_KINDS == {
        ChangeKind.TOOLS: "notifications/tools/list_changed",
        ChangeKind.PROMPTS: "notifications/prompts/list_changed",
        ChangeKind.RESOURCES: "notifications/resources/list_changed",
        ChangeKind.RESOURCE: "notifications/resources/updated",
    }
