"""CallRecorder: each request is recorded once, as one ``CallRecord`` holding everything its
sinks write (who, what, how it ended, how long, which error, transforms, cancellation), and
handed to every sink in order; a failing sink fails neither the call nor the other sinks and
is logged once; adjacent recorders in a layer's chain share one record."""

from __future__ import annotations

import asyncio
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
from cloudg_nb.layer.errors import RateLimitedError
from cloudg_nb.layer.middleware import (
    CallRecorder,
    ConcurrencyLimitMiddleware,
    MetricsMiddleware,
    RecordingMiddleware,
)
from cloudg_nb.layer.middleware.metrics import METRICS_URI
from cloudg_nb.layer.registry import Registry
from tests.layer.call_outcomes import ALICE, ARGUMENTS, OUTCOMES, cancel_sleepy, registry, request
from tests.layer.fakes import core_layer


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


@dataclass(frozen=True)
class Case:
    """What the record of a request that ends one way (``call_outcomes.OUTCOMES``) says."""

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
    "ok": Case(RequestKind.TOOL, "lookup", Outcome.OK),
    "tool error": Case(RequestKind.TOOL, "boom", Outcome.ERROR, error_code="handler_error",
                       error_result=True),
    "denied": Case(RequestKind.TOOL, "lookup", Outcome.DENIED, error_type="AccessDeniedError",
                   error_code=-31001, layer_error=True),
    "rate limited": Case(RequestKind.TOOL, "lookup", Outcome.RATE_LIMITED,
                         error_type="RateLimitedError", error_code=-31029, layer_error=True),
    "rejected": Case(RequestKind.TOOL, "lookup", Outcome.REJECTED,
                     error_type="InputRejectedError", error_code=-32602, layer_error=True),
    "timeout": Case(RequestKind.TOOL, "slow", Outcome.ERROR, error_code="timeout",
                    error_result=True, cancel_reason="timed out"),
    "cancelled": Case(RequestKind.TOOL, "sleepy", Outcome.CANCELLED,
                      error_type="CancelledError", cancel_reason="cancelled"),
    "redacted": Case(RequestKind.TOOL, "lookup", Outcome.OK,
                     transforms={"redacted": {"email": 1}}),
    "resource ok": Case(RequestKind.RESOURCE, "cloudg://status", Outcome.OK),
    "resource exception": Case(RequestKind.RESOURCE, "cloudg://broken", Outcome.EXCEPTION,
                               error_type="ValueError"),
    "resource layer error": Case(RequestKind.RESOURCE, "cloudg://missing", Outcome.EXCEPTION,
                                 error_type="NotFoundError", error_code=-32602,
                                 layer_error=True),
    "prompt": Case(RequestKind.PROMPT, "brief", Outcome.OK),
    "completion": Case(RequestKind.COMPLETION, "brief", Outcome.OK),
}


def test_the_table_covers_every_way_a_request_ends() -> None:
    assert set(CASES) == set(OUTCOMES)


@pytest.mark.parametrize("outcome", list(CASES))
async def test_each_request_is_recorded_once_with_how_it_ended(outcome: str) -> None:
    case, sink = CASES[outcome], Keep()
    await request(outcome, [CallRecorder(sink)])
    (call,) = sink.calls
    assert (call.kind, call.name, call.outcome) == (case.kind, case.name, case.outcome)
    assert (call.error_type, call.error_code, call.error_result, call.layer_error) == (
        case.error_type, case.error_code, case.error_result, case.layer_error)
    assert call.cancel_reason == case.cancel_reason
    assert call.transforms == case.transforms
    assert call.principal == ALICE and call.approval is None and not call.large


async def test_the_record_says_who_asked_what_and_when() -> None:
    sink = Keep()
    layer = core_layer(registry(), middleware=[CallRecorder(sink)])
    before = time.time()
    await layer.call_tool("vault_read", {}, context=layer.context(ALICE, request_id="req-9"))
    await layer.call_tool("lookup", ARGUMENTS)
    after = time.time()
    restricted, local = sink.calls
    assert (restricted.principal, restricted.request_id) == (ALICE, "req-9")
    assert restricted.sensitivity == Sensitivity.RESTRICTED
    assert local.principal == Principal.local() and local.request_id is None
    assert local.arguments == ARGUMENTS
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
    await core_layer(registry(), middleware=[CallRecorder(one, two, three)]).call_tool("lookup")
    assert order == ["one", "two", "three"]
    assert one.calls[0] is two.calls[0] is three.calls[0]


# -- a failing sink ---------------------------------------------------------------------------


async def test_a_failing_sink_fails_neither_the_call_nor_the_other_sinks() -> None:
    before, after, broken = Keep(), Keep(), Broken()
    layer = core_layer(registry(), middleware=[CallRecorder(before, broken, after)])
    result = await layer.call_tool("lookup", {"count": 4})
    failed = await layer.call_tool("boom")
    assert not result.is_error and result.structured == {"count": 4}
    assert failed.is_error and failed.error_code == "handler_error"
    assert broken.tries == 2
    assert [c.name for c in before.calls] == [c.name for c in after.calls] == ["lookup", "boom"]


async def test_a_failing_sink_does_not_change_a_raised_error_or_a_cancellation() -> None:
    after = Keep()
    layer = core_layer(registry(), middleware=[CallRecorder(Broken(), after)])
    with pytest.raises(ValueError, match="cannot read"):
        await layer.read_resource("cloudg://broken")
    await cancel_sleepy(layer)
    assert [c.outcome for c in after.calls] == [Outcome.EXCEPTION, Outcome.CANCELLED]


async def test_a_failing_sink_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    layer = core_layer(registry(), middleware=[CallRecorder(Broken())])
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
    layer = core_layer(registry(), middleware=[CallRecorder(heavy, light)])
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
    layer = core_layer(registry(), middleware=[outer, inner])
    await layer.call_tool("lookup")
    assert len(outer.calls) == len(inner.calls) == 1
    assert outer.calls[0] is inner.calls[0]
    assert layer.middleware == [outer, inner]  # the chain runs them as one; the list stays


async def test_recorders_apart_each_record_what_they_see() -> None:
    async def refuse_busy(info: CallInfo, call_next: Handler) -> Any:
        raise RateLimitedError("Server busy. Try again in 1 s.", data={"retry_after": 1})

    outer, inner = KeepingMiddleware(), KeepingMiddleware()
    layer = core_layer(registry(), middleware=[outer, refuse_busy, inner])
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
    await core_layer(registry(), middleware=[outer, inner]).call_tool("lookup")
    assert seen == ["before"]
    assert len(outer.calls) == len(inner.calls) == 1


async def test_a_recorder_attaches_its_sinks_to_the_layer() -> None:
    metrics = MetricsMiddleware()
    layer = core_layer(registry(), middleware=[CallRecorder(Keep(), metrics)])
    assert METRICS_URI in layer.registry.resources
    await layer.call_tool("lookup")
    assert metrics.snapshot()["tool:lookup"]["calls"] == 1
