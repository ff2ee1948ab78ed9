"""Tool, resource, template and prompt specs: validation, derived fields and wire shapes.

Contract (layer reference §3, §5): names match ``^[A-Za-z0-9_.-]{1,128}$``; the description
falls back to the cleaned docstring; a tool's title is copied into its annotations and unset
hints are derived from capabilities (explicit ones win); ``to_wire`` renders the MCP
definitions (camelCase, optional keys only when set, ``_meta`` with the layer's keys first
and the spec's own meta merged after), which the ``mcp`` SDK's types accept.
"""

from __future__ import annotations

from typing import Any

import pytest
from mcp import types

from cloudg_nb.layer.content import Annotations
from cloudg_nb.layer.enums import Capability, Sensitivity
from cloudg_nb.layer.specs import (
    PromptArgument,
    PromptSpec,
    ResourceSpec,
    ResourceTemplateSpec,
    ToolAnnotations,
    ToolSpec,
)


def handler(ctx, ref: str, limit: int = 10) -> dict:
    return {}


def documented(ctx) -> dict:
    """
    List the assets of the active dataset.

        Indented example line.
    """
    return {}


def round_trip(model: type, wire: dict[str, Any]) -> dict[str, Any]:
    """What the SDK type keeps of ``wire`` (unknown or misspelt keys are dropped)."""
    return model.model_validate(wire).model_dump(by_alias=True, exclude_unset=True, mode="json")


ICON = {"src": "https://example.com/icon.png", "mimeType": "image/png"}


# -- names ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a", "list_assets", "cloudg.find-path_2", "x" * 128, "A-Z.09"])
def test_valid_tool_names_are_accepted(name):
    assert ToolSpec(name=name, handler=handler).name == name


@pytest.mark.parametrize(
    "name",
    ["", "has space", "x" * 129, "slash/name", "émoji", "semi;colon", "new\nline", "trailing\n"],
)
def test_invalid_tool_names_raise_value_error(name):
    with pytest.raises(ValueError, match="Invalid tool name"):
        ToolSpec(name=name, handler=handler)


def test_invalid_name_error_does_not_echo_the_name():
    with pytest.raises(ValueError) as info:
        ToolSpec(name="<script>alert(1)</script>", handler=handler)
    assert "<script>" not in str(info.value)


@pytest.mark.parametrize("name", ["", "bad name", "p" * 129, "trailing\n"])
def test_invalid_prompt_names_raise_value_error(name):
    with pytest.raises(ValueError, match="Invalid prompt name"):
        PromptSpec(name=name, handler=handler)


def test_to_wire_validates_the_exposed_name():
    spec = ToolSpec(name="ok", handler=handler)
    assert spec.to_wire("cloudg_ok")["name"] == "cloudg_ok"
    with pytest.raises(ValueError):
        spec.to_wire("bad prefix ok")


def test_resource_uri_must_be_non_empty_without_whitespace():
    with pytest.raises(ValueError):
        ResourceSpec(name="r", uri="", handler=handler)
    with pytest.raises(ValueError):
        ResourceSpec(name="r", uri="cloudg://a b", handler=handler)


def test_non_callable_handler_is_refused():
    with pytest.raises(TypeError):
        ToolSpec(name="t", handler="not a function")  # type: ignore[arg-type]


# -- description, title, sensitivity, capabilities -----------------------------------------


def test_description_falls_back_to_the_cleaned_docstring():
    spec = ToolSpec(name="t", handler=documented)
    assert spec.description == (
        "List the assets of the active dataset.\n\n    Indented example line."
    )


def test_explicit_description_wins_over_the_docstring():
    spec = ToolSpec(name="t", handler=documented, description="Explicit.")
    assert spec.description == "Explicit."


def test_description_is_empty_without_docstring():
    assert ToolSpec(name="t", handler=handler).description == ""


def test_resource_and_prompt_descriptions_fall_back_to_the_docstring():
    resource = ResourceSpec(name="r", uri="cloudg://r", handler=documented)
    prompt = PromptSpec(name="p", handler=documented)
    assert resource.description.startswith("List the assets")
    assert prompt.description.startswith("List the assets")


def test_title_is_copied_into_annotations_title():
    spec = ToolSpec(name="t", handler=handler, title="Find assets")
    assert spec.annotations.title == "Find assets"
    assert spec.to_wire()["annotations"]["title"] == "Find assets"
    assert spec.to_wire()["title"] == "Find assets"


def test_default_sensitivity_is_confidential_for_tools_and_internal_for_prompts():
    assert ToolSpec(name="t", handler=handler).sensitivity is Sensitivity.CONFIDENTIAL
    assert PromptSpec(name="p", handler=handler).sensitivity is Sensitivity.INTERNAL


def test_sensitivity_and_capabilities_are_parsed_from_strings():
    spec = ToolSpec(
        name="t", handler=handler, sensitivity="Restricted", capabilities=["WRITE_FS", "exec"]
    )
    assert spec.sensitivity is Sensitivity.RESTRICTED
    assert spec.capabilities == frozenset({Capability.WRITE_FS, Capability.EXEC})


