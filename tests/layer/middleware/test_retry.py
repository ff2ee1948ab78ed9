"""RetryMiddleware: retry read-only, idempotent tools whose handler failed or timed out.

Contract (layer reference §8): only read-only idempotent tools are retried, only for
handler errors and timeouts (never bad arguments or policy refusals), at most ``retries``
times; a result that needed retries carries ``cloudg/retries``.
"""

from __future__ import annotations

import asyncio
import logging

import pytest

from cloudg_nb.layer.errors import AccessDeniedError, InvalidArgumentsError
from cloudg_nb.layer.middleware import RetryMiddleware
from cloudg_nb.layer.registry import Registry
from tests.layer.fakes import FakePolicy


class Flaky:
    """Counts attempts; the first ``failures`` attempts raise."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.attempts = 0

    def attempt(self) -> int:
        self.attempts += 1
        if self.attempts <= self.failures:
            raise ConnectionError(f"transient failure {self.attempts}")
        return self.attempts


def _registry(flaky: Flaky, **options) -> Registry:
    reg = Registry()

    @reg.tool(name="probe", **options)
    def probe(ctx) -> dict:
        return {"attempt": flaky.attempt()}

    return reg


def _retry(**options) -> RetryMiddleware:
    return RetryMiddleware(backoff=0.001, **options)


# -- retried -------------------------------------------------------------------------------


async def test_transient_failures_are_retried_until_success(make_layer):
    flaky = Flaky(failures=2)
    result = await make_layer(_registry(flaky), _retry(retries=2)).call_tool("probe")
    assert not result.is_error
    assert result.structured == {"attempt": 3}
    assert result.meta["cloudg/retries"] == 2


async def test_first_time_success_has_no_retries_mark(make_layer):
    flaky = Flaky(failures=0)
    result = await make_layer(_registry(flaky), _retry()).call_tool("probe")
    assert not result.is_error
    assert "cloudg/retries" not in result.meta
    assert flaky.attempts == 1


async def test_gives_up_after_retries_and_returns_the_last_error(make_layer, caplog):
    caplog.set_level(logging.ERROR, logger="cloudg.mcp")
    flaky = Flaky(failures=10)
    result = await make_layer(_registry(flaky), _retry(retries=2)).call_tool("probe")
    assert result.is_error
    assert result.error_code == "handler_error"
    # the model sees the last failure's id; the server log holds its details under that id
    [last] = [r for r in caplog.records
              if getattr(r, "error_id", None) == result.meta["cloudg/error_data"]["error_id"]]
    assert "transient failure 3" in str(last.exc_info[1])
    assert result.meta["cloudg/retries"] == 2
    assert flaky.attempts == 3


async def test_zero_retries_runs_once(make_layer):
    flaky = Flaky(failures=1)
    result = await make_layer(_registry(flaky), _retry(retries=0)).call_tool("probe")
    assert result.is_error
    assert flaky.attempts == 1


def test_negative_retries_are_refused():
    with pytest.raises(ValueError):
        RetryMiddleware(retries=-1)


async def test_timeouts_are_retried(make_layer):
    reg = Registry()
    attempts = []

    @reg.tool(timeout_seconds=0.05)
    async def slow_once(ctx) -> dict:
        attempts.append(1)
        if len(attempts) == 1:
            await asyncio.sleep(1)
        return {"attempts": len(attempts)}

    result = await make_layer(reg, _retry(retries=1)).call_tool("slow_once")
    assert not result.is_error
    assert result.structured == {"attempts": 2}
    assert result.meta["cloudg/retries"] == 1


async def test_retried_result_carries_only_the_successful_attempts_links(make_layer):
    reg = Registry()
    attempts = []

    @reg.tool
    def linked(ctx) -> dict:
        attempts.append(1)
        ctx.link(f"cloudg://runs/{len(attempts)}", f"run {len(attempts)}")
        if len(attempts) < 3:
            raise ConnectionError("transient")
        return {"ok": True}

    result = await make_layer(reg, _retry(retries=2)).call_tool("linked")
    assert not result.is_error
    links = [c.uri for c in result.content if getattr(c, "uri", None)]
    assert links == ["cloudg://runs/3"]


# -- not retried ---------------------------------------------------------------------------


async def test_non_idempotent_read_only_tools_are_not_retried(make_layer):
    flaky = Flaky(failures=1)
    layer = make_layer(_registry(flaky, capabilities={"cloud_access"}), _retry())
    result = await layer.call_tool("probe")
    assert result.is_error
    assert flaky.attempts == 1
    assert "cloudg/retries" not in result.meta


async def test_write_tools_are_not_retried(make_layer):
    flaky = Flaky(failures=1)
    layer = make_layer(_registry(flaky, capabilities={"write_state"}), _retry())
    result = await layer.call_tool("probe")
    assert result.is_error
    assert flaky.attempts == 1


async def test_explicitly_non_idempotent_tools_are_not_retried(make_layer):
    flaky = Flaky(failures=1)
    layer = make_layer(_registry(flaky, annotations={"idempotent": False}), _retry())
    result = await layer.call_tool("probe")
    assert result.is_error
    assert flaky.attempts == 1


async def test_invalid_arguments_are_not_retried(make_layer, counting_policy):
    reg = Registry()

    @reg.tool
    def sized(ctx, n: int) -> dict:
        return {"n": n}

    layer = make_layer(reg, _retry(), policy=counting_policy)
    result = await layer.call_tool("sized", {"n": "not-a-number"})
    assert result.error_code == InvalidArgumentsError.code
    assert len(counting_policy.checks) == 1


async def test_invalid_arguments_raised_by_the_handler_are_not_retried(make_layer):
    reg = Registry()
    attempts = []

    @reg.tool
    def picky(ctx) -> dict:
        attempts.append(1)
        raise InvalidArgumentsError("Unknown dataset; list datasets first")

    result = await make_layer(reg, _retry()).call_tool("picky")
    assert result.error_code == InvalidArgumentsError.code
    assert len(attempts) == 1


async def test_policy_denials_are_not_retried(make_layer, counting_policy):
    flaky = Flaky(failures=0)
    counting_policy.refuse = AccessDeniedError("Access denied by policy 'counting'")
    layer = make_layer(_registry(flaky), _retry(), policy=counting_policy)
    result = await layer.call_tool("probe")
    assert result.error_code == AccessDeniedError.code
    assert len(counting_policy.checks) == 1
    assert flaky.attempts == 0


async def test_policy_document_denials_are_not_retried(make_layer):
    flaky = Flaky(failures=0)
    policy = FakePolicy("d", denied=["probe"])
    layer = make_layer(_registry(flaky), _retry(), policy=policy)
    result = await layer.call_tool("probe")
    assert result.error_code == AccessDeniedError.code
    assert len(policy.checks) == 1  # asked once, refused once: never retried
