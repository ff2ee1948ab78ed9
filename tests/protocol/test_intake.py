"""Intake turns: one caller's requests are read in turns, a request leaves its turn when its
handler starts, and other callers never wait for them."""

from __future__ import annotations

import anyio
import pytest

from cloudg_nb.protocol.intake import Intake, leave_turn


async def _hold(intake: Intake, caller: str, inside: list[str], release: anyio.Event,
                name: str) -> None:
    async with intake.turn(caller):
        inside.append(name)
        await release.wait()


async def test_a_caller_holds_at_most_its_turns_and_the_next_request_waits() -> None:
    intake, inside, release = Intake(per_caller=2), [], anyio.Event()
    async with anyio.create_task_group() as group:
        for name in ("a", "b", "c"):
            group.start_soon(_hold, intake, "assistant:x", inside, release, name)
        await anyio.sleep(0.05)
        assert inside == ["a", "b"]
        assert intake.requests("assistant:x") == 3
        release.set()
    assert inside == ["a", "b", "c"]
    assert intake.requests("assistant:x") == 0


async def test_another_caller_does_not_wait_for_a_busy_callers_turns() -> None:
    intake, inside, release = Intake(per_caller=1), [], anyio.Event()
    async with anyio.create_task_group() as group:
        group.start_soon(_hold, intake, "assistant:x", inside, release, "flood-1")
        group.start_soon(_hold, intake, "assistant:x", inside, release, "flood-2")
        await anyio.sleep(0.02)
        with anyio.fail_after(1):
            async with intake.turn("owner"):
                inside.append("owner")
        release.set()
    assert inside[:2] == ["flood-1", "owner"]


async def test_a_request_whose_handler_started_leaves_its_turn_to_the_next() -> None:
    intake, order = Intake(per_caller=1), []
    handler_started, handler_may_end = anyio.Event(), anyio.Event()

    async def handler() -> None:  # as the SDK runs it: a task of its own, the request's context
        leave_turn()
        handler_started.set()
        await handler_may_end.wait()
        order.append("slow handler done")

    async def slow_request(group: anyio.abc.TaskGroup) -> None:
        async with intake.turn("c"):
            group.start_soon(handler)
            await handler_may_end.wait()

    async def quick_request() -> None:
        await handler_started.wait()
        async with intake.turn("c"):  # the slow request holds no turn any more
            order.append("quick")
        handler_may_end.set()

    with anyio.fail_after(2):
        async with anyio.create_task_group() as group:
            group.start_soon(slow_request, group)
            group.start_soon(quick_request)
    assert order == ["quick", "slow handler done"]


async def test_a_turn_is_left_once_however_often_it_is_left() -> None:
    intake = Intake(per_caller=1)
    async with intake.turn("c") as turn:
        turn.leave()
        leave_turn()
        async with intake.turn("c") as second:  # the one turn is free again
            assert second.held
    async with intake.turn("c") as third:  # and still only one: nothing was given twice
        assert third.held
        with anyio.move_on_after(0.05) as waited:
            async with intake.turn("c"):
                pass
        assert waited.cancelled_caught
    assert intake.requests("c") == 0


def test_leaving_outside_a_request_does_nothing() -> None:
    leave_turn()


def test_turns_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        Intake(per_caller=0)
