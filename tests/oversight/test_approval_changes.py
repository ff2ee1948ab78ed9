"""What the desk tells its watchers and shows the front ends: each change of an approval
(requested, decided, expired, cancelled — a revoked credential's call too), when it was
decided, a text for every effect, and the calls waiting now as entries of the activity feed
(``cloudg://activity`` lists them, an assistant only its own)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from cloudg_nb import Principal
from cloudg_nb.assembly import build_layer
from cloudg_nb.assistants import is_assistant
from cloudg_nb.catalog import default_registry
from cloudg_nb.layer.wire import ACTIVITY_URI
from cloudg_nb.oversight import ActivityLog, ActivityMiddleware, ApprovalGate
from cloudg_nb.oversight.activity import waiting_entry
from cloudg_nb.oversight.approvals import Approval, ApprovalDesk
from cloudg_nb.oversight.catalog import register
from cloudg_nb.policy.router import PolicyRouter

ANALYST = Principal("alice")
BOT = Principal("assistant:bot", frozenset({"assistant"}))
OTHER = Principal("assistant:other", frozenset({"assistant"}))

VIEW = {"summary": "unload_dataset: UNLOADS dataset demo (the analyst's).",
        "effects": [{"effect": "unload_dataset", "dataset": "demo", "owner": "analyst",
                     "changes_others_data": True}],
        "arguments": {"name": "demo"}}


def watched() -> tuple[ApprovalDesk, list[tuple[str, str, str]]]:
    desk = ApprovalDesk()
    seen: list[tuple[str, str, str]] = []
    desk.watch(lambda change, a: seen.append((change, a.id, a.state)))
    return desk, seen


def test_a_new_call_on_the_desk_is_requested() -> None:
    desk, seen = watched()
    approval = desk.open("assistant:bot", "unload_dataset", VIEW, 60)
    assert seen == [("requested", approval.id, "pending")]


def test_an_approval_or_denial_by_someone_is_decided() -> None:
    desk, seen = watched()
    first = desk.open("assistant:bot", "unload_dataset", VIEW, 60)
    second = desk.open("assistant:bot", "unload_dataset", VIEW, 60)
    desk.decide(first.id, True, "alice")
    desk.decide(second.id, False, "alice", "no")
    assert seen[2:] == [("decided", first.id, "approved"), ("decided", second.id, "denied")]


async def test_a_call_nobody_decides_in_time_expires() -> None:
    desk, seen = watched()
    approval = desk.open("assistant:bot", "unload_dataset", VIEW, 0.05)
    assert await desk.wait(approval) == "expired"
    assert seen[-1] == ("expired", approval.id, "expired")
    assert approval.public()["state"] == "expired"


async def test_a_call_ended_while_it_waits_is_cancelled() -> None:
    desk, seen = watched()
    approval = desk.open("assistant:bot", "unload_dataset", VIEW, 60)
    waiting = asyncio.create_task(desk.wait(approval))
    await asyncio.sleep(0.01)
    waiting.cancel()
    await asyncio.gather(waiting, return_exceptions=True)
    assert seen[-1] == ("cancelled", approval.id, "cancelled")


def test_a_revoked_credentials_calls_are_cancelled_as_denied_by_nobody() -> None:
    desk, seen = watched()
    approval = desk.open("assistant:bot", "unload_dataset", VIEW, 60)
    desk.cancel_for("assistant:bot", "its credential was revoked")
    assert seen[-1] == ("cancelled", approval.id, "denied")
    assert approval.decided_by is None and approval.reason == "its credential was revoked"


def test_a_watcher_that_fails_stops_neither_the_desk_nor_the_others() -> None:
    desk, seen = watched()

    def broken(change: str, approval: Approval) -> None:
        raise RuntimeError("boom")

    desk.watch(broken)
    later: list[str] = []
    desk.watch(lambda change, a: later.append(change))
    approval = desk.open("assistant:bot", "unload_dataset", VIEW, 60)
    desk.decide(approval.id, True, "alice")
    assert [s[0] for s in seen] == later == ["requested", "decided"]


def test_a_watcher_stopped_hears_nothing_more() -> None:
    desk = ApprovalDesk()
    seen: list[str] = []
    stop = desk.watch(lambda change, a: seen.append(change))
    desk.open("assistant:bot", "unload_dataset", VIEW, 60)
    stop()
    desk.open("assistant:bot", "unload_dataset", VIEW, 60)
    assert seen == ["requested"]


def test_the_public_view_says_when_it_was_decided() -> None:
    desk = ApprovalDesk()
    approval = desk.open("assistant:bot", "unload_dataset", VIEW, 60)
    assert approval.public()["decided_at"] is None
    desk.decide(approval.id, False, "alice")
    decided = approval.public()
    assert decided["decided_at"] is not None and decided["decided_at"] >= decided["created"]


def test_every_effect_carries_the_text_the_front_ends_show() -> None:
    desk = ApprovalDesk()
    approval = desk.open("assistant:bot", "unload_dataset", VIEW, 60)
    (effect,) = approval.public()["effects"]
    assert effect["text"] == "UNLOADS dataset demo (the analyst's)"
    assert effect["changes_others_data"] is True  # the mark the text leaves out


def test_a_waiting_call_is_an_activity_entry_with_its_approval_id() -> None:
    desk = ApprovalDesk()
    approval = desk.open("assistant:bot", "unload_dataset", VIEW, 60)
    entry = waiting_entry(approval)
    assert {k: entry[k] for k in ("principal", "assistant", "kind", "name", "outcome",
                                  "approval", "approval_id", "seq")} == {
        "principal": "assistant:bot", "assistant": True, "kind": "tool",
        "name": "unload_dataset", "outcome": "waiting", "approval": "pending",
        "approval_id": approval.id, "seq": None}
    assert entry["duration_ms"] >= 0 and entry["time"].startswith(
        approval.public()["created"][:10])
    assert "demo" not in json.dumps(entry)  # names, never an argument value


async def test_the_activity_resource_lists_the_waiting_calls_an_assistant_its_own() -> None:
    desk = ApprovalDesk()
    registry = register(default_registry(), activity=ActivityLog(), desk=desk)
    layer = build_layer(policy="standard", registry=registry)
    router = layer.policy = PolicyRouter(layer.policy)  # type: ignore[arg-type]
    layer.use(ActivityMiddleware(ActivityLog(), is_assistant))
    layer.use(ApprovalGate(desk, router.approval_rule, timeout=5))
    await layer.call_tool("sample_estate", {"name": "demo"}, principal=ANALYST)
    call = asyncio.create_task(layer.call_tool("unload_dataset", {"name": "demo"},
                                               principal=BOT))
    for _ in range(500):
        if desk.pending() or call.done():
            break
        await asyncio.sleep(0.01)
    (approval,) = desk.pending()

    async def waiting(who: Any) -> list[str]:
        contents = await layer.read_resource(ACTIVITY_URI, principal=who)
        return [w["approval_id"] for w in json.loads(contents[0].text)["waiting"]]

    assert await waiting(ANALYST) == [approval.id]
    assert await waiting(BOT) == [approval.id]
    assert await waiting(OTHER) == []
    desk.decide(approval.id, False, "alice")
    await asyncio.wait_for(call, 5)
    assert await waiting(ANALYST) == []
