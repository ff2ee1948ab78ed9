"""What middleware sees of a request: ``CallInfo.kind`` is a ``RequestKind`` and the outcome
the terminal sets on a refusal is an ``Outcome``; both still equal their plain values."""

from __future__ import annotations

from typing import Any

from cloudg_nb import CloudGMCPLayer, Principal, Registry
from cloudg_nb.layer.calls import CallInfo
from cloudg_nb.layer.enums import Outcome, RequestKind
from tests.layer.fakes import FakePolicy, core_layer


class Seen:
    """A middleware keeping every ``CallInfo`` it was given."""

    def __init__(self) -> None:
        self.infos: list[CallInfo] = []

    async def __call__(self, info: CallInfo, call_next: Any) -> Any:
        self.infos.append(info)
        return await call_next(info)


def registry() -> Registry:
    reg = Registry()

    @reg.tool
    def count(ctx, n: int) -> dict:
        return {"n": n}

    @reg.resource("data://plain")
    def plain(ctx) -> str:
        return "plain"

    @reg.prompt
    def brief(ctx) -> str:
        return "Brief me."

    return reg


def make_layer(seen: Seen, policy: FakePolicy | None = None) -> CloudGMCPLayer:
    return core_layer(registry(), policy=policy or FakePolicy("plain"), middleware=[seen])


async def test_each_request_kind_reaches_middleware_as_a_request_kind_member() -> None:
    seen = Seen()
    layer = make_layer(seen)

    await layer.call_tool("count", {"n": 1})
    await layer.read_resource("data://plain")
    await layer.get_prompt("brief")

    assert [info.kind for info in seen.infos] == [
        RequestKind.TOOL, RequestKind.RESOURCE, RequestKind.PROMPT]
    assert all(isinstance(info.kind, RequestKind) for info in seen.infos)
    assert [info.kind for info in seen.infos] == ["tool", "resource", "prompt"]


async def test_a_denied_call_carries_the_denied_outcome() -> None:
    seen = Seen()
    layer = make_layer(seen, FakePolicy("deny", denied=["count"]))

    result = await layer.call_tool("count", {"n": 1})

    assert result.is_error
    assert seen.infos[0].outcome is Outcome.DENIED
    assert seen.infos[0].outcome == "denied"


def test_a_call_info_built_with_plain_strings_holds_enum_members() -> None:
    layer = core_layer(registry(), policy=FakePolicy("plain"))
    spec = layer.get_tool("count")

    info = CallInfo("tool", "count", spec, {}, Principal.local(), layer.context(),  # type: ignore[arg-type]
                    outcome="rejected")  # type: ignore[arg-type]

    assert info.kind is RequestKind.TOOL
    assert info.outcome is Outcome.REJECTED
