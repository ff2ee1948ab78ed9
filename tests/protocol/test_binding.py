"""``bind_layer``: the layer inside the SDK's low-level ``Server``, driven in-process by the
official client in both eras (``legacy`` handshake; ``auto`` = 2026-07-28 direct dispatch).

Covers what the transports do not vary: results pass through exactly, layer errors keep their
JSON-RPC codes, listings follow the caller's principal, host-server primitives come first and
win collisions, the default log level, capabilities, and subscription checks.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from mcp import Client, MCPError
from mcp.server.lowlevel.server import Server
from mcp.types import CallToolResult, LoggingMessageNotification, TextContent, Tool

from cloudg_nb.layer import (
    CloudGMCPLayer,
    EmbeddedResource,
    ImageContent,
    PromptArgument,
    Registry,
    ResourceLink,
    TextResourceContents,
    ToolResult,
)
from cloudg_nb.layer import TextContent as LayerText
from cloudg_nb.policy import Policy
from cloudg_nb.protocol import PrincipalResolver, bind_layer

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")
MODES = ("legacy", "auto")


def _registry() -> Registry:
    reg = Registry()

    @reg.tool
    def rich_result(ctx) -> ToolResult:
        """Return every content kind, structured content and result meta."""
        ctx.link("fx://linked", "linked", title="A linked resource")
        return ToolResult(
            [
                LayerText("text block"),
                ImageContent("aGVsbG8=", "image/png"),
                ResourceLink("fx://other", "other", mime_type="text/plain"),
                EmbeddedResource(TextResourceContents("fx://embedded", "inside", "text/plain")),
            ],
            structured={"answer": 42},
            meta={"fixture/key": "value"},
        )

    @reg.tool
    def failing_result(ctx) -> ToolResult:
        """An error result built by the handler."""
        return ToolResult([LayerText("handler says no")], is_error=True)

    @reg.tool
    async def logs(ctx) -> dict:
        """Log at every level from debug to error."""
        for level in ("debug", "info", "notice", "warning", "error"):
            await ctx.log(level, level)
        return {}

    @reg.tool
    def sync_progress(ctx) -> dict:
        """Report progress from the worker thread a sync handler runs in."""
        for step in (1, 2, 3):
            ctx.report_progress_sync(step, 3)
        return {"done": True}

    @reg.tool
    def shared_name(ctx) -> dict:
        """The layer's tool that a host tool of the same name hides."""
        return {"from": "layer"}

    @reg.tool
    def admin_only(ctx) -> dict:
        """Only listed for admins."""
        return {}

    @reg.resource("fx://secret", mime_type="text/plain")
    def secret(ctx) -> str:
        """Denied by the test policy."""
        return "secret"

    @reg.resource("fx://open", mime_type="text/plain")
    def open_resource(ctx) -> str:
        """Readable."""
        return "open"

    @reg.prompt(arguments=[PromptArgument("topic", required=True)])
    def brief(ctx, topic: str) -> str:
        """Needs a topic."""
        return f"Brief on {topic}"

    return reg


class AdminListingPolicy(Policy):
    """Hides ``admin_only`` from callers without the admin role; denies ``fx://secret``."""

    def __init__(self) -> None:
        super().__init__({"name": "test", "deny_resources": ["fx://secret"]})

    def is_allowed(self, spec: Any, principal: Any) -> bool:
        if spec.name == "admin_only":
            return principal.has_role("admin")
        return True


def _layer() -> CloudGMCPLayer:
    return CloudGMCPLayer(registry=_registry(), policy=AdminListingPolicy())


@pytest.mark.parametrize("mode", MODES)
async def test_tool_result_passes_through_exactly(mode: str) -> None:
    layer = _layer()
    expected = (await layer.call_tool("rich_result")).to_wire()
    async with Client(bind_layer(layer).server, mode=mode) as client:
        result = await client.call_tool("rich_result", {})
    wire = result.model_dump(by_alias=True, exclude_none=True, mode="json")
    assert wire["content"] == expected["content"]
    assert wire["structuredContent"] == {"answer": 42}
    assert wire["isError"] is False
    assert wire["_meta"]["fixture/key"] == "value"
    assert set(expected["_meta"]) <= set(wire["_meta"])
    assert [c["type"] for c in wire["content"]] == [
        "text", "image", "resource_link", "resource", "resource_link"]


@pytest.mark.parametrize("mode", MODES)
async def test_handler_error_result_keeps_is_error(mode: str) -> None:
    async with Client(bind_layer(_layer()).server, mode=mode) as client:
        result = await client.call_tool("failing_result", {})
    assert result.is_error is True
    assert result.content[0].text == "handler says no"


