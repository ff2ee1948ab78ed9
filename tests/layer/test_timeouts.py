"""Seed §4.4 Timeouts: tool calls are bounded, other kinds are not.

An async tool handler is cancelled at its timeout, a sync one keeps running in its worker
thread; either way the caller gets an error result with code ``timeout``. A per-tool
``timeout_seconds`` beats ``default_timeout`` in both directions, ``None`` means no limit,
and a ``TimeoutError`` raised by the handler itself is a ``handler_error``.
"""

import asyncio
import threading
import time

import pytest

from cloudg_nb.layer import CloudGMCPLayer, PromptArgument, Registry, ToolSpec
from tests.layer.fakes import core_layer

SLOW = 0.2  # how long a "slow" handler sleeps; well above the short timeouts below


def _layer(*specs: ToolSpec, default_timeout: float | None) -> CloudGMCPLayer:
    reg = Registry()
    for spec in specs:
        reg.add(spec)
    return core_layer(reg, default_timeout=default_timeout)


async def _sleep_then_answer(ctx, seconds: float = SLOW) -> dict:
    await asyncio.sleep(seconds)
    return {"slept": seconds}


def _code(result) -> object:
    return result.meta.get("cloudg/error_code")


# -- async handlers ------------------------------------------------------------------------


async def test_async_handler_is_cancelled_at_its_timeout():
    cancelled = threading.Event()

    async def slow(ctx) -> dict:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return {"finished": True}

    layer = _layer(ToolSpec(name="slow", handler=slow), default_timeout=0.05)
    await layer.call_tool("slow")
    assert cancelled.is_set()


async def test_timeout_becomes_an_error_result_with_code_timeout():
    layer = _layer(ToolSpec(name="slow", handler=_sleep_then_answer), default_timeout=0.05)
    result = await layer.call_tool("slow", {"seconds": 5})
    assert result.is_error
    assert _code(result) == "timeout"
    assert "timed out" in result.content[0].text


async def test_timeout_message_names_the_exposed_tool():
    layer = _layer(ToolSpec(name="slow", handler=_sleep_then_answer), default_timeout=0.05)
    layer.prefix = "cg_"
    result = await layer.call_tool("cg_slow", {"seconds": 5})
    assert "Tool cg_slow timed out" in result.content[0].text


async def test_timeout_returns_without_waiting_for_a_cancelled_handler():
    layer = _layer(ToolSpec(name="slow", handler=_sleep_then_answer), default_timeout=0.05)
    started = time.monotonic()
    await layer.call_tool("slow", {"seconds": 5})
    assert time.monotonic() - started < 2


# -- sync handlers -------------------------------------------------------------------------


async def test_sync_handler_keeps_running_after_its_timeout():
    release = threading.Event()
    finished = threading.Event()

    def blocking(ctx) -> dict:
        release.wait(5)
        finished.set()
        return {"finished": True}

    layer = _layer(ToolSpec(name="blocking", handler=blocking), default_timeout=0.05)
    try:
        result = await layer.call_tool("blocking")
        assert _code(result) == "timeout"
        assert not finished.is_set()  # the call returned while the handler still ran
    finally:
        release.set()
    assert await asyncio.to_thread(finished.wait, 2)


async def test_sync_handler_timeout_is_an_error_result_with_code_timeout():
    def blocking(ctx) -> dict:
        time.sleep(SLOW)
        return {"finished": True}

    layer = _layer(ToolSpec(name="blocking", handler=blocking), default_timeout=0.05)
    result = await layer.call_tool("blocking")
    assert result.is_error
    assert _code(result) == "timeout"
    assert "timed out" in result.content[0].text


# -- which timeout applies -----------------------------------------------------------------


async def test_tool_timeout_longer_than_the_default_wins():
    spec = ToolSpec(name="slow", handler=_sleep_then_answer, timeout_seconds=1.0)
    result = await _layer(spec, default_timeout=0.05).call_tool("slow")
    assert not result.is_error, result.content[0].text
    assert result.structured == {"slept": SLOW}


