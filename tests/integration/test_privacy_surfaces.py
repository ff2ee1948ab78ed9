"""Every surface a handler can put text on goes through the output pipeline — beyond the
seed's table: block and result meta, embedded resource URIs, resource-list URIs and meta,
prompt meta, progress messages and log data — and a value the policy drops is never restored
from the original (completion values, error messages, link URIs)."""

from __future__ import annotations

from typing import Any

from cloudg_nb import (
    CloudGMCPLayer,
    EmbeddedResource,
    ImageContent,
    MCPLayerError,
    PromptArgument,
    PromptMessage,
    PromptResult,
    Registry,
    ResourceLink,
    TextContent,
    TextResourceContents,
    ToolResult,
)

TOKEN = "ghp_kxwnQrS7RPeMOkIUpkDyr7OSJoRu1XXdo0cZ"
DB_URL = "postgresql://app:Xq7-tide-Lantern-42@db.internal:5432/prod"
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "ULyfgy3f7Tw7SUpHpyBCq+cfRHw6Odg2MzwLim8w3yEroi25dtx972Pb4+Fa4S+S\n"
    "-----END RSA PRIVATE KEY-----"
)
SECRETS = (TOKEN, "Xq7-tide-Lantern-42", "ULyfgy3f7Tw7SUpHpyBC")


def _leaks(wire: Any) -> list[str]:
    text = repr(wire)
    return [s for s in SECRETS if s in text]


def _registry() -> Registry:
    reg = Registry()

    @reg.tool
    def built(ctx) -> ToolResult:
        return ToolResult(
            content=[
                TextContent("ok", meta={"note": TOKEN}),
                ResourceLink("data://x", "x", meta={"auth": TOKEN}),
                EmbeddedResource(TextResourceContents(DB_URL, "body", meta={"k": TOKEN}),
                                 meta={"k": TOKEN}),
                ImageContent("aGk=", meta={"k": TOKEN}),
            ],
            meta={"k": TOKEN},
        )

    @reg.tool
    def chatty(ctx) -> dict:
        ctx.report_progress_sync(1, 2, f"connecting with {TOKEN}")
        ctx.log_sync("info", {"dsn": DB_URL})
        return {"ok": True}

    @reg.tool
    def fails(ctx) -> dict:
        raise MCPLayerError(PEM)

    @reg.resource("data://list")
    def listing(ctx) -> list:
        return [TextResourceContents(f"data://list?token={TOKEN}", "x", meta={"k": TOKEN})]

    def values(ctx, partial: str) -> list[str]:
        return [PEM, TOKEN, "plain"]

    @reg.prompt(arguments=[PromptArgument("topic", completion=values)])
    def brief(ctx, topic: str = "") -> PromptResult:
        return PromptResult(
            [PromptMessage("user", TextContent("hi", meta={"k": TOKEN}))], meta={"k": TOKEN}
        )

    return reg


async def test_meta_and_uris_of_handler_built_results_are_redacted() -> None:
    layer = CloudGMCPLayer(registry=_registry(), policy="standard")
    result = await layer.call_tool("built")
    assert _leaks(result.to_wire()) == []
    assert result.content[3].data == "aGk="  # binary payloads stay as they are


async def test_resource_list_uris_and_meta_are_redacted() -> None:
    layer = CloudGMCPLayer(registry=_registry(), policy="standard")
    contents = await layer.read_resource("data://list")
    assert _leaks([c.to_wire() for c in contents]) == []


async def test_prompt_meta_and_block_meta_are_redacted() -> None:
    layer = CloudGMCPLayer(registry=_registry(), policy="standard")
    result = await layer.get_prompt("brief")
    assert _leaks(result.to_wire()) == []


async def test_progress_messages_and_log_data_are_redacted() -> None:
    layer = CloudGMCPLayer(registry=_registry(), policy="standard")
    sent: list[Any] = []
    ctx = layer.context(
        progress_callback=lambda p, t, m: sent.append(m),
        log_callback=lambda level, data, name: sent.append(data),
    )
    result = await layer.call_tool("chatty", context=ctx)
    assert not result.is_error
    assert len(sent) == 2 and _leaks(sent) == []


async def test_a_dropped_error_message_is_withheld_not_restored() -> None:
    layer = CloudGMCPLayer(registry=_registry(), policy="standard")
    result = await layer.call_tool("fails")
    assert result.is_error and _leaks(result.to_wire()) == []
    assert result.text  # the caller still gets a message


async def test_dropped_completion_values_are_omitted_not_restored() -> None:
    layer = CloudGMCPLayer(registry=_registry(), policy="standard")
    done = await layer.complete({"type": "ref/prompt", "name": "brief"},
                                {"name": "topic", "value": ""})
    assert _leaks(done) == []
    assert "plain" in done["values"]


async def test_the_same_surfaces_carry_the_values_under_open() -> None:
    layer = CloudGMCPLayer(registry=_registry(), policy="open")
    result = await layer.call_tool("built")
    assert TOKEN in repr(result.to_wire())  # so the tests above can fail


async def test_errors_raised_by_resources_and_prompts_are_redacted() -> None:
    import pytest

    reg = Registry()

    @reg.resource_template("t://r/{name}")
    def failing_resource(ctx, name: str) -> str:
        raise MCPLayerError(f"cannot open with {TOKEN}", data={"dsn": DB_URL})

    @reg.prompt
    def failing_prompt(ctx) -> str:
        raise MCPLayerError(f"cannot render with {TOKEN}", data={"dsn": DB_URL})

    layer = CloudGMCPLayer(registry=reg, policy="standard")
    with pytest.raises(MCPLayerError) as from_resource:
        await layer.read_resource("t://r/x")
    with pytest.raises(MCPLayerError) as from_prompt:
        await layer.get_prompt("failing_prompt")
    for err in (from_resource.value, from_prompt.value):
        assert _leaks([err.message, err.data, str(err)]) == []
        assert err.code == -32603
