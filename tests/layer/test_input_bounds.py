"""Arguments are bounded before any work: too many arguments, too deep or too large is refused
before middleware, input transforms and validation run, with a short error that counts
instead of listing."""

from __future__ import annotations

import json
import time

import pytest

from cloudg_nb.layer import CloudGMCPLayer, InvalidArgumentsError, PromptArgument, Registry
from cloudg_nb.layer.bounds import (
    LOOP_CHARS,
    LOOP_VALUES,
    InputBounds,
    check_arguments,
    check_uri,
    checked_on_loop,
    within_loop_budget,
)
from tests.layer.fakes import core_layer


def _find(ctx, query: str = "") -> dict:
    return {"query": query}


def _layer(**options: object) -> CloudGMCPLayer:
    reg = Registry()
    reg.tool(_find)

    @reg.prompt(arguments=[PromptArgument("topic")])
    def brief(ctx, topic: str = "") -> str:
        return topic

    return core_layer(reg, **options)


def _code(result) -> object:
    return result.meta.get("cloudg/error_code")


async def test_too_many_arguments_are_refused_with_their_count() -> None:
    result = await _layer().call_tool("_find", {f"k{i}": 1 for i in range(100)})
    assert result.is_error and _code(result) == -32602
    data = result.meta["cloudg/error_data"]
    assert data["limit"] == "argument count" and data["count"] == 100 and data["max"] == 64


async def test_the_refusal_names_only_the_first_few_arguments() -> None:
    result = await _layer().call_tool("_find", {f"k{i}": 1 for i in range(100)})
    assert result.meta["cloudg/error_data"]["first_names"] == ["k0", "k1", "k2", "k3", "k4"]
    assert "k5" not in result.content[0].text


async def test_secret_looking_argument_names_are_not_echoed() -> None:
    args = {"AKIA" + "X" * 16 + f"/{i}": 1 for i in range(100)}
    result = await _layer().call_tool("_find", args)
    assert "AKIA" not in json.dumps(result.meta["cloudg/error_data"])


async def test_300k_keys_are_refused_fast_with_a_small_error() -> None:
    args = {f"unknown_argument_{i:06d}": "x" for i in range(300_000)}
    layer = _layer()
    started = time.perf_counter()
    result = await layer.call_tool("_find", args)
    elapsed = time.perf_counter() - started
    assert result.is_error
    assert elapsed < 0.05
    wire = json.dumps([c.to_wire() for c in result.content]) + json.dumps(result.meta)
    assert len(wire) < 2048


async def test_deep_nesting_is_refused() -> None:
    deep: object = "x"
    for _ in range(1000):
        deep = [deep]
    result = await _layer().call_tool("_find", {"query": deep})
    assert result.meta["cloudg/error_data"]["limit"] == "nesting depth"


async def test_a_huge_string_is_refused() -> None:
    result = await _layer().call_tool("_find", {"query": "x" * 2_000_000})
    assert result.meta["cloudg/error_data"]["limit"] == "total size in characters"


async def test_a_huge_list_is_refused() -> None:
    result = await _layer().call_tool("_find", {"query": list(range(200_000))})
    assert result.meta["cloudg/error_data"]["limit"] == "value count"


async def test_middleware_never_sees_refused_arguments() -> None:
    seen: list[str] = []

    async def spy(info, nxt):
        seen.append(info.name)
        return await nxt(info)

    layer = _layer(middleware=[spy])
    await layer.call_tool("_find", {f"k{i}": 1 for i in range(100)})
    assert seen == []


async def test_arguments_within_bounds_pass() -> None:
    result = await _layer().call_tool("_find", {"query": "x" * 1000})
    assert not result.is_error


async def test_bounds_are_configurable_per_layer() -> None:
    layer = _layer(input_bounds=InputBounds(max_arguments=1))
    result = await layer.call_tool("_find", {"query": "a", "other": "b"})
    assert result.meta["cloudg/error_data"]["max"] == 1


async def test_prompt_arguments_are_bounded() -> None:
    with pytest.raises(InvalidArgumentsError, match="argument count"):
        await _layer().get_prompt("brief", {f"k{i}": "v" for i in range(100)})


async def test_completion_context_is_bounded() -> None:
    reg = Registry()

    @reg.prompt(arguments=[PromptArgument("topic", completion=lambda ctx, partial: ["a"])])
    def brief(ctx, topic: str = "") -> str:
        return topic

    layer = core_layer(reg)
    with pytest.raises(InvalidArgumentsError, match="size"):
        await layer.complete({"type": "ref/prompt", "name": "brief"},
                             {"name": "topic", "value": "x" * 2_000_000})


def test_check_arguments_ignores_non_objects() -> None:
    check_arguments(None, InputBounds())
    check_arguments("text", InputBounds())


def test_bounds_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_depth"):
        InputBounds(max_depth=0)


async def test_many_unknown_arguments_under_the_cap_are_counted_not_listed() -> None:
    result = await _layer().call_tool("_find", {f"k{i:02d}": 1 for i in range(60)})
    data = result.meta["cloudg/error_data"]
    assert len(data) == 12  # ten errors, "and 50 more", the accepted arguments
    assert data[10]["msg"] == "and 50 more errors like these"
    assert "k59" not in result.content[0].text


# -- the loop budget ------------------------------------------------------------------------


def test_arguments_within_the_loop_budget_are_checked_on_the_loop() -> None:
    assert checked_on_loop({"ids": ["x"] * 100, "query": "y" * 1000}, InputBounds())


def test_arguments_over_the_loop_budget_are_left_to_a_worker() -> None:
    assert not checked_on_loop({"ids": list(range(LOOP_VALUES + 1))}, InputBounds())
    assert not checked_on_loop({"query": "x" * (LOOP_CHARS + 1)}, InputBounds())


def test_absurd_arguments_are_refused_on_the_loop_before_the_budget_decides() -> None:
    with pytest.raises(InvalidArgumentsError, match="value count"):
        checked_on_loop({"ids": list(range(200_000))}, InputBounds())
    with pytest.raises(InvalidArgumentsError, match="size in characters"):
        checked_on_loop({"query": "x" * 2_000_000}, InputBounds())
    with pytest.raises(InvalidArgumentsError, match="argument count"):
        checked_on_loop({f"k{i}": 1 for i in range(100)}, InputBounds())


def test_a_budget_larger_than_the_bounds_still_refuses_at_the_bounds() -> None:
    with pytest.raises(InvalidArgumentsError, match="value count"):
        checked_on_loop({"ids": list(range(50))}, InputBounds(max_values=10))


def test_within_loop_budget_measures_any_value() -> None:
    assert within_loop_budget({"a": [1, 2, 3]})
    assert not within_loop_budget([[i] for i in range(LOOP_VALUES)])
    assert not within_loop_budget("x" * (LOOP_CHARS + 1))


def test_a_long_resource_uri_is_refused_with_its_length() -> None:
    with pytest.raises(InvalidArgumentsError, match="URI too long") as caught:
        check_uri("cloudg://assets/" + "a" * 20_000, InputBounds())
    assert caught.value.data["max"] == 16_384
    assert "aaaa" not in caught.value.message
    check_uri("cloudg://assets/" + "a" * 1000, InputBounds())


async def test_reading_a_resource_by_a_long_uri_is_refused_before_matching() -> None:
    with pytest.raises(InvalidArgumentsError, match="URI too long"):
        await _layer().read_resource("cloudg://x/" + "a/" * 10_000)