async def test_tool_timeout_shorter_than_the_default_wins():
    spec = ToolSpec(name="slow", handler=_sleep_then_answer, timeout_seconds=0.05)
    result = await _layer(spec, default_timeout=5).call_tool("slow", {"seconds": 2})
    assert _code(result) == "timeout"


async def test_tool_timeout_applies_without_a_default():
    spec = ToolSpec(name="slow", handler=_sleep_then_answer, timeout_seconds=0.05)
    result = await _layer(spec, default_timeout=None).call_tool("slow", {"seconds": 2})
    assert _code(result) == "timeout"


async def test_default_timeout_applies_to_tools_without_their_own():
    spec = ToolSpec(name="slow", handler=_sleep_then_answer)
    result = await _layer(spec, default_timeout=0.05).call_tool("slow", {"seconds": 2})
    assert _code(result) == "timeout"


async def test_no_default_timeout_means_no_timeout():
    spec = ToolSpec(name="slow", handler=_sleep_then_answer)
    result = await _layer(spec, default_timeout=None).call_tool("slow")
    assert not result.is_error, result.content[0].text
    assert result.structured == {"slept": SLOW}


# -- other kinds ---------------------------------------------------------------------------


async def _slow_completion(ctx, partial: str) -> list:
    await asyncio.sleep(SLOW)
    return [f"{partial}-done"]


def _slow_kinds_layer() -> CloudGMCPLayer:
    reg = Registry()

    @reg.resource("test://slow")
    async def slow_resource(ctx) -> str:
        await asyncio.sleep(SLOW)
        return "resource done"

    @reg.resource_template("test://slow/{item}", completions={"item": _slow_completion})
    async def slow_template(ctx, item: str) -> str:
        await asyncio.sleep(SLOW)
        return f"{item} done"

    @reg.prompt(arguments=[PromptArgument("topic", completion=_slow_completion)])
    async def slow_prompt(ctx, topic: str = "x") -> str:
        await asyncio.sleep(SLOW)
        return f"{topic} done"

    return core_layer(reg, default_timeout=0.05)


async def test_resources_have_no_timeout():
    (contents,) = await _slow_kinds_layer().read_resource("test://slow")
    assert contents.text == "resource done"


async def test_resource_templates_have_no_timeout():
    (contents,) = await _slow_kinds_layer().read_resource("test://slow/a")
    assert contents.text == "a done"


async def test_prompts_have_no_timeout():
    result = await _slow_kinds_layer().get_prompt("slow_prompt", {"topic": "vpc"})
    assert result.messages[0].content.text == "vpc done"


@pytest.mark.parametrize(
    "ref",
    [
        {"type": "ref/resource", "uri": "test://slow/{item}"},
        {"type": "ref/prompt", "name": "slow_prompt"},
    ],
    ids=["template", "prompt"],
)
async def test_completions_have_no_timeout(ref):
    name = "item" if ref["type"] == "ref/resource" else "topic"
    result = await _slow_kinds_layer().complete(ref, {"name": name, "value": "a"})
    assert result["values"] == ["a-done"]


# -- a handler's own TimeoutError ----------------------------------------------------------


async def _raises_timeout_async(ctx) -> dict:
    raise TimeoutError("upstream API did not answer")


def _raises_timeout_sync(ctx) -> dict:
    raise TimeoutError("upstream API did not answer")


@pytest.mark.parametrize(
    "handler", [_raises_timeout_async, _raises_timeout_sync], ids=["async", "sync"]
)
@pytest.mark.parametrize("default_timeout", [5.0, None], ids=["with-timeout", "no-timeout"])
async def test_handler_raising_timeout_error_is_a_handler_error(handler, default_timeout):
    layer = _layer(ToolSpec(name="flaky", handler=handler), default_timeout=default_timeout)
    result = await layer.call_tool("flaky")
    assert result.is_error
    assert _code(result) == "handler_error"
    assert "failed unexpectedly" in result.content[0].text  # not reported as our own timeout
    assert "timed out" not in result.content[0].text
