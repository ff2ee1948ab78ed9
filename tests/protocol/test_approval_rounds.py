"""The 2026-07-28 request-retry pattern for a call waiting for the analyst (``ApprovalRounds``),
over the assembled layer with its approval gate: a waiting call is parked and its first round
offers the approval page; the retry with the ticket takes it over once, from its own caller
only, and gets progress and the result; a ticket nobody redeems is forgotten."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from cloudg_nb.layer.errors import InvalidArgumentsError
from cloudg_nb.protocol.approval_rounds import INPUT_KEY, ApprovalRounds
from tests.oversight.test_approval_gate import ANALYST, BOT, OTHER, Setup

UNLOAD = {"name": "demo"}


class Request:
    """One round's SDK request context, recording the progress it is sent."""

    def __init__(self) -> None:
        self.progress: list[str | None] = []
        self.session = SimpleNamespace(report_progress=self._report,
                                       send_notification=self._notify)
        self.request_id = 1
        self.protocol_version = "2026-07-28"
        self.meta = None

    async def _report(self, progress: float, total: float | None, message: str | None) -> None:
        self.progress.append(message)

    async def _notify(self, *args: Any, **kwargs: Any) -> None:
        return None


@pytest.fixture
async def setup() -> Setup:
    s = Setup(timeout=10.0)
    await s.layer.call_tool("sample_estate", {"name": "demo"}, principal=ANALYST)
    return s


async def _first(setup: Setup, rounds: ApprovalRounds, tool: str = "unload_dataset",
                 arguments: dict[str, Any] | None = None) -> Any:
    arguments = UNLOAD if arguments is None else arguments
    return await rounds.start(
        Request(), setup.layer.context(BOT), tool, arguments,
        lambda ctx: setup.layer.call_tool(tool, arguments, principal=BOT, context=ctx))


async def test_a_call_that_does_not_wait_is_answered_in_its_first_round(setup: Setup) -> None:
    rounds = ApprovalRounds()
    result = await _first(setup, rounds, "list_datasets", {})
    assert not isinstance(result, dict) and not result.is_error
    assert len(rounds) == 0


async def test_a_waiting_call_is_parked_and_its_first_round_offers_the_approval_page(
        setup: Setup) -> None:
    rounds = ApprovalRounds()
    answer = await _first(setup, rounds)
    (approval,) = setup.desk.pending()
    assert answer["resultType"] == "input_required" and answer["requestState"]
    offer = answer["inputRequests"][INPUT_KEY]
    assert offer["method"] == "elicitation/create"
    assert offer["params"]["mode"] == "url"
    assert offer["params"]["url"] == f"http://x/cloudg/approvals/{approval.id}"
    assert len(rounds) == 1 and setup.layer.workspace.names() == ["demo"]  # nothing ran
    setup.desk.decide(approval.id, False, "alice")


async def test_the_retry_takes_the_call_over_and_gets_its_result(setup: Setup) -> None:
    rounds = ApprovalRounds()
    answer = await _first(setup, rounds)
    retry = Request()
    call = asyncio.create_task(rounds.resume(retry, BOT, "unload_dataset", UNLOAD,
                                             answer["requestState"], {}))
    await asyncio.sleep(0.05)
    (approval,) = setup.desk.pending()
    assert not call.done()
    setup.desk.decide(approval.id, True, "alice")
    result = await asyncio.wait_for(call, 5)
    assert not result.is_error and setup.layer.workspace.names() == []
    assert any("waiting for analyst approval" in (m or "") for m in retry.progress)
    assert len(rounds) == 0


async def test_a_ticket_is_redeemed_once(setup: Setup) -> None:
    rounds = ApprovalRounds()
    answer = await _first(setup, rounds)
    (approval,) = setup.desk.pending()
    setup.desk.decide(approval.id, False, "alice")
    await rounds.resume(Request(), BOT, "unload_dataset", UNLOAD, answer["requestState"], {})
    with pytest.raises(InvalidArgumentsError, match="requestState names no call of yours"):
        await rounds.resume(Request(), BOT, "unload_dataset", UNLOAD,
                            answer["requestState"], {})


@pytest.mark.parametrize("who, tool, arguments", [
    (OTHER, "unload_dataset", UNLOAD),
    (BOT, "unload_dataset", {"name": "other"}),
    (BOT, "select_dataset", UNLOAD),
])
async def test_a_retry_that_is_not_the_same_call_of_the_same_caller_leaves_it_parked(
        setup: Setup, who: Any, tool: str, arguments: dict[str, Any]) -> None:
    rounds = ApprovalRounds()
    answer = await _first(setup, rounds)
    with pytest.raises(InvalidArgumentsError):
        await rounds.resume(Request(), who, tool, arguments, answer["requestState"], {})
    assert len(rounds) == 1 and len(setup.desk.pending()) == 1
    setup.desk.decide(setup.desk.pending()[0].id, False, "alice")


async def test_the_clients_answer_in_the_retry_decides_nothing(setup: Setup) -> None:
    rounds = ApprovalRounds()
    answer = await _first(setup, rounds)
    accepted = {INPUT_KEY: {"action": "accept"}}
    call = asyncio.create_task(rounds.resume(Request(), BOT, "unload_dataset", UNLOAD,
                                             answer["requestState"], accepted))
    await asyncio.sleep(0.2)
    (approval,) = setup.desk.pending()
    assert approval.state == "pending" and not call.done()
    setup.desk.decide(approval.id, False, "alice")
    assert (await asyncio.wait_for(call, 5)).is_error


async def test_cancelling_the_retry_cancels_the_waiting_call(setup: Setup) -> None:
    rounds = ApprovalRounds()
    answer = await _first(setup, rounds)
    call = asyncio.create_task(rounds.resume(Request(), BOT, "unload_dataset", UNLOAD,
                                             answer["requestState"], {}))
    await asyncio.sleep(0.05)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    await asyncio.sleep(0.05)
    assert setup.desk.pending() == [] and setup.desk.recent()[-1].state == "cancelled"
    assert setup.layer.workspace.names() == ["demo"]


async def test_a_finished_call_nobody_retries_is_forgotten_after_the_grace(
        setup: Setup) -> None:
    rounds = ApprovalRounds(grace=0.05)
    answer = await _first(setup, rounds)
    setup.desk.decide(setup.desk.pending()[0].id, False, "alice")
    await asyncio.sleep(0.3)
    assert len(rounds) == 0
    with pytest.raises(InvalidArgumentsError):
        await rounds.resume(Request(), BOT, "unload_dataset", UNLOAD,
                            answer["requestState"], {})
