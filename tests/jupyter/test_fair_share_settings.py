"""How the extension's settings make its fair share of tool-call slots (in-process, no server):
``max_concurrency`` in all, ``reserved_concurrency`` kept for Jupyter users (always leaving
assistants one), ``max_concurrency_per_assistant`` running and ``max_waiting_per_assistant``
waiting per assistant; with no overall limit each assistant is still capped."""

from __future__ import annotations

import asyncio

from cloudg_jupyter.app import CloudGExtension

from cloudg_nb.assistants import ASSISTANT_ROLE, is_assistant
from cloudg_nb.layer import CloudGMCPLayer, Principal, Registry
from cloudg_nb.layer.errors import RateLimitedError
from cloudg_nb.layer.middleware import ConcurrencyLimitMiddleware


def limiter(**settings: int) -> ConcurrencyLimitMiddleware:
    made = CloudGExtension(**settings).concurrency_limit(is_assistant)
    assert made is not None
    return made


def test_by_default_half_the_slots_are_kept_for_the_analyst() -> None:
    lim = limiter()
    assert (lim.limit, lim.reserved, lim.guest_limit) == (8, 4, 4)
    assert (lim.per_guest, lim.guest_queue, lim.per_principal) == (2, 2, None)


def test_assistants_are_told_from_jupyter_users_by_their_principals_role() -> None:
    lim = limiter()
    assert lim.is_guest is not None
    assert lim.is_guest(Principal("assistant:claude-code", frozenset({ASSISTANT_ROLE})))
    assert not lim.is_guest(Principal("alice"))
    assert not lim.is_guest(Principal("assistant:alice"))  # an id alone makes no assistant


def test_reserving_every_slot_still_leaves_assistants_one() -> None:
    lim = limiter(max_concurrency=3, reserved_concurrency=10)
    assert (lim.limit, lim.guest_limit) == (3, 1)


def test_with_no_overall_limit_each_assistant_is_still_capped() -> None:
    lim = limiter(max_concurrency=0)
    assert lim.limit is None and lim.per_guest == 2

    async def run() -> list[bool]:
        reg = Registry()

        @reg.tool
        async def nap(ctx) -> dict:
            await asyncio.sleep(0.2)
            return {}

        layer = CloudGMCPLayer(registry=reg, policy="open", middleware=[lim])
        bot, me = Principal("assistant:bot", frozenset({ASSISTANT_ROLE})), Principal("alice")
        calls = [layer.call_tool("nap", principal=bot) for _ in range(6)]
        calls += [layer.call_tool("nap", principal=me) for _ in range(10)]
        results = await asyncio.gather(*calls)
        return [r.error_code == RateLimitedError.code for r in results]

    refused = asyncio.run(run())
    assert refused == [False] * 4 + [True] * 2 + [False] * 10  # 2 run, 2 wait; hers all run


def test_no_limit_and_no_cap_installs_no_limiter() -> None:
    ext = CloudGExtension(max_concurrency=0, max_concurrency_per_assistant=0)
    assert ext.concurrency_limit(is_assistant) is None
