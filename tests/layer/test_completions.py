"""Seed §4.9: ``CloudGMCPLayer.complete`` for prompt arguments and template variables.

Finding the completion function (prefix stripped for prompts, exact template string for
resources), empty answers that never touch the chain, policy refusals that raise, the
middleware's view of a completion, the 100-value cap, and context arguments in ``ctx.meta``.
"""

from __future__ import annotations

from typing import Any

import pytest

from cloudg_nb import (
    AccessDeniedError,
    CachingMiddleware,
    CloudGMCPLayer,
    PromptArgument,
    Registry,
)
from tests.layer.fakes import FakePolicy, core_layer

EMPTY = {"values": [], "total": 0, "hasMore": False}
TEMPLATE = "data://datasets/{name}/assets/{ref}"
REGIONS = ["eu-west-1", "eu-central-1", "us-east-1"]


class CallRecorder:
    """A middleware that records every CallInfo it sees."""

    def __init__(self) -> None:
        self.calls: list[Any] = []

    async def __call__(self, info: Any, call_next: Any) -> Any:
        self.calls.append(info)
        return await call_next(info)


class Counter:
    """A completion function that counts its runs and remembers what it was given."""

    def __init__(self, candidates: list[Any]) -> None:
        self.candidates = candidates
        self.partials: list[str] = []
        self.context_arguments: list[dict[str, Any]] = []

    def __call__(self, ctx: Any, partial: str) -> list[Any]:
        self.partials.append(partial)
        self.context_arguments.append(ctx.completion.context_arguments)
        return [c for c in self.candidates if str(c).startswith(partial)]


def build_registry(
    region: Any = None, dataset: Any = None, ref: Any = None
) -> Registry:
    reg = Registry()

    @reg.prompt(
        arguments=[
            PromptArgument("region", completion=region or Counter(REGIONS)),
            PromptArgument("tone"),  # no completion function
        ]
    )
    def brief(ctx, region: str = "", tone: str = "") -> str:
        return f"brief for {region}"

    completions = {"name": dataset or Counter(["prod", "staging"])}
    if ref is not None:
        completions["ref"] = ref

    @reg.resource_template(TEMPLATE, completions=completions)
    def asset(ctx, name: str, ref: str) -> dict:
        return {"name": name, "ref": ref}

    return reg


def make_layer(reg: Registry, policy: FakePolicy | None = None, **kwargs: Any
               ) -> CloudGMCPLayer:
    return core_layer(reg, policy=policy or FakePolicy("plain"), **kwargs)


PROMPT_REF = {"type": "ref/prompt", "name": "brief"}
TEMPLATE_REF = {"type": "ref/resource", "uri": TEMPLATE}


# -- finding the function --------------------------------------------------------------------


async def test_prompt_argument_completion_returns_matching_values() -> None:
    layer = make_layer(build_registry())

    out = await layer.complete(PROMPT_REF, {"name": "region", "value": "eu-"})

    assert out == {"values": ["eu-west-1", "eu-central-1"], "total": 2, "hasMore": False}


async def test_prompt_completion_takes_the_prefixed_name() -> None:
    layer = make_layer(build_registry(), prefix="cg_")

    out = await layer.complete(
        {"type": "ref/prompt", "name": "cg_brief"}, {"name": "region", "value": "us"}
    )

    assert out["values"] == ["us-east-1"]


async def test_prompt_completion_with_a_prefix_ignores_the_unprefixed_name() -> None:
    recorder = CallRecorder()
    layer = make_layer(build_registry(), prefix="cg_", middleware=[recorder])

    out = await layer.complete(PROMPT_REF, {"name": "region", "value": "us"})

    assert out == EMPTY
    assert recorder.calls == []


async def test_template_variable_completion_returns_matching_values() -> None:
    layer = make_layer(build_registry())

    out = await layer.complete(TEMPLATE_REF, {"name": "name", "value": "pr"})

    assert out == {"values": ["prod"], "total": 1, "hasMore": False}


async def test_template_completion_needs_the_exact_template_string() -> None:
    recorder = CallRecorder()
    layer = make_layer(build_registry(), middleware=[recorder])

    out = await layer.complete(
        {"type": "ref/resource", "uri": "data://datasets/prod/assets/vm-1"},
        {"name": "name", "value": ""},
    )

    assert out == EMPTY
    assert recorder.calls == []


