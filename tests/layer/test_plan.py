"""One plan per request: the layer asks the policy once (``access_plan``, or its pipelines when
it answers them itself) and the request runs on that answer: the name lookup, the admission
check (also on a cache hit) and every transform point (arguments, progress, result, links,
errors)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from cloudg_nb import NotFoundError, Registry
from cloudg_nb.layer.calls import CallInfo
from cloudg_nb.layer.collaborators import PlansAccess
from cloudg_nb.layer.middleware import CachingMiddleware
from cloudg_nb.layer.pipeline import Pipeline, TransformContext
from cloudg_nb.layer.plan import CallPlan
from tests.layer.fakes import FakePolicy, core_layer


def _upper(value: Any, ctx: TransformContext) -> Any:
    if isinstance(value, str):
        return value.upper()
    if isinstance(value, dict):
        return {k: _upper(v, ctx) for k, v in value.items()}
    return value


class CountingPolicy(FakePolicy):
    """An open policy upper-casing outputs that counts how often it is asked for pipelines."""

    def __init__(self) -> None:
        super().__init__("counting")
        self.asked = {"input": 0, "output": 0}

    def input_pipeline(self, spec: Any, principal: Any) -> Pipeline:
        self.asked["input"] += 1
        return Pipeline()

    def output_pipeline(self, spec: Any, principal: Any) -> Pipeline:
        self.asked["output"] += 1
        return Pipeline([_upper])


def registry() -> Registry:
    reg = Registry()

    @reg.tool
    async def report(ctx, owner: str) -> dict:
        await ctx.report_progress(1, 2, "half way for alice")
        ctx.link("data://owners/alice", "alice")
        return {"owner": owner}

    @reg.tool
    def broken(ctx) -> dict:
        raise ValueError("owner alice missing")

    return reg


async def test_a_tool_call_asks_the_policy_for_its_pipelines_once() -> None:
    policy = CountingPolicy()
    layer = core_layer(registry(), policy=policy)
    progress: list[str | None] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(message)

    ctx = layer.context(progress_callback=on_progress)
    result = await layer.call_tool("report", {"owner": "alice"}, context=ctx)

    assert result.structured == {"owner": "ALICE"}
    assert progress == ["HALF WAY FOR ALICE"]
    assert [b.name for b in result.content[1:]] == ["ALICE"]  # type: ignore[attr-defined]
    assert policy.asked == {"input": 1, "output": 1}


async def test_a_failing_call_asks_the_policy_for_its_pipelines_once() -> None:
    policy = CountingPolicy()
    layer = core_layer(registry(), policy=policy)

    result = await layer.call_tool("broken")

    assert result.is_error
    assert policy.asked == {"input": 1, "output": 1}


async def test_middleware_sees_the_plan_the_request_runs() -> None:
    plans: list[CallPlan | None] = []

    async def watch(info: CallInfo, call_next: Any) -> Any:
        plans.append(info.plan)
        return await call_next(info)

    layer = core_layer(registry(), policy=CountingPolicy(), middleware=[watch])
    await layer.call_tool("report", {"owner": "bob"})

    (plan,) = plans
    assert plan is not None
    assert plan.spec.name == "report"
    assert plan.transform({"owner": "bob"}) == ({"owner": "BOB"}, {})


# -- one question per request --------------------------------------------------------------


@dataclass
class SpyPlan:
    """What ``SpyPolicy`` decided about one spec (a ``PlannedAccess``)."""

    policy: SpyPolicy
    spec: Any
    visible: bool
    input: Pipeline
    output: Pipeline

    def admit(self, principal: Any, kind: str, arguments: dict[str, Any]) -> None:
        FakePolicy._check(self.policy, self.spec, kind, arguments)


class SpyPolicy(FakePolicy):
    """A policy that answers everything about a request at once (``PlansAccess``) and counts
    every question the layer asks it."""

    def __init__(self, name: str = "spy", **options: Any) -> None:
        super().__init__(name, **options)
        self.asked: dict[str, int] = {}

    def _ask(self, question: str) -> None:
        self.asked[question] = self.asked.get(question, 0) + 1

    def access_plan(self, spec: Any, principal: Any) -> SpyPlan:
        self._ask("access_plan")
        return SpyPlan(self, spec, FakePolicy.is_allowed(self, spec, principal), self.input,
                       self.output)

    def is_allowed(self, spec: Any, principal: Any) -> bool:
        self._ask("is_allowed")
        return super().is_allowed(spec, principal)

    def check_call(self, spec: Any, principal: Any, arguments: dict[str, Any]) -> None:
        self._ask("check_call")
        super().check_call(spec, principal, arguments)

    def check_completion(self, spec: Any, principal: Any) -> None:
        self._ask("check_completion")
        super().check_completion(spec, principal)

    def input_pipeline(self, spec: Any, principal: Any) -> Pipeline:
        self._ask("input_pipeline")
        return super().input_pipeline(spec, principal)

    def output_pipeline(self, spec: Any, principal: Any) -> Pipeline:
        self._ask("output_pipeline")
        return super().output_pipeline(spec, principal)


def every_kind_registry() -> Registry:
    reg = Registry()

    @reg.tool
    def count(ctx, n: int) -> dict:
        return {"n": n}

    @reg.resource_template("data://items/{item}",
                           completions={"item": lambda ctx, partial: ["a1", "a2"]})
    def item(ctx, item: str) -> dict:
        return {"item": item}

    @reg.prompt
    def brief(ctx, topic: str) -> str:
        return f"Brief on {topic}"

    return reg


async def test_a_tool_call_asks_a_planning_policy_once() -> None:
    policy = SpyPolicy()
    layer = core_layer(every_kind_registry(), policy=policy)

    result = await layer.call_tool("count", {"n": 2})

    assert result.structured == {"n": 2}
    assert policy.asked == {"access_plan": 1}


async def test_a_resource_read_a_prompt_and_a_completion_ask_a_planning_policy_once_each(
) -> None:
    policy = SpyPolicy()
    layer = core_layer(every_kind_registry(), policy=policy)

    await layer.read_resource("data://items/x")
    assert policy.asked == {"access_plan": 1}
    await layer.get_prompt("brief", {"topic": "keys"})
    assert policy.asked == {"access_plan": 2}
    done = await layer.complete({"type": "ref/resource", "uri": "data://items/{item}"},
                                {"name": "item", "value": "a"})
    assert done["values"] == ["a1", "a2"]
    assert policy.asked == {"access_plan": 3}


async def test_a_denied_call_is_refused_after_one_question() -> None:
    policy = SpyPolicy(denied=["count"])
    layer = core_layer(every_kind_registry(), policy=policy)

    result = await layer.call_tool("count", {"n": 2})

    assert result.is_error
    assert result.meta["cloudg/error_data"]["policy"] == "spy"
    assert policy.asked == {"access_plan": 1}


async def test_a_hidden_tool_is_unknown_after_one_question() -> None:
    policy = SpyPolicy(denied=["count"], hide_denied=True)
    layer = core_layer(every_kind_registry(), policy=policy)

    with pytest.raises(NotFoundError):
        await layer.call_tool("count", {"n": 2})

    assert policy.asked == {"access_plan": 1}


async def test_a_cache_hit_is_still_admitted_by_the_requests_plan() -> None:
    policy = FakePolicy("limited", limit=1)
    layer = core_layer(every_kind_registry(), policy=policy,
                       middleware=[CachingMiddleware(predicate=lambda info: True)])

    first = await layer.call_tool("count", {"n": 2})
    again = await layer.call_tool("count", {"n": 2})

    assert not first.is_error
    assert again.is_error and again.error_code == -31029


async def test_a_policy_that_answers_questions_itself_is_asked_them() -> None:
    # CountingPolicy overrides its pipelines, so it offers no plan: the layer asks each one.
    policy = CountingPolicy()
    layer = core_layer(registry(), policy=policy)

    assert not isinstance(policy, PlansAccess)
    result = await layer.call_tool("report", {"owner": "carol"})

    assert result.structured == {"owner": "CAROL"}
    assert policy.asked == {"input": 1, "output": 1}
