"""The default assembly: ``build_layer`` fills in a workspace, a policy and the catalog.

The CLI, the Jupyter server extension and the notebook's in-process client all build their
layer here; ``CloudGMCPLayer()`` asks ``default_parts`` for what it was not given.
"""

from __future__ import annotations

from pathlib import Path

import pytest

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