@pytest.mark.parametrize("mode", MODES)
async def test_sync_handler_progress_arrives_before_the_result(mode: str) -> None:
    events: list[Any] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        events.append(progress)

    async with Client(bind_layer(_layer()).server, mode=mode) as client:
        result = await client.call_tool("sync_progress", {}, progress_callback=on_progress)
        events.append(result.structured_content)
    assert events == [1, 2, 3, {"done": True}]


@pytest.mark.parametrize("mode", MODES)
async def test_policy_denial_keeps_the_layer_error_code(mode: str) -> None:
    async with Client(bind_layer(_layer()).server, mode=mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource("fx://secret")
    assert caught.value.code == -31001
    assert caught.value.data["policy"] == "test"


@pytest.mark.parametrize("mode", MODES)
async def test_missing_prompt_argument_is_invalid_params(mode: str) -> None:
    async with Client(bind_layer(_layer()).server, mode=mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.get_prompt("brief", {})
    assert caught.value.code == -32602
    assert caught.value.data == {"missing": ["topic"]}


@pytest.mark.parametrize("mode", MODES)
async def test_listing_follows_the_callers_principal(mode: str) -> None:
    from cloudg_nb.layer import Principal

    layer = _layer()
    admin = Principal("root", frozenset({"admin"}))
    plain = bind_layer(layer).server
    elevated = bind_layer(layer, resolver=PrincipalResolver(principal=admin)).server
    async with Client(plain, mode=mode) as client:
        plain_names = {t.name for t in (await client.list_tools()).tools}
    async with Client(elevated, mode=mode) as client:
        admin_names = {t.name for t in (await client.list_tools()).tools}
    assert "admin_only" not in plain_names
    assert "admin_only" in admin_names


def _host_server() -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> Any:
        return {"tools": [
            Tool(name="host_tool", description="host", input_schema={"type": "object"}),
            Tool(name="shared_name", description="host version",
                 input_schema={"type": "object"}),
        ]}

    async def call_tool(ctx: Any, params: Any) -> Any:
        return CallToolResult(content=[TextContent(type="text", text=f"host ran {params.name}")])

    return Server("host", on_list_tools=list_tools, on_call_tool=call_tool)


@pytest.mark.parametrize("mode", MODES)
async def test_host_primitives_are_kept_and_listed_first(mode: str) -> None:
    binding = bind_layer(_layer(), _host_server())
    async with Client(binding.server, mode=mode) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        host_result = await client.call_tool("host_tool", {})
        layer_result = await client.call_tool("rich_result", {})
    assert names[:2] == ["host_tool", "shared_name"]
    assert "rich_result" in names
    assert host_result.content[0].text == "host ran host_tool"
    assert layer_result.structured_content == {"answer": 42}


async def test_host_wins_a_name_collision_with_a_warning(caplog: Any) -> None:
    binding = bind_layer(_layer(), _host_server())
    with caplog.at_level(logging.WARNING, logger="cloudg.mcp.protocol"):
        async with Client(binding.server, mode="legacy") as client:
            names = [t.name for t in (await client.list_tools()).tools]
            result = await client.call_tool("shared_name", {})
    assert names.count("shared_name") == 1
    assert result.content[0].text == "host ran shared_name"
    assert "shared_name" in caplog.text


async def test_handshake_default_log_level_is_info() -> None:
    notes: list[Any] = []

    async def on_message(message: Any) -> None:
        notes.append(message)

    async with Client(bind_layer(_layer()).server, mode="legacy",
                      message_handler=on_message) as client:
        await client.call_tool("logs", {})
    levels = [n.params.level for n in notes if isinstance(n, LoggingMessageNotification)]
    assert levels == ["info", "notice", "warning", "error"]


async def test_stateless_era_sends_no_logs_without_an_opt_in() -> None:
    notes: list[Any] = []

    async def on_message(message: Any) -> None:
        notes.append(message)

    async with Client(bind_layer(_layer()).server, mode="auto",
                      message_handler=on_message) as client:
        await client.call_tool("logs", {})
    assert [n for n in notes if isinstance(n, LoggingMessageNotification)] == []


async def test_handshake_capabilities_announce_list_changes_and_subscriptions() -> None:
    async with Client(bind_layer(_layer()).server, mode="legacy") as client:
        caps = client.server_capabilities
    assert caps.tools.list_changed and caps.prompts.list_changed
    assert caps.resources.list_changed and caps.resources.subscribe
    assert caps.logging is not None and caps.completions is not None


async def test_subscribing_to_an_unknown_resource_is_resource_not_found() -> None:
    async with Client(bind_layer(_layer()).server, mode="legacy") as client:
        with pytest.raises(MCPError) as caught:
            await client.subscribe_resource("fx://nothing-here")
        await client.subscribe_resource("fx://open")
    assert caught.value.code == -32002
