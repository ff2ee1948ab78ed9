"""A completion function reads what it completes from ``ctx.completion``: the argument name,
itself, and the other arguments the client filled in (pseudonyms reversed)."""

from __future__ import annotations

from typing import Any

from cloudg_nb import PromptArgument, Registry
from cloudg_nb.layer.context import Completion
from tests.layer.fakes import FakePolicy, core_layer


async def test_completion_function_sees_the_argument_and_filled_in_arguments() -> None:
    seen: list[Completion | None] = []

    def region(ctx: Any, partial: str) -> list[str]:
        seen.append(ctx.completion)
        return ["eu-west-1"]

    reg = Registry()

    @reg.prompt(arguments=[PromptArgument("region", completion=region)])
    def brief(ctx, region: str = "") -> str:
        return "ok"

    layer = core_layer(reg, policy=FakePolicy("plain"))
    out = await layer.complete({"type": "ref/prompt", "name": "brief"},
                               {"name": "region", "value": "eu"},
                               context_arguments={"account": "prod"})

    assert out["values"] == ["eu-west-1"]
    assert seen == [Completion("region", region, {"account": "prod"})]


async def test_a_tool_call_context_has_no_completion() -> None:
    seen: list[Completion | None] = []
    reg = Registry()

    @reg.tool
    def probe(ctx) -> dict:
        seen.append(ctx.completion)
        return {}

    layer = core_layer(reg, policy=FakePolicy("plain"))
    await layer.call_tool("probe")

    assert seen == [None]
