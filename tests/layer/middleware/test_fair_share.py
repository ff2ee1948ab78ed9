"""ConcurrencyLimitMiddleware's fair share between owners and guests (assistants).

Contract: owners (principals ``is_guest`` does not pick) may use every slot and never wait
behind guests; guests together hold at most ``limit - reserved`` slots, each at most
``per_guest`` running and ``guest_queue`` waiting; a guest call beyond that is refused with
``retry_after`` (about one of its calls' duration, within ``guest_retry``): up to
``guest_burst`` refusals at once, then that many per ``retry_after``. Freed slots go to waiting
owners first, then round-robin between waiting principals; a cancelled waiting call gives its
place back.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict

import pytest

from cloudg_nb.layer.context import Principal
from cloudg_nb.layer.errors import RateLimitedError
from cloudg_nb.layer.middleware import ConcurrencyLimitMiddleware
from cloudg_nb.layer.registry import Registry

BUSY = RateLimitedError.code
OWNER = Principal("analyst")
BOT, BOT2, BOT3 = (Principal(f"bot:{n}") for n in ("a", "b", "c"))


def is_bot(principal: Principal) -> bool:
    return principal.id.startswith("bot:")


class Gates:
    """Calls of the ``gate`` tool, by key: which started (in order), and their release."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.entered: defaultdict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self.release: defaultdict[str, asyncio.Event] = defaultdict(asyncio.Event)

    async def wait_started(self, *keys: str) -> None:
        async with asyncio.timeout(5):
            for key in keys:
                await self.entered[key].wait()

    def open(self, *keys: str) -> None:
        for key in keys:
            self.release[key].set()


@pytest.fixture
def gates() -> Gates:
    return Gates()


@pytest.fixture
def registry(gates: Gates) -> Registry:
    reg = Registry()

    @reg.tool
    async def gate(ctx, key: str) -> dict:
        gates.started.append(key)
        gates.entered[key].set()
        await gates.release[key].wait()
        return {"key": key}

    @reg.tool
    async def sleep(ctx, seconds: float) -> dict:
        await asyncio.sleep(seconds)
        return {"slept": seconds}

    return reg


def fair(**options) -> ConcurrencyLimitMiddleware:
    settings = {"limit": 4, "is_guest": is_bot, "reserved": 2, "per_guest": 2,
                "guest_queue": 2, "queue_timeout": 5.0}
    return ConcurrencyLimitMiddleware(**{**settings, **options})


def call(layer, principal: Principal, key: str) -> asyncio.Task:
    return asyncio.create_task(layer.call_tool("gate", {"key": key}, principal=principal))


async def settle() -> None:
    """Let queued tasks reach the middleware (a few loop turns)."""
    for _ in range(5):
        await asyncio.sleep(0)


# -- owners' reserved slots ------------------------------------------------------------------


async def test_owner_call_starts_at_once_while_guests_fill_their_share(
        registry, gates, make_layer):
    layer = make_layer(registry, fair(limit=4, reserved=2))
    bots = [call(layer, bot, f"{bot.id}-{i}") for bot in (BOT, BOT2) for i in (1, 2)]
    await gates.wait_started("bot:a-1", "bot:a-2")  # the guests' two slots are full
    await settle()
    owner = call(layer, OWNER, "owner")
    await gates.wait_started("owner")
    gates.open("owner")
    assert not (await owner).is_error
    gates.open(*(f"{bot.id}-{i}" for bot in (BOT, BOT2) for i in (1, 2)))
    assert not any(r.is_error for r in await asyncio.gather(*bots))


async def test_guests_together_never_hold_the_reserved_slots(registry, gates, make_layer):
    limiter = fair(limit=4, reserved=2, guest_queue=4)
    layer = make_layer(registry, limiter)
    keys = [f"{bot.id}-{i}" for bot in (BOT, BOT2, BOT3) for i in (1, 2)]
    bots = [call(layer, Principal(key.rsplit("-", 1)[0]), key) for key in keys]
    await settle()
    assert len(gates.started) == 2
    assert limiter.running == 2
    gates.open(*keys)
    assert not any(r.is_error for r in await asyncio.gather(*bots))


