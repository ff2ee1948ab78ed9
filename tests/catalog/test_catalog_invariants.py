"""Catalog invariants: every spec has a title and a description written for a model, hints
agree with capabilities, data tools share the dataset / paging conventions, every argument
with a closed set of values (typed so, or checked so by its handler) lists it as ``enum``,
every output schema is a valid schema that a real call on the demo estate satisfies, and
every wire dict (tools, resources, templates, prompts, results, contents, completions) is
accepted unchanged by the ``mcp`` SDK's types."""

from __future__ import annotations

import enum
import re
import typing
from pathlib import Path
from typing import Any, Literal

import jsonschema
import pytest
from mcp import types

from cloudg_nb.catalog import default_registry
from cloudg_nb.estate import Dataset, write_inventory_map, write_tabular
from cloudg_nb.layer.enums import Capability

from .support import error_data, make_layer, ok

REGISTRY = default_registry()
TOOLS = sorted(REGISTRY.tools)
DATA_CATEGORIES = {"inventory", "graph", "findings", "compliance"}
CATEGORIES = DATA_CATEGORIES | {"workspace", "meta", "privacy"}
WRITES = {Capability.WRITE_STATE, Capability.WRITE_FS, Capability.EXEC}

#: One representative call per tool on the demo estate (privacy tools belong to the
#: policy issue and declare no output schema).
SAMPLES: dict[str, dict[str, Any]] = {
    "workspace_status": {}, "list_datasets": {}, "dataset_summary": {},
    "diff_datasets": {"base": "demo", "target": "demo-drifted"},
    "load_dataset": {"path": "acme"}, "sample_estate": {"name": "scaled", "n": 50},
    "select_dataset": {"name": "demo-drifted"}, "unload_dataset": {"name": "demo-drifted"},
    "snapshot_dataset": {}, "export_dataset": {"format": "csv"},
    "find_assets": {"internet_exposed": True}, "get_asset": {"ref": "web-1"},
    "count_assets": {"group_by": "tag:team"}, "list_accounts": {}, "list_regions": {},
    "list_tags": {}, "list_asset_types": {},
    "neighbors": {"ref": "web-alb", "depth": 2},
    "get_edges": {"ref": "web-alb"}, "find_paths": {"source": "internet", "target": "web-1"},
    "attack_paths": {}, "lateral_movement_paths": {}, "internet_exposure": {},
    "blast_radius": {"ref": "prod-data-key"}, "cross_account_edges": {},
    "centrality_top": {"metric": "in_degree"}, "subgraph_export": {"seeds": ["app-role"]},
    "graph_stats": {}, "list_findings": {"include_suppressed": True},
    "get_finding": {"finding_id": "f-011"}, "findings_summary": {"group_by": "framework"},
    "top_risks": {}, "suppress_findings": {"ids": ["f-001", "f-404"]},
    "unsuppress_findings": {"ids": ["f-010"]}, "compliance_summary": {},
    "compliance_gaps": {}, "list_capabilities": {}, "explain_asset_type": {},
    "explain_edge_type": {"edge_type": "IAM_TRUST"},
    "privacy_status": {}, "preview_transform": {"value": "plain text"},
    "list_detectors": {}, "privacy_audit_log": {}, "reveal_token": None,  # needs a token
}


def round_trip(model: type, wire: dict[str, Any]) -> dict[str, Any]:
    """What the SDK type keeps of ``wire`` (unknown or misspelt keys are dropped)."""
    return model.model_validate(wire).model_dump(by_alias=True, exclude_unset=True, mode="json")


async def _demo_layer(tmp_path: Path):
    layer = make_layer(tmp_path)
    await ok(layer, "sample_estate", {"name": "demo"})
    await ok(layer, "sample_estate", {"name": "drifted", "activate": False})
    from cloudg_nb.estate import demo

    write_inventory_map(demo(), tmp_path / "data" / "acme")
    return layer


