"""Test-only registry with the primitives the MCP conformance suite's server scenarios call.

Served by ``cloudg-nb serve --transport http --registry tests.conformance.fixture:registry``.
Each primitive returns what its scenario description asks for (see the suite's
``conformance list`` / scenario sources). Sampling and elicitation tools are absent: the
layer offers no server-to-client requests yet.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from cloudg_nb.layer import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    PromptArgument,
    PromptMessage,
    Registry,
    TextContent,
    TextResourceContents,
    ToolContext,
    ToolResult,
)

registry = Registry()

#: A 1x1 red PNG and a tiny 8 kHz WAV (eight silent samples).
PNG_1X1 = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)
WAV_TINY = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA=="
JSON_SCHEMA_2020_12 = "https://json-schema.org/draft/2020-12/schema"


@registry.tool
def test_simple_text(ctx: ToolContext) -> ToolResult:
    """Return one text block."""
    return ToolResult([TextContent("This is a simple text response for testing.")])


@registry.tool
def test_image_content(ctx: ToolContext) -> ToolResult:
    """Return a 1x1 PNG image."""
    return ToolResult([ImageContent(PNG_1X1, "image/png")])


@registry.tool
def test_audio_content(ctx: ToolContext) -> ToolResult:
    """Return a tiny WAV clip."""
    return ToolResult([AudioContent(WAV_TINY, "audio/wav")])


@registry.tool
def test_embedded_resource(ctx: ToolContext) -> ToolResult:
    """Return an embedded text resource."""
    return ToolResult([EmbeddedResource(TextResourceContents(
        "test://embedded-resource", "This is an embedded resource content.", "text/plain"))])


@registry.tool
def test_multiple_content_types(ctx: ToolContext) -> ToolResult:
    """Return text, an image and an embedded resource."""
    return ToolResult([
        TextContent("Multiple content types test:"),
        ImageContent(PNG_1X1, "image/png"),
        EmbeddedResource(TextResourceContents(
            "test://mixed-content-resource", json.dumps({"test": "data", "value": 123}),
            "application/json")),
    ])


@registry.tool
async def test_tool_with_logging(ctx: ToolContext) -> ToolResult:
    """Send three info log messages about 50 ms apart."""
    await ctx.log("info", "Tool execution started")
    await asyncio.sleep(0.05)
    await ctx.log("info", "Tool processing data")
    await asyncio.sleep(0.05)
    await ctx.log("info", "Tool execution completed")
    return ToolResult([TextContent("Tool with logging executed successfully")])


@registry.tool
async def test_tool_with_progress(ctx: ToolContext) -> ToolResult:
    """Report progress 0, 50 and 100 of 100, about 50 ms apart."""
    for value in (0, 50, 100):
        await ctx.report_progress(value, 100)
        if value < 100:
            await asyncio.sleep(0.05)
    return ToolResult([TextContent("Tool with progress executed successfully")])


@registry.tool
def test_error_handling(ctx: ToolContext) -> ToolResult:
    """Always fail."""
    raise RuntimeError("This tool intentionally returns an error for testing")


@registry.tool
async def test_reconnection(ctx: ToolContext) -> ToolResult:
    """Finish after a short pause (the SSE polling scenario's tool)."""
    await asyncio.sleep(0.05)
    return ToolResult([TextContent("Reconnection test completed successfully")])


def _json_schema_tool(ctx: ToolContext, name: str = "", address: dict[str, Any] | None = None
                      ) -> dict[str, Any]:
    """Tool with JSON Schema 2020-12 features."""
    return {"name": name, "address": address}


registry.tool(
    _json_schema_tool,
    name="json_schema_2020_12_tool",
    description="Tool with JSON Schema 2020-12 features",
    input_schema={
        "$schema": JSON_SCHEMA_2020_12,
        "type": "object",
        "$defs": {
            "address": {
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
            }
        },
        "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
        "additionalProperties": False,
    },
)


@registry.resource("test://static-text", mime_type="text/plain", name="static-text")
def static_text(ctx: ToolContext) -> str:
    """A static text resource."""
    return "This is the content of the static text resource."


@registry.resource("test://static-binary", mime_type="image/png", name="static-binary")
def static_binary(ctx: ToolContext) -> bytes:
    """A static binary resource (a PNG)."""
    import base64

    return base64.b64decode(PNG_1X1)


@registry.resource("test://watched-resource", mime_type="text/plain", name="watched-resource")
def watched_resource(ctx: ToolContext) -> str:
    """A resource clients subscribe to."""
    return "Watched resource content."


@registry.resource_template("test://template/{id}/data", name="template-data")
def template_data(ctx: ToolContext, id: str) -> dict[str, Any]:
    """Data for one id."""
    return {"id": id, "templateTest": True, "data": f"Data for ID: {id}"}


@registry.prompt
def test_simple_prompt(ctx: ToolContext) -> str:
    """A simple prompt without arguments."""
    return "This is a simple prompt for testing."


def _complete_arg1(ctx: ToolContext, partial: str) -> list[str]:
    return [v for v in ("paris", "park", "party") if v.startswith(partial)]


@registry.prompt(arguments=[
    PromptArgument("arg1", "First test argument", required=True, completion=_complete_arg1),
    PromptArgument("arg2", "Second test argument", required=True),
])
def test_prompt_with_arguments(ctx: ToolContext, arg1: str, arg2: str) -> str:
    """A prompt with two required arguments."""
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@registry.prompt(arguments=[PromptArgument("resourceUri", "URI of the resource to embed",
                                           required=True)])
def test_prompt_with_embedded_resource(ctx: ToolContext, resourceUri: str) -> list[PromptMessage]:
    """A prompt that embeds a resource."""
    return [
        PromptMessage("user", EmbeddedResource(TextResourceContents(
            resourceUri, "Embedded resource content for testing.", "text/plain"))),
        PromptMessage("user", TextContent("Please process the embedded resource above.")),
    ]


@registry.prompt
def test_prompt_with_image(ctx: ToolContext) -> list[PromptMessage]:
    """A prompt with an image."""
    return [
        PromptMessage("user", ImageContent(PNG_1X1, "image/png")),
        PromptMessage("user", TextContent("Please analyze the image above.")),
    ]
