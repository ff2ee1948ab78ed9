"""Seed §4.1 Construction: what ``CloudGMCPLayer.__init__`` does with what it is given and
how names map.

Covers given collaborators used as they are, registry filtering (category filters on every
kind, tool filters on tools only), prefix validation (at construction and on later
assignment), prefix-only name resolution in process, and the hook that carries
``workspace.notify`` events to ``layer.on_change`` listeners. What the layer builds when a
collaborator is missing comes from the registered defaults (``test_defaults``; the
package's own defaults: ``tests/test_assembly.py``).
"""

from types import SimpleNamespace

import pytest

from cloudg_nb.layer import CloudGMCPLayer, NotFoundError, Registry, ToolSpec
from tests.layer.fakes import FakePolicy, FakeWorkspace, core_layer

# -- helpers -------------------------------------------------------------------------------


def _echo(ctx, text: str = "") -> dict:
    return {"text": text}


def _resource(ctx) -> str:
    return "contents"


def _template(ctx, item: str) -> str:
    return item


def _prompt(ctx) -> str:
    return "Say hello."


def _mixed_registry() -> Registry:
    """One tool, resource, template and prompt in category 'alpha', the same in 'beta'."""
    reg = Registry()
    for cat in ("alpha", "beta"):
        reg.tool(name=f"{cat}_tool", category=cat)(_echo)
        reg.resource(f"test://{cat}", name=f"{cat}_resource", category=cat)(_resource)
        reg.resource_template(
            f"test://{cat}/{{item}}", name=f"{cat}_template", category=cat
        )(_template)
        reg.prompt(name=f"{cat}_prompt", category=cat)(_prompt)
    return reg


def _keys(reg: Registry) -> dict[str, set[str]]:
    return {
        "tools": set(reg.tools),
        "resources": set(reg.resources),
        "templates": set(reg.templates),
        "prompts": set(reg.prompts),
    }


ALPHA_KEYS = {
    "tools": {"alpha_tool"},
    "resources": {"test://alpha"},
    "templates": {"test://alpha/{item}"},
    "prompts": {"alpha_prompt"},
}
BETA_KEYS = {
    "tools": {"beta_tool"},
    "resources": {"test://beta"},
    "templates": {"test://beta/{item}"},
    "prompts": {"beta_prompt"},
}


def _prefixed_layer(prefix: str = "cg_") -> CloudGMCPLayer:
    reg = Registry()
    reg.tool(name="echo")(_echo)
    reg.prompt(name="greet")(_prompt)
    return core_layer(reg, prefix=prefix)


# -- given collaborators -------------------------------------------------------------------


def test_given_workspace_is_used_as_is():
    workspace = FakeWorkspace()
    layer = core_layer(workspace=workspace)
    assert layer.workspace is workspace


def test_workspace_without_on_change_is_accepted():
    workspace = SimpleNamespace()
    layer = core_layer(workspace=workspace)
    assert layer.workspace is workspace


def test_given_policy_object_is_used_as_is():
    policy = FakePolicy("mine")
    layer = core_layer(policy=policy)
    assert layer.policy is policy


# -- registry and filters ------------------------------------------------------------------


def test_without_filters_the_registry_object_is_used_as_is():
    reg = _mixed_registry()
    layer = core_layer(reg)
    assert layer.registry is reg


@pytest.mark.parametrize(
    "filters",
    [
        {"include_categories": ["*"]},
        {"exclude_categories": ["no-such-category"]},
        {"include_tools": ["*"]},
        {"exclude_tools": ["no_such_tool"]},
    ],
    ids=["include_categories", "exclude_categories", "include_tools", "exclude_tools"],
)
def test_any_filter_builds_a_new_registry(filters):
    reg = _mixed_registry()
    layer = core_layer(reg, **filters)
    assert layer.registry is not reg
    assert isinstance(layer.registry, Registry)
    assert _keys(layer.registry) == _keys(reg)


def test_filtering_leaves_the_given_registry_unchanged():
    reg = _mixed_registry()
    before = _keys(reg)
    core_layer(reg, include_categories=["alpha"], exclude_tools=["*"])
    assert _keys(reg) == before


def test_include_categories_applies_to_every_kind():
    layer = core_layer(_mixed_registry(), include_categories=["alpha"])
    assert _keys(layer.registry) == ALPHA_KEYS


def test_exclude_categories_applies_to_every_kind():
    layer = core_layer(_mixed_registry(), exclude_categories=["alph*"])
    assert _keys(layer.registry) == BETA_KEYS


