"""The activity feed: one entry per finished call with who, what, outcome, duration and how many
values were redacted (never a value), a ring of fixed size, change notices throttled under load,
and an assistant reading only its own entries."""

from __future__ import annotations

import asyncio
import itertools
import json
import time

from cloudg_nb import Principal
from cloudg_nb.assembly import build_layer
from cloudg_nb.assistants import is_assistant
from cloudg_nb.catalog import default_registry
from cloudg_nb.layer.registry import Registry
from cloudg_nb.oversight import ACTIVITY_URI, ActivityLog, ActivityMiddleware, ApprovalDesk
from cloudg_nb.oversight.activity import redaction_count
from cloudg_nb.oversight.catalog import register
from cloudg_nb.policy.router import PolicyRouter

SECRET = "postgres://app:Sup3rS3cretPassw0rd@db.internal:5432/app"
ANALYST = Principal("alice")
BOT = Principal("assistant:bot", frozenset({"assistant"}))


def _layer(log: ActivityLog):
    registry: Registry = default_registry()

    @registry.tool
    def leak(ctx) -> dict:
        """Returns a connection string (the policy must redact it)."""
        return {"dsn": SECRET, "also": f"password={SECRET}"}

    register(registry, activity=log, desk=ApprovalDesk())
    layer = build_layer(policy="standard", registry=registry)
    layer.policy = PolicyRouter(layer.policy)  # type: ignore[arg-type]
    layer.middleware.insert(0, ActivityMiddleware(log, is_assistant))
    log.attach(layer)
    return layer


async def test_each_call_is_recorded_with_who_what_outcome_and_redactions() -> None:
    log = ActivityLog()
    layer = _layer(log)
    await layer.call_tool("sample_estate", {"name": "demo"}, principal=ANALYST)
    since = log.latest
    await layer.call_tool("leak", {}, principal=BOT)
    await layer.call_tool("get_asset", {"ref": "nope"}, principal=ANALYST)
    first, second = log.entries(since=since)
    assert (first.principal, first.assistant, first.name, first.outcome) == (
        "assistant:bot", True, "leak", "ok")
    assert first.redacted >= 1
    assert (second.principal, second.assistant, second.outcome) == ("alice", False, "error")
    assert first.duration_ms >= 0 and second.seq == first.seq + 1


async def test_no_argument_or_secret_value_reaches_the_feed() -> None:
    log = ActivityLog()
    layer = _layer(log)
    await layer.call_tool("leak", {}, principal=BOT)
    await layer.call_tool("find_assets", {"query": "customers-db"}, principal=BOT)
    feed = await layer.read_resource(ACTIVITY_URI, principal=ANALYST)
    text = feed[0].text
    assert "Sup3rS3cret" not in text and "customers-db" not in text
    assert [e["name"] for e in json.loads(text)["entries"]] == ["leak", "find_assets"]


async def test_an_assistant_reads_only_its_own_entries() -> None:
    log = ActivityLog()
    layer = _layer(log)
    await layer.call_tool("list_datasets", {}, principal=ANALYST)
    await layer.call_tool("list_datasets", {}, principal=BOT)
    mine = json.loads((await layer.read_resource(ACTIVITY_URI, principal=BOT))[0].text)
    everyone = json.loads((await layer.read_resource(ACTIVITY_URI, principal=ANALYST))[0].text)
    assert mine["scope"] == "own" and {e["principal"] for e in mine["entries"]} == {
        "assistant:bot"}
    assert len(everyone["entries"]) == 2


async def test_reading_the_feed_is_not_itself_recorded() -> None:
    log = ActivityLog()
    layer = _layer(log)
    for _ in range(3):
        await layer.read_resource(ACTIVITY_URI, principal=ANALYST)
    assert len(log) == 0


async def test_reading_what_is_new_is_not_itself_recorded() -> None:
    log = ActivityLog()
    layer = _layer(log)
    await layer.call_tool("list_datasets", {}, principal=ANALYST)
    for _ in range(3):  # a live feed's incremental reads must not make entries to read
        await layer.read_resource(f"cloudg://activity/since/{log.latest}", principal=ANALYST)
    assert [e.name for e in log.entries()] == ["list_datasets"]


async def test_new_entries_are_read_since_a_number() -> None:
    log = ActivityLog()
    layer = _layer(log)
    await layer.call_tool("list_datasets", {}, principal=ANALYST)
    latest = log.latest
    await layer.call_tool("workspace_status", {}, principal=ANALYST)
    since = json.loads((await layer.read_resource(f"cloudg://activity/since/{latest}",
                                                  principal=ANALYST))[0].text)
    assert [e["name"] for e in since["entries"]] == ["workspace_status"]


def test_the_log_keeps_only_its_size() -> None:
    log = ActivityLog(size=5)
    for i in range(12):
        log.add(principal="p", assistant=False, kind="tool", name=f"t{i}", outcome="ok",
                duration_ms=1.0, redacted=0)
    assert [e.name for e in log.entries()] == [f"t{i}" for i in range(7, 12)]
    assert log.latest == 12


async def test_change_notices_are_throttled_under_load() -> None:
    sent: list[float] = []
    log = ActivityLog(min_interval=0.25, notify=lambda: sent.append(time.monotonic()))
    started = time.monotonic()
    while time.monotonic() - started < 1.0:
        log.add(principal="p", assistant=False, kind="tool", name="t", outcome="ok",
                duration_ms=0.1, redacted=0)
        await asyncio.sleep(0.001)
    await asyncio.sleep(0.3)  # the trailing notice arrives
    assert 3 <= len(sent) <= 6  # ~4 per second, not one per call (hundreds)
    assert all(b - a >= 0.24 for a, b in itertools.pairwise(sent))
    assert sent[-1] >= started + 0.9  # the last calls were announced too


def test_redaction_count_adds_every_replacing_strategy() -> None:
    report = {"redacted": {"secret": 2}, "masked": {"credential": 1}, "pseudonymized": {
        "aws_account_id": 3}, "classification": "confidential", "fenced": 4}
    assert redaction_count(report) == 6
    assert redaction_count(None) == 0