async def test_completion_values_are_converted_to_strings() -> None:
    layer = make_layer(build_registry(region=lambda ctx, partial: [1, 2.5, None]))

    out = await layer.complete(PROMPT_REF, {"name": "region", "value": ""})

    assert out["values"] == ["1", "2.5", "None"]


async def test_async_completion_function_is_awaited() -> None:
    async def regions(ctx: Any, partial: str) -> list[str]:
        return [r for r in REGIONS if r.startswith(partial)]

    layer = make_layer(build_registry(region=regions))

    out = await layer.complete(PROMPT_REF, {"name": "region", "value": "eu-c"})

    assert out["values"] == ["eu-central-1"]


# -- the cap ---------------------------------------------------------------------------------


async def test_completion_caps_values_at_100_and_reports_the_total() -> None:
    candidates = [f"asset-{i:03d}" for i in range(150)]
    layer = make_layer(build_registry(ref=lambda ctx, partial: candidates))

    out = await layer.complete(TEMPLATE_REF, {"name": "ref", "value": ""})

    assert out["values"] == candidates[:100]
    assert out["total"] == 150
    assert out["hasMore"] is True


async def test_completion_with_exactly_100_values_has_no_more() -> None:
    candidates = [f"asset-{i:03d}" for i in range(100)]
    layer = make_layer(build_registry(ref=lambda ctx, partial: candidates))

    out = await layer.complete(TEMPLATE_REF, {"name": "ref", "value": ""})

    assert len(out["values"]) == 100
    assert out["total"] == 100
    assert out["hasMore"] is False


# -- empty answers without the chain ---------------------------------------------------------


@pytest.mark.parametrize(
    ("ref", "argument"),
    [
        ({"type": "ref/prompt", "name": "no_such_prompt"}, "region"),
        ({"type": "ref/resource", "uri": "data://unknown/{x}"}, "x"),
        ({"type": "ref/tool", "name": "brief"}, "region"),
        ({}, "region"),
        (PROMPT_REF, "no_such_argument"),
        (TEMPLATE_REF, "no_such_variable"),
        (PROMPT_REF, "tone"),  # declared, but without a completion function
        (TEMPLATE_REF, "ref"),  # variable without a completion function
    ],
    ids=[
        "unknown-prompt", "unknown-template", "unknown-ref-type", "empty-ref",
        "unknown-prompt-argument", "unknown-template-variable", "prompt-argument-without-fn",
        "template-variable-without-fn",
    ],
)
async def test_unresolvable_completion_is_empty_without_running_the_chain(
    ref: dict[str, Any], argument: str
) -> None:
    recorder = CallRecorder()
    layer = make_layer(build_registry(), middleware=[recorder])

    out = await layer.complete(ref, {"name": argument, "value": ""})

    assert out == EMPTY
    assert recorder.calls == []


@pytest.mark.parametrize(
    ("denied", "ref", "argument"),
    [
        (["brief"], PROMPT_REF, "region"),
        ([TEMPLATE], TEMPLATE_REF, "name"),
    ],
    ids=["hidden-prompt", "hidden-template"],
)
async def test_hidden_spec_completion_is_empty_without_running_the_chain_or_the_fn(
    denied: list[str], ref: dict[str, Any], argument: str
) -> None:
    region, dataset = Counter(REGIONS), Counter(["prod"])
    recorder = CallRecorder()
    policy = FakePolicy("h", denied=denied, hide_denied=True)
    layer = make_layer(build_registry(region, dataset), policy, middleware=[recorder])

    out = await layer.complete(ref, {"name": argument, "value": ""})

    assert out == EMPTY
    assert recorder.calls == []
    assert region.partials == dataset.partials == []


# -- policy refusals raise -------------------------------------------------------------------


async def test_completion_denied_by_policy_raises_access_denied() -> None:
    region = Counter(REGIONS)
    policy = FakePolicy("deny", denied=["brief"])
    layer = make_layer(build_registry(region), policy)

    with pytest.raises(AccessDeniedError) as info:
        await layer.complete(PROMPT_REF, {"name": "region", "value": "eu"})

    assert info.value.data["kind"] == "completion"
    assert region.partials == []


async def test_completion_denial_is_not_caught_by_the_chain() -> None:
    outcomes: list[str] = []

    async def watch(info: Any, call_next: Any) -> Any:
        try:
            return await call_next(info)
        except AccessDeniedError:
            outcomes.append(f"raised:{info.outcome}")
            raise

    policy = FakePolicy("deny", denied=[TEMPLATE])
    layer = make_layer(build_registry(), policy, middleware=[watch])

    with pytest.raises(AccessDeniedError):
        await layer.complete(TEMPLATE_REF, {"name": "name", "value": ""})

    assert outcomes == ["raised:denied"]