# -- specs ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", TOOLS)
def test_tool_has_a_title_a_model_facing_description_and_a_known_category(name: str) -> None:
    spec = REGISTRY.tools[name]
    assert spec.title and spec.title[0].isupper()
    assert len(spec.description) > 40
    assert spec.category in CATEGORIES


def test_every_resource_template_and_prompt_has_a_title_and_a_description() -> None:
    for spec in [*REGISTRY.resources.values(), *REGISTRY.templates.values(),
                 *REGISTRY.prompts.values()]:
        assert spec.title and len(spec.description) > 20, spec.name


@pytest.mark.parametrize("name", TOOLS)
def test_hints_agree_with_capabilities(name: str) -> None:
    spec = REGISTRY.tools[name]
    ann = spec.annotations
    writes = bool(WRITES & spec.capabilities)
    assert ann.read_only is (not writes)
    assert ann.open_world is bool({Capability.CLOUD_ACCESS, Capability.EXEC} & spec.capabilities)
    assert ann.destructive is (name in DESTRUCTIVE)
    if ann.read_only:
        assert ann.idempotent is True
    else:  # a writing tool says whether repeating it changes anything more
        assert ann.idempotent is not None


#: Tools that may remove or overwrite what exists: unloading, loads that may replace a dataset
#: of the same name (and its suppressions), exports that overwrite their files.
DESTRUCTIVE = {"unload_dataset", "load_dataset", "sample_estate", "export_dataset"}


async def test_tools_hinted_idempotent_change_nothing_more_when_repeated() -> None:
    from cloudg_nb.assembly import build_layer

    layer = build_layer(policy="open")
    await layer.call_tool("sample_estate", {"name": "demo"})
    calls = {"suppress_findings": {"ids": ["f-001"], "reason": "accepted"},
             "unsuppress_findings": {"ids": ["f-001"]},
             "select_dataset": {"name": "demo"}}
    for tool, args in calls.items():
        assert REGISTRY.tools[tool].annotations.idempotent is True
        await layer.call_tool(tool, args)
        version = layer.workspace.get("demo").version
        again = await layer.call_tool(tool, args)
        assert not again.is_error
        assert layer.workspace.get("demo").version == version, tool


def test_mutating_tools_declare_what_they_touch() -> None:
    caps = {n: REGISTRY.tools[n].capabilities for n in TOOLS}
    state_writers = {n for n, c in caps.items() if Capability.WRITE_STATE in c}
    assert state_writers == {"load_dataset", "sample_estate", "select_dataset",
                             "unload_dataset", "snapshot_dataset", "suppress_findings",
                             "unsuppress_findings"}
    assert {n for n, c in caps.items() if Capability.READ_FS in c} == {"load_dataset"}
    assert {n for n, c in caps.items() if Capability.WRITE_FS in c} == {"export_dataset"}


@pytest.mark.parametrize("name", [n for n in TOOLS
                                  if REGISTRY.tools[n].category in DATA_CATEGORIES])
def test_data_tools_take_a_dataset_defaulting_to_the_active_one(name: str) -> None:
    props = REGISTRY.tools[name].input_schema["properties"]
    assert props["dataset"]["default"] == ""
    assert "active dataset" in props["dataset"]["description"]


@pytest.mark.parametrize("name", [n for n in TOOLS
                                  if "cursor" in REGISTRY.tools[n].input_schema["properties"]])
def test_paged_tools_take_a_limit_of_1_to_500_and_return_the_envelope(name: str) -> None:
    spec = REGISTRY.tools[name]
    limit = spec.input_schema["properties"]["limit"]
    assert (limit["minimum"], limit["maximum"]) == (1, 500) and limit["default"] <= 50
    out = spec.output_schema["properties"]
    assert {"dataset", "dataset_version", "total", "offset", "returned", "next_cursor",
            "truncated", "items"} <= set(out)


