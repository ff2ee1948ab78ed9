"""The approval gate: an assistant's sensitive call waits (progress says so, arguments shown as
its policy shows them) until the analyst approves — then it runs — or denies, or the wait times
out — then it is an error result and never runs. Other calls keep flowing meanwhile, the
analyst's own calls never wait, and every decision is audited."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from cloudg_nb import Principal
from cloudg_nb.assembly import build_layer
from cloudg_nb.catalog import default_registry
from cloudg_nb.layer.errors import AccessDeniedError, NotFoundError
from cloudg_nb.oversight import ActivityLog, ActivityMiddleware, ApprovalDesk, ApprovalGate
from cloudg_nb.oversight.catalog import register
from cloudg_nb.policy.router import PolicyRouter

ANALYST = Principal("alice")
BOT = Principal("assistant:bot", frozenset({"assistant"}))
OTHER = Principal("assistant:other", frozenset({"assistant"}))


class Setup:
    def __init__(self, timeout: float = 5.0) -> None:
        self.audited: list[dict[str, Any]] = []
        self.activity = ActivityLog()
        self.desk = ApprovalDesk(audit=self.audited.append)
        registry = register(default_registry(), activity=self.activity, desk=self.desk)
        self.layer = build_layer(policy="standard", registry=registry)
        self.router = PolicyRouter(self.layer.policy)  # type: ignore[arg-type]
        self.layer.policy = self.router
        self.layer.use(ActivityMiddleware(self.activity, lambda p: p.id.startswith("assist")))
        self.layer.use(ApprovalGate(self.desk, self.router.approval_rule, timeout=timeout,
                                    url_for=lambda a, p: f"http://x/cloudg/approvals/{a.id}"))

    async def pending(self) -> Any:
        for _ in range(200):
            if self.desk.pending():
                return self.desk.pending()[0]
            await asyncio.sleep(0.01)
        raise AssertionError("nothing waits for approval")


@pytest.fixture
async def setup() -> Setup:
    s = Setup()
    await s.layer.call_tool("sample_estate", {"name": "demo"}, principal=ANALYST)
    return s


async def test_an_approved_call_waits_then_runs(setup: Setup) -> None:
    progress: list[str | None] = []
    ctx = setup.layer.context(BOT, progress_callback=lambda p, t, m: progress.append(m))
    call = asyncio.create_task(setup.layer.call_tool(
        "unload_dataset", {"name": "demo"}, principal=BOT, context=ctx))
    approval = await setup.pending()
    assert not call.done()
    assert (approval.principal, approval.tool, approval.arguments) == (
        "assistant:bot", "unload_dataset", {"name": "demo"})
    assert any("waiting for analyst approval" in (m or "") for m in progress)
    assert setup.layer.workspace.names() == ["demo"]  # nothing ran yet
    setup.desk.decide(approval.id, True, "alice")
    result = await asyncio.wait_for(call, 5)
    assert not result.is_error and setup.layer.workspace.names() == []
    assert setup.audited[-1]["decision"] == "approved"
    assert setup.audited[-1]["decided_by"] == "alice"
    assert setup.activity.entries()[-1].approval == "approved"


async def test_a_denied_call_is_an_error_result_and_never_runs(setup: Setup) -> None:
    call = asyncio.create_task(setup.layer.call_tool("unload_dataset", {"name": "demo"},
                                                     principal=BOT))
    approval = await setup.pending()
    setup.desk.decide(approval.id, False, "alice", "keep it loaded")
    result = await asyncio.wait_for(call, 5)
    assert result.is_error and result.error_code == AccessDeniedError.code
    assert "denied" in result.text and "keep it loaded" in result.text
    assert setup.layer.workspace.names() == ["demo"]
    assert setup.audited[-1]["decision"] == "denied"
    assert setup.activity.entries()[-1].outcome == "denied"


async def test_a_call_nobody_decides_times_out_as_an_error_result() -> None:
    setup = Setup(timeout=0.3)
    await setup.layer.call_tool("sample_estate", {"name": "demo"}, principal=ANALYST)
    result = await asyncio.wait_for(setup.layer.call_tool(
        "unload_dataset", {"name": "demo"}, principal=BOT), 5)
    assert result.is_error and "within 0.3 s" in result.text
    assert setup.layer.workspace.names() == ["demo"]
    assert setup.audited[-1]["decision"] == "timed out"


async def test_other_calls_keep_flowing_while_one_waits(setup: Setup) -> None:
    waiting = asyncio.create_task(setup.layer.call_tool("unload_dataset", {"name": "demo"},
                                                        principal=BOT))
    await setup.pending()
    for who in (BOT, OTHER, ANALYST):
        for _ in range(5):
            result = await asyncio.wait_for(
                setup.layer.call_tool("count_assets", {"group_by": "provider"}, principal=who),
                5)
            assert not result.is_error
    assert not waiting.done()
    waiting.cancel()


async def test_the_analyst_never_waits_for_approval(setup: Setup) -> None:
    result = await asyncio.wait_for(setup.layer.call_tool(
        "unload_dataset", {"name": "demo"}, principal=ANALYST), 5)
    assert not result.is_error and not setup.desk.pending()


async def test_the_assistant_cannot_decide_its_own_call(setup: Setup) -> None:
    call = asyncio.create_task(setup.layer.call_tool("unload_dataset", {"name": "demo"},
                                                     principal=BOT))
    approval = await setup.pending()
    tools = {t["name"] for t in setup.layer.tools_wire(BOT)}
    assert "decide_approval" not in tools
    with pytest.raises(NotFoundError):
        await setup.layer.call_tool("decide_approval",
                                    {"approval_id": approval.id, "decision": "approve"},
                                    principal=BOT)
    assert approval.state == "pending"
    ok = await setup.layer.call_tool(
        "decide_approval", {"approval_id": approval.id, "decision": "approve"},
        principal=ANALYST)
    assert not ok.is_error
    assert not (await asyncio.wait_for(call, 5)).is_error


async def test_arguments_are_shown_as_the_assistants_policy_shows_them(setup: Setup) -> None:
    secret = "postgres://app:Sup3rS3cretPassw0rd@db.internal:5432/app"
    call = asyncio.create_task(setup.layer.call_tool(
        "load_dataset", {"path": secret}, principal=BOT))
    approval = await setup.pending()
    assert "Sup3rS3cretPassw0rd" not in str(approval.arguments)
    setup.desk.decide(approval.id, False, "alice")
    await call


async def test_a_call_the_policy_refuses_is_not_put_to_the_analyst(setup: Setup) -> None:
    result = await setup.layer.call_tool("export_dataset", {}, principal=BOT)
    assert result.is_error and "write_fs" in result.text
    assert not setup.desk.pending() and not setup.desk.recent()


async def test_cancelling_a_waiting_call_closes_its_approval(setup: Setup) -> None:
    call = asyncio.create_task(setup.layer.call_tool("unload_dataset", {"name": "demo"},
                                                     principal=BOT))
    approval = await setup.pending()
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert approval.state == "cancelled" and not setup.desk.pending()
    with pytest.raises(NotFoundError, match="no longer waiting"):
        setup.desk.decide(approval.id, True, "alice")


async def test_a_revoked_assistants_waiting_calls_are_denied(setup: Setup) -> None:
    call = asyncio.create_task(setup.layer.call_tool("unload_dataset", {"name": "demo"},
                                                     principal=BOT))
    await setup.pending()
    assert setup.desk.cancel_for("assistant:bot", "its credential was revoked") == 1
    result = await asyncio.wait_for(call, 5)
    assert result.is_error and "revoked" in result.text


async def test_url_elicitation_is_sent_and_a_decline_denies(setup: Setup) -> None:
    asked: list[tuple[str, str]] = []
    completed: list[str] = []

    async def elicit(message: str, url: str, elicitation_id: str) -> str:
        asked.append((url, elicitation_id))
        return "decline"

    async def complete(elicitation_id: str) -> None:
        completed.append(elicitation_id)

    ctx = setup.layer.context(BOT, elicit_url=elicit, elicit_complete=complete)
    result = await asyncio.wait_for(setup.layer.call_tool(
        "unload_dataset", {"name": "demo"}, principal=BOT, context=ctx), 5)
    assert result.is_error and "declined" in result.text
    (url, eid), = asked
    assert url == f"http://x/cloudg/approvals/{eid}" and completed == [eid]


def test_approval_ids_can_be_typed_after_a_magic_or_a_command() -> None:
    """An id is an argument of ``%cloudg approve ID``: it never starts with ``-`` (which the
    magic would read as an option) nor holds characters a shell or URL would mangle."""
    desk = ApprovalDesk()
    ids = [desk.open(f"assistant:a{i}", "suppress_findings", {}, 60.0).id for i in range(300)]
    assert len(set(ids)) == len(ids)
    assert all(i.isalnum() and i.isascii() for i in ids)
