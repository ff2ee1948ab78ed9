"""ConcurrencyLimitMiddleware: bound how many requests run at once.

Contract (layer reference §8): at most ``limit`` requests of the limited ``kinds`` run at
once overall, at most ``per_principal`` per principal; a request that waits longer than
``queue_timeout`` is refused with RateLimitedError ("Server busy ...", code -31029, data with
retry_after, limit, scope); slots are per event loop, so one instance serves several loops.
"""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from cloudg_nb.layer.context import Principal
from cloudg_nb.layer.errors import RateLimitedError
from cloudg_nb.layer.middleware import ConcurrencyLimitMiddleware
from cloudg_nb.layer.registry import Registry

BUSY = RateLimitedError.code  # -31029


class Gauge:
    """Running and peak counts of handlers in flight, overall and per principal."""

    def __init__(self) -> None:
        self.running = 0
        self.peak = 0
        self.by_principal: Counter[str] = Counter()
        self.peak_by_principal: Counter[str] = Counter()

    async def run(self, principal_id: str, seconds: float) -> None:
        self.running += 1
        self.by_principal[principal_id] += 1
        self.peak = max(self.peak, self.running)
        self.peak_by_principal[principal_id] = max(
            self.peak_by_principal[principal_id], self.by_principal[principal_id]
        )
        try:
            await asyncio.sleep(seconds)
        finally:
            self.running -= 1
            self.by_principal[principal_id] -= 1


@pytest.fixture
def gauge() -> Gauge:
    return Gauge()


@pytest.fixture
def held() -> dict[str, asyncio.Event]:
    return {"entered": asyncio.Event(), "release": asyncio.Event()}


@pytest.fixture
def registry(gauge, held) -> Registry:
    reg = Registry()

    @reg.tool
    async def work(ctx) -> dict:
        await gauge.run(ctx.principal.id, 0.02)
        return {"ok": True}

    @reg.tool
    async def hold(ctx) -> dict:
        held["entered"].set()
        await held["release"].wait()
        return {"held": True}

    @reg.tool
    async def fail(ctx) -> dict:
        raise RuntimeError("broken")

    @reg.resource("cloudg://status")
    def status(ctx) -> dict:
        return {"status": "up"}

    return reg


async def _occupy(layer, held, principal=None) -> asyncio.Task:
    """Start a ``hold`` call and wait until its handler holds a slot."""
    task = asyncio.create_task(layer.call_tool("hold", principal=principal))
    await held["entered"].wait()
    return task


# -- limits --------------------------------------------------------------------------------


async def test_at_most_limit_handlers_run_at_once(registry, gauge, make_layer):
    layer = make_layer(registry, ConcurrencyLimitMiddleware(limit=2))
    results = await asyncio.gather(*(layer.call_tool("work") for _ in range(6)))
    assert all(not r.is_error for r in results)
    assert gauge.peak == 2


async def test_per_principal_limit_bounds_each_principal(registry, gauge, make_layer):
    layer = make_layer(registry, ConcurrencyLimitMiddleware(limit=8, per_principal=1))
    alice, bob = Principal("alice"), Principal("bob")
    calls = [layer.call_tool("work", principal=p) for p in (alice, bob) * 3]
    results = await asyncio.gather(*calls)
    assert all(not r.is_error for r in results)
    assert gauge.peak_by_principal == Counter({"alice": 1, "bob": 1})
    assert gauge.peak == 2


async def test_running_counts_requests_in_flight(registry, held, make_layer):
    limiter = ConcurrencyLimitMiddleware(limit=2)
    layer = make_layer(registry, limiter)
    task = await _occupy(layer, held)
    assert limiter.running == 1
    held["release"].set()
    await task
    assert limiter.running == 0


def test_limits_below_one_are_refused():
    with pytest.raises(ValueError):
        ConcurrencyLimitMiddleware(limit=0)
    with pytest.raises(ValueError):
        ConcurrencyLimitMiddleware(limit=2, per_principal=0)


# -- queue timeout -------------------------------------------------------------------------


async def test_waiting_past_queue_timeout_gives_a_server_busy_error(
    registry, held, make_layer
):
    layer = make_layer(registry, ConcurrencyLimitMiddleware(limit=1, queue_timeout=0.01))
    first = await _occupy(layer, held)
    refused = await layer.call_tool("hold")
    held["release"].set()
    assert not (await first).is_error
    assert refused.is_error
    assert refused.error_code == BUSY
    assert refused.text.startswith("Server busy")
    data = refused.meta["cloudg/error_data"]
    assert data["limit"] == 1
    assert data["scope"] == "global"
    assert data["retry_after"] > 0


async def test_per_principal_refusal_names_the_principal_scope(registry, held, make_layer):
    limiter = ConcurrencyLimitMiddleware(limit=8, per_principal=1, queue_timeout=0.01)
    layer = make_layer(registry, limiter)
    alice = Principal("alice")
    first = await _occupy(layer, held, alice)
    refused = await layer.call_tool("work", principal=alice)
    other = await layer.call_tool("work", principal=Principal("bob"))
    held["release"].set()
    await first
    assert refused.error_code == BUSY
    assert refused.meta["cloudg/error_data"]["scope"] == "principal"
    assert refused.meta["cloudg/error_data"]["limit"] == 1
    assert not other.is_error


async def test_refused_request_does_not_keep_a_slot(registry, held, make_layer):
    layer = make_layer(registry, ConcurrencyLimitMiddleware(limit=1, queue_timeout=0.01))
    first = await _occupy(layer, held)
    refused = await layer.call_tool("work")
    held["release"].set()
    await first
    later = await layer.call_tool("work")
    assert refused.is_error
    assert not later.is_error


async def test_failed_handler_releases_its_slot(registry, make_layer):
    layer = make_layer(registry, ConcurrencyLimitMiddleware(limit=1, queue_timeout=0.05))
    failed = await layer.call_tool("fail")
    later = await layer.call_tool("work")
    assert failed.error_code == "handler_error"
    assert not later.is_error


# -- kinds ---------------------------------------------------------------------------------


async def test_resource_reads_are_not_limited_when_only_tools_are(registry, held, make_layer):
    limiter = ConcurrencyLimitMiddleware(limit=1, queue_timeout=0.01, kinds=("tool",))
    layer = make_layer(registry, limiter)
    first = await _occupy(layer, held)
    (contents,) = await layer.read_resource("cloudg://status")
    held["release"].set()
    await first
    assert '"up"' in contents.text


async def test_resource_reads_are_limited_when_their_kind_is_listed(registry, held, make_layer):
    limiter = ConcurrencyLimitMiddleware(limit=1, queue_timeout=0.01, kinds=("tool", "resource"))
    layer = make_layer(registry, limiter)
    first = await _occupy(layer, held)
    try:
        with pytest.raises(RateLimitedError, match=r"^Server busy"):
            await layer.read_resource("cloudg://status")
    finally:
        held["release"].set()
        await first


# -- event loops ---------------------------------------------------------------------------


def test_one_instance_works_across_two_event_loops(registry, gauge, make_layer):
    limiter = ConcurrencyLimitMiddleware(limit=1, queue_timeout=1.0)
    layer = make_layer(registry, limiter)

    async def burst():
        return await asyncio.gather(*(layer.call_tool("work") for _ in range(3)))

    for _ in range(2):
        results = asyncio.run(burst())
        assert [r.is_error for r in results] == [False, False, False]
    assert gauge.peak == 1