async def test_allowed_completion_is_recorded_by_the_policy_as_a_completion() -> None:
    policy = FakePolicy("audited")
    layer = make_layer(build_registry(), policy)

    await layer.complete(PROMPT_REF, {"name": "region", "value": ""})

    assert policy.checks == [("completion", "brief", {})]


# -- failures in the function ----------------------------------------------------------------


async def test_completion_function_exception_gives_empty_values() -> None:
    def broken(ctx: Any, partial: str) -> list[str]:
        raise RuntimeError("index not built")

    layer = make_layer(build_registry(region=broken))

    out = await layer.complete(PROMPT_REF, {"name": "region", "value": "eu"})

    assert out == EMPTY


async def test_completion_function_returning_a_non_iterable_gives_empty_values() -> None:
    layer = make_layer(build_registry(region=lambda ctx, partial: 42))

    out = await layer.complete(PROMPT_REF, {"name": "region", "value": ""})

    assert out == EMPTY


# -- what middleware sees --------------------------------------------------------------------


async def test_middleware_sees_a_prompt_completion_call() -> None:
    recorder = CallRecorder()
    layer = make_layer(build_registry(), middleware=[recorder])

    await layer.complete(
        PROMPT_REF, {"name": "region", "value": "eu"}, context_arguments={"tone": "dry"}
    )

    (info,) = recorder.calls
    assert info.kind == "completion"
    assert info.name == "brief"
    assert info.arguments == {"argument": "region", "value": "eu", "context": {"tone": "dry"}}
    assert info.spec is layer.registry.prompts["brief"]


async def test_middleware_sees_a_template_completion_under_the_template_string() -> None:
    recorder = CallRecorder()
    layer = make_layer(build_registry(), middleware=[recorder])

    await layer.complete(TEMPLATE_REF, {"name": "name", "value": "st"})

    (info,) = recorder.calls
    assert info.kind == "completion"
    assert info.name == TEMPLATE
    assert info.arguments == {"argument": "name", "value": "st", "context": {}}


async def test_middleware_sees_the_completion_result() -> None:
    results: list[Any] = []

    async def watch(info: Any, call_next: Any) -> Any:
        result = await call_next(info)
        results.append(result)
        return result

    layer = make_layer(build_registry(), middleware=[watch])

    out = await layer.complete(PROMPT_REF, {"name": "region", "value": "us"})

    assert results == [out]


async def test_completion_context_has_kind_completion_and_the_target_name() -> None:
    contexts: list[Any] = []

    def region(ctx: Any, partial: str) -> list[str]:
        contexts.append(ctx)
        return []

    layer = make_layer(build_registry(region=region))
    await layer.complete(PROMPT_REF, {"name": "region", "value": ""})

    (ctx,) = contexts
    assert (ctx.kind, ctx.name) == ("completion", "brief")
    assert ctx.completion.function is region


async def test_caching_middleware_never_caches_a_completion() -> None:
    region = Counter(REGIONS)
    layer = make_layer(build_registry(region), middleware=[CachingMiddleware()])

    first = await layer.complete(PROMPT_REF, {"name": "region", "value": "eu"})
    second = await layer.complete(PROMPT_REF, {"name": "region", "value": "eu"})

    assert region.partials == ["eu", "eu"]
    assert first == second


# -- context arguments -----------------------------------------------------------------------


async def test_context_arguments_reach_the_function_in_ctx_completion() -> None:
    dataset = Counter(["prod"])
    layer = make_layer(build_registry(dataset=dataset))

    await layer.complete(
        TEMPLATE_REF, {"name": "name", "value": ""}, context_arguments={"ref": "vm-1"}
    )

    assert dataset.context_arguments == [{"ref": "vm-1"}]


async def test_missing_context_arguments_give_an_empty_dict_in_ctx_completion() -> None:
    region = Counter(REGIONS)
    layer = make_layer(build_registry(region))

    await layer.complete(PROMPT_REF, {"name": "region", "value": ""})

    assert region.context_arguments == [{}]


async def test_missing_value_completes_the_empty_partial() -> None:
    region = Counter(REGIONS)
    layer = make_layer(build_registry(region))

    out = await layer.complete(PROMPT_REF, {"name": "region"})

    assert region.partials == [""]
    assert out["total"] == len(REGIONS)
