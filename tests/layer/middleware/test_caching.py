"""CachingMiddleware: reuse results of read-only, idempotent tool calls.

Contract (layer reference §8): key = (principal id, sorted roles, kind, name, canonical
arguments); a hit still runs ``policy.check_call`` and returns a deep copy marked
``cloudg/cache: "hit"``; errors are not stored; a call to a non-read-only tool clears the
cache, as does every change event once attached to a layer; entries expire after ``ttl`` and
the least recently used goes past ``maxsize``; completions are never cached; resources only
with ``cache_resources=True``; ``predicate`` overrides the default choice for tools.
"""

from __future__ import annotations

import asyncio

import pytest

from cloudg_nb.layer.context import Principal
from cloudg_nb.layer.errors import AccessDeniedError, RateLimitedError
from cloudg_nb.layer.middleware import CachingMiddleware
from cloudg_nb.layer.registry import Registry
from cloudg_nb.layer.specs import PromptArgument


class Runs:
    """How many times each handler ran."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def __call__(self, name: str) -> int:
        self.counts[name] = self.counts.get(name, 0) + 1
        return self.counts[name]

    def __getitem__(self, name: str) -> int:
        return self.counts.get(name, 0)


@pytest.fixture
def runs() -> Runs:
    return Runs()


@pytest.fixture
def registry(runs) -> Registry:
    reg = Registry()

    @reg.tool
    def lookup(ctx, ref: str = "a") -> dict:
        return {"ref": ref, "run": runs("lookup"), "items": [1, 2]}

    @reg.tool(capabilities={"write_state"})
    def save(ctx) -> dict:
        runs("save")
        return {"saved": True}

    @reg.tool(capabilities={"cloud_access"})
    def fetch_live(ctx) -> dict:
        return {"run": runs("fetch_live")}

    @reg.tool
    def flaky(ctx) -> dict:
        if runs("flaky") == 1:
            raise RuntimeError("transient")
        return {"ok": True}

    @reg.resource("cloudg://status")
    def status(ctx) -> dict:
        return {"run": runs("status")}

    def complete_topic(ctx, partial: str) -> list[str]:
        runs("complete")
        return ["network", "identity"]

    @reg.prompt(arguments=[PromptArgument("topic", completion=complete_topic)])
    def brief(ctx, topic: str = "") -> str:
        return "Brief me"

    return reg


ALICE = Principal("alice", frozenset({"analyst"}))


# -- hits ----------------------------------------------------------------------------------


async def test_identical_read_only_calls_run_the_handler_once(registry, runs, make_layer):
    layer = make_layer(registry, CachingMiddleware())
    first = await layer.call_tool("lookup", {"ref": "r1"})
    second = await layer.call_tool("lookup", {"ref": "r1"})
    assert runs["lookup"] == 1
    assert second.structured == first.structured


async def test_hit_is_marked_cache_hit_and_miss_is_not(registry, make_layer):
    layer = make_layer(registry, CachingMiddleware())
    first = await layer.call_tool("lookup")
    second = await layer.call_tool("lookup")
    assert "cloudg/cache" not in first.meta
    assert second.meta["cloudg/cache"] == "hit"


async def test_argument_order_does_not_change_the_key(make_layer, runs):
    reg = Registry()

    @reg.tool
    def pair(ctx, a: int = 0, b: int = 0) -> dict:
        return {"run": runs("pair")}

    layer = make_layer(reg, CachingMiddleware())
    await layer.call_tool("pair", {"a": 1, "b": 2})
    await layer.call_tool("pair", {"b": 2, "a": 1})
    assert runs["pair"] == 1


async def test_mutating_a_hit_does_not_change_the_next_hit(registry, make_layer):
    layer = make_layer(registry, CachingMiddleware())
    await layer.call_tool("lookup")
    hit = await layer.call_tool("lookup")
    hit.structured["items"].append(99)
    hit.content.clear()
    hit.meta["cloudg/extra"] = True
    again = await layer.call_tool("lookup")
    assert again.structured["items"] == [1, 2]
    assert again.content and "cloudg/extra" not in again.meta


async def test_mutating_the_first_result_does_not_change_the_cached_copy(registry, make_layer):
    layer = make_layer(registry, CachingMiddleware())
    first = await layer.call_tool("lookup")
    first.structured["items"].append(99)
    hit = await layer.call_tool("lookup")
    assert hit.structured["items"] == [1, 2]


async def test_different_arguments_use_different_entries(registry, runs, make_layer):
    layer = make_layer(registry, CachingMiddleware())
    await layer.call_tool("lookup", {"ref": "r1"})
    other = await layer.call_tool("lookup", {"ref": "r2"})
    assert runs["lookup"] == 2
    assert other.structured["ref"] == "r2"
    assert "cloudg/cache" not in other.meta


async def test_different_principals_use_different_entries(registry, runs, make_layer):
    layer = make_layer(registry, CachingMiddleware())
    await layer.call_tool("lookup", principal=ALICE)
    await layer.call_tool("lookup", principal=Principal("bob", frozenset({"analyst"})))
    assert runs["lookup"] == 2


async def test_same_principal_with_different_roles_uses_different_entries(
    registry, runs, make_layer
):
    layer = make_layer(registry, CachingMiddleware())
    await layer.call_tool("lookup", principal=ALICE)
    await layer.call_tool("lookup", principal=Principal("alice", frozenset({"admin"})))
    assert runs["lookup"] == 2


async def test_hit_still_runs_the_policy_check(registry, runs, make_layer, counting_policy):
    layer = make_layer(registry, CachingMiddleware(), policy=counting_policy)
    await layer.call_tool("lookup")
    await layer.call_tool("lookup")
    assert runs["lookup"] == 1
    assert len(counting_policy.checks) == 2


async def test_hit_is_refused_when_the_policy_now_denies(
    registry, runs, make_layer, counting_policy
):
    layer = make_layer(registry, CachingMiddleware(), policy=counting_policy)
    await layer.call_tool("lookup")
    counting_policy.refuse = AccessDeniedError("Access denied by policy 'counting'")
    refused = await layer.call_tool("lookup")
    assert refused.is_error
    assert refused.error_code == AccessDeniedError.code
    assert "cloudg/cache" not in refused.meta
    assert runs["lookup"] == 1


async def test_hit_is_refused_when_the_rate_limit_is_spent(
    registry, make_layer, counting_policy
):
    layer = make_layer(registry, CachingMiddleware(), policy=counting_policy)
    await layer.call_tool("lookup")
    counting_policy.refuse = RateLimitedError("Too many calls", data={"retry_after": 2.0})
    refused = await layer.call_tool("lookup")
    assert refused.is_error
    assert refused.error_code == RateLimitedError.code


# -- what is not stored --------------------------------------------------------------------


async def test_error_results_are_not_stored(registry, runs, make_layer):
    layer = make_layer(registry, CachingMiddleware())
    failed = await layer.call_tool("flaky")
    ok = await layer.call_tool("flaky")
    hit = await layer.call_tool("flaky")
    assert failed.is_error and not ok.is_error
    assert "cloudg/cache" not in ok.meta
    assert hit.meta["cloudg/cache"] == "hit"
    assert runs["flaky"] == 2


async def test_write_tools_are_never_cached(registry, runs, make_layer):
    layer = make_layer(registry, CachingMiddleware())
    await layer.call_tool("save")
    await layer.call_tool("save")
    assert runs["save"] == 2


async def test_read_only_but_not_idempotent_tools_are_not_cached(registry, runs, make_layer):
    layer = make_layer(registry, CachingMiddleware())
    await layer.call_tool("fetch_live")
    await layer.call_tool("fetch_live")
    assert runs["fetch_live"] == 2


async def test_completions_are_never_cached(registry, runs, make_layer):
    layer = make_layer(registry, CachingMiddleware(predicate=lambda info: True))
    ref, arg = {"type": "ref/prompt", "name": "brief"}, {"name": "topic", "value": "n"}
    await layer.complete(ref, arg)
    await layer.complete(ref, arg)
    assert runs["complete"] == 2


async def test_resources_are_not_cached_by_default(registry, runs, make_layer):
    layer = make_layer(registry, CachingMiddleware())
    await layer.read_resource("cloudg://status")
    await layer.read_resource("cloudg://status")
    assert runs["status"] == 2


async def test_resources_are_cached_with_cache_resources(registry, runs, make_layer):
    layer = make_layer(registry, CachingMiddleware(cache_resources=True))
    await layer.read_resource("cloudg://status")
    (hit,) = await layer.read_resource("cloudg://status")
    assert runs["status"] == 1
    assert hit.meta["cloudg/cache"] == "hit"


async def test_blob_resource_hits_are_marked_too(runs, make_layer):
    reg = Registry()

    @reg.resource("cloudg://logo", mime_type="image/png")
    def logo(ctx) -> bytes:
        runs("logo")
        return b"\x89PNG"

    layer = make_layer(reg, CachingMiddleware(cache_resources=True))
    await layer.read_resource("cloudg://logo")
    (hit,) = await layer.read_resource("cloudg://logo")
    assert runs["logo"] == 1
    assert (hit.meta or {}).get("cloudg/cache") == "hit"


# -- invalidation --------------------------------------------------------------------------


async def test_write_tool_call_clears_the_cache(registry, runs, make_layer):
    cache = CachingMiddleware()
    layer = make_layer(registry, cache)
    await layer.call_tool("lookup")
    assert len(cache) == 1
    await layer.call_tool("save")
    assert len(cache) == 0
    again = await layer.call_tool("lookup")
    assert runs["lookup"] == 2
    assert "cloudg/cache" not in again.meta


async def test_change_event_clears_the_cache_once_attached(registry, runs, make_layer):
    cache = CachingMiddleware()
    layer = make_layer(registry, cache)
    await layer.call_tool("lookup")
    layer.notify_change("resource", "cloudg://workspace")
    assert len(cache) == 0
    await layer.call_tool("lookup")
    assert runs["lookup"] == 2


async def test_entries_expire_after_ttl(registry, runs, make_layer):
    layer = make_layer(registry, CachingMiddleware(ttl=0.05))
    await layer.call_tool("lookup")
    hit = await layer.call_tool("lookup")
    await asyncio.sleep(0.08)
    expired = await layer.call_tool("lookup")
    assert hit.meta.get("cloudg/cache") == "hit"
    assert "cloudg/cache" not in expired.meta
    assert runs["lookup"] == 2


async def test_least_recently_used_entry_is_evicted_past_maxsize(registry, runs, make_layer):
    cache = CachingMiddleware(maxsize=2)
    layer = make_layer(registry, cache)
    await layer.call_tool("lookup", {"ref": "r1"})
    await layer.call_tool("lookup", {"ref": "r2"})
    await layer.call_tool("lookup", {"ref": "r1"})  # hit: r1 becomes most recent
    await layer.call_tool("lookup", {"ref": "r3"})  # evicts r2
    assert len(cache) == 2
    assert runs["lookup"] == 3
    r1 = await layer.call_tool("lookup", {"ref": "r1"})
    r2 = await layer.call_tool("lookup", {"ref": "r2"})
    assert r1.meta.get("cloudg/cache") == "hit"
    assert "cloudg/cache" not in r2.meta
    assert runs["lookup"] == 4


# -- predicate -----------------------------------------------------------------------------


async def test_predicate_false_disables_caching_of_read_only_tools(registry, runs, make_layer):
    layer = make_layer(registry, CachingMiddleware(predicate=lambda info: False))
    await layer.call_tool("lookup")
    await layer.call_tool("lookup")
    assert runs["lookup"] == 2


async def test_predicate_true_caches_a_non_idempotent_read_only_tool(registry, runs, make_layer):
    layer = make_layer(registry, CachingMiddleware(predicate=lambda info: True))
    await layer.call_tool("fetch_live")
    hit = await layer.call_tool("fetch_live")
    assert runs["fetch_live"] == 1
    assert hit.meta["cloudg/cache"] == "hit"


async def test_predicate_receives_the_call_info(registry, make_layer):
    seen = []
    layer = make_layer(registry, CachingMiddleware(predicate=lambda info: seen.append(info)))
    await layer.call_tool("lookup", {"ref": "r9"})
    (info,) = seen
    assert (info.kind, info.name, info.arguments) == ("tool", "lookup", {"ref": "r9"})
