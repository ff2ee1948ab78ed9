"""The layer works with any policy and workspace that have what it needs (the Protocols in
``cloudg_nb.layer.collaborators``); optional hooks are used only where they exist."""

from __future__ import annotations

from typing import Any

import pytest

from cloudg_nb import CloudGMCPLayer, NotFoundError, Registry
from cloudg_nb.layer.collaborators import LayerPolicy
from cloudg_nb.layer.context import Principal
from cloudg_nb.layer.pipeline import Pipeline
from cloudg_nb.layer.specs import AnySpec


class AllowAll:
    """A policy written from the Protocol alone: allows everything, transforms nothing."""

    name = "allow-all"
    vault = None

    def __init__(self) -> None:
        self.hidden: list[tuple[str, str]] = []

    def is_allowed(self, spec: AnySpec, principal: Principal) -> bool:
        return spec.name != "secret"

    def check_call(self, spec: AnySpec, principal: Principal, arguments: dict[str, Any]) -> None:
        return None

    def check_completion(self, spec: AnySpec, principal: Principal) -> None:
        return None

    def input_pipeline(self, spec: AnySpec, principal: Principal) -> Pipeline:
        return Pipeline()

    def output_pipeline(self, spec: AnySpec, principal: Principal) -> Pipeline:
        return Pipeline()

    def record_hidden(self, kind: str, name: str, principal: Principal) -> None:
        self.hidden.append((kind, name))

    def record_rejection(self, spec: AnySpec, principal: Principal, error: Exception) -> None:
        return None


class ChangingWorkspace:
    """A workspace that only reports changes (no datasets, no identifiers)."""

    def __init__(self) -> None:
        self.listeners: list[Any] = []

    def on_change(self, fn: Any) -> Any:
        self.listeners.append(fn)
        return lambda: self.listeners.remove(fn)


def registry() -> Registry:
    reg = Registry()

    @reg.tool
    def count(ctx, n: int) -> dict:
        return {"n": n}

    @reg.tool
    def secret(ctx) -> dict:
        return {}

    return reg


async def test_a_policy_written_from_the_protocol_governs_calls() -> None:
    policy: LayerPolicy = AllowAll()
    layer = CloudGMCPLayer(workspace=ChangingWorkspace(), policy=policy, registry=registry())

    result = await layer.call_tool("count", {"n": 3})

    assert not result.is_error
    assert result.structured == {"n": 3}
    assert [t["name"] for t in layer.tools_wire()] == ["count"]


async def test_a_hidden_name_is_recorded_with_the_policy() -> None:
    policy = AllowAll()
    layer = CloudGMCPLayer(workspace=ChangingWorkspace(), policy=policy, registry=registry())

    with pytest.raises(NotFoundError):
        await layer.call_tool("secret")

    assert policy.hidden == [("tool", "secret")]


def test_workspace_changes_reach_the_layers_listeners() -> None:
    workspace = ChangingWorkspace()
    layer = CloudGMCPLayer(workspace=workspace, policy=AllowAll(), registry=registry())
    heard: list[tuple[str, str | None]] = []
    layer.on_change(lambda kind, uri: heard.append((kind, uri)))

    for listener in workspace.listeners:
        listener("datasets", "cloudg://datasets")

    assert heard == [("datasets", "cloudg://datasets")]


def test_a_workspace_without_change_events_is_accepted() -> None:
    layer = CloudGMCPLayer(workspace=object(), policy=AllowAll(), registry=registry())

    assert layer.list_tools()[0].name == "count"
