"""One transform plan per request: the layer asks the policy for a request's input and output
pipelines once, and every transform point of that request (arguments, progress, result,
links, errors) runs them."""

from __future__ import annotations

from typing import Any

from cloudg_nb import Policy, Registry
from cloudg_nb.layer.calls import CallInfo
from cloudg_nb.layer.layer import CloudGMCPLayer
from cloudg_nb.layer.pipeline import Pipeline, TransformContext
from cloudg_nb.layer.plan import CallPlan


def _upper(value: Any, ctx: TransformContext) -> Any:
    if isinstance(value, str):
        return value.upper()
    if isinstance(value, dict):
        return {k: _upper(v, ctx) for k, v in value.items()}
    return value


class CountingPolicy(Policy):
    """An open policy upper-casing outputs that counts how often it is asked for pipelines."""

    def __init__(self) -> None:
        super().__init__({"name": "counting"})
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
    layer = CloudGMCPLayer(registry=registry(), policy=policy)
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
    layer = CloudGMCPLayer(registry=registry(), policy=policy)

    result = await layer.call_tool("broken")

    assert result.is_error
    assert policy.asked == {"input": 1, "output": 1}


async def test_middleware_sees_the_plan_the_request_runs() -> None:
    plans: list[CallPlan | None] = []

    async def watch(info: CallInfo, call_next: Any) -> Any:
        plans.append(info.plan)
        return await call_next(info)

    layer = CloudGMCPLayer(registry=registry(), policy=CountingPolicy(), middleware=[watch])
    await layer.call_tool("report", {"owner": "bob"})

    (plan,) = plans
    assert plan is not None
    assert plan.spec.name == "report"
    assert plan.transform({"owner": "bob"}) == ({"owner": "BOB"}, {})