def test_every_argument_is_described() -> None:
    for name in TOOLS:
        for arg, schema in REGISTRY.tools[name].input_schema["properties"].items():
            assert schema.get("description"), f"{name}.{arg}"


def test_every_catalog_tool_outside_privacy_declares_a_valid_output_schema() -> None:
    for name in TOOLS:
        spec = REGISTRY.tools[name]
        if spec.category == "privacy":
            continue
        assert spec.output_schema is not None, name
        jsonschema.Draft202012Validator.check_schema(spec.output_schema)
        assert spec.output_schema["type"] == "object"


def test_every_tool_has_a_sample_call() -> None:
    assert set(SAMPLES) == set(TOOLS)


@pytest.mark.parametrize("name", [n for n in TOOLS if SAMPLES.get(n) is not None])
async def test_output_schema_validates_a_real_call_on_the_demo(name: str, tmp_path: Path
                                                              ) -> None:
    layer = await _demo_layer(tmp_path)
    result = await layer.call_tool(name, SAMPLES[name])
    assert not result.is_error, result.text
    if layer.registry.tools[name].output_schema:
        jsonschema.validate(result.structured, layer.registry.tools[name].output_schema)
    wire = result.to_wire()
    assert round_trip(types.CallToolResult, wire) == wire


# -- wire shapes ------------------------------------------------------------------------------


async def test_listings_validate_against_the_sdk_types(tmp_path: Path) -> None:
    layer = await _demo_layer(tmp_path)
    for model, wires in ((types.Tool, layer.tools_wire()),
                         (types.Resource, layer.resources_wire()),
                         (types.ResourceTemplate, layer.templates_wire()),
                         (types.Prompt, layer.prompts_wire())):
        assert wires
        for wire in wires:
            assert round_trip(model, wire) == wire


async def test_resource_contents_validate_against_the_sdk_types(tmp_path: Path) -> None:
    layer = await _demo_layer(tmp_path)
    uris = [*layer.registry.resources, "cloudg://datasets/demo/summary",
            "cloudg://datasets/demo/assets", "cloudg://datasets/demo/findings",
            "cloudg://assets/web-1", "cloudg://findings/f-001",
            "cloudg://findings/severity/LOW", "cloudg://compliance/SOC2"]
    for uri in uris:
        contents = await layer.read_resource(uri)
        wire = {"contents": [c.to_wire() for c in contents]}
        assert round_trip(types.ReadResourceResult, wire) == wire


async def test_prompt_results_and_completions_validate_against_the_sdk_types(tmp_path: Path
                                                                           ) -> None:
    layer = await _demo_layer(tmp_path)
    for name, args in (("security_posture_review", {}), ("investigate_asset", {"ref": "web-1"}),
                       ("blast_radius_assessment", {"ref": "prod-data-key"}),
                       ("incident_triage", {"finding_id": "f-001"}),
                       ("drift_review", {"base": "demo", "target": "demo-drifted"})):
        wire = (await layer.get_prompt(name, args)).to_wire()
        assert round_trip(types.GetPromptResult, wire) == wire
    completion = await layer.complete({"type": "ref/resource", "uri": "cloudg://assets/{+ref}"},
                                      {"name": "ref", "value": "web"})
    assert round_trip(types.Completion, completion) == completion


async def test_error_results_validate_against_the_sdk_types(tmp_path: Path) -> None:
    layer = await _demo_layer(tmp_path)
    result = await layer.call_tool("get_asset", {"ref": "no-such-asset"})
    assert result.is_error
    wire = result.to_wire()
    assert round_trip(types.CallToolResult, wire) == wire


# -- closed sets of values --------------------------------------------------------------------


def _closed_values(annotation: Any) -> set[str]:
    """The values a ``Literal`` or enum inside ``annotation`` allows (Annotated, unions and
    lists unwrapped); empty for an open type."""
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return {str(m.value) for m in annotation}
    if typing.get_origin(annotation) is Literal:
        return {str(v) for v in typing.get_args(annotation)}
    values: set[str] = set()
    for arg in typing.get_args(annotation):
        values |= _closed_values(arg)
    return values


