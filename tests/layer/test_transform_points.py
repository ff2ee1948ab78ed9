"""Seed §4.7: where the layer applies the policy's input and output transform pipelines.

One test (or a few) per row of the seed's transform-points table, then report merging,
where reports are stored, and truncation of plain tool results. The test policy's steps
record every value they see, upper-case every string and count into the report.
"""

from __future__ import annotations

import base64
import copy
import json
from typing import Any

from cloudg_nb import (
    BlobResourceContents,
    CloudGMCPLayer,
    EmbeddedResource,
    ImageContent,
    PromptArgument,
    PromptMessage,
    Registry,
    ResourceLink,
    TextContent,
    TextResourceContents,
    ToolResult,
)
from cloudg_nb.layer import InputRejectedError, MCPLayerError
from cloudg_nb.layer.pipeline import TransformContext, merge_report
from tests.layer.fakes import FakePolicy, core_layer

# -- the recording policy ----------------------------------------------------------------------


def shout(value: Any) -> Any:
    """Upper-case every string value (not dict keys), recursively."""
    if isinstance(value, str):
        return value.upper()
    if isinstance(value, dict):
        return {k: shout(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shout(v) for v in value]
    return value


class RecordingStep:
    """A transform step: records each value and its context, upper-cases strings, counts."""

    def __init__(self) -> None:
        self.values: list[Any] = []
        self.contexts: list[TransformContext] = []
        self.reports_on_entry: list[dict[str, Any]] = []

    def __call__(self, value: Any, ctx: TransformContext) -> Any:
        self.values.append(copy.deepcopy(value))
        self.contexts.append(ctx)
        self.reports_on_entry.append(dict(ctx.report))
        ctx.count("seen")
        return shout(value)


class TransformingPolicy(FakePolicy):
    """A policy whose pipelines are a RecordingStep each (or the steps given)."""

    def __init__(
        self,
        *,
        denied: list[str] | None = None,
        input_steps: list[Any] | None = None,
        output_steps: list[Any] | None = None,
    ) -> None:
        self.inputs = RecordingStep()
        self.outputs = RecordingStep()
        super().__init__(
            "rec", denied=denied or [],
            input=input_steps if input_steps is not None else [self.inputs],
            output=output_steps if output_steps is not None else [self.outputs])


def make_layer(reg: Registry, policy: FakePolicy | None = None, **kwargs: Any
               ) -> CloudGMCPLayer:
    return core_layer(reg, policy=policy or TransformingPolicy(), **kwargs)


def rendered(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


# -- tool arguments (input) ------------------------------------------------------------------


async def test_tool_arguments_go_through_the_input_pipeline_before_the_handler() -> None:
    reg = Registry()
    received: list[dict[str, Any]] = []

    @reg.tool
    def greet(ctx, name: str, greeting: str = "hello") -> dict:
        received.append({"name": name, "greeting": greeting})
        return {}

    policy = TransformingPolicy()
    result = await make_layer(reg, policy).call_tool("greet", {"name": "alice"})

    assert not result.is_error
    assert policy.inputs.values == [{"name": "alice"}]
    assert policy.inputs.contexts[0].direction == "input"
    assert received == [{"name": "ALICE", "greeting": "hello"}]


async def test_tool_arguments_are_transformed_before_validation() -> None:
    reg = Registry()
    received: list[int] = []

    @reg.tool
    def lookup(ctx, account: int) -> dict:
        received.append(account)
        return {}

    def reverse_pseudonym(value: Any, ctx: TransformContext) -> Any:
        return {k: ("7" if v == "ACCOUNT-A" else v) for k, v in value.items()}

    policy = TransformingPolicy(input_steps=[reverse_pseudonym])
    result = await make_layer(reg, policy).call_tool("lookup", {"account": "ACCOUNT-A"})

    assert not result.is_error, result.text
    assert received == [7]


async def test_tool_input_pipeline_runs_only_after_check_call_allows_the_call() -> None:
    reg = Registry()

    @reg.tool
    def guarded(ctx, name: str) -> dict:
        return {}

    policy = TransformingPolicy(denied=["guarded"])
    result = await make_layer(reg, policy).call_tool("guarded", {"name": "alice"})

    assert result.is_error
    assert result.error_code == -31001
    assert policy.inputs.values == []


def rejecting_step(value: Any, ctx: TransformContext) -> Any:
    if any(isinstance(v, str) and v.startswith("sk-") for v in value.values()):
        raise InputRejectedError(
            "An argument looks like a secret; pass a reference instead.",
            data={"detector": "api_key"},
        )
    return value


async def test_tool_input_refusal_gives_an_error_result_without_running_the_handler() -> None:
    reg = Registry()
    ran: list[str] = []

    @reg.tool
    def store(ctx, token: str) -> dict:
        ran.append(token)
        return {}

    policy = TransformingPolicy(input_steps=[rejecting_step], output_steps=[])
    result = await make_layer(reg, policy).call_tool("store", {"token": "sk-abc123"})

    assert result.is_error
    assert result.error_code == InputRejectedError.code
    assert result.text == "An argument looks like a secret; pass a reference instead."
    assert ran == []


async def test_tool_input_refusal_is_recorded_with_the_policy() -> None:
    reg = Registry()

    @reg.tool
    def store(ctx, token: str) -> dict:
        return {}

    policy = TransformingPolicy(input_steps=[rejecting_step], output_steps=[])
    await make_layer(reg, policy).call_tool("store", {"token": "sk-abc123"})

    assert [(name, type(err)) for name, err in policy.rejections] == [
        ("store", InputRejectedError)
    ]


# -- template variables (input) --------------------------------------------------------------


async def test_template_variables_go_through_the_input_pipeline() -> None:
    reg = Registry()
    received: list[str] = []

    @reg.resource_template("data://items/{item}")
    def item(ctx, item: str) -> dict:
        received.append(item)
        return {"ok": 1}

    policy = TransformingPolicy(output_steps=[])
    await make_layer(reg, policy).read_resource("data://items/abc")

    assert policy.inputs.values == [{"item": "abc"}]
    assert policy.inputs.contexts[0].direction == "input"
    assert received == ["ABC"]


async def test_static_resource_reads_run_no_input_pipeline() -> None:
    reg = Registry()

    @reg.resource("data://static")
    def static(ctx) -> dict:
        return {"ok": 1}

    policy = TransformingPolicy(output_steps=[])
    await make_layer(reg, policy).read_resource("data://static")

    assert policy.inputs.values == []


# -- prompt arguments (input, then filtered) -------------------------------------------------


async def test_prompt_arguments_are_transformed_then_filtered_to_declared_names() -> None:
    reg = Registry()
    received: list[dict[str, Any]] = []

    @reg.prompt(arguments=[PromptArgument("topic", required=True)])
    def brief(ctx, **kwargs: Any) -> str:
        received.append(kwargs)
        return "ok"

    policy = TransformingPolicy(output_steps=[])
    await make_layer(reg, policy).get_prompt("brief", {"topic": "network", "extra": "junk"})

    assert policy.inputs.values == [{"topic": "network", "extra": "junk"}]
    assert received == [{"topic": "NETWORK"}]


# -- completion partial value and context arguments (input) ----------------------------------


async def test_completion_partial_and_context_arguments_go_through_the_input_pipeline() -> None:
    reg = Registry()
    seen: list[tuple[str, dict[str, Any]]] = []

    def complete_region(ctx, partial: str) -> list[str]:
        seen.append((partial, dict(ctx.completion.context_arguments)))
        return []

    @reg.prompt(arguments=[PromptArgument("region", completion=complete_region)])
    def brief(ctx, region: str = "") -> str:
        return "ok"

    policy = TransformingPolicy(output_steps=[])
    await make_layer(reg, policy).complete(
        {"type": "ref/prompt", "name": "brief"},
        {"name": "region", "value": "eu"},
        context_arguments={"account": "acme"},
    )

    assert policy.inputs.values == [{"partial": "eu", "arguments": {"account": "acme"}}]
    assert seen == [("EU", {"account": "ACME"})]


# -- plain tool result (output) --------------------------------------------------------------


async def test_plain_tool_result_is_transformed_as_the_structured_dict() -> None:
    reg = Registry()

    @reg.tool
    def owner(ctx) -> dict:
        return {"owner": "alice", "count": 2}

    policy = TransformingPolicy()
    result = await make_layer(reg, policy).call_tool("owner")

    assert policy.outputs.values == [{"owner": "alice", "count": 2}]
    assert policy.outputs.contexts[0].direction == "output"
    assert result.structured == {"owner": "ALICE", "count": 2}


async def test_plain_tool_result_text_is_a_dump_of_the_transformed_dict() -> None:
    reg = Registry()

    @reg.tool
    def owner(ctx) -> dict:
        return {"owner": "alice"}

    result = await make_layer(reg).call_tool("owner")

    assert [type(c) for c in result.content] == [TextContent]
    assert result.content[0].text == rendered({"owner": "ALICE"})


async def test_plain_non_dict_tool_result_is_wrapped_before_transforming() -> None:
    reg = Registry()

    @reg.tool
    def name(ctx) -> str:
        return "alice"

    policy = TransformingPolicy()
    result = await make_layer(reg, policy).call_tool("name")

    assert policy.outputs.values == [{"result": "alice"}]
    assert result.structured == {"result": "ALICE"}


# -- handler-built ToolResult (output) -------------------------------------------------------

IMAGE_DATA = base64.b64encode(b"image bytes").decode()
BLOB_DATA = base64.b64encode(b"blob bytes").decode()


def built_result() -> ToolResult:
    return ToolResult(
        content=[
            TextContent("first text"),
            ResourceLink("data://linked", "linked", title="a title", description="a desc"),
            EmbeddedResource(TextResourceContents("data://embedded", "embedded text")),
            ImageContent(IMAGE_DATA),
            EmbeddedResource(BlobResourceContents("data://blob", BLOB_DATA)),
            TextContent("second text"),
        ],
        structured={"owner": "alice"},
        meta={"note": "handler meta"},
    )


async def run_built(policy: TransformingPolicy | None = None) -> ToolResult:
    reg = Registry()

    @reg.tool
    def built(ctx) -> ToolResult:
        return built_result()

    return await make_layer(reg, policy).call_tool("built")


async def test_handler_built_result_structured_content_is_transformed() -> None:
    result = await run_built()

    assert result.structured == {"owner": "ALICE"}


async def test_handler_built_result_every_text_content_is_transformed() -> None:
    result = await run_built()

    texts = [c.text for c in result.content if isinstance(c, TextContent)]
    assert texts == ["FIRST TEXT", "SECOND TEXT"]


async def test_handler_built_result_resource_link_is_transformed() -> None:
    policy = TransformingPolicy()
    result = await run_built(policy)

    link = next(c for c in result.content if isinstance(c, ResourceLink))
    assert (link.uri, link.name, link.title, link.description) == (
        "DATA://LINKED", "LINKED", "A TITLE", "A DESC",
    )
    assert {
        "uri": "data://linked", "name": "linked", "title": "a title", "description": "a desc",
    } in policy.outputs.values


async def test_handler_built_result_text_embedded_resource_is_transformed() -> None:
    result = await run_built()

    embedded = [c for c in result.content if isinstance(c, EmbeddedResource)]
    assert isinstance(embedded[0].resource, TextResourceContents)
    assert embedded[0].resource.text == "EMBEDDED TEXT"
    # Beyond the seed's table: the URI is transformed too (it can carry credentials).
    assert embedded[0].resource.uri == "DATA://EMBEDDED"


async def test_handler_built_result_meta_is_transformed() -> None:
    result = await run_built()

    assert result.meta["note"] == "HANDLER META"


async def test_handler_built_result_image_and_blob_are_not_transformed() -> None:
    policy = TransformingPolicy()
    result = await run_built(policy)

    image = next(c for c in result.content if isinstance(c, ImageContent))
    blob = next(
        c.resource for c in result.content
        if isinstance(c, EmbeddedResource) and isinstance(c.resource, BlobResourceContents)
    )
    assert image.data == IMAGE_DATA
    assert blob.blob == BLOB_DATA
    flat = json.dumps(policy.outputs.values)
    assert IMAGE_DATA not in flat
    assert BLOB_DATA not in flat


async def test_handler_built_result_keeps_content_order() -> None:
    result = await run_built()

    kinds = [c.to_wire()["type"] for c in result.content]
    assert kinds == ["text", "resource_link", "resource", "image", "resource", "text"]


async def test_handler_built_result_is_not_mutated_in_place() -> None:
    reg = Registry()
    original = built_result()

    @reg.tool
    def built(ctx) -> ToolResult:
        return original

    await make_layer(reg).call_tool("built")

    assert original.content[0].text == "first text"
    assert original.structured == {"owner": "alice"}
    assert original.content[2].resource.text == "embedded text"


# -- ctx.link links (output) -----------------------------------------------------------------


async def test_ctx_link_fields_are_transformed_as_one_dict() -> None:
    reg = Registry()

    @reg.tool
    def linker(ctx) -> dict:
        ctx.link("data://report", "report", title="the title", description="the desc")
        return {}

    policy = TransformingPolicy()
    result = await make_layer(reg, policy).call_tool("linker")

    assert {
        "uri": "data://report", "name": "report", "title": "the title",
        "description": "the desc",
    } in policy.outputs.values
    link = result.content[-1]
    assert isinstance(link, ResourceLink)
    assert (link.uri, link.name, link.title, link.description) == (
        "DATA://REPORT", "REPORT", "THE TITLE", "THE DESC",
    )
    assert link.mime_type == "application/json"


async def test_ctx_links_follow_the_main_content() -> None:
    reg = Registry()

    @reg.tool
    def linker(ctx) -> dict:
        ctx.link("data://one", "one")
        ctx.link("data://two", "two")
        return {"k": "v"}

    result = await make_layer(reg).call_tool("linker")

    assert [type(c) for c in result.content] == [TextContent, ResourceLink, ResourceLink]
    assert [c.name for c in result.content[1:]] == ["ONE", "TWO"]


async def test_ctx_link_transform_that_edits_the_dict_in_place_still_applies() -> None:
    reg = Registry()

    def rename_in_place(value: Any, ctx: TransformContext) -> Any:
        if isinstance(value, dict) and "uri" in value:
            value["name"] = "[name]"
        return value

    @reg.tool
    def linker(ctx) -> dict:
        ctx.link("data://report", "alice-report")
        return {}

    layer = make_layer(reg, TransformingPolicy(output_steps=[rename_in_place]))
    result = await layer.call_tool("linker")

    link = result.content[-1]
    assert isinstance(link, ResourceLink)
    assert link.name == "[name]"


# -- error results (output) ------------------------------------------------------------------


async def test_error_result_message_and_data_are_transformed() -> None:
    reg = Registry()

    @reg.tool
    def broken(ctx) -> dict:
        raise ValueError("owner alice missing")

    policy = TransformingPolicy()
    result = await make_layer(reg, policy).call_tool("broken")

    [seen] = policy.outputs.values
    error_id = seen["data"]["error_id"]
    assert seen["message"].startswith(f"Tool broken failed unexpectedly (error id {error_id})")
    assert result.is_error
    assert result.text == seen["message"].upper()
    assert result.meta["cloudg/error_data"] == {"error_id": error_id.upper()}
    assert result.error_code == "handler_error"


async def test_error_raised_by_middleware_is_transformed() -> None:
    reg = Registry()

    @reg.tool
    def fine(ctx) -> dict:
        return {}

    async def refuse(info: Any, call_next: Any) -> Any:
        raise MCPLayerError("refused for bob", data={"who": "bob"})

    policy = TransformingPolicy()
    result = await make_layer(reg, policy, middleware=[refuse]).call_tool("fine")

    assert result.text == "REFUSED FOR BOB"
    assert result.meta["cloudg/error_data"] == {"who": "BOB"}


# -- resource contents (output) --------------------------------------------------------------


async def test_str_resource_result_is_transformed() -> None:
    reg = Registry()

    @reg.resource("data://note", mime_type="text/plain")
    def note(ctx) -> str:
        return "hello alice"

    policy = TransformingPolicy()
    contents = await make_layer(reg, policy).read_resource("data://note")

    assert policy.outputs.values == ["hello alice"]
    assert [(c.text, c.mime_type) for c in contents] == [("HELLO ALICE", "text/plain")]


async def test_json_resource_result_is_transformed_before_rendering() -> None:
    reg = Registry()

    @reg.resource("data://owner")
    def owner(ctx) -> dict:
        return {"owner": "alice", "n": 1}

    policy = TransformingPolicy()
    contents = await make_layer(reg, policy).read_resource("data://owner")

    assert policy.outputs.values == [{"owner": "alice", "n": 1}]
    assert json.loads(contents[0].text) == {"owner": "ALICE", "n": 1}


async def test_text_contents_in_a_returned_list_are_transformed_and_blobs_are_not() -> None:
    reg = Registry()

    @reg.resource("data://multi")
    def multi(ctx) -> list:
        return [
            TextResourceContents("data://multi", "first part", "text/plain"),
            BlobResourceContents("data://multi", BLOB_DATA, "application/octet-stream"),
        ]

    policy = TransformingPolicy()
    contents = await make_layer(reg, policy).read_resource("data://multi")

    # Text, and (beyond the seed's table) each item's URI; never the blob itself.
    assert policy.outputs.values == ["first part", "data://multi", "data://multi"]
    assert isinstance(contents[0], TextResourceContents)
    assert contents[0].text == "FIRST PART"
    assert isinstance(contents[1], BlobResourceContents)
    assert contents[1].blob == BLOB_DATA


async def test_bytes_resource_result_is_not_transformed() -> None:
    reg = Registry()

    @reg.resource("data://raw", mime_type="application/octet-stream")
    def raw(ctx) -> bytes:
        return b"raw alice"

    policy = TransformingPolicy()
    contents = await make_layer(reg, policy).read_resource("data://raw")

    assert policy.outputs.values == []
    assert isinstance(contents[0], BlobResourceContents)
    assert base64.b64decode(contents[0].blob) == b"raw alice"


# -- prompt messages (output) ----------------------------------------------------------------


async def test_prompt_messages_text_embedded_and_links_are_transformed() -> None:
    reg = Registry()

    @reg.prompt
    def brief(ctx) -> list:
        return [
            PromptMessage("user", TextContent("look at alice")),
            PromptMessage(
                "assistant", EmbeddedResource(TextResourceContents("data://e", "embedded"))
            ),
            PromptMessage("user", ResourceLink("data://l", "link", title="t", description="d")),
        ]

    result = await make_layer(reg).get_prompt("brief")

    first, second, third = (m.content for m in result.messages)
    assert first.text == "LOOK AT ALICE"
    assert second.resource.text == "EMBEDDED"
    assert (third.uri, third.name, third.title, third.description) == (
        "DATA://L", "LINK", "T", "D",
    )
    assert [m.role for m in result.messages] == ["user", "assistant", "user"]


async def test_str_prompt_result_becomes_a_transformed_user_message() -> None:
    reg = Registry()

    @reg.prompt
    def brief(ctx) -> str:
        return "summarise alice"

    policy = TransformingPolicy()
    result = await make_layer(reg, policy).get_prompt("brief")

    assert policy.outputs.values == ["summarise alice"]
    assert [(m.role, m.content.text) for m in result.messages] == [("user", "SUMMARISE ALICE")]


# -- completion values (output) --------------------------------------------------------------


async def test_completion_values_are_transformed_each_wrapped_under_the_argument_name() -> None:
    reg = Registry()

    @reg.resource_template(
        "data://owners/{owner}", completions={"owner": lambda ctx, partial: ["alice", "bob"]}
    )
    def owner(ctx, owner: str) -> dict:
        return {}

    policy = TransformingPolicy(input_steps=[])
    out = await make_layer(reg, policy).complete(
        {"type": "ref/resource", "uri": "data://owners/{owner}"}, {"name": "owner", "value": ""}
    )

    assert policy.outputs.values == [{"owner": "alice"}, {"owner": "bob"}]
    assert out["values"] == ["ALICE", "BOB"]


async def test_completion_value_transform_sees_the_argument_name_as_key() -> None:
    reg = Registry()

    def mask_accounts(value: Any, ctx: TransformContext) -> Any:
        return {k: ("ACCOUNT-1" if k == "account" else v) for k, v in value.items()}

    @reg.prompt(
        arguments=[
            PromptArgument("account", completion=lambda ctx, partial: ["123456789012"]),
            PromptArgument("region", completion=lambda ctx, partial: ["123456789012"]),
        ]
    )
    def brief(ctx, account: str = "", region: str = "") -> str:
        return "ok"

    layer = make_layer(reg, TransformingPolicy(input_steps=[], output_steps=[mask_accounts]))
    ref = {"type": "ref/prompt", "name": "brief"}

    account = await layer.complete(ref, {"name": "account", "value": ""})
    region = await layer.complete(ref, {"name": "region", "value": ""})

    assert account["values"] == ["ACCOUNT-1"]
    assert region["values"] == ["123456789012"]


# -- list definitions --------------------------------------------------------------------------

OUTPUT_SCHEMA = {"type": "object", "properties": {"owner": {"type": "string"}}}


def listing_registry() -> Registry:
    reg = Registry()

    @reg.tool(output_schema=OUTPUT_SCHEMA)
    def owner(ctx) -> dict:
        """lower-case tool description"""
        return {"owner": "alice"}

    @reg.resource("data://note", description="lower-case resource description")
    def note(ctx) -> str:
        return "x"

    @reg.resource_template("data://items/{item}", description="lower-case template")
    def item(ctx, item: str) -> str:
        return item

    @reg.prompt(description="lower-case prompt description")
    def brief(ctx) -> str:
        return "x"

    return reg


async def test_list_definitions_are_not_transformed() -> None:
    policy = TransformingPolicy()
    layer = make_layer(listing_registry(), policy)

    tools = layer.tools_wire()
    resources = layer.resources_wire()
    templates = layer.templates_wire()
    prompts = layer.prompts_wire()

    assert tools[0]["description"] == "lower-case tool description"
    assert resources[0]["description"] == "lower-case resource description"
    assert templates[0]["description"] == "lower-case template"
    assert prompts[0]["description"] == "lower-case prompt description"
    assert policy.outputs.values == []
    assert policy.inputs.values == []


async def test_output_schema_is_withheld_when_the_output_pipeline_is_non_empty() -> None:
    layer = make_layer(listing_registry(), TransformingPolicy())

    (tool,) = layer.tools_wire()

    assert "outputSchema" not in tool


async def test_output_schema_is_listed_when_the_output_pipeline_is_empty() -> None:
    layer = make_layer(listing_registry(), TransformingPolicy(output_steps=[]))

    (tool,) = layer.tools_wire()

    assert tool["outputSchema"] == OUTPUT_SCHEMA


# -- transform contexts ----------------------------------------------------------------------


async def test_each_value_gets_a_fresh_transform_context_carrying_the_vault() -> None:
    vault = object()
    policy = TransformingPolicy()
    policy.vault = vault
    await run_built(policy)

    contexts = policy.outputs.contexts
    # structured, two texts, one link, one embedded text, meta — plus (beyond the seed's
    # table) the URIs of the embedded text and the embedded blob
    assert len(contexts) == 8
    assert len({id(c) for c in contexts}) == len(contexts)
    assert all(c.vault is vault for c in contexts)
    assert policy.outputs.reports_on_entry == [{}] * len(contexts)


async def test_empty_pipelines_leave_results_untouched_and_unreported() -> None:
    reg = Registry()

    @reg.tool
    def owner(ctx, name: str) -> dict:
        return {"owner": name}

    layer = make_layer(reg, TransformingPolicy(input_steps=[], output_steps=[]))
    result = await layer.call_tool("owner", {"name": "alice"})

    assert result.structured == {"owner": "alice"}
    assert "cloudg/transforms" not in result.meta


# -- report merging and storage --------------------------------------------------------------


def test_merge_report_adds_numbers() -> None:
    into = {"redacted": 2, "score": 0.5}

    merge_report(into, {"redacted": 3, "score": 0.25})

    assert into == {"redacted": 5, "score": 0.75}


def test_merge_report_merges_nested_dicts() -> None:
    into: dict[str, Any] = {"entities": {"email": 1}}

    merge_report(into, {"entities": {"email": 2, "ip": 1}})

    assert into == {"entities": {"email": 3, "ip": 1}}


def test_merge_report_keeps_the_first_seen_non_numeric_value() -> None:
    into: dict[str, Any] = {"mode": "redact", "flag": True, "kinds": ["a"]}

    merge_report(into, {"mode": "mask", "flag": True, "kinds": ["b"]})

    assert into == {"mode": "redact", "flag": True, "kinds": ["a"]}


def test_merge_report_adds_new_keys_as_copies_and_returns_the_target() -> None:
    into: dict[str, Any] = {}
    other = {"entities": {"email": 1}}

    returned = merge_report(into, other)
    other["entities"]["email"] = 99

    assert returned is into
    assert into == {"entities": {"email": 1}}


async def test_tool_report_merges_every_transformed_part_under_cloudg_transforms() -> None:
    reg = Registry()

    def count_words(value: Any, ctx: TransformContext) -> Any:
        ctx.count("values")
        ctx.count("entities", "word")
        return value

    @reg.tool
    def built(ctx) -> ToolResult:
        ctx.link("data://extra", "extra")
        return built_result()

    policy = TransformingPolicy(output_steps=[count_words])
    result = await make_layer(reg, policy).call_tool("built")

    # structured, two texts, one link, one embedded text, meta, one ctx.link, and (beyond
    # the seed's table) the two embedded resources' URIs
    assert result.meta["cloudg/transforms"] == {"values": 9, "entities": {"word": 9}}


async def test_plain_tool_result_report_is_stored_under_cloudg_transforms() -> None:
    reg = Registry()

    @reg.tool
    def owner(ctx) -> dict:
        return {"owner": "alice"}

    result = await make_layer(reg).call_tool("owner")

    assert result.meta["cloudg/transforms"] == {"seen": 1}
    assert result.to_wire()["_meta"]["cloudg/transforms"] == {"seen": 1}


async def test_plain_resource_result_report_is_stored_on_the_contents_meta() -> None:
    reg = Registry()

    @reg.resource("data://note", mime_type="text/plain")
    def note(ctx) -> str:
        return "hello"

    @reg.resource("data://owner")
    def owner(ctx) -> dict:
        return {"owner": "alice"}

    layer = make_layer(reg)
    (text,) = await layer.read_resource("data://note")
    (data,) = await layer.read_resource("data://owner")

    assert text.meta == {"cloudg/transforms": {"seen": 1}}
    assert data.meta == {"cloudg/transforms": {"seen": 1}}


async def test_list_of_contents_resource_report_is_discarded() -> None:
    reg = Registry()

    @reg.resource("data://multi")
    def multi(ctx) -> list:
        return [TextResourceContents("data://multi", "part", "text/plain")]

    (contents,) = await make_layer(reg).read_resource("data://multi")

    assert contents.text == "PART"
    assert not contents.meta


# -- truncation ------------------------------------------------------------------------------


def long_tool_registry() -> Registry:
    reg = Registry()

    @reg.tool
    def dump(ctx) -> dict:
        return {"data": "x" * 200}

    return reg


async def test_long_text_is_cut_with_a_marker() -> None:
    layer = make_layer(long_tool_registry(), FakePolicy("plain"), max_output_chars=50)

    result = await layer.call_tool("dump")

    full = rendered({"data": "x" * 200})
    assert result.text.startswith(full[:50])
    assert not result.text.startswith(full[:51])
    assert "truncated" in result.text[50:]


async def test_truncated_chars_is_the_number_of_characters_removed() -> None:
    layer = make_layer(long_tool_registry(), FakePolicy("plain"), max_output_chars=50)

    result = await layer.call_tool("dump")

    full = rendered({"data": "x" * 200})
    assert result.meta["cloudg/transforms"] == {"truncated_chars": len(full) - 50}


async def test_truncation_does_not_cut_structured_content() -> None:
    layer = make_layer(long_tool_registry(), FakePolicy("plain"), max_output_chars=50)

    result = await layer.call_tool("dump")

    assert result.structured == {"data": "x" * 200}


async def test_truncation_report_merges_with_the_transform_report() -> None:
    layer = make_layer(long_tool_registry(), max_output_chars=50)

    result = await layer.call_tool("dump")

    full = rendered({"data": "X" * 200})
    assert result.meta["cloudg/transforms"] == {"seen": 1, "truncated_chars": len(full) - 50}
    assert result.structured == {"data": "X" * 200}


async def test_text_within_the_cap_is_not_cut_or_reported() -> None:
    layer = make_layer(long_tool_registry(), FakePolicy("plain"), max_output_chars=10_000)

    result = await layer.call_tool("dump")

    assert result.text == rendered({"data": "x" * 200})
    assert "cloudg/transforms" not in result.meta


async def test_prompt_description_goes_through_the_output_pipeline() -> None:
    """Beyond the seed's table: a handler-set PromptResult.description is transformed too."""
    from cloudg_nb import PromptMessage, PromptResult, TextContent

    reg = Registry()

    @reg.prompt
    def described(ctx) -> PromptResult:
        return PromptResult([PromptMessage("user", TextContent("hi"))], description="secret")

    upper = FakePolicy("upper", output=[lambda v, c: v.upper() if isinstance(v, str) else v])
    layer = core_layer(reg, policy=upper)
    result = await layer.get_prompt("described")
    assert result.description == "SECRET"
