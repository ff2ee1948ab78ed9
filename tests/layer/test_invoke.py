"""Seed §4.3 Running handlers: loop or thread (``CloudGMCPLayer._invoke``).

Coroutine handlers run on the serving loop's thread, plain functions in a worker thread,
an awaitable returned by a plain function is awaited on the loop, and the layer and the
context remember the serving loop. Resource, template, prompt and completion handlers go
through the same path as tools.
"""

import asyncio
import threading
from typing import Any

import pytest

from cloudg_nb.layer import CloudGMCPLayer, Registry
from tests.layer.fakes import core_layer

KINDS = ["tool", "resource", "template", "prompt", "completion"]

#: What a probe handler returns for each kind (a value each kind's terminal accepts).
RESULTS: dict[str, Any] = {
    "tool": {"ok": True},
    "resource": "ok",
    "template": "ok",
    "prompt": "ok",
    "completion": ["ok"],
}


def _probe(kind: str, record: dict, *, is_async: bool):
    """A handler for ``kind`` that records its thread and the loop on its context."""
    result = RESULTS[kind]

    def note(ctx) -> None:
        record["thread"] = threading.get_ident()
        record["ctx_loop"] = ctx.loop

    if is_async:

        async def handler(ctx, **kwargs):
            note(ctx)
            return result

    else:

        def handler(ctx, **kwargs):
            note(ctx)
            return result

    return handler


def _noop(ctx, **kwargs) -> str:
    return "unused"


def _layer_for(kind: str, handler) -> CloudGMCPLayer:
    """A layer whose only handler of ``kind`` is ``handler`` (others are inert)."""
    reg = Registry()
    if kind == "tool":
        reg.tool(name="probe")(handler)
    elif kind == "resource":
        reg.resource("test://probe")(handler)
    elif kind == "template":
        reg.resource_template("test://items/{item}")(handler)
    elif kind == "prompt":
        reg.prompt(name="probe")(handler)
    else:
        reg.resource_template("test://items/{item}", completions={"item": handler})(_noop)
    return core_layer(reg)


async def _request(layer: CloudGMCPLayer, kind: str) -> None:
    """Make one request of ``kind`` and check that the handler's result came back."""
    if kind == "tool":
        result = await layer.call_tool("probe")
        assert not result.is_error, result.content[0].text
        assert result.structured == RESULTS["tool"]
    elif kind == "resource":
        (contents,) = await layer.read_resource("test://probe")
        assert contents.text == "ok"
    elif kind == "template":
        (contents,) = await layer.read_resource("test://items/a")
        assert contents.text == "ok"
    elif kind == "prompt":
        result = await layer.get_prompt("probe")
        assert result.messages[0].content.text == "ok"
    else:
        result = await layer.complete(
            {"type": "ref/resource", "uri": "test://items/{item}"},
            {"name": "item", "value": ""},
        )
        assert result["values"] == ["ok"]


# -- tools ---------------------------------------------------------------------------------


async def test_coroutine_handler_runs_on_the_loop_thread():
    record: dict = {}
    await _request(_layer_for("tool", _probe("tool", record, is_async=True)), "tool")
    assert record["thread"] == threading.get_ident()


async def test_sync_handler_runs_in_a_worker_thread():
    record: dict = {}
    await _request(_layer_for("tool", _probe("tool", record, is_async=False)), "tool")
    assert record["thread"] != threading.get_ident()


async def test_sync_handlers_do_not_block_the_loop():
    release = threading.Event()
    reg = Registry()

    @reg.tool
    def blocking(ctx) -> dict:
        return {"released": release.wait(2)}

    layer = core_layer(reg)
    call = asyncio.create_task(layer.call_tool("blocking"))
    await asyncio.sleep(0.05)  # the loop keeps running while the handler blocks
    assert not call.done()
    release.set()
    result = await call
    assert result.structured == {"released": True}


async def test_awaitable_returned_by_a_sync_handler_is_awaited_on_the_loop():
    threads: dict = {}
    reg = Registry()

    @reg.tool
    def deferred(ctx):
        threads["handler"] = threading.get_ident()

        async def finish() -> dict:
            threads["awaitable"] = threading.get_ident()
            await asyncio.sleep(0)
            return {"finished": True}

        return finish()

    result = await core_layer(reg).call_tool("deferred")
    assert result.structured == {"finished": True}
    assert threads["handler"] != threading.get_ident()
    assert threads["awaitable"] == threading.get_ident()


async def test_future_returned_by_a_sync_handler_is_awaited():
    loop = asyncio.get_running_loop()
    reg = Registry()

    @reg.tool
    def scheduled(ctx):
        future = asyncio.run_coroutine_threadsafe(asyncio.sleep(0.01, result=42), loop)
        return asyncio.wrap_future(future, loop=loop)

    result = await core_layer(reg).call_tool("scheduled")
    assert result.structured == {"result": 42}


# -- the remembered loop -------------------------------------------------------------------


def test_layer_has_no_loop_before_any_handler_ran():
    assert _layer_for("tool", _probe("tool", {}, is_async=True))._loop is None


@pytest.mark.parametrize("kind", KINDS)
async def test_first_handler_of_any_kind_makes_the_layer_remember_the_loop(kind):
    layer = _layer_for(kind, _probe(kind, {}, is_async=False))
    await _request(layer, kind)
    assert layer._loop is asyncio.get_running_loop()


@pytest.mark.parametrize("is_async", [True, False], ids=["async", "sync"])
async def test_tool_context_carries_the_serving_loop(is_async):
    record: dict = {}
    await _request(_layer_for("tool", _probe("tool", record, is_async=is_async)), "tool")
    assert record["ctx_loop"] is asyncio.get_running_loop()


async def test_caller_context_gets_the_serving_loop():
    layer = _layer_for("tool", _probe("tool", {}, is_async=False))
    ctx = layer.context()
    assert ctx.loop is None
    await layer.call_tool("probe", context=ctx)
    assert ctx.loop is asyncio.get_running_loop()


# -- other kinds ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["resource", "template", "prompt", "completion"])
async def test_sync_handler_of_other_kinds_runs_in_a_worker_thread(kind):
    record: dict = {}
    await _request(_layer_for(kind, _probe(kind, record, is_async=False)), kind)
    assert record["thread"] != threading.get_ident()


@pytest.mark.parametrize("kind", ["resource", "template", "prompt", "completion"])
async def test_coroutine_handler_of_other_kinds_runs_on_the_loop_thread(kind):
    record: dict = {}
    await _request(_layer_for(kind, _probe(kind, record, is_async=True)), kind)
    assert record["thread"] == threading.get_ident()


@pytest.mark.parametrize("kind", ["resource", "template", "prompt", "completion"])
async def test_context_of_other_kinds_carries_the_serving_loop(kind):
    record: dict = {}
    await _request(_layer_for(kind, _probe(kind, record, is_async=False)), kind)
    assert record["ctx_loop"] is asyncio.get_running_loop()


@pytest.mark.parametrize("kind", ["resource", "template", "prompt", "completion"])
async def test_awaitable_returned_by_a_sync_handler_of_other_kinds_is_awaited(kind):
    record: dict = {}
    inner = _probe(kind, record, is_async=True)

    def handler(ctx, **kwargs):
        return inner(ctx, **kwargs)

    await _request(_layer_for(kind, handler), kind)
    assert record["thread"] == threading.get_ident()
