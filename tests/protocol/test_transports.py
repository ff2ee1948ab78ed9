"""The MCP edge end to end: the official SDK client against ``cloudg-nb serve``.

Every test runs four times: over stdio (a real subprocess) and HTTP (a real socket on
127.0.0.1), each in the handshake era (2025) and the stateless era (2026-07-28). Covered:
listings, structured and error calls, progress, logging, reads, prompts, completion, change
notifications and cancellation.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from mcp import MCPError
from mcp.types import (
    LoggingMessageNotification,
    ProgressNotification,
    PromptReference,
    ResourceListChangedNotification,
    ResourceTemplateReference,
    ResourceUpdatedNotification,
    ToolListChangedNotification,
)
from mcp_types import LOG_LEVEL_META_KEY

from .harness import TIMEOUT, ClientSession, make_client

COUNTER = "fixture://counter"
pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")


def _era(session: ClientSession) -> str:
    return session.era  # type: ignore[attr-defined]


def _transport(session: ClientSession) -> str:
    return session.transport  # type: ignore[attr-defined]


# -- listings ------------------------------------------------------------------------------


def test_tools_list_carries_the_layer_definitions(session: ClientSession) -> None:
    tools = {t.name: t for t in session.list_tools().tools}
    assert {"add_numbers", "count_up", "emit_logs", "bump_counter"} <= set(tools)
    add = tools["add_numbers"]
    assert add.output_schema["required"] == ["sum"]
    assert add.annotations.read_only_hint is True
    assert add.meta["cloudg/category"] == "general"


def test_resources_list_shows_the_static_resources(session: ClientSession) -> None:
    uris = {r.uri: r for r in session.list_resources().resources}
    assert {COUNTER, "fixture://hello"} <= set(uris)
    assert uris["fixture://hello"].mime_type == "text/plain"


def test_templates_list_shows_the_uri_templates(session: ClientSession) -> None:
    templates = session.list_resource_templates().resource_templates
    assert [t.uri_template for t in templates] == ["fixture://items/{item_id}"]


def test_prompts_list_shows_prompts_with_arguments(session: ClientSession) -> None:
    (greet,) = session.list_prompts().prompts
    assert greet.name == "greet"
    assert [(a.name, a.required) for a in greet.arguments] == [("name", True)]


# -- calls -----------------------------------------------------------------------------------


def test_structured_call_returns_structured_content_and_text(session: ClientSession) -> None:
    result = session.call_tool("add_numbers", {"a": 2, "b": 3})
    assert result.is_error is False
    assert result.structured_content == {"sum": 5}
    assert json.loads(result.content[0].text) == {"sum": 5}
    assert "cloudg/duration_ms" in result.meta


def test_failing_tool_returns_an_error_result(session: ClientSession) -> None:
    result = session.call_tool("always_fails", {})
    assert result.is_error is True
    assert result.meta["cloudg/error_code"] == "handler_error"
    # a fixed message with the id the server logged the details under; never the details
    assert result.meta["cloudg/error_data"]["error_id"] in result.content[0].text
    assert "this tool always fails" not in result.content[0].text


def test_unknown_tool_is_a_json_rpc_invalid_params_error(session: ClientSession) -> None:
    with pytest.raises(MCPError) as caught:
        session.call_tool("no_such_tool", {})
    assert caught.value.code == -32602
    assert "Unknown tool" in caught.value.message


# -- progress --------------------------------------------------------------------------------


def test_progress_arrives_in_order_before_the_result(session: ClientSession) -> None:
    events: list[Any] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        events.append((progress, total))

    session.call_tool("count_up", {"steps": 3}, progress_callback=on_progress)
    events.append("result")
    assert events == [(1, 3), (2, 3), (3, 3), "result"]


def test_progress_is_delivered_while_the_tool_is_still_running(session: ClientSession) -> None:
    gate = f"gate-{_transport(session)}-{_era(session)}"

    async def scenario(client: Any) -> tuple[list[float], list[float], Any]:
        seen: list[float] = []
        first = anyio.Event()
        box: dict[str, Any] = {}

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append(progress)
            first.set()

        async def call() -> None:
            box["result"] = await client.call_tool(
                "progress_then_wait", {"gate": gate}, progress_callback=on_progress)

        async with anyio.create_task_group() as tg:
            tg.start_soon(call)
            await first.wait()  # the tool is blocked on the gate: this is live progress
            before_release = list(seen)
            await client.call_tool("open_gate", {"gate": gate})
        return before_release, seen, box["result"]

    before_release, seen, result = session.run(scenario)
    assert before_release == [1]
    assert seen == [1, 2]
    assert result.structured_content == {"gate": gate}


def test_no_progress_is_sent_without_a_progress_token(session: ClientSession) -> None:
    before = len(session.notifications(ProgressNotification))
    session.call_tool("count_up", {"steps": 3})
    session.call_tool("add_numbers", {"a": 1, "b": 1})  # a later response: nothing pending
    assert len(session.notifications(ProgressNotification)) == before


# -- logging ---------------------------------------------------------------------------------


def test_log_notifications_arrive_at_and_above_the_set_level(session: ClientSession) -> None:
    start = len(session.notes)
    if _era(session) == "2025":
        session.set_logging_level("warning")
        session.call_tool("emit_logs", {})
    else:  # 2026-07-28: the level is a per-request opt-in
        session.call_tool("emit_logs", {}, meta={LOG_LEVEL_META_KEY: "warning"})
    logs = [n.params for n in session.notes[start:] if isinstance(n, LoggingMessageNotification)]
    assert [(p.level, p.data, p.logger) for p in logs] == [
        ("warning", "warning message", "fixture"),
        ("error", "error message", "fixture"),
    ]


# -- resources, prompts, completion -------------------------------------------------------


def test_resource_read_returns_text_with_its_mime_type(session: ClientSession) -> None:
    (content,) = session.read_resource("fixture://hello").contents
    assert (content.uri, content.mime_type, content.text) == (
        "fixture://hello", "text/plain", "hello from the fixture")


def test_template_read_substitutes_the_variables(session: ClientSession) -> None:
    (content,) = session.read_resource("fixture://items/beta").contents
    assert json.loads(content.text) == {"item": "beta"}


def test_unknown_resource_error_code_follows_the_era(session: ClientSession) -> None:
    with pytest.raises(MCPError) as caught:
        session.read_resource("fixture://missing")
    assert caught.value.code == (-32002 if _era(session) == "2025" else -32602)


def test_prompt_get_renders_the_arguments(session: ClientSession) -> None:
    result = session.get_prompt("greet", {"name": "Ada"})
    assert [(m.role, m.content.text) for m in result.messages] == [("user", "Say hello to Ada.")]


def test_completion_of_a_prompt_argument(session: ClientSession) -> None:
    result = session.complete(PromptReference(name="greet"), {"name": "name", "value": "g"})
    assert result.completion.values == ["gamma"]


def test_completion_of_a_template_variable(session: ClientSession) -> None:
    ref = ResourceTemplateReference(uri="fixture://items/{item_id}")
    result = session.complete(ref, {"name": "item_id", "value": ""})
    assert result.completion.values == ["alpha", "beta", "gamma"]


# -- change notifications -------------------------------------------------------------------


async def _mutate(client: Any, session: ClientSession, tool: str) -> None:
    """Run ``tool`` from a second client over HTTP; stdio has one client per server process,
    so there the subscribed client itself makes the call."""
    if _transport(session) == "stdio":
        await client.call_tool(tool, {})
        return
    url = session.server_url  # type: ignore[attr-defined]
    async with make_client(url, _era(session)) as other:
        await other.call_tool(tool, {})


def test_subscriber_gets_resource_updated_after_a_mutating_call(session: ClientSession) -> None:
    if _era(session) == "2025":
        session.subscribe_resource(COUNTER)
        start = len(session.notes)
        session.run(_mutate, session, "bump_counter")
        updated = session.wait_for(lambda: [
            n for n in session.notes[start:]
            if isinstance(n, ResourceUpdatedNotification) and n.params.uri == COUNTER])
        assert updated[0].params.uri == COUNTER
        return

    async def listen(client: Any) -> Any:
        async with client.listen(resource_subscriptions=[COUNTER]) as sub:
            await _mutate(client, session, "bump_counter")
            async for event in sub:
                return event

    assert session.run(listen).uri == COUNTER


def test_list_changed_after_a_dataset_load(session: ClientSession) -> None:
    if _era(session) == "2025":
        start = len(session.notes)
        session.run(_mutate, session, "announce_new_listing")
        kinds = session.wait_for(lambda: {
            type(n) for n in session.notes[start:]
            if isinstance(n, (ResourceListChangedNotification, ToolListChangedNotification))
        } == {ResourceListChangedNotification, ToolListChangedNotification})
        assert kinds
        return

    async def listen(client: Any) -> set[str]:
        seen: set[str] = set()
        async with client.listen(resources_list_changed=True, tools_list_changed=True) as sub:
            await _mutate(client, session, "announce_new_listing")
            async for event in sub:
                seen.add(type(event).__name__)
                if len(seen) == 2:
                    return seen
        return seen

    assert session.run(listen) == {"ResourcesListChanged", "ToolsListChanged"}


# -- cancellation ---------------------------------------------------------------------------


def test_abandoned_request_cancels_the_async_handler(session: ClientSession) -> None:
    before = session.call_tool("cancellation_state", {}).structured_content
    with pytest.raises((MCPError, TimeoutError)):
        session.call_tool("wait_to_be_cancelled", {"seconds": TIMEOUT * 2},
                          read_timeout_seconds=1.0)

    def cancelled() -> bool:
        state = session.call_tool("cancellation_state", {}).structured_content
        return state["started"] == before["started"] + 1 and \
            state["cancelled"] == before["cancelled"] + 1

    assert session.wait_for(cancelled, timeout=TIMEOUT)
