"""``OversightEvents`` over a real ``jupyter_events.EventLogger`` (in-process; the same on a
real server, through its websocket, is ``test_oversight_events.py``): the shipped schemas
register under the wire's ids (once, however often asked), refuse any key they do not name;
each approval change is one event with the pending count; activity events are coalesced to
one per ``ACTIVITY_INTERVAL`` and together count every entry; nothing is emitted after close."""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from cloudg_jupyter.oversight_events import ACTIVITY_INTERVAL, SCHEMA_FILES, OversightEvents
from jupyter_events import EventLogger
from jupyter_events.schema import EventSchema

from cloudg_nb.layer.wire import (
    ACTIVITY_EVENT_SCHEMA,
    APPROVALS_EVENT_SCHEMA,
    ASSISTANTS_EVENT_SCHEMA,
)
from cloudg_nb.oversight import ActivityLog, ApprovalDesk

VIEW = {"summary": "s", "effects": [], "arguments": {"name": "secret-argument"}}


class Credentials:
    """What ``OversightEvents`` follows of the credentials: their minted/revoked notices."""

    def __init__(self) -> None:
        self.watchers: list[Any] = []

    def watch(self, watcher: Any) -> Any:
        self.watchers.append(watcher)
        return lambda: self.watchers.remove(watcher)


class Bus:
    def __init__(self) -> None:
        self.logger = EventLogger()
        self.heard: list[tuple[str, dict[str, Any], float]] = []
        self.desk = ApprovalDesk()
        self.activity = ActivityLog(min_interval=0.01)
        self.credentials = Credentials()
        self.events = OversightEvents(self.logger, logging.getLogger("test"))
        self.events.register()

    async def listen(self, logger: EventLogger, schema_id: str, data: dict[str, Any]) -> None:
        self.heard.append((schema_id, data, asyncio.get_running_loop().time()))

    def of(self, schema_id: str) -> list[dict[str, Any]]:
        return [data for sid, data, _ in self.heard if sid == schema_id]


@pytest.fixture
async def bus() -> AsyncIterator[Bus]:
    made = Bus()
    for schema_id in SCHEMA_FILES:
        made.logger.add_listener(schema_id=schema_id, listener=made.listen)
    made.events.attach(made.desk, made.activity, made.credentials)  # type: ignore[arg-type]
    made.events.start()
    yield made
    made.events.close()


def add_entries(log: ActivityLog, n: int) -> None:
    for _ in range(n):
        log.add(principal="p", assistant=False, kind="tool", name="t", outcome="ok",
                duration_ms=0.1, redacted=0)


def test_the_schemas_register_under_the_wire_ids_once() -> None:
    logger = EventLogger()
    first = OversightEvents(logger, logging.getLogger("test"))
    first.register()
    OversightEvents(logger, logging.getLogger("test")).register()  # a second extension app
    assert {APPROVALS_EVENT_SCHEMA, ACTIVITY_EVENT_SCHEMA, ASSISTANTS_EVENT_SCHEMA} <= set(
        logger.schemas.schema_ids)
    for schema_id, path in SCHEMA_FILES.items():
        assert EventSchema(path).id == schema_id


@pytest.mark.parametrize("schema_id, data", [
    (APPROVALS_EVENT_SCHEMA, {"action": "requested", "id": "a", "principal": "p", "tool": "t",
                              "state": "pending", "expires_in": 1.0, "pending": 1,
                              "arguments": {"name": "x"}}),
    (ACTIVITY_EVENT_SCHEMA, {"seq": 1, "count": 1, "waiting": 0, "entries": []}),
    (ASSISTANTS_EVENT_SCHEMA, {"action": "minted", "name": "bot", "token": "cgat_x"}),
])
def test_a_schema_refuses_a_key_it_does_not_name(schema_id: str, data: dict[str, Any]) -> None:
    logger = EventLogger()
    OversightEvents(logger, logging.getLogger("test")).register()
    with pytest.raises(Exception, match="Additional properties are not allowed"):
        logger.schemas.validate_event(schema_id, data)


async def test_each_approval_change_is_one_event_with_the_pending_count(bus: Bus) -> None:
    first = bus.desk.open("assistant:bot", "unload_dataset", VIEW, 60)
    second = bus.desk.open("assistant:bot", "unload_dataset", VIEW, 60)
    bus.desk.decide(first.id, False, "alice", "not now")
    await asyncio.sleep(0.01)
    requested, _, decided = bus.of(APPROVALS_EVENT_SCHEMA)
    assert requested == {"action": "requested", "id": first.id, "principal": "assistant:bot",
                         "tool": "unload_dataset", "state": "pending",
                         "expires_in": requested["expires_in"], "pending": 1}
    assert 59 < requested["expires_in"] <= 60
    assert decided == {"action": "decided", "id": first.id, "principal": "assistant:bot",
                       "tool": "unload_dataset", "state": "denied", "expires_in": 0.0,
                       "decided_by": "alice", "reason": "not now", "pending": 1}
    assert second.id != first.id
    assert "secret-argument" not in str(bus.heard)


async def test_activity_events_are_coalesced_and_count_every_entry(bus: Bus) -> None:
    for _ in range(20):
        add_entries(bus.activity, 5)
        await asyncio.sleep(0.02)
    await asyncio.sleep(ACTIVITY_INTERVAL + 0.1)
    times = [at for sid, _, at in bus.heard if sid == ACTIVITY_EVENT_SCHEMA]
    events = bus.of(ACTIVITY_EVENT_SCHEMA)
    assert sum(e["count"] for e in events) == 100 and events[-1]["seq"] == 100
    assert 2 <= len(events) <= 4  # ~0.5 s of entries, not one event per entry (100)
    assert all(b - a >= ACTIVITY_INTERVAL - 0.01 for a, b in itertools.pairwise(times))


async def test_a_waiting_call_changes_the_waiting_count_of_the_activity_events(
        bus: Bus) -> None:
    bus.desk.open("assistant:bot", "unload_dataset", VIEW, 60)
    await asyncio.sleep(ACTIVITY_INTERVAL + 0.05)
    assert bus.of(ACTIVITY_EVENT_SCHEMA)[-1] == {"seq": 0, "count": 0, "waiting": 1}


async def test_a_minted_or_revoked_credential_is_one_event_by_name(bus: Bus) -> None:
    for watcher in bus.credentials.watchers:
        watcher("minted", "bot")
        watcher("revoked", "bot")
    await asyncio.sleep(0.01)
    assert bus.of(ASSISTANTS_EVENT_SCHEMA) == [{"action": "minted", "name": "bot"},
                                               {"action": "revoked", "name": "bot"}]


async def test_nothing_is_emitted_after_close(bus: Bus) -> None:
    bus.events.close()
    bus.desk.open("assistant:bot", "unload_dataset", VIEW, 60)
    add_entries(bus.activity, 3)
    await asyncio.sleep(ACTIVITY_INTERVAL + 0.05)
    assert bus.heard == []
