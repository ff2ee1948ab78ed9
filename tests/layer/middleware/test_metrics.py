"""MetricsMiddleware: per ``kind:name`` calls, errors, refusals and latency.

Contract (layer reference §8): calls, errors and rejected (denied / rate-limited / rejected
input) are counted per ``kind:name``; avg/p95/max ms cover the last 256 calls; last_call is
the wall-clock time of the latest call; ``reset()`` forgets everything; attached to a layer
it serves ``snapshot()`` as the ``cloudg://metrics`` resource (added once).
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from cloudg_nb.layer import call_record
from cloudg_nb.layer.content import TextContent, ToolResult
from cloudg_nb.layer.context import Principal
from cloudg_nb.layer.errors import RateLimitedError
from cloudg_nb.layer.layer import CallInfo
from cloudg_nb.layer.middleware import MetricsMiddleware
from cloudg_nb.layer.middleware.metrics import METRICS_URI
from cloudg_nb.layer.registry import Registry
from tests.layer.fakes import FakePolicy


@pytest.fixture
def registry() -> Registry:
    reg = Registry()

    @reg.tool
    def ok(ctx, n: int = 0) -> dict:
        return {"n": n}

    @reg.tool
    def boom(ctx) -> dict:
        raise RuntimeError("broken")

    @reg.tool
    def x(ctx) -> dict:
        return {}

    @reg.resource("cloudg://status")
    def status(ctx) -> dict:
        return {"status": "up"}

    return reg


async def _ok(info: CallInfo) -> ToolResult:
    return ToolResult([TextContent("{}")], structured={})


def _info(spec: Any, elapsed_ms: float) -> CallInfo:
    """A CallInfo for ``spec`` that started ``elapsed_ms`` milliseconds ago."""
    principal = Principal.local()
    ctx = None  # MetricsMiddleware never reads the context
    return CallInfo(
        "tool", spec.name, spec, {}, principal, ctx,  # type: ignore[arg-type]
        started=time.monotonic() - elapsed_ms / 1000,
    )


async def _record(mw: MetricsMiddleware, spec: Any, elapsed_ms: float) -> None:
    await mw(_info(spec, elapsed_ms), _ok)


# -- counts --------------------------------------------------------------------------------


async def test_calls_are_counted_per_kind_and_name(registry, make_layer):
    mw = MetricsMiddleware()
    layer = make_layer(registry, mw)
    await layer.call_tool("ok")
    await layer.call_tool("ok", {"n": 1})
    await layer.call_tool("boom")
    await layer.read_resource("cloudg://status")
    snap = mw.snapshot()
    assert snap["tool:ok"]["calls"] == 2
    assert snap["tool:boom"]["calls"] == 1
    assert snap["resource:cloudg://status"]["calls"] == 1


async def test_snapshot_keys_are_sorted(registry, make_layer):
    mw = MetricsMiddleware()
    layer = make_layer(registry, mw)
    await layer.call_tool("ok")
    await layer.call_tool("boom")
    await layer.read_resource("cloudg://status")
    assert list(mw.snapshot()) == sorted(mw.snapshot())


async def test_handler_failures_count_as_errors(registry, make_layer):
    mw = MetricsMiddleware()
    layer = make_layer(registry, mw)
    await layer.call_tool("boom")
    await layer.call_tool("boom")
    await layer.call_tool("ok")
    snap = mw.snapshot()
    assert (snap["tool:boom"]["errors"], snap["tool:boom"]["rejected"]) == (2, 0)
    assert (snap["tool:ok"]["errors"], snap["tool:ok"]["rejected"]) == (0, 0)


async def test_policy_denials_count_as_rejected_not_errors(registry, make_layer):
    mw = MetricsMiddleware()
    layer = make_layer(registry, mw, policy=FakePolicy("d", denied=["x"]))
    result = await layer.call_tool("x")
    assert result.is_error
    series = mw.snapshot()["tool:x"]
    assert (series["calls"], series["errors"], series["rejected"]) == (1, 0, 1)


async def test_raised_errors_are_counted_and_propagate(registry, make_layer):
    mw = MetricsMiddleware()
    layer = make_layer(registry, mw, policy=FakePolicy("d", denied=["*"]))
    with pytest.raises(Exception, match="Access denied"):
        await layer.read_resource("cloudg://status")
    series = mw.snapshot()["resource:cloudg://status"]
    assert (series["calls"], series["rejected"]) == (1, 1)


async def test_rate_limits_count_as_rejected(registry, make_layer, counting_policy):
    mw = MetricsMiddleware()
    counting_policy.refuse = RateLimitedError("Too many calls", data={"retry_after": 1.0})
    await make_layer(registry, mw, policy=counting_policy).call_tool("ok")
    series = mw.snapshot()["tool:ok"]
    assert (series["calls"], series["errors"], series["rejected"]) == (1, 0, 1)


# -- latency -------------------------------------------------------------------------------


async def test_avg_p95_and_max_are_computed_over_recorded_durations(registry, monkeypatch):
    # The record's end is read from the clock: hold it still, so a loaded machine's pauses
    # between _info and the record do not add to the durations the statistics are over.
    now = time.monotonic()
    monkeypatch.setattr(call_record, "_monotonic", lambda: now)
    monkeypatch.setattr(time, "monotonic", lambda: now)
    mw = MetricsMiddleware()
    spec = registry.tools["ok"]
    for ms in range(1, 101):
        await _record(mw, spec, float(ms))
    series = mw.snapshot()["tool:ok"]
    assert series["avg_ms"] == pytest.approx(50.5, abs=1)
    assert series["p95_ms"] == pytest.approx(95, abs=1)
    assert series["max_ms"] == pytest.approx(100, abs=1)


async def test_latency_window_holds_the_last_256_calls(registry):
    mw = MetricsMiddleware()
    spec = registry.tools["ok"]
    for _ in range(300 - 256):  # fall out of the window
        await _record(mw, spec, 1_000_000.0)
    await _record(mw, spec, 5_000.0)  # the oldest call still inside the window
    for _ in range(255):
        await _record(mw, spec, 1.0)
    series = mw.snapshot()["tool:ok"]
    assert series["calls"] == 300
    assert series["max_ms"] == pytest.approx(5_000, abs=5)


async def test_calls_keep_counting_past_the_window(registry, make_layer):
    mw = MetricsMiddleware()
    layer = make_layer(registry, mw)
    for _ in range(300):
        await layer.call_tool("ok")
    assert mw.snapshot()["tool:ok"]["calls"] == 300


async def test_last_call_is_the_wall_clock_time_of_the_latest_call(registry, make_layer):
    mw = MetricsMiddleware()
    layer = make_layer(registry, mw)
    before = time.time()
    await layer.call_tool("ok")
    after = time.time()
    assert before <= mw.snapshot()["tool:ok"]["last_call"] <= after


# -- reset and the resource ----------------------------------------------------------------


async def test_reset_forgets_every_series(registry, make_layer):
    mw = MetricsMiddleware()
    layer = make_layer(registry, mw)
    await layer.call_tool("ok")
    mw.reset()
    assert mw.snapshot() == {}
    await layer.call_tool("ok")
    assert mw.snapshot()["tool:ok"]["calls"] == 1


def test_use_adds_the_metrics_resource(registry, make_layer):
    layer = make_layer(registry)
    assert METRICS_URI not in layer.registry.resources
    layer.use(MetricsMiddleware())
    assert METRICS_URI in layer.registry.resources
    assert METRICS_URI in [r["uri"] for r in layer.resources_wire()]


async def test_reading_the_metrics_resource_returns_the_snapshot(registry, make_layer):
    mw = MetricsMiddleware()
    layer = make_layer(registry, mw)
    await layer.call_tool("ok")
    await layer.call_tool("boom")
    (contents,) = await layer.read_resource(METRICS_URI)
    served = json.loads(contents.text)["metrics"]
    assert served["tool:ok"]["calls"] == 1
    assert served["tool:boom"]["errors"] == 1
    assert served == {k: v for k, v in mw.snapshot().items() if k != f"resource:{METRICS_URI}"}


async def test_metrics_resource_is_not_added_twice(registry, make_layer):
    first, second = MetricsMiddleware(), MetricsMiddleware()
    layer = make_layer(registry, first)
    spec = layer.registry.resources[METRICS_URI]
    layer.use(second)  # would raise ValueError on a duplicate add
    assert layer.registry.resources[METRICS_URI] is spec
    assert list(layer.registry.resources).count(METRICS_URI) == 1
