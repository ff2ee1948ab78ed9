"""Seed §4.2 The middleware chain: order, ``use``, short-circuits, kinds and ``CallInfo``.

``middleware[0]`` is outermost, the chain is rebuilt for every request (so ``layer.use``
applies from the next one), every kind of request (tool, resource, prompt, completion) goes
through it, and middleware sees a ``CallInfo`` describing the request as received.
"""

import threading
import time

import pytest

from cloudg_nb.layer import (
    CallInfo,
    CloudGMCPLayer,
    Principal,
    PromptArgument,
    Registry,
    TextContent,
    ToolResult,
)
from tests.layer.fakes import FakePolicy, core_layer

# -- helpers -------------------------------------------------------------------------------


def _recorder(label: str, log: list):
    """A middleware that logs ``label>`` on the way in and ``<label`` on the way out."""

    async def middleware(info: CallInfo, nxt):
        log.append(f"{label}>")
        result = await nxt(info)
        log.append(f"<{label}")
        return result

    return middleware


def _kind_recorder(kinds: list):
    async def middleware(info: CallInfo, nxt):
        kinds.append(info.kind)
        return await nxt(info)

    return middleware


def _info_recorder(infos: list):
    async def middleware(info: CallInfo, nxt):
        infos.append(info)
        return await nxt(info)

    return middleware


def _logging_layer(log: list, middleware=()) -> CloudGMCPLayer:
    reg = Registry()

    @reg.tool
    def probe(ctx) -> dict:
        log.append("handler")
        return {"ok": True}

    return core_layer(reg, middleware=middleware)


def _complete_item(ctx, partial: str) -> list:
    return [f"{partial}1", f"{partial}2"]


def _all_kinds_registry(contexts: list) -> Registry:
    """A tool, a resource, a template (with a completion) and a prompt that record ctx."""
    reg = Registry()

    @reg.tool
    def count(ctx, n: int) -> dict:
        contexts.append(ctx)
        return {"n": n}

    @reg.resource("test://static")
    def static(ctx) -> str:
        contexts.append(ctx)
        return "static"

    @reg.resource_template("test://items/{item}", completions={"item": _complete_item})
    def item(ctx, item: str) -> str:
        contexts.append(ctx)
        return item

    @reg.prompt(arguments=[PromptArgument("topic", required=True)])
    def brief(ctx, topic: str) -> str:
        contexts.append(ctx)
        return f"Brief on {topic}"

    return reg


async def _request(layer: CloudGMCPLayer, kind: str):
    """Make one request of ``kind`` and return its result."""
    if kind == "tool":
        return await layer.call_tool("count", {"n": 1})
    if kind == "resource":
        return await layer.read_resource("test://static")
    if kind == "prompt":
        return await layer.get_prompt("brief", {"topic": "vpcs"})
    return await layer.complete(
        {"type": "ref/resource", "uri": "test://items/{item}"}, {"name": "item", "value": "a"}
    )


# -- order ---------------------------------------------------------------------------------


async def test_first_middleware_is_outermost():
    log: list = []
    layer = _logging_layer(log, [_recorder(x, log) for x in "abc"])
    await layer.call_tool("probe")
    assert log == ["a>", "b>", "c>", "handler", "<c", "<b", "<a"]


async def test_use_appends_an_innermost_middleware():
    log: list = []
    layer = _logging_layer(log, [_recorder("a", log)])
    layer.use(_recorder("b", log))
    await layer.call_tool("probe")
    assert log == ["a>", "b>", "handler", "<b", "<a"]


def test_use_returns_the_layer():
    layer = _logging_layer([])
    assert layer.use(_recorder("a", [])) is layer


# -- use() timing --------------------------------------------------------------------------


async def test_use_applies_from_the_next_call():
    log: list = []
    layer = _logging_layer(log)
    await layer.call_tool("probe")
    layer.use(_recorder("late", log))
    await layer.call_tool("probe")
    assert log == ["handler", "late>", "handler", "<late"]


async def test_middleware_added_during_a_call_applies_from_the_next_call():
    log: list = []
    layer = _logging_layer(log)
    added = _recorder("added", log)

    async def adder(info: CallInfo, nxt):
        if added not in layer.middleware:
            layer.use(added)
        return await nxt(info)

    layer.use(adder)
    await layer.call_tool("probe")
    assert log == ["handler"]
    await layer.call_tool("probe")
    assert log == ["handler", "added>", "handler", "<added"]


# -- short-circuit -------------------------------------------------------------------------


async def test_middleware_can_short_circuit_a_call():
    log: list = []
    layer = _logging_layer(log)
    canned = ToolResult(content=[TextContent("from middleware")])

    async def short(info: CallInfo, nxt):
        return canned

    layer.use(short)
    result = await layer.call_tool("probe")
    assert result is canned
    assert log == []


async def test_short_circuit_skips_inner_middleware():
    log: list = []

    async def short(info: CallInfo, nxt):
        return ToolResult(content=[TextContent("from middleware")])

    layer = _logging_layer(log, [_recorder("outer", log), short, _recorder("inner", log)])
    await layer.call_tool("probe")
    assert log == ["outer>", "<outer"]


async def test_short_circuit_runs_before_the_terminal_policy_check():
    reg = Registry()
    reg.tool(name="probe")(lambda ctx: {"ok": True})
    layer = core_layer(reg, policy=FakePolicy(denied=["probe"]))
    assert (await layer.call_tool("probe")).meta["cloudg/error_code"] == -31001

    async def short(info: CallInfo, nxt):
        return ToolResult(content=[TextContent("from middleware")])

    layer.use(short)
    result = await layer.call_tool("probe")
    assert not result.is_error
    assert result.content[0].text == "from middleware"