async def test_owner_may_use_every_slot_when_no_guest_runs(registry, gates, make_layer):
    limiter = fair(limit=4, reserved=2)
    layer = make_layer(registry, limiter)
    owners = [call(layer, OWNER, f"o{i}") for i in range(4)]
    await gates.wait_started("o0", "o1", "o2", "o3")
    assert limiter.running == 4
    gates.open("o0", "o1", "o2", "o3")
    await asyncio.gather(*owners)


def test_reserved_slots_must_leave_guests_one():
    with pytest.raises(ValueError, match="reserved"):
        ConcurrencyLimitMiddleware(limit=4, is_guest=is_bot, reserved=4)


# -- a guest's share -------------------------------------------------------------------------


async def test_guest_holds_at_most_its_running_share(registry, gates, make_layer):
    layer = make_layer(registry, fair(per_guest=2, guest_queue=2))
    bots = [call(layer, BOT, f"b{i}") for i in range(4)]
    await settle()
    assert gates.started == ["b0", "b1"]
    gates.open("b0")
    await gates.wait_started("b2")
    gates.open("b1", "b2", "b3")
    assert not any(r.is_error for r in await asyncio.gather(*bots))


async def test_guest_call_beyond_its_share_is_refused_at_once_with_a_retry_hint(
        registry, gates, make_layer):
    layer = make_layer(registry, fair(per_guest=2, guest_queue=1))
    held = [call(layer, BOT, f"b{i}") for i in range(3)]  # two run, one waits
    await gates.wait_started("b0", "b1")
    started = time.monotonic()
    refused = await layer.call_tool("gate", {"key": "b3"}, principal=BOT)
    waited = time.monotonic() - started
    gates.open("b0", "b1", "b2")
    await asyncio.gather(*held)
    assert refused.error_code == BUSY
    assert refused.text.startswith("Server busy")
    assert "retry" in refused.text.lower()
    data = refused.meta["cloudg/error_data"]
    assert data["scope"] == "principal"
    assert (data["limit"], data["running"], data["waiting"]) == (2, 2, 1)
    assert 1.0 <= data["retry_after"] <= 10.0
    assert waited < 0.5  # refused, not queued: the held calls were still running
    assert "b3" not in gates.started


async def test_guest_with_no_waiting_places_is_refused_when_other_guests_fill_the_pool(
        registry, gates, make_layer):
    layer = make_layer(registry, fair(limit=3, reserved=1, per_guest=2, guest_queue=0))
    held = [call(layer, BOT, f"a{i}") for i in range(2)]
    await gates.wait_started("a0", "a1")
    refused = await layer.call_tool("gate", {"key": "b"}, principal=BOT2)
    gates.open("a0", "a1")
    await asyncio.gather(*held)
    assert refused.error_code == BUSY
    assert refused.meta["cloudg/error_data"]["scope"] == "guests"


async def test_retry_hint_follows_how_long_the_guests_calls_take(registry, make_layer):
    layer = make_layer(registry, fair(per_guest=1, guest_queue=0, guest_retry=(0.05, 10.0)))
    assert not (await layer.call_tool("sleep", {"seconds": 0.3}, principal=BOT)).is_error
    running = asyncio.create_task(layer.call_tool("sleep", {"seconds": 0.3}, principal=BOT))
    await settle()
    refused = await layer.call_tool("sleep", {"seconds": 0.3}, principal=BOT)
    await running
    assert 0.25 <= refused.meta["cloudg/error_data"]["retry_after"] <= 0.6


async def test_refusals_come_at_once_up_to_a_burst(registry, gates, make_layer):
    layer = make_layer(registry, fair(per_guest=1, guest_queue=0, guest_burst=5,
                                      guest_retry=(10.0, 10.0)))
    held = call(layer, BOT, "held")
    await gates.wait_started("held")
    started = time.monotonic()
    refused = await asyncio.gather(*(layer.call_tool("gate", {"key": f"x{i}"}, principal=BOT)
                                     for i in range(5)))
    waited = time.monotonic() - started
    gates.open("held")
    await held
    assert all(r.error_code == BUSY for r in refused)
    assert waited < 1.0  # at once: none held for the 10 s hint


