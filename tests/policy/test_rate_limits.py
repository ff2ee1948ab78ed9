"""Token-bucket rate limits: a 2/minute limit allows two calls then refuses with -31029 and
``retry_after``; buckets refill; scopes (principal, tool, principal_tool, global); only the
tools a limit names are counted; completions take tokens too; refusals are audited."""

from __future__ import annotations

import pytest

from cloudg_nb import CloudGMCPLayer, Principal, PromptArgument, RateLimitedError, Registry
from cloudg_nb.policy.ratelimit import RateLimit, RateLimiter


def _registry() -> Registry:
    reg = Registry()
    reg.tool(name="ping")(lambda ctx: {"pong": True})
    reg.tool(name="other")(lambda ctx: {})

    def suggest(ctx, partial: str) -> list[str]:
        return ["a", "b"]

    @reg.prompt(arguments=[PromptArgument("topic", completion=suggest)])
    def brief(ctx, topic: str = "x") -> str:
        return topic

    return reg


def _layer(*limits) -> CloudGMCPLayer:
    return CloudGMCPLayer(registry=_registry(), policy={"rate_limits": list(limits)})


async def test_two_per_minute_allows_two_calls_then_refuses_with_retry_after() -> None:
    layer = _layer("2/minute")
    results = [await layer.call_tool("ping") for _ in range(3)]
    assert [r.is_error for r in results] == [False, False, True]
    refused = results[2]
    assert refused.error_code == -31029
    data = refused.meta["cloudg/error_data"]
    assert 0 < data["retry_after"] <= 30.0
    assert data["limit"] == "2/minute" and data["scope"] == "principal"


async def test_completions_consume_tokens() -> None:
    layer = _layer({"rate": "2/minute"})
    ref = {"type": "ref/prompt", "name": "brief"}
    await layer.complete(ref, {"name": "topic", "value": ""})
    await layer.complete(ref, {"name": "topic", "value": ""})
    refused = await layer.call_tool("ping")
    assert refused.error_code == -31029
    with pytest.raises(RateLimitedError):
        await layer.complete(ref, {"name": "topic", "value": ""})


async def test_principal_scope_keeps_a_bucket_per_principal() -> None:
    layer = _layer("1/minute")
    alice, bob = Principal("alice"), Principal("bob")
    assert not (await layer.call_tool("ping", principal=alice)).is_error
    assert not (await layer.call_tool("ping", principal=bob)).is_error
    assert (await layer.call_tool("ping", principal=alice)).is_error


async def test_tool_scope_keeps_a_bucket_per_tool() -> None:
    layer = _layer({"rate": "1/minute", "scope": "tool"})
    assert not (await layer.call_tool("ping")).is_error
    assert not (await layer.call_tool("other")).is_error
    assert (await layer.call_tool("ping", principal=Principal("someone-else"))).is_error


async def test_global_scope_is_shared_by_everyone() -> None:
    layer = _layer({"rate": "1/minute", "scope": "global"})
    assert not (await layer.call_tool("ping", principal=Principal("a"))).is_error
    assert (await layer.call_tool("other", principal=Principal("b"))).is_error


async def test_a_limit_naming_tools_counts_only_those() -> None:
    layer = _layer({"rate": "1/minute", "tools": ["ping"]})
    await layer.call_tool("ping")
    assert not (await layer.call_tool("other")).is_error
    assert (await layer.call_tool("ping")).is_error


async def test_role_limits_apply_to_that_role_only() -> None:
    layer = CloudGMCPLayer(
        registry=_registry(), policy={"roles": {"bot": {"rate_limits": ["1/minute"]}}}
    )
    bot, human = Principal("b", frozenset({"bot"})), Principal("h", frozenset({"human"}))
    await layer.call_tool("ping", principal=bot)
    assert (await layer.call_tool("ping", principal=bot)).is_error
    await layer.call_tool("ping", principal=human)
    assert not (await layer.call_tool("ping", principal=human)).is_error


async def test_refusals_are_audited_as_rate_limited() -> None:
    layer = _layer("1/minute")
    await layer.call_tool("ping")
    await layer.call_tool("ping")
    assert [e["decision"] for e in layer.policy.audit_log.entries()] == ["rate_limited"]


def test_bucket_refills_at_the_rate() -> None:
    limit = RateLimit.parse({"rate": "2/minute"}, "test")
    buckets = RateLimiter()
    assert buckets.take([limit], "p", "t", now=0.0) is None
    assert buckets.take([limit], "p", "t", now=0.0) is None
    refused = buckets.take([limit], "p", "t", now=0.0)
    assert refused is not None and refused[1] == pytest.approx(30.0)
    assert buckets.take([limit], "p", "t", now=30.0) is None


def test_a_refusal_takes_no_token_from_the_other_buckets() -> None:
    roomy = RateLimit.parse({"rate": "10/minute", "burst": 1}, "a")
    tight = RateLimit.parse({"rate": "1/hour"}, "b")
    buckets = RateLimiter()
    assert buckets.take([roomy, tight], "p", "t", now=0.0) is None
    assert buckets.take([tight, roomy], "p", "t", now=6.0) is not None
    assert buckets.take([roomy], "p", "t", now=6.0) is None


def test_burst_allows_more_calls_up_front() -> None:
    limit = RateLimit.parse({"rate": "1/minute", "burst": 3}, "a")
    buckets = RateLimiter()
    assert [buckets.take([limit], "p", "t", now=0.0) is None for _ in range(4)] == [
        True, True, True, False,
    ]


@pytest.mark.parametrize("rate,per_second", [
    ("30/minute", 0.5), ("5/10s", 0.5), ("2 per hour", 2 / 3600), ("1/day", 1 / 86400),
])
def test_rate_forms(rate: str, per_second: float) -> None:
    limit = RateLimit.parse(rate, "x")
    assert limit.count / limit.period == pytest.approx(per_second)