def test_include_tools_filters_only_tools():
    reg = _mixed_registry()
    layer = core_layer(reg, include_tools=["beta_*"])
    expected = _keys(reg)
    expected["tools"] = {"beta_tool"}
    assert _keys(layer.registry) == expected


def test_exclude_tools_keeps_other_kinds_whose_names_match():
    reg = Registry()
    reg.tool(name="x_tool")(_echo)
    reg.tool(name="y_tool")(_echo)
    reg.resource("test://x", name="x_resource")(_resource)
    reg.resource_template("test://x/{item}", name="x_template")(_template)
    reg.prompt(name="x_prompt")(_prompt)
    layer = core_layer(reg, exclude_tools=["x_*"])
    assert _keys(layer.registry) == {
        "tools": {"y_tool"},
        "resources": {"test://x"},
        "templates": {"test://x/{item}"},
        "prompts": {"x_prompt"},
    }


# -- settings ------------------------------------------------------------------------------


def test_timeout_output_cap_and_identity_are_stored():
    layer = core_layer(Registry(), default_timeout=12.5, max_output_chars=999, name="estate",
                       version="9.9", instructions="Use the tools.")
    assert (layer.default_timeout, layer.max_output_chars) == (12.5, 999)
    assert (layer.name, layer.version, layer.instructions) == ("estate", "9.9", "Use the tools.")


# -- prefix --------------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["", "cg_", "a.b-c_9", "x" * 64])
def test_valid_prefix_is_accepted(prefix):
    assert _prefixed_layer(prefix).prefix == prefix


BAD_PREFIXES = pytest.mark.parametrize(
    "prefix",
    ["x" * 65, "cg prefix", "cg/", "cg:", "cgé_", "cg_\n", None],
    ids=["too-long", "space", "slash", "colon", "non-ascii", "trailing-newline", "not-a-str"],
)


@BAD_PREFIXES
def test_invalid_prefix_is_refused_at_construction(prefix):
    with pytest.raises(ValueError):
        core_layer(Registry(), prefix=prefix)


@BAD_PREFIXES
def test_invalid_prefix_set_after_construction_is_refused(prefix):
    layer = core_layer(Registry())
    with pytest.raises(ValueError):
        layer.prefix = prefix


async def test_prefixed_tool_name_resolves_in_process():
    result = await _prefixed_layer().call_tool("cg_echo", {"text": "hi"})
    assert not result.is_error
    assert result.structured == {"text": "hi"}


async def test_unprefixed_tool_name_does_not_resolve_when_a_prefix_is_set():
    with pytest.raises(NotFoundError):
        await _prefixed_layer().call_tool("echo", {"text": "hi"})


async def test_prefixed_prompt_name_resolves_in_process():
    result = await _prefixed_layer().get_prompt("cg_greet")
    assert result.messages[0].content.text == "Say hello."


async def test_unprefixed_prompt_name_does_not_resolve_when_a_prefix_is_set():
    with pytest.raises(NotFoundError):
        await _prefixed_layer().get_prompt("greet")


async def test_prefix_set_after_construction_governs_resolution():
    layer = _prefixed_layer("")
    layer.prefix = "cg_"
    assert not (await layer.call_tool("cg_echo")).is_error
    with pytest.raises(NotFoundError):
        await layer.call_tool("echo")


def test_exposed_name_adds_the_prefix():
    assert _prefixed_layer().exposed_name("echo") == "cg_echo"


def test_internal_name_strips_the_prefix():
    assert _prefixed_layer().internal_name("cg_echo") == "echo"


def test_internal_name_of_an_unprefixed_name_can_never_be_a_registered_name():
    layer = _prefixed_layer()
    key = layer.internal_name("echo")
    assert key not in layer.registry.tools
    with pytest.raises(ValueError):
        ToolSpec(name=key, handler=_echo)


def test_without_a_prefix_names_map_to_themselves():
    layer = _prefixed_layer("")
    assert layer.exposed_name("echo") == "echo"
    assert layer.internal_name("echo") == "echo"


# -- workspace change hook -----------------------------------------------------------------


def test_given_workspace_is_hooked_to_the_layer():
    workspace = FakeWorkspace()
    layer = core_layer(workspace=workspace)
    seen: list = []
    layer.on_change(lambda kind, uri: seen.append((kind, uri)))
    workspace.notify("resources")
    assert seen == [("resources", None)]
