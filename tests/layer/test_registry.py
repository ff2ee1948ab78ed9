"""Registry: adding, merging and finding specs, and the registering decorators.

Contract (layer reference §3, §4): ``add`` refuses duplicates unless ``replace``; ``merge``
adds every spec of another registry under the same rule; ``find_template`` tries templates
longest first, ``{var}`` matches one path segment, ``{+var}`` spans ``/``, matches are
anchored and values URL-decoded; decorators register and return the function unchanged,
naming the spec after the function unless told otherwise.
"""

from __future__ import annotations

import pytest

from cloudg_nb.layer.registry import Registry
from cloudg_nb.layer.specs import (
    PromptArgument,
    PromptSpec,
    ResourceSpec,
    ResourceTemplateSpec,
    ToolSpec,
)


def handler(ctx, **kwargs) -> dict:
    return {}


def tool(name: str, description: str = "") -> ToolSpec:
    return ToolSpec(name=name, handler=handler, description=description)


def template(uri_template: str, name: str = "t") -> ResourceTemplateSpec:
    return ResourceTemplateSpec(name=name, uri_template=uri_template, handler=handler)


# -- add and merge -------------------------------------------------------------------------


def test_add_registers_each_kind_in_its_own_table():
    reg = Registry()
    reg.add(tool("t"))
    reg.add(ResourceSpec(name="r", uri="cloudg://r", handler=handler))
    reg.add(template("cloudg://x/{id}"))
    reg.add(PromptSpec(name="p", handler=handler))
    assert list(reg.tools) == ["t"]
    assert list(reg.resources) == ["cloudg://r"]
    assert list(reg.templates) == ["cloudg://x/{id}"]
    assert list(reg.prompts) == ["p"]
    assert len(reg) == 4
    assert len(list(reg)) == 4


def test_add_returns_the_spec():
    spec = tool("t")
    assert Registry().add(spec) is spec


def test_adding_a_duplicate_raises_value_error():
    reg = Registry()
    reg.add(tool("t", "first"))
    with pytest.raises(ValueError, match="already registered"):
        reg.add(tool("t", "second"))
    assert reg.tools["t"].description == "first"


def test_adding_with_replace_overwrites():
    reg = Registry()
    reg.add(tool("t", "first"))
    reg.add(tool("t", "second"), replace=True)
    assert reg.tools["t"].description == "second"
    assert len(reg) == 1


def test_same_name_in_different_kinds_is_not_a_duplicate():
    reg = Registry()
    reg.add(tool("same"))
    reg.add(PromptSpec(name="same", handler=handler))
    assert len(reg) == 2


def test_adding_something_that_is_not_a_spec_raises_type_error():
    with pytest.raises(TypeError):
        Registry().add("not a spec")  # type: ignore[arg-type]


def test_merge_adds_every_spec_of_the_other_registry():
    reg, other = Registry(), Registry()
    reg.add(tool("a"))
    other.add(tool("b"))
    other.add(ResourceSpec(name="r", uri="cloudg://r", handler=handler))
    assert reg.merge(other) is reg
    assert set(reg.tools) == {"a", "b"}
    assert "cloudg://r" in reg.resources


def test_merge_with_a_duplicate_raises_and_adds_nothing():
    reg, other = Registry(), Registry()
    reg.add(tool("a", "mine"))
    other.add(tool("b"))
    other.add(tool("a", "theirs"))
    with pytest.raises(ValueError):
        reg.merge(other)
    assert set(reg.tools) == {"a"}
    assert reg.tools["a"].description == "mine"


def test_merge_with_replace_overwrites_duplicates():
    reg, other = Registry(), Registry()
    reg.add(tool("a", "mine"))
    other.add(tool("a", "theirs"))
    reg.merge(other, replace=True)
    assert reg.tools["a"].description == "theirs"


def test_remove_drops_a_spec():
    reg = Registry()
    spec = reg.add(tool("a"))
    reg.remove(spec)
    assert len(reg) == 0


# -- find_template -------------------------------------------------------------------------


def test_longest_template_wins_whatever_the_registration_order():
    reg = Registry()
    reg.add(template("cloudg://assets/{+ref}", "asset"))
    reg.add(template("cloudg://assets/{+ref}/neighbors", "neighbors"))
    spec, variables = reg.find_template("cloudg://assets/aws/ec2/i-123/neighbors")
    assert spec.name == "neighbors"
    assert variables == {"ref": "aws/ec2/i-123"}


def test_shorter_template_still_matches_its_own_uris():
    reg = Registry()
    reg.add(template("cloudg://assets/{+ref}/neighbors", "neighbors"))
    reg.add(template("cloudg://assets/{+ref}", "asset"))
    spec, variables = reg.find_template("cloudg://assets/aws/ec2/i-123")
    assert spec.name == "asset"
    assert variables == {"ref": "aws/ec2/i-123"}


def test_template_added_after_a_lookup_is_found():
    reg = Registry()
    reg.add(template("cloudg://assets/{+ref}", "asset"))
    assert reg.find_template("cloudg://assets/a/neighbors")[0].name == "asset"
    reg.add(template("cloudg://assets/{+ref}/neighbors", "neighbors"))
    assert reg.find_template("cloudg://assets/a/neighbors")[0].name == "neighbors"


