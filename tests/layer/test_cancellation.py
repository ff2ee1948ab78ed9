"""Cancellation reaches the worker thread: a cancelled, timed-out or abandoned call marks its
context, ``check_cancelled()`` and ``report_progress_sync`` then raise inside the handler, and
its thread is free again within a second, so abandoned work never starves the next caller."""

from __future__ import annotations

import asyncio
import time

import pytest

from cloudg_nb.layer import CloudGMCPLayer, Registry, ToolContext, ToolSpec
from cloudg_nb.layer.errors import CallCancelledError
from tests.layer.fakes import core_layer
from tests.layer.slow_tools import SpinningWork


def _get_asset(ctx: ToolContext, ref: str) -> dict:
    """A cheap read in the light lane, like the catalog's ``get_asset``."""
    return {"id": ref}


def _layer(work: SpinningWork, **options: object) -> CloudGMCPLayer:
    reg = Registry()
    reg.add(work.spec())
    reg.add(ToolSpec(name="get_asset", handler=_get_asset, lane="light"))
    return core_layer(reg, **options)


def test_check_cancelled_is_quiet_until_the_call_is_cancelled() -> None:
    ctx = ToolContext()
    ctx.check_cancelled()
    assert not ctx.cancelled
    ctx.cancel("timed out")
    assert ctx.cancelled and ctx.finished
    with pytest.raises(CallCancelledError, match="timed out"):
        ctx.check_cancelled()


def test_report_progress_sync_raises_once_cancelled() -> None:
    ctx = ToolContext(progress_callback=lambda *a: None)
    ctx.cancel()
    with pytest.raises(CallCancelledError):
        ctx.report_progress_sync(1, 2, "halfway")


async def test_a_timed_out_call_stops_its_thread_within_a_second() -> None:
    work = SpinningWork()
    layer = _layer(work, default_timeout=0.2)
    ctx = layer.context()
    result = await layer.call_tool("spin", context=ctx)
    assert result.meta["cloudg/error_code"] == "timeout"
    assert await work.until(lambda s: s["stopped"] == 1, timeout=1.0) < 1.0
    assert ctx.cancel_reason == "timed out"


async def test_a_cancelled_call_stops_its_thread_within_a_second() -> None:
    work = SpinningWork()
    layer = _layer(work)
    task = asyncio.ensure_future(layer.call_tool("spin"))
    await work.until(lambda s: s["running"] == 1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await work.until(lambda s: s["running"] == 0, timeout=1.0) < 1.0


async def test_a_handler_using_progress_stops_at_its_next_report() -> None:
    stopped = asyncio.Event()
    loop = asyncio.get_running_loop()

    def reporting(ctx: ToolContext) -> dict:
        try:
            for i in range(100_000):
                ctx.report_progress_sync(i + 1, None, "working")
                time.sleep(0.005)
        finally:
            loop.call_soon_threadsafe(stopped.set)
        return {}

    reg = Registry()
    reg.add(ToolSpec(name="reporting", handler=reporting))
    layer = core_layer(reg, default_timeout=0.1)
    ctx = layer.context(progress_callback=lambda *a: None)
    result = await layer.call_tool("reporting", context=ctx)
    assert result.meta["cloudg/error_code"] == "timeout"
    await asyncio.wait_for(stopped.wait(), 1.0)


async def test_async_handlers_see_their_context_cancelled() -> None:
    seen: list[bool] = []

    async def waits(ctx: ToolContext) -> dict:
        try:
            await asyncio.sleep(10)
        finally:
            seen.append(ctx.cancelled)
        return {}

    reg = Registry()
    reg.add(ToolSpec(name="waits", handler=waits))
    layer = core_layer(reg, default_timeout=0.05)
    ctx = layer.context()
    await layer.call_tool("waits", context=ctx)
    assert ctx.cancelled


async def test_eight_cancelled_slow_calls_leave_get_asset_answering_within_a_second() -> None:
    work = SpinningWork()
    layer = _layer(work)
    calls = [asyncio.ensure_future(layer.call_tool("spin")) for _ in range(8)]
    await work.until(lambda s: s["running"] >= 1)
    for call in calls:
        call.cancel()
    await asyncio.gather(*calls, return_exceptions=True)
    started = time.monotonic()
    result = await layer.call_tool("get_asset", {"ref": "aws-acct-prod"})
    assert time.monotonic() - started < 1.0
    assert not result.is_error, result.content[0].text
    assert await work.until(lambda s: s["running"] == 0, timeout=1.0) < 1.0
    assert work.started <= layer.workers.stats()["heavy"].size  # queued ones never ran


async def test_get_asset_answers_while_slow_calls_fill_the_heavy_lane() -> None:
    work = SpinningWork()
    layer = _layer(work)
    calls = [asyncio.ensure_future(layer.call_tool("spin")) for _ in range(8)]
    try:
        await work.until(lambda s: s["running"] >= 1)
        started = time.monotonic()
        result = await layer.call_tool("get_asset", {"ref": "aws-acct-prod"})
        assert time.monotonic() - started < 1.0
        assert not result.is_error, result.content[0].text
    finally:
        for call in calls:
            call.cancel()
        await asyncio.gather(*calls, return_exceptions=True)


async def test_a_handler_cancelled_from_outside_gives_a_cancelled_result() -> None:
    def quits(ctx: ToolContext) -> dict:
        ctx.cancel("abandoned")
        ctx.check_cancelled()
        return {}

    reg = Registry()
    reg.add(ToolSpec(name="quits", handler=quits))
    result = await core_layer(reg).call_tool("quits")
    assert result.is_error
    assert result.meta["cloudg/error_code"] == "cancelled"
