"""Seed §4.1, through the core's one seam: a layer not given a workspace, a policy object or a
registry asks the registered ``DefaultParts`` (``cloudg_nb.layer.defaults``) for them; with
none registered it says what to pass. The package's own defaults: ``tests/test_assembly.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from cloudg_nb.layer import CloudGMCPLayer, Registry
from cloudg_nb.layer.defaults import register_default_parts
from cloudg_nb.layer.version import __version__
from tests.layer.fakes import FakePolicy, FakeWorkspace, core_layer


class RecordingParts:
    """Default parts that fill in fakes and record what they were asked."""

    def __init__(self) -> None:
        self.asked: list[dict[str, Any]] = []
        self.workspace, self.policy, self.registry = FakeWorkspace(), FakePolicy(), Registry()

    def __call__(self, config: object = None, *, workspace: object = None, policy: Any = None,
                 registry: Registry | None = None) -> tuple[object, Any, Registry]:
        self.asked.append({"config": config, "workspace": workspace, "policy": policy,
                           "registry": registry})
        return (self.workspace if workspace is None else workspace,
                self.policy if policy is None or isinstance(policy, str) else policy,
                self.registry if registry is None else registry)


@pytest.fixture
def use_defaults() -> Iterator[Callable[[Any], None]]:
    """``use_defaults(parts)`` registers ``parts`` for one test (None: no defaults)."""
    kept: list[Any] = []

    def use(parts: Any) -> None:
        kept.append(register_default_parts(parts))

    yield use
    if kept:
        register_default_parts(kept[0])


def test_a_layer_asks_the_registered_defaults_for_what_it_was_not_given(use_defaults) -> None:
    parts = RecordingParts()
    use_defaults(parts)
    settings, registry = object(), Registry()

    layer = CloudGMCPLayer(settings, registry=registry)

    assert parts.asked == [{"config": settings, "workspace": None, "policy": None,
                            "registry": registry}]
    assert layer.workspace is parts.workspace
    assert layer.policy is parts.policy
    assert layer.registry is registry


def test_a_policy_given_by_name_is_loaded_by_the_defaults(use_defaults) -> None:
    parts = RecordingParts()
    use_defaults(parts)

    layer = CloudGMCPLayer(workspace=FakeWorkspace(), policy="open", registry=Registry())

    assert [asked["policy"] for asked in parts.asked] == ["open"]
    assert layer.policy is parts.policy


def test_a_layer_given_all_its_collaborators_asks_no_defaults(use_defaults) -> None:
    parts = RecordingParts()
    use_defaults(parts)

    core_layer()

    assert parts.asked == []


def test_the_defaults_hook_the_workspace_they_build_to_the_layer(use_defaults) -> None:
    parts = RecordingParts()
    use_defaults(parts)
    layer = CloudGMCPLayer(policy=FakePolicy(), registry=Registry())
    seen: list[tuple[str, str | None]] = []
    layer.on_change(lambda kind, uri: seen.append((kind, uri)))

    parts.workspace.notify("resources")

    assert seen == [("resources", None)]


def test_without_registered_defaults_a_layer_says_what_to_pass(use_defaults) -> None:
    use_defaults(None)

    with pytest.raises(TypeError) as raised:
        CloudGMCPLayer(policy="open")

    message = str(raised.value)
    assert "workspace=" in message and "registry=" in message and "policy=" in message
    assert "register_default_parts" in message


def test_without_registered_defaults_a_layer_given_everything_is_built(use_defaults) -> None:
    use_defaults(None)

    assert core_layer().registry.tools == {}


def test_registering_defaults_returns_the_ones_they_replace(use_defaults) -> None:
    first, second = RecordingParts(), RecordingParts()
    use_defaults(first)

    assert register_default_parts(second) is first
    assert register_default_parts(first) is second


def test_a_layer_reports_the_package_version_unless_given_one() -> None:
    import cloudg_nb

    assert core_layer().version == __version__ == cloudg_nb.__version__
    assert core_layer(version="9.9").version == "9.9"
