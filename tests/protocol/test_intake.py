"""Intake turns: one caller's requests take turns on the loop, a handler runs without one, and
other callers never wait for them."""

from __future__ import annotations

import anyio
import pytest

from cloudg_nb.protocol.intake import Intake, without_turn


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


async def test_a_handler_runs_without_the_turn_and_the_response_takes_one_again() -> None:
    intake, order = Intake(per_caller=1), []
    handler_running, handler_may_end = anyio.Event(), anyio.Event()

    async def handler() -> str:
        handler_running.set()
        await handler_may_end.wait()
        return "result"

    async def slow_request() -> None:
        async with intake.turn("c"):
            order.append(await without_turn(handler()))

    async def quick_request() -> None:
        await handler_running.wait()
        async with intake.turn("c"):  # the slow request's handler holds no turn
            order.append("quick")
        handler_may_end.set()

    with anyio.fail_after(2):
        async with anyio.create_task_group() as group:
            group.start_soon(slow_request)
            group.start_soon(quick_request)
    assert order == ["quick", "result"]


async def test_without_turn_outside_a_request_just_awaits() -> None:
    async def value() -> int:
        return 7

    assert await without_turn(value()) == 7


async def test_a_handler_that_outlives_its_request_takes_no_turn_afterwards() -> None:
    intake = Intake(per_caller=2)
    handler_may_end, handler_done, other_may_end = anyio.Event(), anyio.Event(), anyio.Event()
    seen: list[str] = []

    async def handler() -> None:
        await handler_may_end.wait()

    async def dispatched() -> None:  # a handler task of its own, as the SDK's dispatcher runs
        await without_turn(handler())
        handler_done.set()

    async def other_request() -> None:  # holds the caller's other turn throughout
        async with intake.turn("c"):
            await other_may_end.wait()

    with anyio.fail_after(2):
        async with anyio.create_task_group() as group:
            group.start_soon(other_request)
            async with intake.turn("c"):
                group.start_soon(dispatched)  # inherits the request's context
                await anyio.sleep(0.02)
            # the request ended (its client left) while its handler runs on
            handler_may_end.set()
            await handler_done.wait()
            async with intake.turn("c"):
                seen.append("next")
            other_may_end.set()
    assert seen == ["next"] and intake.requests("c") == 0


def test_turns_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        Intake(per_caller=0)
