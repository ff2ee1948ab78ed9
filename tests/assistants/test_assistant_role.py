"""Whether a principal is an assistant is its role's to say, never its id's: a principal with
the ``assistant`` role is governed as one (policy profile, owner-only tools hidden, its own
activity only, a guest's fair share) whatever its id; an id that merely looks like
``assistant:NAME`` makes nobody an assistant. Ids stay ``assistant:NAME`` for people to read."""

from __future__ import annotations

import asyncio
import json
import threading

from cloudg_nb import Principal, ToolSpec
from cloudg_nb.assembly import build_layer
from cloudg_nb.assistants import (
    ASSISTANT_PREFIX,
    ASSISTANT_ROLE,
    AssistantRecord,
    assistant_id,
    assistant_principal,
    is_assistant,
)
from cloudg_nb.catalog import default_registry
from cloudg_nb.layer.workers import HEAVY, WorkerPool
from cloudg_nb.oversight import ACTIVITY_URI, ActivityLog, ActivityMiddleware, ApprovalDesk
from cloudg_nb.oversight.catalog import register
from cloudg_nb.policy import Policy
from cloudg_nb.policy.router import OWNER_ONLY, PolicyRouter

#: An assistant whose id does not say so.
HELPER = Principal("helper-7", frozenset({ASSISTANT_ROLE}))
#: A user whose id looks like an assistant's.
LOOKALIKE = Principal(f"{ASSISTANT_PREFIX}alice", frozenset({"default"}))
ANALYST = Principal("alice")


def test_the_assistant_role_makes_an_assistant_whatever_the_id() -> None:
    assert is_assistant(HELPER)
    assert not is_assistant(LOOKALIKE)
    assert not is_assistant(ANALYST)


def test_a_minted_credentials_principal_has_the_role_and_the_readable_id() -> None:
    record = AssistantRecord(name="cursor", client="cursor", profile="", token_sha256="0" * 64,
                             hint="cgat_AbCd...", created="2025-01-01T00:00:00Z")
    principal = assistant_principal(record)
    assert principal.id == assistant_id("cursor") == "assistant:cursor"
    assert is_assistant(principal)


def test_the_policy_router_governs_by_role() -> None:
    router = PolicyRouter(Policy.load("open"))
    owner_only = ToolSpec(name="decide_approval", handler=lambda ctx: {}, tags={OWNER_ONLY})
    assert router.policy_for(HELPER).name == "assistant"
    assert not router.is_allowed(owner_only, HELPER)
    assert router.policy_for(LOOKALIKE).name == "open"
    assert router.is_allowed(owner_only, LOOKALIKE)


async def test_the_activity_feed_shows_a_role_assistant_only_its_own_entries() -> None:
    log = ActivityLog()
    layer = build_layer(policy="standard",
                        registry=register(default_registry(), activity=log, desk=ApprovalDesk()))
    layer.policy = PolicyRouter(layer.policy)  # type: ignore[arg-type]
    layer.middleware.insert(0, ActivityMiddleware(log, is_assistant))
    log.attach(layer)
    for who in (ANALYST, LOOKALIKE, HELPER):
        await layer.call_tool("list_datasets", {}, principal=who)
    entries = {e.principal: e.assistant for e in log.entries()}
    assert entries == {"alice": False, "assistant:alice": False, "helper-7": True}
    mine = json.loads((await layer.read_resource(ACTIVITY_URI, principal=HELPER))[0].text)
    theirs = json.loads((await layer.read_resource(ACTIVITY_URI, principal=LOOKALIKE))[0].text)
    assert [e["principal"] for e in mine["entries"]] == ["helper-7"]
    assert len(theirs["entries"]) == 3


async def test_worker_threads_kept_for_owners_are_kept_from_a_role_assistant() -> None:
    pool = WorkerPool(light_workers=1, heavy_workers=2, per_owner=2, is_guest=is_assistant)
    release, busy = threading.Event(), threading.Semaphore(0)

    def block() -> None:
        busy.release()
        release.wait(5)

    held = [asyncio.ensure_future(pool.run(HEAVY, HELPER, block)) for _ in range(2)]
    assert await asyncio.to_thread(busy.acquire, True, 5)
    await asyncio.sleep(0.05)
    assert pool.stats()[HEAVY].running == {"helper-7": 1}  # the other thread is kept
    assert await asyncio.wait_for(pool.run(HEAVY, LOOKALIKE, lambda: "ran"), 2) == "ran"
    release.set()
    await asyncio.gather(*held)
