"""Seed §4.8: error results from ``call_tool``, hidden names, and propagation elsewhere.

Only ``get_tool`` raises out of ``call_tool``; every other failure is a ``ToolResult`` with
``is_error`` and ``cloudg/error_code``. Hidden and nonexistent names look identical and are
recorded with the policy. ``read_resource`` and ``get_prompt`` let errors propagate, and
``get_prompt`` checks required arguments before anything else runs.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest

from cloudg_nb import (
    AccessDeniedError,
    CloudGMCPLayer,
    InvalidArgumentsError,
    MCPLayerError,
    NotFoundError,
    PromptArgument,
    RateLimitedError,
    Registry,
    ToolResult,
)
from tests.layer.fakes import FakePolicy, core_layer

SECRET = "sk-live-51HdQfTOTALLYSECRETvalue"


def make_layer(reg: Registry, policy: FakePolicy | None = None, **kwargs: Any
               ) -> CloudGMCPLayer:
    return core_layer(reg, policy=policy or FakePolicy("plain"), **kwargs)


class CallRecorder:
    """A middleware that records the name of every call it sees."""

    def __init__(self) -> None:
        self.names: list[str] = []

    async def __call__(self, info: Any, call_next: Any) -> Any:
        self.names.append(info.name)
        return await call_next(info)


def tool_registry() -> Registry:
    reg = Registry()

    @reg.tool
    def count(ctx, n: int) -> dict:
        return {"n": n}

    @reg.tool
    def boom(ctx) -> dict:
        raise ValueError("the graph has no node 42")

    @reg.tool(timeout_seconds=0.05)
    async def slow(ctx) -> dict:
        await asyncio.sleep(5)
        return {}

    @reg.tool
    def missing_ref(ctx) -> dict:
        raise NotFoundError("No asset 'vm-1' in the active dataset.", data={"ref": "vm-1"})

    @reg.tool
    def secret_plans(ctx) -> dict:
        return {"plans": "classified"}

    return reg


def hiding_policy(policy: type[FakePolicy] = FakePolicy) -> FakePolicy:
    """A policy that hides the tools named ``secret_*``."""
    return policy("h", denied=["secret_*"], hide_denied=True)


async def error_of(layer: CloudGMCPLayer, name: str) -> NotFoundError:
    with pytest.raises(NotFoundError) as info:
        await layer.call_tool(name)
    return info.value


# -- call_tool: the one error that escapes ---------------------------------------------------


async def test_unknown_tool_raises_not_found_out_of_call_tool() -> None:
    layer = make_layer(tool_registry())

    with pytest.raises(NotFoundError) as info:
        await layer.call_tool("no_such_tool")

    assert info.value.code == -32602


async def test_unknown_tool_never_reaches_middleware() -> None:
    recorder = CallRecorder()
    layer = make_layer(tool_registry(), middleware=[recorder])

    with pytest.raises(NotFoundError):
        await layer.call_tool("no_such_tool")

    assert recorder.names == []


# -- call_tool: everything else is an error result -------------------------------------------


async def test_handler_exception_becomes_a_handler_error_result() -> None:
    result = await make_layer(tool_registry()).call_tool("boom")

    assert isinstance(result, ToolResult)
    assert result.is_error
    assert result.meta["cloudg/error_code"] == "handler_error"
    error_id = result.meta["cloudg/error_data"]["error_id"]
    assert result.text.startswith(f"Tool boom failed unexpectedly (error id {error_id}).")
    assert "ValueError" not in result.text and "node 42" not in result.text


async def test_handler_exception_traceback_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="cloudg.mcp")

    await make_layer(tool_registry()).call_tool("boom")

    failures = [r for r in caplog.records if r.getMessage() == "Tool boom failed"]
    assert len(failures) == 1
    assert failures[0].name == "cloudg.mcp"
    assert failures[0].exc_info is not None
    assert failures[0].exc_info[0] is ValueError


async def test_handler_failure_details_go_to_the_server_log_under_the_id_the_model_sees(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.ERROR, logger="cloudg.mcp")

    result = await make_layer(tool_registry()).call_tool("boom")

    error_id = result.meta["cloudg/error_data"]["error_id"]
    assert "no node 42" not in json.dumps(result.meta) and "no node 42" not in result.text
    [record] = [r for r in caplog.records if r.getMessage() == "Tool boom failed"]
    assert record.error_id == error_id  # type: ignore[attr-defined]
    logged = logging.Formatter().format(record)
    assert "ValueError: the graph has no node 42" in logged
    assert f"cloudg error id: {error_id}" in logged


async def test_each_handler_failure_gets_its_own_error_id() -> None:
    layer = make_layer(tool_registry())

    first, second = await layer.call_tool("boom"), await layer.call_tool("boom")

    assert first.meta["cloudg/error_data"]["error_id"] != \
        second.meta["cloudg/error_data"]["error_id"]


async def test_handler_exception_in_async_handler_becomes_an_error_result() -> None:
    reg = Registry()

    @reg.tool
    async def aboom(ctx) -> dict:
        raise KeyError("asset")

    result = await make_layer(reg).call_tool("aboom")

    assert result.is_error
    assert result.error_code == "handler_error"
    assert "KeyError" not in result.text and "asset" not in result.text
    assert result.meta["cloudg/error_data"]["error_id"] in result.text


async def test_handler_mcp_error_keeps_its_own_code_and_data() -> None:
    result = await make_layer(tool_registry()).call_tool("missing_ref")

    assert result.is_error
    assert result.error_code == -32602
    assert result.text == "No asset 'vm-1' in the active dataset."
    assert result.meta["cloudg/error_data"] == {"ref": "vm-1"}


async def test_timeout_becomes_a_timeout_error_result() -> None:
    result = await make_layer(tool_registry()).call_tool("slow")

    assert result.is_error
    assert result.meta["cloudg/error_code"] == "timeout"
    assert "slow timed out" in result.text


async def test_invalid_arguments_become_an_invalid_params_error_result() -> None:
    result = await make_layer(tool_registry()).call_tool("count", {"n": "many"})

    assert result.is_error
    assert result.meta["cloudg/error_code"] == -32602
    assert result.text.startswith("Invalid arguments:")
    assert [d["loc"] for d in result.meta["cloudg/error_data"]] == [["n"]]


async def test_invalid_arguments_error_never_echoes_the_bad_value() -> None:
    result = await make_layer(tool_registry()).call_tool("count", {"n": SECRET})

    assert result.is_error
    assert SECRET not in json.dumps(result.to_wire())
    assert SECRET[:12] not in json.dumps(result.to_wire())


async def test_invalid_mapping_argument_error_never_echoes_the_mapping_keys() -> None:
    reg = Registry()

    @reg.tool
    def tag(ctx, tags: dict[str, int]) -> dict:
        return {}

    result = await make_layer(reg).call_tool("tag", {"tags": {SECRET: "not a number"}})

    assert result.is_error
    assert result.error_code == -32602
    assert SECRET not in json.dumps(result.to_wire())


async def test_unknown_argument_error_never_echoes_its_value() -> None:
    result = await make_layer(tool_registry()).call_tool("count", {"n": 1, "token": SECRET})

    assert result.is_error
    assert result.error_code == -32602
    assert SECRET not in json.dumps(result.to_wire())


async def test_access_denied_becomes_an_error_result() -> None:
    policy = FakePolicy("deny", denied=["count"])

    result = await make_layer(tool_registry(), policy).call_tool("count", {"n": 1})

    assert result.is_error
    assert result.meta["cloudg/error_code"] == -31001
    assert result.meta["cloudg/error_data"]["policy"] == "deny"


async def test_mcp_error_raised_by_middleware_becomes_an_error_result() -> None:
    async def busy(info: Any, call_next: Any) -> Any:
        raise RateLimitedError("Server busy; try again shortly.", data={"retry_after": 2})

    layer = make_layer(tool_registry(), middleware=[busy])

    result = await layer.call_tool("count", {"n": 1})

    assert result.is_error
    assert result.error_code == -31029
    assert result.text == "Server busy; try again shortly."
    assert result.meta["cloudg/error_data"] == {"retry_after": 2}


async def test_error_results_carry_a_duration() -> None:
    result = await make_layer(tool_registry()).call_tool("boom")

    assert isinstance(result.meta["cloudg/duration_ms"], float)
    assert result.meta["cloudg/duration_ms"] >= 0


async def test_middleware_sees_error_results_as_return_values() -> None:
    seen: list[Any] = []

    async def watch(info: Any, call_next: Any) -> Any:
        result = await call_next(info)
        seen.append(result)
        return result

    result = await make_layer(tool_registry(), middleware=[watch]).call_tool("boom")

    assert seen == [result]
    assert result.is_error


# -- hidden names ----------------------------------------------------------------------------


async def test_hidden_tool_is_absent_from_the_listing() -> None:
    layer = make_layer(tool_registry(), hiding_policy())

    names = [t["name"] for t in layer.tools_wire()]

    assert "secret_plans" not in names
    assert "count" in names


async def test_hidden_tool_gives_exactly_the_nonexistent_tool_error() -> None:
    hiding = make_layer(tool_registry(), hiding_policy())
    without = tool_registry()
    del without.tools["secret_plans"]
    absent = make_layer(without, hiding_policy())

    hidden_error = await error_of(hiding, "secret_plans")
    absent_error = await error_of(absent, "secret_plans")

    assert type(hidden_error) is type(absent_error)
    assert hidden_error.message == absent_error.message
    assert hidden_error.code == absent_error.code
    assert hidden_error.data == absent_error.data


async def test_hidden_tool_is_recorded_as_not_found_with_the_policy() -> None:
    policy = hiding_policy()
    layer = make_layer(tool_registry(), policy)

    await error_of(layer, "secret_plans")

    assert policy.hidden == [("tool", "secret_plans")]


async def test_nonexistent_tool_is_recorded_as_not_found_with_the_policy() -> None:
    policy = FakePolicy("plain")
    layer = make_layer(tool_registry(), policy)

    await error_of(layer, "no_such_tool")

    assert policy.hidden == [("tool", "no_such_tool")]


async def test_hidden_tool_never_reaches_middleware() -> None:
    recorder = CallRecorder()
    layer = make_layer(tool_registry(), hiding_policy(), middleware=[recorder])

    await error_of(layer, "secret_plans")

    assert recorder.names == []


class BrokenAuditPolicy(FakePolicy):
    def record_hidden(self, kind: str, name: str, principal: Any) -> None:
        raise RuntimeError("audit store down")


async def test_raising_record_hidden_never_changes_the_answer() -> None:
    normal = await error_of(make_layer(tool_registry(), hiding_policy()), "secret_plans")
    broken = await error_of(
        make_layer(tool_registry(), hiding_policy(BrokenAuditPolicy)), "secret_plans"
    )

    assert type(broken) is type(normal)
    assert (broken.message, broken.code, broken.data) == (normal.message, normal.code, normal.data)


async def test_raising_record_hidden_never_changes_a_resource_answer() -> None:
    reg = Registry()
    layer = make_layer(reg, BrokenAuditPolicy("broken"))

    with pytest.raises(NotFoundError):
        await layer.read_resource("data://nowhere")


async def test_hidden_resource_is_recorded_as_not_found() -> None:
    reg = Registry()

    @reg.resource("secret://vault")
    def vault(ctx) -> str:
        return "x"

    policy = FakePolicy("h", denied=["secret://*"], hide_denied=True)
    layer = make_layer(reg, policy)

    with pytest.raises(NotFoundError):
        await layer.read_resource("secret://vault")

    assert policy.hidden == [("resource", "secret://vault")]


async def test_hidden_prompt_is_recorded_as_not_found() -> None:
    reg = Registry()

    @reg.prompt
    def secret_brief(ctx) -> str:
        return "x"

    policy = FakePolicy("h", denied=["secret_*"], hide_denied=True)
    layer = make_layer(reg, policy)

    with pytest.raises(NotFoundError):
        await layer.get_prompt("secret_brief")

    assert policy.hidden == [("prompt", "secret_brief")]


# -- read_resource propagates ----------------------------------------------------------------


def resource_registry() -> Registry:
    reg = Registry()

    @reg.resource("data://broken")
    def broken(ctx) -> dict:
        raise ValueError("cannot render")

    @reg.resource_template("data://assets/{ref}")
    def asset(ctx, ref: str) -> dict:
        raise NotFoundError(f"No asset {ref!r}.", data={"ref": ref})

    return reg


async def test_read_resource_unknown_uri_raises_not_found() -> None:
    with pytest.raises(NotFoundError):
        await make_layer(resource_registry()).read_resource("data://nowhere")


async def test_read_resource_handler_exception_propagates() -> None:
    with pytest.raises(ValueError, match="cannot render"):
        await make_layer(resource_registry()).read_resource("data://broken")


async def test_read_resource_handler_not_found_propagates() -> None:
    with pytest.raises(NotFoundError) as info:
        await make_layer(resource_registry()).read_resource("data://assets/vm-1")

    assert info.value.data == {"ref": "vm-1"}


async def test_read_resource_denied_raises_access_denied() -> None:
    policy = FakePolicy("deny", denied=["data://broken"])

    with pytest.raises(AccessDeniedError):
        await make_layer(resource_registry(), policy).read_resource("data://broken")


# -- get_prompt propagates -------------------------------------------------------------------


def prompt_registry(calls: list[str]) -> Registry:
    reg = Registry()

    @reg.prompt(arguments=[PromptArgument("topic", required=True),
                           PromptArgument("scope", required=True),
                           PromptArgument("tone")])
    def brief(ctx, topic: str, scope: str, tone: str = "") -> str:
        calls.append("handler")
        return f"{topic} {scope}"

    @reg.prompt
    def broken(ctx) -> str:
        raise ValueError("template missing")

    return reg


async def test_get_prompt_unknown_name_raises_not_found() -> None:
    with pytest.raises(NotFoundError):
        await make_layer(prompt_registry([])).get_prompt("no_such_prompt")


async def test_get_prompt_handler_exception_propagates() -> None:
    with pytest.raises(ValueError, match="template missing"):
        await make_layer(prompt_registry([])).get_prompt("broken")


async def test_get_prompt_denied_raises_access_denied() -> None:
    policy = FakePolicy("deny", denied=["brief"])
    layer = make_layer(prompt_registry([]), policy)

    with pytest.raises(AccessDeniedError):
        await layer.get_prompt("brief", {"topic": "a", "scope": "b"})


async def test_get_prompt_missing_required_arguments_are_named() -> None:
    layer = make_layer(prompt_registry([]))

    with pytest.raises(InvalidArgumentsError) as info:
        await layer.get_prompt("brief", {"tone": "dry"})

    assert "topic" in info.value.message
    assert "scope" in info.value.message
    assert info.value.data == {"missing": ["topic", "scope"]}


async def test_get_prompt_missing_arguments_stop_before_middleware_and_handler() -> None:
    calls: list[str] = []
    recorder = CallRecorder()
    layer = make_layer(prompt_registry(calls), middleware=[recorder])

    with pytest.raises(InvalidArgumentsError):
        await layer.get_prompt("brief", {"topic": "network"})

    assert calls == []
    assert recorder.names == []


async def test_get_prompt_missing_arguments_are_checked_before_the_policy() -> None:
    policy = FakePolicy("deny", denied=["brief"])
    layer = make_layer(prompt_registry([]), policy)

    with pytest.raises(InvalidArgumentsError):
        await layer.get_prompt("brief", {})

    assert policy.checks == []


async def test_get_prompt_with_all_required_arguments_runs_the_handler() -> None:
    calls: list[str] = []
    layer = make_layer(prompt_registry(calls))

    result = await layer.get_prompt("brief", {"topic": "network", "scope": "prod"})

    assert calls == ["handler"]
    assert result.messages[0].content.text == "network prod"


async def test_get_prompt_error_is_an_mcp_layer_error_with_a_code() -> None:
    with pytest.raises(MCPLayerError) as info:
        await make_layer(prompt_registry([])).get_prompt("brief", {})

    assert info.value.code == -32602