async def test_refusals_past_the_burst_come_at_burst_per_retry_hint(
        registry, gates, make_layer):
    layer = make_layer(registry, fair(per_guest=1, guest_queue=0, guest_burst=2,
                                      guest_retry=(0.4, 0.4)))
    held = call(layer, BOT, "held")
    await gates.wait_started("held")
    answered: list[float] = []
    started = time.monotonic()
    for i in range(6):  # a client retrying at once, ignoring the hint
        result = await layer.call_tool("gate", {"key": f"x{i}"}, principal=BOT)
        assert result.error_code == BUSY
        answered.append(time.monotonic() - started)
    gates.open("held")
    await held
    assert answered[1] < 0.15  # the burst: at once
    # then two refusals per 0.4 s: the 6th is due 4 x 0.2 s after the burst
    assert answered[5] >= 0.7


async def test_a_held_refusal_waits_no_longer_than_the_longest_hint(
        registry, gates, make_layer):
    layer = make_layer(registry, fair(per_guest=1, guest_queue=0, guest_burst=1,
                                      guest_retry=(0.2, 0.2)))
    held = call(layer, BOT, "held")
    await gates.wait_started("held")
    started = time.monotonic()
    refused = await asyncio.gather(*(layer.call_tool("gate", {"key": f"x{i}"}, principal=BOT)
                                     for i in range(10)))
    waited = time.monotonic() - started
    gates.open("held")
    await held
    assert all(r.error_code == BUSY for r in refused)
    assert waited < 1.0  # not 9 turns of 0.2 s: the longest hold is the hint's bound


async def test_a_held_call_that_finds_room_by_its_turn_runs(registry, gates, make_layer):
    layer = make_layer(registry, fair(per_guest=1, guest_queue=0, guest_burst=1,
                                      guest_retry=(0.3, 0.3)))
    held = call(layer, BOT, "held")
    await gates.wait_started("held")
    assert (await layer.call_tool("gate", {"key": "x"}, principal=BOT)).error_code == BUSY
    retry = call(layer, BOT, "retry")  # past the burst: held until its turn
    await settle()
    gates.open("held")  # room before its turn comes
    await held
    await gates.wait_started("retry")
    gates.open("retry")
    assert not (await retry).is_error


async def test_owners_are_never_refused_at_once(registry, gates, make_layer):
    layer = make_layer(registry, fair(limit=2, reserved=1, per_principal=1))
    first = call(layer, OWNER, "o1")
    await gates.wait_started("o1")
    second = call(layer, OWNER, "o2")  # over the owner's own cap: waits, never refused
    await settle()
    assert gates.started == ["o1"]
    gates.open("o1", "o2")
    assert not any(r.is_error for r in await asyncio.gather(first, second))


# -- fair queueing -------------------------------------------------------------------------


async def test_a_freed_slot_goes_to_a_waiting_owner_before_waiting_guests(
        registry, gates, make_layer):
    layer = make_layer(registry, fair(limit=2, reserved=1, per_guest=2, guest_queue=2))
    owner_running = call(layer, OWNER, "o1")
    bot_running = call(layer, BOT, "b1")
    await gates.wait_started("o1", "b1")
    bot_waiting = call(layer, BOT2, "b2")
    await settle()
    owner_waiting = call(layer, OWNER, "o2")
    await settle()
    gates.open("b1")  # a guest's slot frees: the owner, who came later, gets it
    await gates.wait_started("o2")
    assert gates.started[-1] == "o2"
    gates.open("o1", "o2", "b2")
    await asyncio.gather(owner_running, bot_running, bot_waiting, owner_waiting)
    assert gates.started.index("o2") < gates.started.index("b2")


async def test_waiting_guests_are_served_round_robin(registry, gates, make_layer):
    layer = make_layer(registry, fair(limit=2, reserved=1, per_guest=3, guest_queue=3))
    blocker = call(layer, BOT3, "block")
    await gates.wait_started("block")
    waiting = [call(layer, BOT, f"a{i}") for i in (1, 2, 3)]
    await settle()
    waiting += [call(layer, BOT2, f"b{i}") for i in (1, 2)]
    await settle()
    order = ["a1", "b1", "a2", "b2", "a3"]
    gates.open("block", *order)
    await asyncio.gather(blocker, *waiting)
    assert gates.started[1:] == order


