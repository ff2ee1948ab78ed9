"""CallRecorder: each request is recorded once, as one ``CallRecord`` holding everything its
sinks write (who, what, how it ended, how long, which error, transforms, cancellation), and
handed to every sink in order; a failing sink fails neither the call nor the other sinks and
is logged once; adjacent recorders in a layer's chain share one record."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any

import pytest

from cloudg_nb.layer.bounds import LOOP_VALUES
from cloudg_nb.layer.call_record import CallRecord
from cloudg_nb.layer.calls import CallInfo, Handler
from cloudg_nb.layer.context import Principal
from cloudg_nb.layer.enums import Outcome, RequestKind, Sensitivity
from cloudg_nb.layer.errors import InputRejectedError, NotFoundError, RateLimitedError
from cloudg_nb.layer.middleware import (
    CallRecorder,
    ConcurrencyLimitMiddleware,
    MetricsMiddleware,
    RecordingMiddleware,
)
from cloudg_nb.layer.middleware.metrics import METRICS_URI
from cloudg_nb.layer.registry import Registry
from cloudg_nb.layer.specs import PromptArgument
from tests.layer.fakes import FakePolicy, core_layer

ALICE = Principal("alice", frozenset({"analyst"}))
#: Calls of ``sleepy`` that started (a test cancels one once it runs).
STARTED: list[str] = []


class Keep:
    """A sink keeping every record it is given (and the thread it was given in)."""

    grows_with_arguments = False

    def __init__(self) -> None:
        self.calls: list[CallRecord] = []
        self.threads: list[str] = []

    def record(self, call: CallRecord) -> None:
        self.calls.append(call)
        self.threads.append(threading.current_thread().name)


class HeavyKeep(Keep):
    grows_with_arguments = True


class Broken:
    """A sink that always fails."""

    def __init__(self) -> None:
        self.tries = 0

    def record(self, call: CallRecord) -> None:
        self.tries += 1
        raise RuntimeError("sink exploded")


class KeepingMiddleware(RecordingMiddleware):
    """A recorder of its own (what AuditLogMiddleware and MetricsMiddleware are)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[CallRecord] = []

    def record(self, call: CallRecord) -> None:
        self.calls.append(call)


def _refuse_input(value: Any, ctx: Any) -> Any:
    raise InputRejectedError("Argument looks like a secret; pass a reference instead")


def _count_a_redaction(value: Any, ctx: Any) -> Any:
    ctx.count("redacted", "email")
    return value


def _registry() -> Registry:
    reg = Registry()

    @reg.tool
    def lookup(ctx, token: str = "", count: int = 1) -> dict:
        return {"count": count}

    @reg.tool
    def boom(ctx) -> dict:
        raise RuntimeError("handler exploded")

    @reg.tool(timeout_seconds=0.05)
    async def slow(ctx) -> dict:
        await asyncio.sleep(5)
        return {}

    @reg.tool
    async def sleepy(ctx) -> dict:
        STARTED.append("sleepy")
        await asyncio.sleep(10)
        return {}

    @reg.tool(sensitivity="restricted")
    def vault_read(ctx) -> dict:
        return {"ok": True}

    @reg.resource("cloudg://status")
    def status(ctx) -> dict:
        return {"status": "up"}

    @reg.resource("cloudg://broken")
    def broken(ctx) -> dict:
        raise ValueError("cannot read")

    @reg.resource("cloudg://missing")
    def missing(ctx) -> dict:
        raise NotFoundError("No such thing. List the things first.")

    def complete_topic(ctx, partial: str) -> list[str]:
        return ["network"]

    @reg.prompt(arguments=[PromptArgument("topic", required=True, completion=complete_topic)])
    def brief(ctx, topic: str) -> str:
        return f"Brief me on {topic}"

    return reg


@dataclass(frozen=True)
class Case:
    """One way a request ends, and what its record must say."""

    run: str  # how the request is made (see ``_make``)
    policy: dict[str, Any]
    kind: RequestKind
    name: str
    outcome: Outcome
    error_type: str | None = None
    error_code: Any = None
    error_result: bool = False
    layer_error: bool = False
    cancel_reason: str | None = None
    transforms: dict[str, Any] | None = None


