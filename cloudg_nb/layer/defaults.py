"""The one seam through which a layer gets the collaborators it was not given.

``CloudGMCPLayer()`` without a workspace, a registry or a policy object (a profile name, file
or document is a policy still to load) asks the ``DefaultParts`` registered here: the core
builds no workspace, policy or catalog itself, those live in the packages above it.
``cloudg_nb`` registers its assembly (``cloudg_nb.assembly.default_parts``) when it is
imported, which every import of the layer does first; a program that embeds the core alone
registers its own, or passes all three.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .collaborators import LayerPolicy
    from .registry import Registry

__all__ = ["DefaultParts", "PolicySource", "register_default_parts", "default_parts"]

#: What names a policy to load: a profile name, a file, a document (``None``: the default).
PolicySource = str | os.PathLike[str] | Mapping[str, Any] | None


class DefaultParts(Protocol):
    """``parts(config, workspace=, policy=, registry=) -> (workspace, policy, registry)``:
    each one given kept, each missing one made (a workspace over the settings ``config``),
    and a policy given as a ``PolicySource`` loaded."""

    def __call__(
        self,
        config: object = None,
        *,
        workspace: object = None,
        policy: LayerPolicy | PolicySource = None,
        registry: Registry | None = None,
    ) -> tuple[object, LayerPolicy, Registry]: ...


_registered: DefaultParts | None = None


def register_default_parts(parts: DefaultParts | None) -> DefaultParts | None:
    """Make ``parts`` what every layer built from now on asks for its missing collaborators
    (None: nothing, so a layer must be given all three); returns the one it replaces."""
    global _registered
    previous, _registered = _registered, parts
    return previous


def default_parts(
    config: object = None,
    *,
    workspace: object = None,
    policy: LayerPolicy | PolicySource = None,
    registry: Registry | None = None,
) -> tuple[object, LayerPolicy, Registry]:
    """The registered ``DefaultParts`` applied to these; without one, ``TypeError`` naming
    what the layer must be given instead."""
    parts = _registered
    if parts is None:
        missing = [f"{name}=" for name, value in (("workspace", workspace),
                                                   ("registry", registry)) if value is None]
        if policy is None or isinstance(policy, str | os.PathLike | Mapping):
            missing.append("policy= (a policy object: without defaults, no profile, file or "
                           "document is loaded)")
        raise TypeError(
            "No default parts are registered to build what this CloudGMCPLayer was not "
            f"given: pass {', '.join(missing)}; or register them with "
            "cloudg_nb.layer.defaults.register_default_parts (importing cloudg_nb does)")
    return parts(config, workspace=workspace, policy=policy, registry=registry)
