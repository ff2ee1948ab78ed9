"""The worker pool for sync handlers: daemon threads of the layer's own, two lanes, and
per-caller fairness, so one caller's slow work never takes every worker and cheap reads never
queue behind heavy work. Threads never block interpreter exit."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from cloudg_nb.layer import Principal, Registry, ResourceSpec, ToolSpec
from cloudg_nb.layer.workers import HEAVY, LIGHT, WorkerPool
from tests.layer.fakes import core_layer


async def _started(event: threading.Event, timeout: float = 5.0) -> None:
    assert await asyncio.to_thread(event.wait, timeout)


async def test_sync_handlers_run_in_the_layers_own_daemon_threads() -> None:
    seen: dict[str, object] = {}

    def where(ctx) -> dict:
        thread = threading.current_thread()
        seen.update(name=thread.name, daemon=thread.daemon)
        return {}

    reg = Registry()
    reg.add(ToolSpec(name="where", handler=where))
    await core_layer(reg).call_tool("where")
    assert str(seen["name"]).startswith("cloudg-light-")
    assert seen["daemon"] is True


async def test_one_owner_holds_at_most_its_share_of_a_lane() -> None:
    pool = WorkerPool(light_workers=1, heavy_workers=2, per_owner=1)
    release = threading.Event()
    a_running = threading.Event()
    b_ran = threading.Event()

    def block() -> None:
        a_running.set()
        release.wait(5)

    first = asyncio.ensure_future(pool.run(HEAVY, Principal("a"), block))
    second = asyncio.ensure_future(pool.run(HEAVY, Principal("a"), block))
    await _started(a_running)
    # the lane's other thread, though "a" queued first
    await pool.run(HEAVY, Principal("b"), b_ran.set)
    assert b_ran.is_set()
    deadline = time.monotonic() + 5  # "b"'s thread books its end just after answering
    while pool.stats()[HEAVY].running != {"a": 1} and time.monotonic() < deadline:
        await asyncio.sleep(0.005)
    assert pool.stats()[HEAVY].running == {"a": 1}
    assert pool.stats()[HEAVY].queued == {"a": 1}
    release.set()
    await asyncio.gather(first, second)


async def test_queued_jobs_are_served_round_robin_across_owners() -> None:
    pool = WorkerPool(light_workers=1, heavy_workers=1)
    release = threading.Event()
    running = threading.Event()
    order: list[str] = []

    def block() -> None:
        running.set()
        release.wait(5)

    blocker = asyncio.ensure_future(pool.run(HEAVY, Principal("x"), block))
    await _started(running)
    jobs = [asyncio.ensure_future(pool.run(HEAVY, Principal(owner), order.append, f"{owner}{i}"))
            for owner, i in (("a", 1), ("a", 2), ("a", 3), ("b", 1), ("b", 2))]
    await asyncio.sleep(0.05)
    release.set()
    await asyncio.gather(blocker, *jobs)
    assert order == ["a1", "b1", "a2", "b2", "a3"]


async def test_light_lane_answers_while_the_heavy_lane_is_full() -> None:
    pool = WorkerPool(light_workers=1, heavy_workers=2, per_owner=2)
    release = threading.Event()
    busy = threading.Semaphore(0)

    def block() -> None:
        busy.release()
        release.wait(5)

    heavy = [asyncio.ensure_future(pool.run(HEAVY, Principal("a"), block)) for _ in range(3)]
    for _ in range(2):  # both heavy threads are busy, one job queued
        assert await asyncio.to_thread(busy.acquire, True, 5)
    started = time.monotonic()
    assert await pool.run(LIGHT, Principal("a"), lambda: "cheap") == "cheap"
    assert time.monotonic() - started < 2
    release.set()
    await asyncio.gather(*heavy)


async def test_a_call_cancelled_while_queued_never_runs() -> None:
    pool = WorkerPool(light_workers=1, heavy_workers=1)
    release = threading.Event()
    running = threading.Event()
    ran: list[str] = []

    def block() -> None:
        running.set()
        release.wait(5)

    blocker = asyncio.ensure_future(pool.run(HEAVY, Principal("a"), block))
    await _started(running)
    queued = asyncio.ensure_future(pool.run(HEAVY, Principal("a"), ran.append, "queued"))
    await asyncio.sleep(0.02)
    queued.cancel()
    with pytest.raises(asyncio.CancelledError):
        await queued
    assert pool.stats()[HEAVY].queued == {}
    release.set()
    await blocker
    await pool.run(HEAVY, Principal("a"), ran.append, "after")
    assert ran == ["after"]


async def test_handler_exceptions_reach_the_caller() -> None:
    pool = WorkerPool()

    def fail() -> None:
        raise KeyError("missing")

    with pytest.raises(KeyError):
        await pool.run(LIGHT, Principal("a"), fail)


async def test_idle_threads_exit() -> None:
    pool = WorkerPool(idle_seconds=0.05)
    await pool.run(LIGHT, Principal("a"), lambda: None)
    deadline = time.monotonic() + 5
    while pool.stats()[LIGHT].threads and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert pool.stats()[LIGHT].threads == 0
    assert await pool.run(LIGHT, Principal("a"), lambda: 7) == 7  # a new thread starts on demand


def test_lane_sizes_must_be_positive() -> None:
    with pytest.raises(ValueError, match="heavy_workers"):
        WorkerPool(heavy_workers=0)


def test_layer_takes_its_lane_sizes_and_share_per_caller() -> None:
    reg = Registry()
    layer = core_layer(reg, light_workers=3, heavy_workers=5, workers_per_caller=2)
    stats = layer.workers.stats()
    assert (stats[LIGHT].size, stats[HEAVY].size) == (3, 5)
    assert (stats[LIGHT].per_owner, stats[HEAVY].per_owner) == (2, 2)


async def test_each_principal_gets_its_own_share() -> None:
    release = threading.Event()
    running = threading.Semaphore(0)

    def block(ctx) -> dict:
        running.release()
        release.wait(5)
        return {}

    reg = Registry()
    reg.add(ToolSpec(name="block", handler=block, category="graph"))
    reg.add(ToolSpec(name="quick", handler=lambda ctx: {"ok": True}, category="graph"))
    layer = core_layer(reg, heavy_workers=3, workers_per_caller=2)
    alice, bob = Principal("alice"), Principal("bob")
    busy = [asyncio.ensure_future(layer.call_tool("block", principal=alice)) for _ in range(2)]
    for _ in range(2):
        assert await asyncio.to_thread(running.acquire, True, 5)
    result = await asyncio.wait_for(layer.call_tool("quick", principal=bob), 5)
    assert result.structured == {"ok": True}
    release.set()
    await asyncio.gather(*busy)


def test_a_stuck_handler_never_blocks_interpreter_exit() -> None:
    code = textwrap.dedent("""
        import asyncio, threading, time
        from cloudg_nb.layer import Registry, ToolSpec
        from tests.layer.fakes import core_layer
        started = threading.Event()
        def stuck(ctx) -> dict:
            started.set()
            time.sleep(3600)
            return {}
        reg = Registry()
        reg.add(ToolSpec(name="stuck", handler=stuck))
        layer = core_layer(reg)
        async def main():
            task = asyncio.ensure_future(layer.call_tool("stuck"))
            await asyncio.to_thread(started.wait, 10)
            task.cancel()
        asyncio.run(main())
        print("main done", flush=True)
    """)
    started = time.monotonic()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, cwd=Path(__file__).resolve().parents[2])
    assert out.returncode == 0, out.stderr
    assert "main done" in out.stdout
    assert time.monotonic() - started < 30  # not the handler's hour


def test_specs_pick_a_lane_by_kind_and_category() -> None:
    def fn(ctx) -> dict:
        return {}

    assert ToolSpec(name="t", handler=fn).worker_lane == LIGHT
    assert ToolSpec(name="g", handler=fn, category="graph").worker_lane == HEAVY
    assert ToolSpec(name="l", handler=fn, capabilities={"read_fs"}).worker_lane == HEAVY
    assert ToolSpec(name="h", handler=fn, lane="heavy").worker_lane == HEAVY
    assert ToolSpec(name="c", handler=fn, category="graph", lane="light").worker_lane == LIGHT
    assert ResourceSpec(name="r", uri="x://r", handler=fn).worker_lane == LIGHT


def test_an_unknown_lane_is_refused() -> None:
    with pytest.raises(ValueError, match="lane"):
        ToolSpec(name="t", handler=lambda ctx: {}, lane="fast")


async def test_heavy_lane_returns_freed_memory_when_it_falls_idle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from cloudg_nb.layer import workers

    trims: list[int] = []
    monkeypatch.setattr(workers, "_TRIM", trims.append)
    monkeypatch.setattr(workers, "TRIM_INTERVAL", 0.0)
    pool = WorkerPool(light_workers=1, heavy_workers=2, per_owner=2)
    release = threading.Event()
    running = threading.Event()

    def block() -> None:
        running.set()
        release.wait(5)

    slow = asyncio.ensure_future(pool.run(HEAVY, Principal("a"), block))
    await _started(running)
    await pool.run(HEAVY, Principal("a"), lambda: None)  # ends while the slow job still runs
    await asyncio.sleep(0.05)
    assert trims == []  # never while heavy work is in flight
    release.set()
    await slow
    deadline = time.monotonic() + 5
    while not trims and time.monotonic() < deadline:
        await asyncio.sleep(0.005)
    assert trims == [0]
    await pool.run(LIGHT, Principal("a"), lambda: None)
    await asyncio.sleep(0.05)
    assert trims == [0]  # the light lane's small jobs never trim


# -- threads kept for owners (guests: assistants) ----------------------------------------------


def _is_bot(principal: Principal) -> bool:
    return principal.id.startswith("bot:")


async def test_guests_never_hold_the_threads_kept_for_owners() -> None:
    pool = WorkerPool(light_workers=1, heavy_workers=2, per_owner=2, is_guest=_is_bot)
    release = threading.Event()
    busy = threading.Semaphore(0)

    def block() -> None:
        busy.release()
        release.wait(5)

    bots = [asyncio.ensure_future(pool.run(HEAVY, Principal(owner), block))
            for owner in ("bot:a", "bot:a", "bot:b")]
    assert await asyncio.to_thread(busy.acquire, True, 5)
    await asyncio.sleep(0.05)
    assert sum(pool.stats()[HEAVY].running.values()) == 1  # one of two threads: the other kept
    started = time.monotonic()
    assert await pool.run(HEAVY, Principal("analyst"), lambda: "answered") == "answered"
    assert time.monotonic() - started < 2  # the kept thread, not behind the guests' work
    release.set()
    await asyncio.gather(*bots)


async def test_queued_owner_jobs_go_before_queued_guest_jobs() -> None:
    pool = WorkerPool(light_workers=1, heavy_workers=2, per_owner=2, is_guest=_is_bot)
    release = threading.Event()
    busy = threading.Semaphore(0)
    order: list[str] = []

    def block() -> None:
        busy.release()
        release.wait(5)

    blockers = [asyncio.ensure_future(pool.run(HEAVY, Principal("analyst"), block))
                for _ in range(2)]
    for _ in range(2):
        assert await asyncio.to_thread(busy.acquire, True, 5)
    guest = asyncio.ensure_future(pool.run(HEAVY, Principal("bot:a"), order.append, "bot"))
    await asyncio.sleep(0.02)
    owner = asyncio.ensure_future(pool.run(HEAVY, Principal("colleague"), order.append, "owner"))
    await asyncio.sleep(0.02)
    release.set()
    await asyncio.gather(*blockers, guest, owner)
    assert order == ["owner", "bot"]


def test_half_of_each_lane_is_kept_for_owners_by_default_never_all_of_it() -> None:
    lanes = WorkerPool(light_workers=4, heavy_workers=2, is_guest=_is_bot).stats()
    assert (lanes[LIGHT].reserved, lanes[HEAVY].reserved) == (2, 1)
    single = WorkerPool(light_workers=1, heavy_workers=1, is_guest=_is_bot,
                        reserved=3).stats()
    assert (single[LIGHT].reserved, single[HEAVY].reserved) == (0, 0)


def test_without_guests_no_thread_is_kept() -> None:
    lanes = WorkerPool(light_workers=4, heavy_workers=2).stats()
    assert (lanes[LIGHT].reserved, lanes[HEAVY].reserved) == (0, 0)


async def test_layer_keeps_threads_from_the_guests_it_is_given() -> None:
    release = threading.Event()
    running = threading.Semaphore(0)

    def block(ctx) -> dict:
        running.release()
        release.wait(5)
        return {}

    reg = Registry()
    reg.add(ToolSpec(name="block", handler=block, category="graph"))
    reg.add(ToolSpec(name="quick", handler=lambda ctx: {"ok": True}, category="graph"))
    layer = core_layer(reg, heavy_workers=2, workers_per_caller=2, is_guest=_is_bot)
    bots = [asyncio.ensure_future(layer.call_tool("block", principal=Principal(f"bot:{n}")))
            for n in "ab"]
    assert await asyncio.to_thread(running.acquire, True, 5)
    await asyncio.sleep(0.05)
    assert not running.acquire(blocking=False)  # the second bot waits: one thread is kept
    result = await asyncio.wait_for(layer.call_tool("quick", principal=Principal("me")), 5)
    assert result.structured == {"ok": True}
    release.set()
    await asyncio.gather(*bots)
