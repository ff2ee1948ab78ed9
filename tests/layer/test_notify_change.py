"""Seed §4.5 ``notify_change`` from any thread.

Before any handler ran, listeners run inline in the calling thread; once the layer knows its
serving loop, a change reported from another thread (a sync handler's worker thread, via the
layer or the workspace) is delivered on the loop's thread, and one reported on the loop
thread runs inline. A failing listener is logged and skipped; ``on_change`` unsubscribes.
"""

import asyncio
import logging
import threading
import time

from cloudg_nb.layer import CloudGMCPLayer, Registry
from tests.layer.fakes import core_layer


def _layer() -> CloudGMCPLayer:
    reg = Registry()

    @reg.tool
    def noop(ctx) -> dict:
        return {}

    @reg.tool
    def notify_via_layer(ctx) -> dict:
        ctx.layer.notify_change("tools")
        return {"thread": threading.get_ident()}

    @reg.tool
    def notify_via_workspace(ctx) -> dict:
        ctx.workspace.notify("resource", "cloudg://workspace")
        return {"thread": threading.get_ident()}

    return core_layer(reg)


def _thread_recorder(seen: list):
    """A listener that records (kind, uri, thread id)."""

    def listener(kind: str, uri: str | None) -> None:
        seen.append((kind, uri, threading.get_ident()))

    return listener


async def _until(predicate, timeout: float = 2.0) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.005)
    return True


# -- before the loop is known --------------------------------------------------------------


def test_listeners_run_inline_in_the_calling_thread_before_any_handler_ran():
    layer = _layer()
    assert layer._loop is None
    seen: list = []
    layer.on_change(_thread_recorder(seen))
    outcome: dict = {}

    def report() -> None:
        layer.notify_change("tools")
        outcome["seen_on_return"] = list(seen)
        outcome["thread"] = threading.get_ident()

    worker = threading.Thread(target=report)
    worker.start()
    worker.join(2)
    assert outcome["seen_on_return"] == [("tools", None, outcome["thread"])]


def test_listener_receives_kind_and_uri():
    layer = _layer()
    seen: list = []
    layer.on_change(lambda kind, uri: seen.append((kind, uri)))
    layer.notify_change("resource", "cloudg://datasets")
    layer.notify_change("prompts")
    assert seen == [("resource", "cloudg://datasets"), ("prompts", None)]


# -- with a serving loop -------------------------------------------------------------------


async def test_notify_from_a_worker_thread_runs_listeners_on_the_loop_thread():
    layer = _layer()
    seen: list = []
    layer.on_change(_thread_recorder(seen))
    result = await layer.call_tool("notify_via_layer")
    assert await _until(lambda: seen)
    assert result.structured["thread"] != threading.get_ident()
    assert seen == [("tools", None, threading.get_ident())]


async def test_workspace_notify_from_a_worker_thread_runs_listeners_on_the_loop_thread():
    layer = _layer()
    seen: list = []
    layer.on_change(_thread_recorder(seen))
    result = await layer.call_tool("notify_via_workspace")
    assert await _until(lambda: seen)
    assert result.structured["thread"] != threading.get_ident()
    assert seen == [("resource", "cloudg://workspace", threading.get_ident())]


async def test_notify_from_another_thread_after_a_call_runs_listeners_on_the_loop_thread():
    layer = _layer()
    await layer.call_tool("noop")
    seen: list = []
    layer.on_change(_thread_recorder(seen))
    await asyncio.to_thread(layer.notify_change, "tools")
    assert await _until(lambda: seen)
    assert seen == [("tools", None, threading.get_ident())]


async def test_notify_from_the_loop_thread_runs_listeners_inline():
    layer = _layer()
    await layer.call_tool("noop")
    seen: list = []
    layer.on_change(_thread_recorder(seen))
    layer.notify_change("tools")
    assert seen == [("tools", None, threading.get_ident())]  # no await needed


def test_listeners_run_inline_once_the_serving_loop_has_stopped():
    layer = _layer()
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(layer.call_tool("noop"))
        assert layer._loop is loop and not loop.is_closed()
        seen: list = []
        layer.on_change(_thread_recorder(seen))
        layer.notify_change("tools")
        assert seen == [("tools", None, threading.get_ident())]
    finally:
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()


def test_listeners_run_inline_once_the_serving_loop_is_closed():
    layer = _layer()
    asyncio.run(layer.call_tool("noop"))
    assert layer._loop is not None and layer._loop.is_closed()
    seen: list = []
    layer.on_change(_thread_recorder(seen))
    layer.notify_change("tools")
    assert seen == [("tools", None, threading.get_ident())]


# -- failing listeners ---------------------------------------------------------------------


def _failing(kind: str, uri: str | None) -> None:
    raise RuntimeError("listener broke")


def test_raising_listener_does_not_stop_the_others():
    layer = _layer()
    seen: list = []
    layer.on_change(lambda kind, uri: seen.append("first"))
    layer.on_change(_failing)
    layer.on_change(lambda kind, uri: seen.append("last"))
    layer.notify_change("tools")  # does not raise
    assert seen == ["first", "last"]


async def test_raising_listener_does_not_stop_the_others_on_the_loop():
    layer = _layer()
    seen: list = []
    layer.on_change(lambda kind, uri: seen.append("first"))
    layer.on_change(_failing)
    layer.on_change(lambda kind, uri: seen.append("last"))
    await layer.call_tool("notify_via_layer")
    assert await _until(lambda: len(seen) == 2)
    assert seen == ["first", "last"]


def test_raising_listener_is_logged_at_debug(caplog):
    layer = _layer()
    layer.on_change(_failing)
    with caplog.at_level(logging.DEBUG, logger="cloudg.mcp"):
        layer.notify_change("tools")
    failures = [r for r in caplog.records if r.exc_info and r.exc_info[0] is RuntimeError]
    assert [r.levelno for r in failures] == [logging.DEBUG]


# -- unsubscribe ---------------------------------------------------------------------------


def test_unsubscribe_stops_delivery_to_that_listener():
    layer = _layer()
    seen: list = []
    unsubscribe = layer.on_change(lambda kind, uri: seen.append("gone"))
    layer.on_change(lambda kind, uri: seen.append("kept"))
    unsubscribe()
    layer.notify_change("tools")
    assert seen == ["kept"]


def test_unsubscribing_twice_is_harmless():
    layer = _layer()
    seen: list = []
    unsubscribe = layer.on_change(lambda kind, uri: seen.append("gone"))
    unsubscribe()
    unsubscribe()
    layer.notify_change("tools")
    assert seen == []