CASES = {
    "ok": Case("lookup", {}, RequestKind.TOOL, "lookup", Outcome.OK),
    "tool error": Case("boom", {}, RequestKind.TOOL, "boom", Outcome.ERROR,
                       error_code="handler_error", error_result=True),
    "denied": Case("lookup", {"denied": ["lookup"]}, RequestKind.TOOL, "lookup",
                   Outcome.DENIED, error_type="AccessDeniedError", error_code=-31001,
                   layer_error=True),
    "rate limited": Case("lookup", {"limit": 0}, RequestKind.TOOL, "lookup",
                         Outcome.RATE_LIMITED, error_type="RateLimitedError",
                         error_code=-31029, layer_error=True),
    "rejected": Case("lookup", {"input": [_refuse_input]}, RequestKind.TOOL, "lookup",
                     Outcome.REJECTED, error_type="InputRejectedError", error_code=-32602,
                     layer_error=True),
    "timeout": Case("slow", {}, RequestKind.TOOL, "slow", Outcome.ERROR,
                    error_code="timeout", error_result=True, cancel_reason="timed out"),
    "cancelled": Case("cancel", {}, RequestKind.TOOL, "sleepy", Outcome.CANCELLED,
                      error_type="CancelledError", cancel_reason="cancelled"),
    "redacted": Case("lookup", {"output": [_count_a_redaction]}, RequestKind.TOOL, "lookup",
                     Outcome.OK, transforms={"redacted": {"email": 1}}),
    "resource ok": Case("status", {}, RequestKind.RESOURCE, "cloudg://status", Outcome.OK),
    "resource exception": Case("broken", {}, RequestKind.RESOURCE, "cloudg://broken",
                               Outcome.EXCEPTION, error_type="ValueError"),
    "resource layer error": Case("missing", {}, RequestKind.RESOURCE, "cloudg://missing",
                                 Outcome.EXCEPTION, error_type="NotFoundError",
                                 error_code=-32602, layer_error=True),
    "prompt": Case("brief", {}, RequestKind.PROMPT, "brief", Outcome.OK),
    "completion": Case("complete", {}, RequestKind.COMPLETION, "brief", Outcome.OK),
}


async def _make(run: str, layer: Any) -> None:
    """Make the request ``run`` names, as ``alice`` with request id ``req-7``; whatever it
    raises (the cases say how it ended) is swallowed."""
    ctx = layer.context(ALICE, request_id="req-7")
    if run == "cancel":
        await _cancel_sleepy(layer, ctx)
    elif run in ("status", "broken", "missing"):
        with contextlib.suppress(Exception):
            await layer.read_resource(f"cloudg://{run}", context=ctx)
    elif run == "brief":
        await layer.get_prompt("brief", {"topic": "net"}, context=ctx)
    elif run == "complete":
        await layer.complete({"type": "ref/prompt", "name": "brief"},
                             {"name": "topic", "value": "n"}, principal=ALICE)
    elif run == "lookup":
        await layer.call_tool(run, {"token": "abc", "count": 2}, context=ctx)
    else:
        await layer.call_tool(run, {}, context=ctx)


async def _cancel_sleepy(layer: Any, ctx: Any = None) -> None:
    """Call ``sleepy`` and cancel the call once its handler runs."""
    STARTED.clear()
    task = asyncio.create_task(layer.call_tool("sleepy", {}, context=ctx))
    while not STARTED:
        await asyncio.sleep(0.005)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


@pytest.mark.parametrize("case", CASES.values(), ids=list(CASES))
async def test_each_request_is_recorded_once_with_how_it_ended(case: Case) -> None:
    sink = Keep()
    layer = core_layer(_registry(), policy=FakePolicy(**case.policy),
                       middleware=[CallRecorder(sink)])
    await _make(case.run, layer)
    (call,) = sink.calls
    assert (call.kind, call.name, call.outcome) == (case.kind, case.name, case.outcome)
    assert (call.error_type, call.error_code, call.error_result, call.layer_error) == (
        case.error_type, case.error_code, case.error_result, case.layer_error)
    assert call.cancel_reason == case.cancel_reason
    assert call.transforms == case.transforms
    assert call.principal == ALICE and call.approval is None and not call.large


