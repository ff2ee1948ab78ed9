"""The default assembly: ``build_layer`` fills in a workspace, a policy and the catalog.

The CLI, the Jupyter server extension and the notebook's in-process client all build their
layer here; ``CloudGMCPLayer()`` asks ``default_parts`` for what it was not given, which the
package registers with the core as the layer's defaults (``cloudg_nb.layer.defaults``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import cloudg_nb.catalog
from cloudg_nb.assembly import build_layer, default_parts
from cloudg_nb.config import CloudGConfig
from cloudg_nb.layer import CloudGMCPLayer, Registry
from cloudg_nb.policy import Policy, PolicyError
from cloudg_nb.workspace import Workspace


def _echo(ctx, text: str = "") -> dict:
    return {"text": text}


def _one_tool() -> Registry:
    registry = Registry()
    registry.tool(name="echo")(_echo)
    return registry


def test_build_layer_without_arguments_serves_the_catalog_under_the_standard_policy(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLOUDG_MCP_POLICY", raising=False)
    layer = build_layer()
    assert isinstance(layer, CloudGMCPLayer)
    assert isinstance(layer.workspace, Workspace)
    assert layer.policy.name == "standard"
    assert "sample_estate" in {tool["name"] for tool in layer.tools_wire()}


def test_build_layer_builds_the_workspace_over_the_given_config(tmp_path: Path) -> None:
    config = CloudGConfig(allowed_roots=[tmp_path], output_dir=tmp_path / "out")
    layer = build_layer(config, policy="open", registry=_one_tool())
    assert layer.workspace.config is config


def test_build_layer_loads_a_policy_named_by_profile() -> None:
    layer = build_layer(policy="open", registry=_one_tool())
    assert isinstance(layer.policy, Policy)
    assert layer.policy.name == "open"


def test_build_layer_keeps_the_collaborators_it_is_given() -> None:
    workspace, policy, registry = Workspace(), Policy({"name": "mine"}), _one_tool()
    layer = build_layer(workspace=workspace, policy=policy, registry=registry)
    assert layer.workspace is workspace
    assert layer.policy is policy
    assert layer.registry is registry


def test_build_layer_passes_layer_options_to_the_constructor() -> None:
    layer = build_layer(policy="open", registry=_one_tool(), prefix="estate_",
                        max_output_chars=1000, default_timeout=5.0)
    assert [tool["name"] for tool in layer.tools_wire()] == ["estate_echo"]
    assert layer.max_output_chars == 1000
    assert layer.default_timeout == 5.0


def test_build_layer_reports_an_unknown_policy_profile_as_a_policy_error() -> None:
    with pytest.raises(PolicyError):
        build_layer(policy="no-such-profile", registry=_one_tool())


def test_default_parts_fills_in_only_what_is_missing() -> None:
    workspace = Workspace()
    filled_workspace, policy, registry = default_parts(workspace=workspace, policy="open")
    assert filled_workspace is workspace
    assert policy.name == "open"
    assert "sample_estate" in registry.tools


def test_layer_without_arguments_is_assembled_like_build_layer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLOUDG_MCP_POLICY", raising=False)
    direct, built = CloudGMCPLayer(), build_layer()
    assert direct.policy.name == built.policy.name
    assert direct.tools_wire() == built.tools_wire()


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


# -- CloudGMCPLayer() without collaborators: the package's defaults (seed §4.1) ----------


def test_workspace_is_built_from_the_given_config():
    config = CloudGConfig(max_datasets=3)
    layer = CloudGMCPLayer(config, registry=Registry(), policy="open")
    assert isinstance(layer.workspace, Workspace)
    assert layer.workspace.config is config


def test_workspace_gets_a_default_config_when_none_is_given():
    layer = CloudGMCPLayer(registry=Registry(), policy="open")
    assert isinstance(layer.workspace, Workspace)
    assert isinstance(layer.workspace.config, CloudGConfig)


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


def test_default_registry_is_used_when_none_is_given(monkeypatch):
    catalog = Registry()
    catalog.tool(name="from_catalog")(_echo)
    monkeypatch.setattr(cloudg_nb.catalog, "default_registry", lambda: catalog)
    layer = CloudGMCPLayer(policy="open")
    assert layer.registry is catalog


def test_workspace_notify_reaches_layer_listeners():
    layer = CloudGMCPLayer(registry=Registry(), policy="open")
    seen: list = []
    layer.on_change(lambda kind, uri: seen.append((kind, uri)))
    layer.workspace.notify("resource", "cloudg://workspace")
    assert seen == [("resource", "cloudg://workspace")]