def test_default_capabilities_are_read_state():
    assert ToolSpec(name="t", handler=handler).capabilities == frozenset({Capability.READ_STATE})


# -- hint derivation -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("capabilities", "read_only", "open_world", "idempotent"),
    [
        ({"read_state"}, True, False, True),
        ({"read_fs"}, True, False, True),
        ({"read_state", "reveal"}, True, False, True),
        ({"write_state"}, False, False, None),
        ({"read_state", "write_fs"}, False, False, None),
        ({"exec"}, False, True, None),
        ({"cloud_access"}, True, True, None),
        ({"read_state", "cloud_access"}, True, True, None),
    ],
)
def test_unset_hints_are_derived_from_capabilities(
    capabilities, read_only, open_world, idempotent
):
    ann = ToolSpec(name="t", handler=handler, capabilities=capabilities).annotations
    assert ann.read_only is read_only
    assert ann.destructive is False
    assert ann.open_world is open_world
    assert ann.idempotent is idempotent


def test_unset_idempotent_hint_is_absent_from_the_wire():
    hints = ToolSpec(name="t", handler=handler, capabilities={"write_state"}).to_wire()[
        "annotations"
    ]
    assert "idempotentHint" not in hints
    assert hints == {"readOnlyHint": False, "destructiveHint": False, "openWorldHint": False}


def test_explicit_hints_win_over_derivation():
    spec = ToolSpec(
        name="t",
        handler=handler,
        capabilities={"read_state"},
        annotations={"read_only": False, "destructive": True, "idempotent": False,
                     "open_world": True},
    )
    assert spec.to_wire()["annotations"] == {
        "readOnlyHint": False, "destructiveHint": True, "idempotentHint": False,
        "openWorldHint": True,
    }


def test_explicit_hints_given_as_an_object_win_over_derivation():
    spec = ToolSpec(
        name="t",
        handler=handler,
        capabilities={"write_state"},
        annotations=ToolAnnotations(read_only=True, idempotent=True),
    )
    assert (spec.read_only, spec.idempotent) == (True, True)
    assert spec.annotations.destructive is False  # still derived


def test_hints_derived_for_one_spec_do_not_leak_into_another_sharing_annotations():
    shared = ToolAnnotations(destructive=True)
    ToolSpec(name="writer", handler=handler, capabilities={"write_state"}, annotations=shared)
    reader = ToolSpec(name="reader", handler=handler, annotations=shared)
    assert reader.read_only is True
    assert reader.idempotent is True


def test_tool_annotations_without_hints_render_empty():
    assert ToolAnnotations().to_wire() == {}


# -- tool wire shape -----------------------------------------------------------------------


def test_minimal_tool_wire_shape():
    wire = ToolSpec(name="t", handler=handler).to_wire()
    assert list(wire) == ["name", "description", "inputSchema", "annotations", "_meta"]
    assert wire["description"] == ""
    assert wire["inputSchema"]["properties"].keys() == {"ref", "limit"}
    assert wire["annotations"] == {
        "readOnlyHint": True, "destructiveHint": False, "idempotentHint": True,
        "openWorldHint": False,
    }
    assert wire["_meta"] == {"cloudg/category": "general", "cloudg/sensitivity": "confidential"}


def test_output_schema_appears_only_when_set():
    schema = {"type": "object", "properties": {"result": {"type": "integer"}}}
    assert "outputSchema" not in ToolSpec(name="t", handler=handler).to_wire()
    wire = ToolSpec(name="t", handler=handler, output_schema=schema).to_wire()
    assert wire["outputSchema"] == schema


def test_output_schema_is_withheld_when_not_allowed():
    schema = {"type": "object", "properties": {}}
    spec = ToolSpec(name="t", handler=handler, output_schema=schema)
    assert "outputSchema" not in spec.to_wire(output_schema=False)


def test_explicit_input_schema_is_kept():
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    assert ToolSpec(name="t", handler=handler, input_schema=schema).to_wire()["inputSchema"] == (
        schema
    )


def test_tags_are_listed_sorted_in_meta():
    wire = ToolSpec(name="t", handler=handler, tags={"graph", "aws", "network"}).to_wire()
    assert wire["_meta"]["cloudg/tags"] == ["aws", "graph", "network"]


def test_tags_are_absent_from_meta_when_there_are_none():
    assert "cloudg/tags" not in ToolSpec(name="t", handler=handler).to_wire()["_meta"]


def test_spec_meta_is_merged_after_the_layers_keys():
    spec = ToolSpec(
        name="t", handler=handler, category="graph", sensitivity="public", tags={"x"},
        meta={"vendor/extra": 1, "cloudg/category": "overridden"},
    )
    meta = spec.to_wire()["_meta"]
    assert list(meta) == [
        "cloudg/category", "cloudg/sensitivity", "cloudg/tags", "vendor/extra",
    ]
    assert meta["cloudg/category"] == "overridden"
    assert meta["cloudg/sensitivity"] == "public"
    assert meta["vendor/extra"] == 1