def test_removed_template_is_no_longer_found():
    reg = Registry()
    spec = reg.add(template("cloudg://datasets/{name}", "dataset"))
    assert reg.find_template("cloudg://datasets/prod") is not None
    reg.remove(spec)
    assert reg.find_template("cloudg://datasets/prod") is None


def test_simple_variable_matches_one_segment_only():
    reg = Registry()
    reg.add(template("cloudg://datasets/{name}/summary"))
    assert reg.find_template("cloudg://datasets/prod/summary")[1] == {"name": "prod"}
    assert reg.find_template("cloudg://datasets/prod/eu/summary") is None


def test_simple_variable_stops_at_a_query():
    reg = Registry()
    reg.add(template("cloudg://datasets/{name}"))
    assert reg.find_template("cloudg://datasets/prod?x=1") is None


def test_plus_variable_spans_slashes():
    reg = Registry()
    reg.add(template("cloudg://files/{+path}"))
    assert reg.find_template("cloudg://files/a/b/c.json")[1] == {"path": "a/b/c.json"}


def test_matched_values_are_url_decoded():
    reg = Registry()
    reg.add(template("cloudg://datasets/{name}/summary"))
    _, variables = reg.find_template("cloudg://datasets/my%20estate%2Fprod/summary")
    assert variables == {"name": "my estate/prod"}


def test_several_variables_are_all_matched():
    reg = Registry()
    reg.add(template("cloudg://datasets/{name}/assets/{+ref}"))
    _, variables = reg.find_template("cloudg://datasets/prod/assets/aws/s3/bucket")
    assert variables == {"name": "prod", "ref": "aws/s3/bucket"}


@pytest.mark.parametrize(
    "uri",
    [
        "xcloudg://datasets/prod/summary",
        "cloudg://datasets/prod/summary/extra",
        "cloudg://datasets/prod/summaryX",
        "cloudg://datasets//summary",
        "cloudg://datasets/prod/summary\n",
    ],
)
def test_template_matches_are_anchored(uri):
    reg = Registry()
    reg.add(template("cloudg://datasets/{name}/summary"))
    assert reg.find_template(uri) is None


def test_literal_parts_are_not_regular_expressions():
    reg = Registry()
    reg.add(template("cloudg://a.b/{id}"))
    assert reg.find_template("cloudg://aXb/1") is None
    assert reg.find_template("cloudg://a.b/1")[1] == {"id": "1"}


def test_no_template_gives_none():
    assert Registry().find_template("cloudg://anything") is None


# -- decorators ----------------------------------------------------------------------------


def test_tool_decorator_returns_the_function_and_names_it_after_it():
    reg = Registry()

    def list_assets(ctx, limit: int = 10) -> dict:
        return {}

    assert reg.tool(list_assets) is list_assets
    assert reg.tools["list_assets"].handler is list_assets


def test_tool_decorator_with_options():
    reg = Registry()

    def fn(ctx) -> dict:
        return {}

    decorated = reg.tool(name="renamed", category="graph", capabilities={"write_state"})(fn)
    assert decorated is fn
    spec = reg.tools["renamed"]
    assert (spec.category, spec.read_only) == ("graph", False)
    assert "fn" not in reg.tools


def test_tool_decorator_refuses_a_duplicate_unless_replace():
    reg = Registry()

    @reg.tool
    def dup(ctx) -> dict:
        return {"v": 1}

    with pytest.raises(ValueError):
        reg.tool(name="dup")(lambda ctx: {})

    def newer(ctx) -> dict:
        return {"v": 2}

    reg.tool(name="dup", replace=True)(newer)
    assert reg.tools["dup"].handler is newer


def test_resource_decorator_returns_the_function_and_names_it_after_it():
    reg = Registry()

    def status(ctx) -> dict:
        return {}

    assert reg.resource("cloudg://status", mime_type="text/plain")(status) is status
    spec = reg.resources["cloudg://status"]
    assert (spec.name, spec.mime_type, spec.handler) == ("status", "text/plain", status)


def test_resource_template_decorator_returns_the_function_and_names_it_after_it():
    reg = Registry()

    def summary(ctx, name: str) -> dict:
        return {}

    assert reg.resource_template("cloudg://datasets/{name}/summary")(summary) is summary
    spec = reg.templates["cloudg://datasets/{name}/summary"]
    assert (spec.name, spec.handler, spec.variables) == ("summary", summary, ("name",))


def test_prompt_decorator_returns_the_function_and_names_it_after_it():
    reg = Registry()

    def triage(ctx, finding: str) -> str:
        return ""

    assert reg.prompt(triage) is triage
    spec = reg.prompts["triage"]
    assert spec.handler is triage
    assert [(a.name, a.required) for a in spec.arguments] == [("finding", True)]


def test_prompt_decorator_accepts_argument_dicts_and_objects():
    reg = Registry()

    def triage(ctx, finding: str = "", depth: str = "") -> str:
        return ""

    reg.prompt(
        name="triage2",
        arguments=[{"name": "finding", "required": True}, PromptArgument("depth")],
    )(triage)
    spec = reg.prompts["triage2"]
    assert [(a.name, a.required) for a in spec.arguments] == [
        ("finding", True), ("depth", False),
    ]
