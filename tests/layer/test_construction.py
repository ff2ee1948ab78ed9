"""Seed §4.1 Construction: what ``CloudGMCPLayer.__init__`` builds and how names map.

Covers the workspace built from the config, ``Policy.load`` versus a given Policy, registry
filtering (category filters on every kind, tool filters on tools only), prefix validation
(at construction and on later assignment), prefix-only name resolution in process, and the
hook that carries ``workspace.notify`` events to ``layer.on_change`` listeners.
"""

from types import SimpleNamespace

import pytest

import cloudg_nb.catalog
from cloudg_nb.config import CloudGConfig
from cloudg_nb.layer import CloudGMCPLayer, NotFoundError, Registry, ToolSpec
from cloudg_nb.policy import Policy
from cloudg_nb.workspace import Workspace

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
    return CloudGMCPLayer(registry=reg, policy="open", prefix=prefix)


@pytest.fixture
def load_calls(monkeypatch: pytest.MonkeyPatch) -> list:
    """Record every ``Policy.load`` call (the real loader still runs)."""
    calls: list = []
    original = Policy.load.__func__

    def spy(cls, source=None):
        calls.append(source)
        return original(cls, source)

    monkeypatch.setattr(Policy, "load", classmethod(spy))
    return calls


# -- workspace -----------------------------------------------------------------------------


def test_workspace_is_built_from_the_given_config():
    config = CloudGConfig(max_datasets=3)
    layer = CloudGMCPLayer(config, registry=Registry(), policy="open")
    assert isinstance(layer.workspace, Workspace)
    assert layer.workspace.config is config


def test_workspace_gets_a_default_config_when_none_is_given():
    layer = CloudGMCPLayer(registry=Registry(), policy="open")
    assert isinstance(layer.workspace, Workspace)
    assert isinstance(layer.workspace.config, CloudGConfig)


def test_given_workspace_is_used_as_is():
    workspace = Workspace()
    layer = CloudGMCPLayer(workspace=workspace, registry=Registry(), policy="open")
    assert layer.workspace is workspace


def test_workspace_without_on_change_is_accepted():
    workspace = SimpleNamespace(config=CloudGConfig())
    layer = CloudGMCPLayer(workspace=workspace, registry=Registry(), policy="open")
    assert layer.workspace is workspace


# -- policy --------------------------------------------------------------------------------


def test_policy_name_is_loaded_with_policy_load(load_calls):
    layer = CloudGMCPLayer(registry=Registry(), policy="open")
    assert load_calls == ["open"]
    assert isinstance(layer.policy, Policy)
    assert layer.policy.name == "open"


def test_policy_instance_is_used_without_policy_load(load_calls):
    policy = Policy({"name": "mine"})
    layer = CloudGMCPLayer(registry=Registry(), policy=policy)
    assert layer.policy is policy
    assert load_calls == []


def test_no_policy_loads_the_profile_named_by_the_environment(monkeypatch):
    monkeypatch.setenv("CLOUDG_MCP_POLICY", "open")
    layer = CloudGMCPLayer(registry=Registry())
    assert layer.policy.name == "open"


def test_no_policy_and_no_environment_loads_the_standard_profile(monkeypatch):
    monkeypatch.delenv("CLOUDG_MCP_POLICY", raising=False)
    layer = CloudGMCPLayer(registry=Registry())
    assert layer.policy.name == "standard"


# -- registry and filters ------------------------------------------------------------------


def test_default_registry_is_used_when_none_is_given(monkeypatch):
    catalog = Registry()
    catalog.tool(name="from_catalog")(_echo)
    monkeypatch.setattr(cloudg_nb.catalog, "default_registry", lambda: catalog)
    layer = CloudGMCPLayer(policy="open")
    assert layer.registry is catalog


def test_without_filters_the_registry_object_is_used_as_is():
    reg = _mixed_registry()
    layer = CloudGMCPLayer(registry=reg, policy="open")
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
    layer = CloudGMCPLayer(registry=reg, policy="open", **filters)
    assert layer.registry is not reg
    assert isinstance(layer.registry, Registry)
    assert _keys(layer.registry) == _keys(reg)


def test_filtering_leaves_the_given_registry_unchanged():
    reg = _mixed_registry()
    before = _keys(reg)
    CloudGMCPLayer(
        registry=reg, policy="open", include_categories=["alpha"], exclude_tools=["*"]
    )
    assert _keys(reg) == before


def test_include_categories_applies_to_every_kind():
    layer = CloudGMCPLayer(
        registry=_mixed_registry(), policy="open", include_categories=["alpha"]
    )
    assert _keys(layer.registry) == ALPHA_KEYS


def test_exclude_categories_applies_to_every_kind():
    layer = CloudGMCPLayer(
        registry=_mixed_registry(), policy="open", exclude_categories=["alph*"]
    )
    assert _keys(layer.registry) == BETA_KEYS


def test_include_tools_filters_only_tools():
    reg = _mixed_registry()
    layer = CloudGMCPLayer(registry=reg, policy="open", include_tools=["beta_*"])
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
    layer = CloudGMCPLayer(registry=reg, policy="open", exclude_tools=["x_*"])
    assert _keys(layer.registry) == {
        "tools": {"y_tool"},
        "resources": {"test://x"},
        "templates": {"test://x/{item}"},
        "prompts": {"x_prompt"},
    }


# -- settings ------------------------------------------------------------------------------


def test_timeout_output_cap_and_identity_are_stored():
    layer = CloudGMCPLayer(
        registry=Registry(),
        policy="open",
        default_timeout=12.5,
        max_output_chars=999,
        name="estate",
        version="9.9",
        instructions="Use the tools.",
    )
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
        CloudGMCPLayer(registry=Registry(), policy="open", prefix=prefix)


@BAD_PREFIXES
def test_invalid_prefix_set_after_construction_is_refused(prefix):
    layer = CloudGMCPLayer(registry=Registry(), policy="open")
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


def test_workspace_notify_reaches_layer_listeners():
    layer = CloudGMCPLayer(registry=Registry(), policy="open")
    seen: list = []
    layer.on_change(lambda kind, uri: seen.append((kind, uri)))
    layer.workspace.notify("resource", "cloudg://workspace")
    assert seen == [("resource", "cloudg://workspace")]


def test_given_workspace_is_hooked_to_the_layer():
    workspace = Workspace()
    layer = CloudGMCPLayer(workspace=workspace, registry=Registry(), policy="open")
    seen: list = []
    layer.on_change(lambda kind, uri: seen.append((kind, uri)))
    workspace.notify("resources")
    assert seen == [("resources", None)]
