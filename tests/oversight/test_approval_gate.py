"""The approval gate: an assistant's sensitive call waits (progress says so, arguments shown as
its policy shows them) until the analyst approves — then it runs — or denies, or the wait times
out — then it is an error result and never runs. Other calls keep flowing meanwhile, the
analyst's own calls never wait, and every decision is audited."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from cloudg_nb import Principal
from cloudg_nb.assembly import build_layer
from cloudg_nb.assistants import is_assistant
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
        self.layer.use(ActivityMiddleware(self.activity, is_assistant))
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
    assert setup.audited[-1]["decision"] == "expired"


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


class Elicitations:
    """A client's URL-elicitation callbacks that answer ``action`` and record what they got."""

    def __init__(self, action: str) -> None:
        self.action = action
        self.asked: list[tuple[str, str, str]] = []
        self.completed: list[str] = []

    async def elicit(self, message: str, url: str, elicitation_id: str) -> str:
        self.asked.append((message, url, elicitation_id))
        return self.action

    async def complete(self, elicitation_id: str) -> None:
        self.completed.append(elicitation_id)


async def _elicited_call(setup: Setup, client: Elicitations) -> tuple[asyncio.Task[Any], Any]:
    ctx = setup.layer.context(BOT, elicit_url=client.elicit, elicit_complete=client.complete)
    call = asyncio.create_task(setup.layer.call_tool(
        "unload_dataset", {"name": "demo"}, principal=BOT, context=ctx))
    approval = await setup.pending()
    for _ in range(200):
        if client.asked:
            break
        await asyncio.sleep(0.01)
    return call, approval


async def test_url_elicitation_offers_the_approval_page(setup: Setup) -> None:
    client = Elicitations("cancel")
    call, approval = await _elicited_call(setup, client)
    ((message, url, eid),) = client.asked
    assert url == f"http://x/cloudg/approvals/{approval.id}" and eid == approval.id
    assert "assistant:bot" in message and "decides nothing" in message
    setup.desk.decide(approval.id, False, "alice")
    await asyncio.wait_for(call, 5)


@pytest.mark.parametrize("action", ["accept", "decline", "cancel"])
async def test_the_clients_answer_to_the_elicitation_decides_nothing(setup: Setup,
                                                                     action: str) -> None:
    client = Elicitations(action)
    call, approval = await _elicited_call(setup, client)
    await asyncio.sleep(0.2)  # the answer is in
    assert approval.state == "pending" and not call.done()
    setup.desk.decide(approval.id, action != "accept", "alice")  # the opposite of "accept"
    result = await asyncio.wait_for(call, 5)
    assert result.is_error == (action == "accept")


async def test_elicitation_complete_follows_the_analysts_decision(setup: Setup) -> None:
    client = Elicitations("accept")
    call, approval = await _elicited_call(setup, client)
    assert client.completed == []
    setup.desk.decide(approval.id, True, "alice")
    await asyncio.wait_for(call, 5)
    assert client.completed == [approval.id]


async def test_without_url_elicitation_progress_says_where_the_analyst_decides(
        setup: Setup) -> None:
    progress: list[str] = []
    ctx = setup.layer.context(BOT, progress_callback=lambda p, t, m: progress.append(m or ""))
    call = asyncio.create_task(setup.layer.call_tool(
        "unload_dataset", {"name": "demo"}, principal=BOT, context=ctx))
    approval = await setup.pending()
    setup.desk.decide(approval.id, False, "alice")
    await asyncio.wait_for(call, 5)
    (said,) = [m for m in progress if "waiting for analyst approval" in m]
    assert "cloudg sidebar" in said and "%cloudg approvals" in said
    assert said.endswith(f" at http://x/cloudg/approvals/{approval.id}")


def test_approval_ids_can_be_typed_after_a_magic_or_a_command() -> None:
    """An id is an argument of ``%cloudg approve ID``: it never starts with ``-`` (which the
    magic would read as an option) nor holds characters a shell or URL would mangle."""
    desk = ApprovalDesk()
    ids = [desk.open(f"assistant:a{i}", "suppress_findings", {}, 60.0).id for i in range(300)]
    assert len(set(ids)) == len(ids)
    assert all(i.isalnum() and i.isascii() for i in ids)


# -- effects, not names -------------------------------------------------------------------------


async def test_the_approval_shows_what_the_call_will_do(setup: Setup) -> None:
    call = asyncio.create_task(setup.layer.call_tool(
        "suppress_findings", {"ids": ["f-001"], "reason": "accepted risk"}, principal=BOT))
    approval = await setup.pending()
    public = approval.public()
    assert "SUPPRESSES 1 finding(s) in dataset demo (the analyst's" in public["summary"]
    (effect,) = public["effects"]
    assert effect["changes_others_data"] and effect["owner"] == "analyst"
    assert effect["findings_named"][0]["title"].startswith("CVE-2024-3094")
    assert public["arguments"] == {"ids": ["f-001"], "reason": "accepted risk", "dataset": ""}
    setup.desk.decide(approval.id, False, "alice")
    await call


async def test_an_assistants_work_on_its_own_data_runs_without_asking(setup: Setup) -> None:
    for tool, arguments in [
        ("snapshot_dataset", {"name": "mine"}),
        ("select_dataset", {"name": "mine"}),
        ("suppress_findings", {"ids": ["f-001"], "reason": "r"}),  # its active: its own copy
        ("sample_estate", {"name": "drifted", "dataset_name": "week2"}),
        ("unload_dataset", {"name": "week2"}),
    ]:
        result = await asyncio.wait_for(
            setup.layer.call_tool(tool, arguments, principal=BOT), 10)
        assert not result.is_error, (tool, result.text)
    assert not setup.desk.pending() and not setup.desk.recent()
    ws = setup.layer.workspace
    assert ws.active == "demo" and ws.names() == ["demo", "mine"]
    assert not bool(ws.get("demo").findings["is_suppressed"].iloc[0])