def test_full_tool_wire_shape_is_accepted_by_the_sdk_type():
    spec = ToolSpec(
        name="t", handler=documented, title="Assets", tags={"a"}, icons=[ICON],
        output_schema={"type": "object", "properties": {"result": {"type": "array"}}},
        meta={"vendor/x": True},
    )
    wire = spec.to_wire("cloudg_t")
    assert wire["icons"] == [ICON]
    assert round_trip(types.Tool, wire) == wire


def test_minimal_tool_wire_shape_is_accepted_by_the_sdk_type():
    wire = ToolSpec(name="t", handler=handler).to_wire()
    assert round_trip(types.Tool, wire) == wire


# -- resources and templates ---------------------------------------------------------------


def test_minimal_resource_wire_shape():
    wire = ResourceSpec(name="status", uri="cloudg://status", handler=handler).to_wire()
    assert wire == {
        "uri": "cloudg://status",
        "name": "status",
        "mimeType": "application/json",
        "_meta": {"cloudg/category": "general", "cloudg/sensitivity": "confidential"},
    }


def test_full_resource_wire_shape():
    spec = ResourceSpec(
        name="status", uri="cloudg://status", handler=handler, title="Status",
        description="Workspace status.", mime_type="text/plain", size=42, icons=[ICON],
        annotations={"audience": ["user"], "priority": 7, "last_modified": "2025-01-01T00:00:00Z"},
        tags={"z", "a"},
    )
    wire = spec.to_wire()
    assert wire["description"] == "Workspace status."
    assert wire["mimeType"] == "text/plain"
    assert wire["size"] == 42
    assert wire["title"] == "Status"
    assert wire["icons"] == [ICON]
    assert wire["annotations"] == {
        "audience": ["user"], "priority": 1.0, "lastModified": "2025-01-01T00:00:00Z",
    }
    assert wire["_meta"]["cloudg/tags"] == ["a", "z"]
    assert round_trip(types.Resource, wire) == wire


def test_resource_annotation_priority_is_clamped_to_zero():
    spec = ResourceSpec(
        name="r", uri="cloudg://r", handler=handler, annotations=Annotations(priority=-3)
    )
    assert spec.to_wire()["annotations"] == {"priority": 0.0}


def test_template_wire_shape_uses_uri_template():
    spec = ResourceTemplateSpec(
        name="summary", uri_template="cloudg://datasets/{name}/summary", handler=handler,
        description="Summary of one dataset.", annotations={"priority": 0.5},
    )
    wire = spec.to_wire()
    assert "uri" not in wire
    assert wire["uriTemplate"] == "cloudg://datasets/{name}/summary"
    assert wire["name"] == "summary"
    assert wire["mimeType"] == "application/json"
    assert wire["annotations"] == {"priority": 0.5}
    assert round_trip(types.ResourceTemplate, wire) == wire


def test_template_completions_must_name_a_variable():
    with pytest.raises(ValueError):
        ResourceTemplateSpec(
            name="s", uri_template="cloudg://datasets/{name}", handler=handler,
            completions={"other": lambda ctx, partial: []},
        )


def test_template_variable_may_not_repeat():
    with pytest.raises(ValueError):
        ResourceTemplateSpec(name="s", uri_template="cloudg://{a}/{a}", handler=handler)


# -- prompts -------------------------------------------------------------------------------


def test_prompt_arguments_are_derived_from_the_handler_signature():
    def brief(ctx, topic: str, depth: int = 2, *extra, **more) -> str:
        return ""

    spec = PromptSpec(name="brief", handler=brief)
    assert [(a.name, a.required) for a in spec.arguments] == [("topic", True), ("depth", False)]


def test_declared_prompt_arguments_win_over_the_signature():
    spec = PromptSpec(
        name="brief", handler=handler,
        arguments=[{"name": "focus", "description": "What to look at", "required": True}],
    )
    assert [(a.name, a.required, a.description) for a in spec.arguments] == [
        ("focus", True, "What to look at")
    ]
    assert spec.argument("focus") is spec.arguments[0]
    assert spec.argument("ref") is None


def test_prompt_wire_shape():
    spec = PromptSpec(
        name="brief", handler=handler, title="Briefing", description="Brief me.",
        arguments=[
            PromptArgument("topic", description="Subject", required=True, title="Topic"),
            PromptArgument("depth"),
        ],
    )
    wire = spec.to_wire("cloudg_brief")
    assert wire == {
        "name": "cloudg_brief",
        "description": "Brief me.",
        "arguments": [
            {"name": "topic", "required": True, "title": "Topic", "description": "Subject"},
            {"name": "depth", "required": False},
        ],
        "title": "Briefing",
        "_meta": {"cloudg/category": "general", "cloudg/sensitivity": "internal"},
    }
    assert round_trip(types.Prompt, wire) == wire


def test_prompt_description_is_always_present():
    assert PromptSpec(name="p", handler=handler).to_wire()["description"] == ""