def _schema_branches(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The schema and the branches of its anyOf, each with its array items."""
    out = []
    for part in [schema, *schema.get("anyOf", ())]:
        out.append(part)
        if isinstance(part.get("items"), dict):
            out.append(part["items"])
    return out


def _schema_values(schema: dict[str, Any]) -> set[str]:
    return {str(v) for part in _schema_branches(schema) for v in part.get("enum", ())}


def _schema_admits(schema: dict[str, Any], value: str) -> bool:
    """``value`` is listed in an ``enum`` of the schema or matches one of its patterns."""
    return value in _schema_values(schema) or any(
        "pattern" in part and re.search(part["pattern"], value)
        for part in _schema_branches(schema))


@pytest.mark.parametrize("name", TOOLS)
def test_arguments_typed_with_a_closed_set_list_it_as_enum(name: str) -> None:
    spec = REGISTRY.tools[name]
    hints = typing.get_type_hints(spec.handler, include_extras=True)
    props = spec.input_schema["properties"]
    for arg, schema in props.items():
        closed = _closed_values(hints[arg])
        if closed:
            assert _schema_values(schema) == closed, f"{name}.{arg}"


def test_closed_sets_follow_the_tuples_their_handlers_check() -> None:
    from cloudg_nb.catalog.privacy import DETECTOR_KINDS
    from cloudg_nb.catalog.workspace import SAMPLE_NAMES
    from cloudg_nb.estate import BRIEF_COLUMNS
    from cloudg_nb.estate.inventory import BRIEF_FIELDS, SORT_KEYS, AssetSortKey
    from cloudg_nb.estate.samples import SAMPLES
    from cloudg_nb.transforms.detectors import KINDS

    assert tuple(SORT_KEYS) == typing.get_args(AssetSortKey)
    assert set(BRIEF_COLUMNS) < set(BRIEF_FIELDS)
    assert SAMPLE_NAMES == SAMPLES
    assert DETECTOR_KINDS == KINDS


PROBE = "zz-not-one-of-them"


async def _refusals_with_allowed_values(layer) -> dict[tuple[str, str], list[str]]:
    """Every (tool, argument) whose handler answers ``PROBE`` with its allowed values."""
    found: dict[tuple[str, str], list[str]] = {}
    for name in TOOLS:
        props = layer.registry.tools[name].input_schema["properties"]
        for arg, schema in props.items():
            if "string" not in {p.get("type") for p in _schema_branches(schema)}:
                continue
            result = await layer.call_tool(name, {**(SAMPLES[name] or {}), arg: PROBE})
            data = error_data(result) if result.is_error else None
            if isinstance(data, dict) and data.get("field") == arg and "allowed" in data:
                found[(name, arg)] = [str(v) for v in data["allowed"]]
    return found


async def test_every_argument_a_handler_checks_against_a_closed_set_lists_it_as_enum(
        tmp_path: Path) -> None:
    layer = await _demo_layer(tmp_path)
    on_demo = await _refusals_with_allowed_values(layer)
    tiny = Dataset.from_records([{"id": "vm-1", "name": "vm", "asset_type": "EC2",
                                  "provider": "AWS"}])
    write_tabular(tiny, tmp_path / "data" / "tiny", "csv")
    await ok(layer, "load_dataset", {"path": "tiny", "name": "tiny"})
    on_tiny = await _refusals_with_allowed_values(layer)
    # Values that change with the data (the frameworks a dataset maps) are not a closed set.
    closed = {key: allowed for key, allowed in on_demo.items() if on_tiny.get(key) == allowed}
    assert len(closed) >= 10
    for (name, arg), allowed in closed.items():
        schema = REGISTRY.tools[name].input_schema["properties"][arg]
        missing = [v for v in allowed if not _schema_admits(schema, v)]
        assert not missing, f"{name}.{arg} does not list {missing}"