async def test_an_approval_covers_only_the_changes_it_showed(setup: Setup) -> None:
    """The analyst approves a new dataset; meanwhile the analyst loads one under that name.
    The approved call may not replace it: that change was never shown."""
    call = asyncio.create_task(setup.layer.call_tool(
        "sample_estate", {"name": "drifted", "dataset_name": "demo-2", "replace": True},
        principal=BOT))
    await asyncio.sleep(0.3)
    assert not setup.desk.pending()  # a new dataset of its own: nothing to ask
    assert not (await asyncio.wait_for(call, 10)).is_error
    await setup.layer.call_tool("sample_estate", {"name": "demo", "dataset_name": "shared"},
                                principal=ANALYST)
    waiting = asyncio.create_task(setup.layer.call_tool(
        "unload_dataset", {"name": "shared"}, principal=BOT))
    approval = await setup.pending()
    # while it waits, the analyst unloads "shared" and another assistant's copy takes the name
    await setup.layer.call_tool("unload_dataset", {"name": "shared"}, principal=ANALYST)
    snap = await setup.layer.call_tool("snapshot_dataset", {"name": "shared"}, principal=OTHER)
    assert not snap.is_error
    setup.desk.decide(approval.id, True, "alice")
    result = await asyncio.wait_for(waiting, 5)
    assert result.is_error and "no approval" in result.text  # OTHER's dataset: not shown
    assert "shared" in setup.layer.workspace.names()


async def test_a_fourth_waiting_call_is_refused_at_once(setup: Setup) -> None:
    calls = [asyncio.create_task(setup.layer.call_tool(
        "unload_dataset", {"name": "demo"}, principal=BOT)) for _ in range(3)]
    for _ in range(200):
        if len(setup.desk.pending()) == 3:
            break
        await asyncio.sleep(0.01)
    started = asyncio.get_running_loop().time()
    fourth = await asyncio.wait_for(setup.layer.call_tool(
        "unload_dataset", {"name": "demo"}, principal=BOT), 5)
    assert asyncio.get_running_loop().time() - started < 2
    assert fourth.is_error and "3 of your calls already wait" in fourth.text
    assert fourth.meta["cloudg/error_data"]["retry_after"] > 0
    other = asyncio.create_task(setup.layer.call_tool(  # another assistant has its own limit
        "unload_dataset", {"name": "demo"}, principal=OTHER))
    for _ in range(200):
        if len(setup.desk.pending()) == 4:
            break
        await asyncio.sleep(0.01)
    assert len(setup.desk.pending()) == 4
    for task in [*calls, other]:
        task.cancel()
    await asyncio.gather(*calls, other, return_exceptions=True)


async def test_a_call_too_large_to_show_is_refused_without_asking(setup: Setup) -> None:
    ids = [f"f-{i:04d}" for i in range(500)]
    result = await asyncio.wait_for(setup.layer.call_tool(
        "suppress_findings", {"ids": ids}, principal=BOT), 10)
    assert result.is_error and "split" in result.text.lower()
    assert not setup.desk.pending() and not setup.desk.recent()


async def test_a_tool_without_an_effect_entry_cannot_change_the_analysts_data() -> None:
    from cloudg_nb.layer.context import ToolContext

    setup = Setup()
    await setup.layer.call_tool("sample_estate", {"name": "demo"}, principal=ANALYST)

    def tidy_up(ctx: ToolContext) -> dict[str, Any]:
        """A third-party tool that unloads whatever is active."""
        ctx.workspace.remove("")
        return {"ok": True}

    setup.layer.registry.tool(tidy_up)
    result = await asyncio.wait_for(setup.layer.call_tool("tidy_up", {}, principal=BOT), 10)
    assert result.is_error and "no approval" in result.text
    assert setup.layer.workspace.names() == ["demo"] and not setup.desk.pending()


async def test_resources_follow_the_assistants_own_active_dataset(
        setup: Setup) -> None:
    await setup.layer.call_tool("sample_estate", {"name": "drifted", "dataset_name": "week2",
                                                  "activate": True}, principal=BOT)
    for who, expected in ((BOT, "week2"), (ANALYST, "demo")):
        (contents,) = await setup.layer.read_resource("cloudg://findings/summary",
                                                      principal=who)
        assert json.loads(contents.text)["dataset"] == expected
    assert setup.layer.workspace.active == "demo"


async def test_the_gate_hands_its_approval_to_outer_middleware_on_the_call_info(
        setup: Setup) -> None:
    seen: list[tuple[Any, dict[str, Any]]] = []

    async def outer(info: Any, call_next: Any) -> Any:
        try:
            return await call_next(info)
        finally:
            seen.append((info.approval, dict(info.context.meta)))

    setup.layer.middleware.insert(0, outer)
    call = asyncio.create_task(setup.layer.call_tool("unload_dataset", {"name": "demo"},
                                                     principal=BOT))
    approval = await setup.pending()
    setup.desk.decide(approval.id, True, "alice")
    await asyncio.wait_for(call, 5)
    (given, meta), = seen
    assert given is approval and given.state == "approved"
    assert not any(key.startswith("cloudg/") for key in meta)  # no side channel in ``meta``
    await setup.layer.call_tool("list_datasets", {}, principal=BOT)
    assert seen[-1][0] is None  # a call that needed no approval carries none
