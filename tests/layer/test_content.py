"""Content blocks, tool results and prompt results: their MCP wire shapes.

Contract (layer reference §5): ``to_wire`` renders camelCase dicts for text, image, audio,
resource link and embedded resource content, resource contents, ``ToolResult`` (content,
isError, structuredContent only when set, ``_meta`` only when non-empty) and prompt results;
optional keys appear only when set; the ``mcp`` SDK's types accept every shape unchanged.
"""

from __future__ import annotations

from typing import Any

import pytest
from mcp import types

from cloudg_nb.layer.content import (
    Annotations,
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    ImageContent,
    PromptMessage,
    PromptResult,
    ResourceLink,
    TextContent,
    TextResourceContents,
    ToolResult,
    annotations_wire,
)

PNG_B64 = "iVBORw0KGgo="
WAV_B64 = "UklGRiQAAABXQVZF"


def round_trip(model: type, wire: dict[str, Any]) -> dict[str, Any]:
    """What the SDK type keeps of ``wire`` (unknown or misspelt keys are dropped)."""
    return model.model_validate(wire).model_dump(by_alias=True, exclude_unset=True, mode="json")


# -- annotations ---------------------------------------------------------------------------


def test_annotations_render_camel_case():
    ann = Annotations(audience=["user", "assistant"], priority=0.3, last_modified="2025-05-01")
    assert ann.to_wire() == {
        "audience": ["user", "assistant"], "priority": 0.3, "lastModified": "2025-05-01",
    }


@pytest.mark.parametrize(("given", "clamped"), [(-1, 0.0), (0.25, 0.25), (3, 1.0)])
def test_annotation_priority_is_clamped_to_zero_one(given, clamped):
    assert Annotations(priority=given).priority == clamped


def test_empty_annotations_render_as_none():
    assert annotations_wire(Annotations()) is None
    assert annotations_wire(None) is None


@pytest.mark.parametrize("key", ["last_modified", "lastModified"])
def test_annotations_given_as_a_dict_accept_either_spelling(key):
    assert annotations_wire({key: "2025-05-01", "priority": 2}) == {
        "priority": 1.0, "lastModified": "2025-05-01",
    }


# -- content blocks ------------------------------------------------------------------------


def test_text_content_wire_shape():
    assert TextContent("hello").to_wire() == {"type": "text", "text": "hello"}


def test_text_content_with_annotations_and_meta():
    block = TextContent("hello", annotations={"audience": ["user"]}, meta={"cloudg/x": 1})
    wire = block.to_wire()
    assert wire == {
        "type": "text", "text": "hello", "annotations": {"audience": ["user"]},
        "_meta": {"cloudg/x": 1},
    }
    assert round_trip(types.TextContent, wire) == wire


def test_image_content_wire_shape():
    wire = ImageContent(PNG_B64).to_wire()
    assert wire == {"type": "image", "data": PNG_B64, "mimeType": "image/png"}
    assert round_trip(types.ImageContent, wire) == wire


def test_audio_content_wire_shape():
    wire = AudioContent(WAV_B64, annotations=Annotations(priority=0.5)).to_wire()
    assert wire == {
        "type": "audio", "data": WAV_B64, "mimeType": "audio/wav",
        "annotations": {"priority": 0.5},
    }
    assert round_trip(types.AudioContent, wire) == wire


def test_minimal_resource_link_wire_shape():
    wire = ResourceLink("cloudg://datasets/prod", "prod").to_wire()
    assert wire == {"type": "resource_link", "uri": "cloudg://datasets/prod", "name": "prod"}
    assert round_trip(types.ResourceLink, wire) == wire


def test_full_resource_link_wire_shape():
    link = ResourceLink(
        "cloudg://datasets/prod", "prod", title="Production", description="The prod estate",
        mime_type="application/json", size=1024, annotations={"priority": 0.9},
        meta={"cloudg/kind": "dataset"},
    )
    wire = link.to_wire()
    assert wire == {
        "type": "resource_link", "uri": "cloudg://datasets/prod", "name": "prod",
        "title": "Production", "description": "The prod estate",
        "mimeType": "application/json", "size": 1024, "annotations": {"priority": 0.9},
        "_meta": {"cloudg/kind": "dataset"},
    }
    assert round_trip(types.ResourceLink, wire) == wire


def test_text_resource_contents_wire_shape():
    wire = TextResourceContents("cloudg://status", '{"a": 1}', "application/json").to_wire()
    assert wire == {"uri": "cloudg://status", "text": '{"a": 1}', "mimeType": "application/json"}
    assert round_trip(types.TextResourceContents, wire) == wire


def test_resource_contents_omit_unset_mime_type_and_meta():
    assert TextResourceContents("cloudg://s", "x").to_wire() == {"uri": "cloudg://s", "text": "x"}
    assert BlobResourceContents("cloudg://b", PNG_B64).to_wire() == {
        "uri": "cloudg://b", "blob": PNG_B64,
    }


def test_blob_resource_contents_wire_shape():
    blob = BlobResourceContents("cloudg://logo", PNG_B64, "image/png", {"cloudg/cache": "hit"})
    wire = blob.to_wire()
    assert wire == {
        "uri": "cloudg://logo", "blob": PNG_B64, "mimeType": "image/png",
        "_meta": {"cloudg/cache": "hit"},
    }
    assert round_trip(types.BlobResourceContents, wire) == wire