async def test_waiting_owners_are_served_round_robin_between_principals(
        registry, gates, make_layer):
    layer = make_layer(registry, ConcurrencyLimitMiddleware(limit=1, queue_timeout=5.0))
    alice, bob = Principal("alice"), Principal("bob")
    blocker = call(layer, alice, "block")
    await gates.wait_started("block")
    waiting = [call(layer, alice, f"a{i}") for i in (1, 2, 3)]
    await settle()
    waiting += [call(layer, bob, f"b{i}") for i in (1, 2)]
    await settle()
    gates.open("block", "a1", "a2", "a3", "b1", "b2")
    await asyncio.gather(blocker, *waiting)
    assert gates.started[1:] == ["a1", "b1", "a2", "b2", "a3"]


# -- cancelled waiting calls ---------------------------------------------------------------


async def test_a_cancelled_waiting_call_gives_its_place_back(registry, gates, make_layer):
    limiter = fair(per_guest=1, guest_queue=1)
    layer = make_layer(registry, limiter)
    running = call(layer, BOT, "run")
    await gates.wait_started("run")
    waiting = call(layer, BOT, "cancelled")
    await settle()
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    again = call(layer, BOT, "again")  # the waiting place is free again: queued, not refused
    await settle()
    gates.open("run")
    await gates.wait_started("again")
    gates.open("again")
    assert not (await again).is_error
    await running
    assert "cancelled" not in gates.started
    assert limiter.running == 0


class CancelWhenRunEnds:
    """Middleware that cancels ``target`` when the ``run`` call comes back through it: put
    outside the limiter, just after the limiter handed the freed slot over; inside, just
    before the limiter hands it over (the waiter's task has run neither time)."""

    def __init__(self) -> None:
        self.target: asyncio.Task | None = None

    async def __call__(self, info, call_next):
        result = await call_next(info)
        if info.arguments.get("key") == "run" and self.target is not None:
            self.target.cancel()
        return result


async def test_a_waiter_cancelled_as_its_slot_is_handed_over_passes_the_slot_on(
        registry, gates, make_layer):
    limiter = fair(limit=2, reserved=1, per_guest=1, guest_queue=1)
    canceller = CancelWhenRunEnds()
    layer = make_layer(registry, canceller, limiter)
    running = call(layer, BOT, "run")
    await gates.wait_started("run")
    canceller.target = waiting = call(layer, BOT, "unlucky")
    await settle()
    gates.open("run")
    assert not (await running).is_error
    with pytest.raises(asyncio.CancelledError):
        await waiting
    later = call(layer, BOT, "later")
    await gates.wait_started("later")  # the slot was passed on, not lost
    gates.open("later")
    assert not (await later).is_error
    assert "unlucky" not in gates.started
    assert limiter.running == 0


async def test_a_slot_freed_just_as_its_waiter_is_cancelled_stays_free(
        registry, gates, make_layer):
    limiter = fair(limit=2, reserved=1, per_guest=1, guest_queue=1)
    canceller = CancelWhenRunEnds()
    layer = make_layer(registry, limiter, canceller)
    running = call(layer, BOT, "run")
    await gates.wait_started("run")
    canceller.target = waiting = call(layer, BOT, "unlucky")
    await settle()
    gates.open("run")
    assert not (await running).is_error
    with pytest.raises(asyncio.CancelledError):
        await waiting
    later = call(layer, BOT, "later")
    await gates.wait_started("later")
    gates.open("later")
    assert not (await later).is_error
    assert "unlucky" not in gates.started
    assert limiter.running == 0


async def test_a_guest_waiting_past_the_queue_timeout_is_refused(registry, gates, make_layer):
    layer = make_layer(registry, fair(limit=2, reserved=1, per_guest=1, guest_queue=1,
                                      queue_timeout=0.05))
    running = call(layer, BOT, "run")
    await gates.wait_started("run")
    refused = await layer.call_tool("gate", {"key": "late"}, principal=BOT)
    gates.open("run")
    await running
    assert refused.error_code == BUSY
    assert refused.meta["cloudg/error_data"]["scope"] == "principal"
