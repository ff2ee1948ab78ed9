"""A call that waited for the analyst is recorded once, after the decision, with the decision:
approved (and ran), denied or timed out (refused: outcome denied); one the analyst makes, or an
assistant's read, was never asked. Every sink of the recorder sees the same record."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from cloudg_nb import Principal
from cloudg_nb.assembly import build_layer
from cloudg_nb.catalog import default_registry
from cloudg_nb.layer.call_record import CallRecord
from cloudg_nb.layer.enums import Outcome
from cloudg_nb.layer.middleware import CallRecorder
from cloudg_nb.oversight import ActivityLog, ActivityMiddleware, ApprovalDesk, ApprovalGate
from cloudg_nb.oversight.catalog import register
from cloudg_nb.policy.router import PolicyRouter

ANALYST = Principal("alice")
BOT = Principal("assistant:bot", frozenset({"assistant"}))


class Keep:
    def __init__(self) -> None:
        self.calls: list[CallRecord] = []

    def record(self, call: CallRecord) -> None:
        self.calls.append(call)


class Setup:
    """A served layer's order: the recorder (a keeping sink and the activity feed), then the
    approval gate."""

    def __init__(self, timeout: float = 5.0) -> None:
        self.kept, self.activity = Keep(), ActivityLog()
        self.desk = ApprovalDesk()
        registry = register(default_registry(), activity=self.activity, desk=self.desk)
        self.layer = build_layer(policy="standard", registry=registry)
        router = PolicyRouter(self.layer.policy)  # type: ignore[arg-type]
        self.layer.policy = router
        self.layer.use(CallRecorder(self.kept, ActivityMiddleware(
            self.activity, lambda p: p.id.startswith("assist"))))
        self.layer.use(ApprovalGate(self.desk, router.approval_rule, timeout=timeout))

    async def unload_as_bot(self, decide: bool | None) -> Any:
        """The bot unloads the analyst's dataset; the analyst approves, denies or (None) lets
        the wait time out."""
        await self.layer.call_tool("sample_estate", {"name": "demo"}, principal=ANALYST)
        call = asyncio.create_task(self.layer.call_tool("unload_dataset", {"name": "demo"},
                                                        principal=BOT))
        if decide is not None:
            for _ in range(500):
                if self.desk.pending():
                    break
                await asyncio.sleep(0.01)
            (approval,) = self.desk.pending()
            self.desk.decide(approval.id, decide, "alice")
        return await asyncio.wait_for(call, 10)


@pytest.mark.parametrize(("decide", "timeout", "approval", "outcome"), [
    (True, 5.0, "approved", Outcome.OK),
    (False, 5.0, "denied", Outcome.DENIED),
    (None, 0.2, "timed out", Outcome.DENIED),
], ids=["approved", "denied", "timed out"])
async def test_a_call_that_waited_is_recorded_once_with_the_decision(
        decide: bool | None, timeout: float, approval: str, outcome: Outcome) -> None:
    setup = Setup(timeout)
    result = await setup.unload_as_bot(decide)
    assert result.is_error is (outcome != Outcome.OK)
    load, unload = setup.kept.calls
    assert (load.name, load.approval) == ("sample_estate", None)
    assert (unload.name, unload.principal, unload.approval, unload.outcome) == (
        "unload_dataset", BOT, approval, outcome)
    if outcome == Outcome.DENIED:
        assert (unload.error_type, unload.layer_error) == ("AccessDeniedError", True)
    entry = setup.activity.entries()[-1]
    assert (entry.name, entry.approval, entry.outcome, entry.assistant) == (
        "unload_dataset", approval, str(outcome), True)


async def test_the_wait_counts_in_the_duration() -> None:
    setup = Setup(timeout=0.2)
    await setup.unload_as_bot(None)
    assert setup.kept.calls[-1].duration_ms >= 190


async def test_calls_that_were_never_asked_record_no_decision() -> None:
    setup = Setup()
    await setup.layer.call_tool("sample_estate", {"name": "demo"}, principal=ANALYST)
    await setup.layer.call_tool("count_assets", {"group_by": "provider"}, principal=BOT)
    await setup.layer.call_tool("unload_dataset", {"name": "demo"}, principal=ANALYST)
    assert [(c.name, c.approval, c.outcome) for c in setup.kept.calls] == [
        ("sample_estate", None, Outcome.OK), ("count_assets", None, Outcome.OK),
        ("unload_dataset", None, Outcome.OK)]
    assert setup.desk.pending() == [] and setup.desk.recent() == []
