"""Seed §4.6: ``report_progress`` / ``report_progress_sync`` and ``ToolContext.log``.

Progress must strictly increase; sync handlers in worker threads report through the serving
loop and every value arrives before ``call_tool`` returns. ``log`` maps MCP levels to stdlib
levels on ``cloudg.mcp`` and forwards to the adapter's callback. Broken callbacks never break
a tool.
"""

from __future__ import annotations

import asyncio
import logging

import pytest

from cloudg_nb import CloudGMCPLayer, Registry
from tests.layer.fakes import FakePolicy, core_layer

LOGGER = "cloudg.mcp"


def make_layer(reg: Registry) -> CloudGMCPLayer:
    return core_layer(reg, policy=FakePolicy("plain"))


class ProgressRecorder:
    """A progress callback that remembers every (progress, total, message) it receives."""

    def __init__(self) -> None:
        self.calls: list[tuple[float, float | None, str | None]] = []

    def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.calls.append((progress, total, message))

    @property
    def values(self) -> list[float]:
        return [c[0] for c in self.calls]


def failing_callback(*_args: object) -> None:
    raise RuntimeError("client went away")


@pytest.fixture
def no_scheduling(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Record (and refuse) any attempt to schedule a coroutine on a loop from a thread."""
    scheduled: list[object] = []

    def spy(coro: object, loop: object) -> None:
        scheduled.append(coro)
        coro.close()  # type: ignore[attr-defined]
        raise AssertionError("report_progress_sync scheduled a coroutine")

    monkeypatch.setattr(asyncio, "run_coroutine_threadsafe", spy)
    return scheduled


# -- report_progress -----------------------------------------------------------------------


async def test_report_progress_drops_values_not_greater_than_the_last() -> None:
    layer = make_layer(Registry())
    progress = ProgressRecorder()
    ctx = layer.context(progress_callback=progress)

    for value in (1, 1, 0.5, 2, 2, 1.5, 3):
        await ctx.report_progress(value)

    assert progress.values == [1, 2, 3]


async def test_report_progress_passes_total_and_message_to_the_callback() -> None:
    layer = make_layer(Registry())
    progress = ProgressRecorder()
    ctx = layer.context(progress_callback=progress)

    await ctx.report_progress(3, 10, "three of ten")

    assert progress.calls == [(3, 10, "three of ten")]


async def test_report_progress_without_a_callback_does_nothing() -> None:
    layer = make_layer(Registry())
    ctx = layer.context()

    await ctx.report_progress(1)  # must not raise

    progress = ProgressRecorder()
    ctx.progress_callback = progress
    await ctx.report_progress(1)
    assert progress.values == [1]  # the earlier call did not consume the value


# -- report_progress_sync from a sync handler ----------------------------------------------


async def test_sync_handler_progress_arrives_strictly_increasing_and_in_order() -> None:
    reg = Registry()

    @reg.tool
    def crunch(ctx) -> dict:
        for i in range(50):
            ctx.report_progress_sync(i, 50, f"step {i}")
            ctx.report_progress_sync(i, 50, "repeat")  # not greater: dropped
            if i:
                ctx.report_progress_sync(i - 1, 50, "backwards")  # smaller: dropped
        return {"done": True}

    layer = make_layer(reg)
    progress = ProgressRecorder()
    ctx = layer.context(progress_callback=progress)

    result = await layer.call_tool("crunch", context=ctx)

    assert not result.is_error
    assert progress.values == list(range(50))
    assert progress.calls[7] == (7, 50, "step 7")


async def test_sync_handler_progress_is_all_delivered_before_call_tool_returns() -> None:
    reg = Registry()

    @reg.tool
    def crunch(ctx) -> dict:
        for i in range(50):
            ctx.report_progress_sync(i, 50)
        return {"done": True}

    delivered: list[float] = []

    async def slow_callback(progress: float, total: float | None, message: str | None) -> None:
        await asyncio.sleep(0.001)
        delivered.append(progress)

    layer = make_layer(reg)
    ctx = layer.context(progress_callback=slow_callback)

    result = await layer.call_tool("crunch", context=ctx)
    seen_at_return = list(delivered)

    assert not result.is_error
    assert seen_at_return == list(range(50))


async def test_sync_handler_progress_is_delivered_before_its_error_result() -> None:
    reg = Registry()

    @reg.tool
    def crunch(ctx) -> dict:
        for i in range(50):
            ctx.report_progress_sync(i, 50)
        raise ValueError("graph too large")

    delivered: list[float] = []

    async def slow_callback(progress: float, total: float | None, message: str | None) -> None:
        await asyncio.sleep(0.001)
        delivered.append(progress)

    layer = make_layer(reg)
    ctx = layer.context(progress_callback=slow_callback)

    result = await layer.call_tool("crunch", context=ctx)
    seen_at_return = list(delivered)

    assert result.is_error
    assert seen_at_return == list(range(50))


async def test_sync_handler_log_sync_is_delivered_before_call_tool_returns() -> None:
    reg = Registry()

    @reg.tool
    def chatty(ctx) -> dict:
        for i in range(5):
            ctx.log_sync("info", f"line {i}")
        return {}

    delivered: list[object] = []

    async def slow_callback(level: str, data: object, logger_name: str | None) -> None:
        await asyncio.sleep(0.001)
        delivered.append(data)

    layer = make_layer(reg)
    ctx = layer.context(log_callback=slow_callback)

    result = await layer.call_tool("chatty", context=ctx)
    seen_at_return = list(delivered)

    assert not result.is_error
    assert seen_at_return == [f"line {i}" for i in range(5)]


async def test_sync_handler_runs_with_the_serving_loop_on_its_context() -> None:
    reg = Registry()
    seen: list[object] = []

    @reg.tool
    def probe(ctx) -> dict:
        seen.append(ctx.loop)
        return {}

    layer = make_layer(reg)
    await layer.call_tool("probe", context=layer.context(progress_callback=ProgressRecorder()))

    assert seen == [asyncio.get_running_loop()]


async def test_report_progress_sync_without_a_callback_is_a_no_op(
    no_scheduling: list[object],
) -> None:
    layer = make_layer(Registry())
    ctx = layer.context()
    ctx.loop = asyncio.get_running_loop()

    ctx.report_progress_sync(1, 2, "half")
    await asyncio.sleep(0)

    assert no_scheduling == []


async def test_report_progress_sync_without_a_loop_is_a_no_op(
    no_scheduling: list[object],
) -> None:
    layer = make_layer(Registry())
    progress = ProgressRecorder()
    ctx = layer.context(progress_callback=progress)
    assert ctx.loop is None

    ctx.report_progress_sync(1)
    await asyncio.sleep(0)

    assert no_scheduling == []
    assert progress.calls == []


async def test_report_progress_sync_with_a_closed_loop_is_a_no_op(
    no_scheduling: list[object],
) -> None:
    layer = make_layer(Registry())
    progress = ProgressRecorder()
    ctx = layer.context(progress_callback=progress)
    closed = asyncio.new_event_loop()
    closed.close()
    ctx.loop = closed

    ctx.report_progress_sync(1)
    await asyncio.sleep(0)

    assert no_scheduling == []
    assert progress.calls == []


async def test_report_progress_sync_without_a_callback_leaves_the_tool_working() -> None:
    reg = Registry()

    @reg.tool
    def crunch(ctx) -> dict:
        for i in range(5):
            ctx.report_progress_sync(i)
        return {"n": 5}

    layer = make_layer(reg)
    result = await layer.call_tool("crunch", context=layer.context())

    assert not result.is_error
    assert result.structured == {"n": 5}


# -- log -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "stdlib_level"),
    [
        ("debug", logging.DEBUG),
        ("info", logging.INFO),
        ("notice", 25),
        ("warning", logging.WARNING),
        ("error", logging.ERROR),
        ("critical", logging.CRITICAL),
        ("alert", 55),
        ("emergency", 60),
        ("chatty", logging.INFO),
    ],
)
async def test_log_maps_mcp_levels_to_stdlib_levels_on_cloudg_mcp(
    caplog: pytest.LogCaptureFixture, level: str, stdlib_level: int
) -> None:
    layer = make_layer(Registry())
    ctx = layer.context()
    caplog.set_level(1, logger=LOGGER)

    await ctx.log(level, f"message at {level}")

    records = [r for r in caplog.records if r.getMessage() == f"message at {level}"]
    assert [(r.name, r.levelno) for r in records] == [(LOGGER, stdlib_level)]


async def test_log_calls_the_log_callback_with_level_data_and_logger_name() -> None:
    layer = make_layer(Registry())
    calls: list[tuple[str, object, str | None]] = []
    ctx = layer.context(log_callback=lambda *args: calls.append(args))

    await ctx.log("warning", {"rows": 3}, "cloudg.loader")

    assert calls == [("warning", {"rows": 3}, "cloudg.loader")]


async def test_log_sends_unknown_levels_to_the_callback_as_info() -> None:
    layer = make_layer(Registry())
    calls: list[tuple[str, object, str | None]] = []
    ctx = layer.context(log_callback=lambda *args: calls.append(args))

    await ctx.log("chatty", "hello")

    assert calls == [("info", "hello", None)]


async def test_log_awaits_an_async_log_callback() -> None:
    layer = make_layer(Registry())
    calls: list[tuple[str, object, str | None]] = []

    async def callback(level: str, data: object, logger_name: str | None) -> None:
        await asyncio.sleep(0)
        calls.append((level, data, logger_name))

    ctx = layer.context(log_callback=callback)
    await ctx.log("notice", "async", "x")

    assert calls == [("notice", "async", "x")]


async def test_log_from_a_tool_reaches_the_context_log_callback() -> None:
    reg = Registry()

    @reg.tool
    async def chatty(ctx) -> dict:
        await ctx.log("notice", "working", "cloudg.tools")
        return {}

    layer = make_layer(reg)
    calls: list[tuple[str, object, str | None]] = []
    ctx = layer.context(log_callback=lambda *args: calls.append(args))

    result = await layer.call_tool("chatty", context=ctx)

    assert not result.is_error
    assert calls == [("notice", "working", "cloudg.tools")]


# -- broken callbacks ------------------------------------------------------------------------


async def test_raising_progress_callback_never_breaks_an_async_tool() -> None:
    reg = Registry()

    @reg.tool
    async def steps(ctx) -> dict:
        for i in range(3):
            await ctx.report_progress(i, 3)
        return {"ok": True}

    layer = make_layer(reg)
    ctx = layer.context(progress_callback=failing_callback)

    result = await layer.call_tool("steps", context=ctx)

    assert not result.is_error
    assert result.structured == {"ok": True}


async def test_raising_progress_callback_never_breaks_a_sync_tool() -> None:
    reg = Registry()

    @reg.tool
    def steps(ctx) -> dict:
        for i in range(3):
            ctx.report_progress_sync(i, 3)
        return {"ok": True}

    layer = make_layer(reg)
    ctx = layer.context(progress_callback=failing_callback)

    result = await layer.call_tool("steps", context=ctx)

    assert not result.is_error
    assert result.structured == {"ok": True}


async def test_raising_progress_callback_still_drops_non_increasing_values() -> None:
    layer = make_layer(Registry())
    attempts: list[float] = []

    def callback(progress: float, total: float | None, message: str | None) -> None:
        attempts.append(progress)
        raise RuntimeError("client went away")

    ctx = layer.context(progress_callback=callback)
    for value in (1, 1, 2):
        await ctx.report_progress(value)

    assert attempts == [1, 2]


async def test_raising_log_callback_never_breaks_an_async_tool() -> None:
    reg = Registry()

    @reg.tool
    async def chatty(ctx) -> dict:
        await ctx.log("info", "hello")
        await ctx.log("error", "still going")
        return {"ok": True}

    layer = make_layer(reg)
    ctx = layer.context(log_callback=failing_callback)

    result = await layer.call_tool("chatty", context=ctx)

    assert not result.is_error
    assert result.structured == {"ok": True}


async def test_raising_log_callback_never_breaks_a_sync_tool() -> None:
    reg = Registry()

    @reg.tool
    def chatty(ctx) -> dict:
        ctx.log_sync("info", "hello")
        return {"ok": True}

    layer = make_layer(reg)
    ctx = layer.context(log_callback=failing_callback)

    result = await layer.call_tool("chatty", context=ctx)

    assert not result.is_error
    assert result.structured == {"ok": True}