async def test_the_record_says_who_asked_what_and_when() -> None:
    sink = Keep()
    layer = core_layer(_registry(), middleware=[CallRecorder(sink)])
    before = time.time()
    await layer.call_tool("vault_read", {}, context=layer.context(ALICE, request_id="req-9"))
    await layer.call_tool("lookup", {"token": "abc", "count": 2})
    after = time.time()
    restricted, local = sink.calls
    assert (restricted.principal, restricted.request_id) == (ALICE, "req-9")
    assert restricted.sensitivity == Sensitivity.RESTRICTED
    assert local.principal == Principal.local() and local.request_id is None
    assert local.arguments == {"token": "abc", "count": 2}
    assert local.sensitivity == Sensitivity.CONFIDENTIAL
    assert before <= restricted.ended_at <= local.ended_at <= after


async def test_the_duration_covers_the_whole_request() -> None:
    reg = Registry()

    @reg.tool
    async def nap(ctx) -> dict:
        await asyncio.sleep(0.05)
        return {}

    sink = Keep()
    await core_layer(reg, middleware=[CallRecorder(sink)]).call_tool("nap")
    assert 45 <= sink.calls[0].duration_ms < 5000


async def test_a_refusal_by_later_middleware_is_recorded_with_its_outcome() -> None:
    reg = Registry()
    entered, release = asyncio.Event(), asyncio.Event()

    @reg.tool
    async def hold(ctx) -> dict:
        entered.set()
        await release.wait()
        return {}

    sink = Keep()
    layer = core_layer(reg, middleware=[
        CallRecorder(sink), ConcurrencyLimitMiddleware(limit=1, queue_timeout=0.01)])
    first = asyncio.create_task(layer.call_tool("hold"))
    await entered.wait()
    refused = await layer.call_tool("hold")
    release.set()
    await first
    assert refused.is_error
    assert [(c.outcome, c.error_type) for c in sink.calls] == [
        (Outcome.RATE_LIMITED, "RateLimitedError"), (Outcome.OK, None)]


async def test_every_sink_gets_the_same_record_in_order() -> None:
    order: list[str] = []

    class Named(Keep):
        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

        def record(self, call: CallRecord) -> None:
            order.append(self.name)
            super().record(call)

    one, two, three = Named("one"), Named("two"), Named("three")
    await core_layer(_registry(), middleware=[CallRecorder(one, two, three)]).call_tool("lookup")
    assert order == ["one", "two", "three"]
    assert one.calls[0] is two.calls[0] is three.calls[0]


# -- a failing sink ---------------------------------------------------------------------------


async def test_a_failing_sink_fails_neither_the_call_nor_the_other_sinks() -> None:
    before, after, broken = Keep(), Keep(), Broken()
    layer = core_layer(_registry(), middleware=[CallRecorder(before, broken, after)])
    result = await layer.call_tool("lookup", {"count": 4})
    failed = await layer.call_tool("boom")
    assert not result.is_error and result.structured == {"count": 4}
    assert failed.is_error and failed.error_code == "handler_error"
    assert broken.tries == 2
    assert [c.name for c in before.calls] == [c.name for c in after.calls] == ["lookup", "boom"]


async def test_a_failing_sink_does_not_change_a_raised_error_or_a_cancellation() -> None:
    after = Keep()
    layer = core_layer(_registry(), middleware=[CallRecorder(Broken(), after)])
    with pytest.raises(ValueError, match="cannot read"):
        await layer.read_resource("cloudg://broken")
    await _cancel_sleepy(layer)
    assert [c.outcome for c in after.calls] == [Outcome.EXCEPTION, Outcome.CANCELLED]


async def test_a_failing_sink_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    layer = core_layer(_registry(), middleware=[CallRecorder(Broken())])
    with caplog.at_level(logging.DEBUG, logger="cloudg.mcp"):
        for _ in range(3):
            await layer.call_tool("lookup")
    failures = [r for r in caplog.records if "Broken" in r.getMessage()]
    assert [r.levelno for r in failures] == [logging.WARNING, logging.DEBUG, logging.DEBUG]
    assert failures[0].exc_info is not None