# -- every kind goes through the chain -----------------------------------------------------


@pytest.mark.parametrize("kind", ["tool", "resource", "prompt", "completion"])
async def test_chain_runs_for_every_kind(kind):
    kinds: list = []
    layer = core_layer(_all_kinds_registry([]), middleware=[_kind_recorder(kinds)])
    await _request(layer, kind)
    assert kinds == [kind]


async def test_template_reads_go_through_the_chain_as_resources():
    kinds: list = []
    layer = core_layer(_all_kinds_registry([]), middleware=[_kind_recorder(kinds)])
    await layer.read_resource("test://items/a")
    assert kinds == ["resource"]


@pytest.mark.parametrize("kind", ["tool", "resource", "prompt", "completion"])
async def test_middleware_sees_the_terminal_result_of_every_kind(kind):
    seen: list = []

    async def keep(info: CallInfo, nxt):
        result = await nxt(info)
        seen.append(result)
        return result

    layer = core_layer(_all_kinds_registry([]), middleware=[keep])
    result = await _request(layer, kind)
    assert seen == [result]


# -- CallInfo ------------------------------------------------------------------------------


async def test_call_info_names_the_tool_and_its_spec():
    infos: list = []
    reg = _all_kinds_registry([])
    layer = core_layer(reg, middleware=[_info_recorder(infos)])
    await layer.call_tool("count", {"n": 1})
    (info,) = infos
    assert (info.kind, info.name) == ("tool", "count")
    assert info.spec is reg.tools["count"]


async def test_call_info_arguments_are_as_received_before_validation():
    infos: list = []
    layer = core_layer(_all_kinds_registry([]), middleware=[_info_recorder(infos)])
    result = await layer.call_tool("count", {"n": "5"})
    assert infos[0].arguments == {"n": "5"}
    assert result.structured == {"n": 5}


async def test_call_info_arguments_are_a_copy_of_the_callers_dict():
    async def rewrite(info: CallInfo, nxt):
        info.arguments["n"] = 7
        return await nxt(info)

    layer = core_layer(_all_kinds_registry([]), middleware=[rewrite])
    arguments = {"n": 5}
    result = await layer.call_tool("count", arguments)
    assert result.structured == {"n": 7}
    assert arguments == {"n": 5}


async def test_call_info_principal_is_the_callers_principal():
    infos: list = []
    layer = core_layer(_all_kinds_registry([]), middleware=[_info_recorder(infos)])
    alice = Principal("alice", frozenset({"analyst"}))
    await layer.call_tool("count", {"n": 1}, principal=alice)
    assert infos[0].principal is alice


async def test_call_info_principal_defaults_to_the_local_principal():
    infos: list = []
    layer = core_layer(_all_kinds_registry([]), middleware=[_info_recorder(infos)])
    await layer.call_tool("count", {"n": 1})
    assert infos[0].principal == Principal.local()


async def test_call_info_context_is_the_handlers_context():
    infos: list = []
    contexts: list = []
    layer = core_layer(_all_kinds_registry(contexts), middleware=[_info_recorder(infos)])
    await layer.call_tool("count", {"n": 1})
    assert infos[0].context is contexts[0]
    assert (infos[0].context.kind, infos[0].context.name) == ("tool", "count")


async def test_call_info_context_is_the_context_passed_by_the_caller():
    infos: list = []
    layer = core_layer(_all_kinds_registry([]), middleware=[_info_recorder(infos)])
    ctx = layer.context(request_id="r-1")
    await layer.call_tool("count", {"n": 1}, context=ctx)
    assert infos[0].context is ctx


async def test_call_info_started_is_the_monotonic_time_the_call_began():
    infos: list = []
    layer = core_layer(_all_kinds_registry([]), middleware=[_info_recorder(infos)])
    before = time.monotonic()
    await layer.call_tool("count", {"n": 1})
    after = time.monotonic()
    assert before <= infos[0].started <= after


async def test_call_info_of_a_template_read_carries_the_uri_and_variables():
    infos: list = []
    reg = _all_kinds_registry([])
    layer = core_layer(reg, middleware=[_info_recorder(infos)])
    await layer.read_resource("test://items/a%20b")
    (info,) = infos
    assert (info.kind, info.name) == ("resource", "test://items/a%20b")
    assert info.spec is reg.templates["test://items/{item}"]
    assert info.arguments == {"item": "a b"}


async def test_call_info_of_a_prompt_carries_its_name_and_arguments():
    infos: list = []
    reg = _all_kinds_registry([])
    layer = core_layer(reg, middleware=[_info_recorder(infos)])
    await layer.get_prompt("brief", {"topic": "vpcs"})
    (info,) = infos
    assert (info.kind, info.name, info.arguments) == ("prompt", "brief", {"topic": "vpcs"})
    assert info.spec is reg.prompts["brief"]


async def test_middleware_runs_on_the_loop_thread():
    threads: list = []

    async def where(info: CallInfo, nxt):
        threads.append(threading.get_ident())
        return await nxt(info)

    layer = core_layer(_all_kinds_registry([]), middleware=[where])
    await layer.call_tool("count", {"n": 1})
    assert threads == [threading.get_ident()]