def test_embedded_text_resource_wire_shape():
    block = EmbeddedResource(TextResourceContents("cloudg://s", "text", "text/plain"))
    wire = block.to_wire()
    assert wire == {
        "type": "resource",
        "resource": {"uri": "cloudg://s", "text": "text", "mimeType": "text/plain"},
    }
    assert round_trip(types.EmbeddedResource, wire) == wire


def test_embedded_blob_resource_wire_shape():
    block = EmbeddedResource(
        BlobResourceContents("cloudg://logo", PNG_B64, "image/png"),
        annotations={"audience": ["assistant"]}, meta={"cloudg/x": True},
    )
    wire = block.to_wire()
    assert wire["resource"] == {"uri": "cloudg://logo", "blob": PNG_B64, "mimeType": "image/png"}
    assert wire["annotations"] == {"audience": ["assistant"]}
    assert wire["_meta"] == {"cloudg/x": True}
    assert round_trip(types.EmbeddedResource, wire) == wire


# -- tool results --------------------------------------------------------------------------


def test_tool_result_minimal_wire_shape():
    wire = ToolResult([TextContent("ok")]).to_wire()
    assert wire == {"content": [{"type": "text", "text": "ok"}], "isError": False}


def test_tool_result_includes_structured_content_only_when_set():
    assert "structuredContent" not in ToolResult([TextContent("{}")]).to_wire()
    wire = ToolResult([TextContent("{}")], structured={}).to_wire()
    assert wire["structuredContent"] == {}


def test_tool_result_includes_meta_only_when_non_empty():
    assert "_meta" not in ToolResult([TextContent("x")], meta={}).to_wire()
    wire = ToolResult([TextContent("x")], meta={"cloudg/duration_ms": 1.5}).to_wire()
    assert wire["_meta"] == {"cloudg/duration_ms": 1.5}


def test_error_tool_result_wire_shape():
    result = ToolResult(
        [TextContent("Tool t timed out")], is_error=True,
        meta={"cloudg/error_code": "timeout", "cloudg/error_data": {"timeout_seconds": 1}},
    )
    wire = result.to_wire()
    assert wire["isError"] is True
    assert result.error_code == "timeout"
    assert round_trip(types.CallToolResult, wire) == wire


def test_tool_result_with_every_content_type_is_accepted_by_the_sdk_type():
    result = ToolResult(
        [
            TextContent("summary"),
            ImageContent(PNG_B64),
            AudioContent(WAV_B64),
            ResourceLink("cloudg://datasets/prod", "prod", mime_type="application/json"),
            EmbeddedResource(TextResourceContents("cloudg://s", "{}", "application/json")),
            EmbeddedResource(BlobResourceContents("cloudg://b", PNG_B64, "image/png")),
        ],
        structured={"count": 3},
        meta={"cloudg/transforms": {"redacted": 2}},
    )
    wire = result.to_wire()
    assert [c["type"] for c in wire["content"]] == [
        "text", "image", "audio", "resource_link", "resource", "resource",
    ]
    assert round_trip(types.CallToolResult, wire) == wire


def test_tool_result_text_joins_text_blocks_only():
    result = ToolResult([TextContent("a"), ImageContent(PNG_B64), TextContent("b")])
    assert result.text == "a\nb"


def test_tool_result_wire_meta_is_a_copy():
    result = ToolResult([TextContent("x")], meta={"cloudg/a": 1})
    result.to_wire()["_meta"]["cloudg/b"] = 2
    assert result.meta == {"cloudg/a": 1}


# -- prompts -------------------------------------------------------------------------------


def test_prompt_message_wire_shape():
    assert PromptMessage("user", TextContent("hi")).to_wire() == {
        "role": "user", "content": {"type": "text", "text": "hi"},
    }


def test_prompt_message_wraps_a_plain_string():
    assert PromptMessage("assistant", "hi").content == TextContent("hi")  # type: ignore[arg-type]


def test_prompt_message_refuses_an_unknown_role():
    with pytest.raises(ValueError):
        PromptMessage("system", TextContent("hi"))  # type: ignore[arg-type]


def test_prompt_result_wire_shape():
    result = PromptResult(
        [
            PromptMessage("user", TextContent("Investigate")),
            PromptMessage("assistant", ResourceLink("cloudg://findings/1", "finding 1")),
            PromptMessage("user", EmbeddedResource(TextResourceContents("cloudg://s", "{}"))),
        ],
        description="Triage",
        meta={"cloudg/x": 1},
    )
    wire = result.to_wire()
    assert wire["description"] == "Triage"
    assert wire["_meta"] == {"cloudg/x": 1}
    assert [m["role"] for m in wire["messages"]] == ["user", "assistant", "user"]
    assert round_trip(types.GetPromptResult, wire) == wire


def test_prompt_result_omits_empty_description_and_meta():
    wire = PromptResult([PromptMessage("user", TextContent("x"))]).to_wire()
    assert list(wire) == ["messages"]
