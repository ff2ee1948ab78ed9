"""The default assembly of a layer: a workspace from settings, a policy, the tool catalog.

``build_layer`` is the one place the CLI, the Jupyter server extension and the notebook's
in-process client turn settings into a ``CloudGMCPLayer``. ``default_parts`` is also what a
layer built without a workspace, a policy or a registry gets them from: the package root
registers it with the core (``layer.defaults``), which never imports this module.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .layer.defaults import PolicySource

if TYPE_CHECKING:
    from .config import CloudGConfig
    from .layer import CloudGMCPLayer, Registry
    from .layer.collaborators import LayerPolicy

__all__ = ["build_layer", "default_parts", "PolicySource"]


def default_parts(
    config: CloudGConfig | None = None,
    *,
    workspace: object = None,
    policy: LayerPolicy | PolicySource = None,
    registry: Registry | None = None,
) -> tuple[object, LayerPolicy, Registry]:
    """``workspace``, ``policy`` and ``registry`` with each missing one filled in.

    No workspace: a ``Workspace`` over ``config`` (default settings without one). A policy
    source (``None``: ``$CLOUDG_MCP_POLICY``, else the ``standard`` profile; a profile name,
    file path, dict or inline JSON) is loaded with ``Policy.load``; a policy object is kept.
    No registry: the built-in catalog. ``PolicyError`` says what was wrong with a policy.
    """
    if workspace is None:
        from .config import CloudGConfig
        from .workspace import Workspace

        workspace = Workspace(config or CloudGConfig())
    if policy is None or isinstance(policy, str | os.PathLike | Mapping):
        from .policy import Policy

        loaded: LayerPolicy = Policy.load(policy)
    else:
        loaded = policy
    if registry is None:
        from .catalog import default_registry

        registry = default_registry()
    return workspace, loaded, registry


def build_layer(
    config: CloudGConfig | None = None,
    *,
    workspace: object = None,
    policy: LayerPolicy | PolicySource = None,
    registry: Registry | None = None,
    **options: Any,
) -> CloudGMCPLayer:
    """A ``CloudGMCPLayer`` over ``default_parts(...)``; ``options`` go to its constructor
    (``prefix``, ``middleware``, ``default_timeout``, ``max_output_chars`` ...)."""
    from .layer import CloudGMCPLayer

    workspace, policy, registry = default_parts(
        config, workspace=workspace, policy=policy, registry=registry)
    return CloudGMCPLayer(workspace=workspace, policy=policy, registry=registry, **options)