async def test_a_record_that_cannot_be_built_records_nothing_and_the_call_goes_on(
        caplog: pytest.LogCaptureFixture) -> None:
    sink = Keep()
    recorder = CallRecorder(sink)
    info = CallInfo(RequestKind.TOOL, "odd", object(), {}, ALICE, None)  # type: ignore[arg-type]

    async def answer(info: CallInfo) -> str:
        return "answered"

    with caplog.at_level(logging.WARNING, logger="cloudg.mcp"):
        assert await recorder(info, answer) == "answered"
    assert sink.calls == []
    assert any("building the call record" in r.getMessage() for r in caplog.records)


# -- large arguments -------------------------------------------------------------------------


async def test_a_large_request_reaches_a_heavy_sink_in_a_worker_thread() -> None:
    heavy, light = HeavyKeep(), Keep()
    layer = core_layer(_registry(), middleware=[CallRecorder(heavy, light)])
    await layer.call_tool("lookup", {"token": "x" * 10, "count": 1})
    await layer.call_tool("lookup", {"token": {f"k{i}": i for i in range(LOOP_VALUES + 1)}})
    assert [c.large for c in heavy.calls] == [False, True]
    loop_thread = threading.current_thread().name
    assert heavy.threads[0] == loop_thread and heavy.threads[1].startswith("cloudg-light")
    assert light.threads == [loop_thread, loop_thread]
    assert heavy.calls[1] is light.calls[1]


async def test_a_cancelled_large_request_still_reaches_a_heavy_sink() -> None:
    reg = Registry()
    entered = asyncio.Event()

    @reg.tool
    async def wait(ctx, items: list) -> dict:
        entered.set()
        await asyncio.sleep(10)
        return {}

    heavy = HeavyKeep()
    layer = core_layer(reg, middleware=[CallRecorder(heavy)])
    task = asyncio.create_task(layer.call_tool("wait", {"items": list(range(LOOP_VALUES + 1))}))
    await entered.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(200):  # handed over without waiting: it lands shortly after
        if heavy.calls:
            break
        await asyncio.sleep(0.01)
    assert [(c.outcome, c.large) for c in heavy.calls] == [(Outcome.CANCELLED, True)]


# -- recorders in a layer's chain ------------------------------------------------------------


async def test_adjacent_recorders_share_one_record() -> None:
    outer, inner = KeepingMiddleware(), KeepingMiddleware()
    layer = core_layer(_registry(), middleware=[outer, inner])
    await layer.call_tool("lookup")
    assert len(outer.calls) == len(inner.calls) == 1
    assert outer.calls[0] is inner.calls[0]
    assert layer.middleware == [outer, inner]  # the chain runs them as one; the list stays


async def test_recorders_apart_each_record_what_they_see() -> None:
    async def refuse_busy(info: CallInfo, call_next: Handler) -> Any:
        raise RateLimitedError("Server busy. Try again in 1 s.", data={"retry_after": 1})

    outer, inner = KeepingMiddleware(), KeepingMiddleware()
    layer = core_layer(_registry(), middleware=[outer, refuse_busy, inner])
    result = await layer.call_tool("lookup")
    assert result.is_error
    assert [c.outcome for c in outer.calls] == [Outcome.RATE_LIMITED]
    assert inner.calls == []  # the request never reached it


async def test_a_recorder_with_its_own_call_keeps_its_place() -> None:
    seen: list[str] = []

    class Wrapping(KeepingMiddleware):
        async def __call__(self, info: CallInfo, call_next: Handler) -> Any:
            seen.append("before")
            return await super().__call__(info, call_next)

    outer, inner = Wrapping(), KeepingMiddleware()
    await core_layer(_registry(), middleware=[outer, inner]).call_tool("lookup")
    assert seen == ["before"]
    assert len(outer.calls) == len(inner.calls) == 1


async def test_a_recorder_attaches_its_sinks_to_the_layer() -> None:
    metrics = MetricsMiddleware()
    layer = core_layer(_registry(), middleware=[CallRecorder(Keep(), metrics)])
    assert METRICS_URI in layer.registry.resources
    await layer.call_tool("lookup")
    assert metrics.snapshot()["tool:lookup"]["calls"] == 1
