"""What a handler or a middleware sees of the layer that runs it (``ToolContext.layer``).

A ``typing.Protocol`` that ``CloudGMCPLayer`` satisfies: the context, built by the layer,
names the layer by what it offers, so the two modules never import each other.
"""

from __future__ import annotations

from typing import Protocol

from .collaborators import LayerPolicy
from .plan import CallPlan
from .principal import Principal
from .registry import Registry
from .specs import AnySpec, PromptSpec, ResourceSpec, ResourceTemplateSpec, ToolSpec
from .workers import WorkerPool

__all__ = ["LayerView"]


class LayerView(Protocol):
    """The layer's name and version, its collaborators, its worker lanes, and what a caller
    may list, resolve and be admitted to."""

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def workspace(self) -> object:
        """Whatever workspace the layer holds (the catalog's is a ``Workspace``)."""

    @property
    def policy(self) -> LayerPolicy: ...

    @property
    def registry(self) -> Registry: ...

    @property
    def workers(self) -> WorkerPool:
        """The lanes sync handlers run in; ``workers.run`` moves work there."""

    def exposed_name(self, name: str) -> str:
        """``name`` as callers see it (with the layer's prefix)."""

    def list_tools(self, principal: Principal | None = None) -> list[ToolSpec]: ...

    def list_resources(self, principal: Principal | None = None) -> list[ResourceSpec]: ...

    def list_templates(
        self, principal: Principal | None = None) -> list[ResourceTemplateSpec]: ...

    def list_prompts(self, principal: Principal | None = None) -> list[PromptSpec]: ...

    def get_tool(self, name: str, principal: Principal | None = None) -> ToolSpec:
        """The tool ``name`` (exposed name) if ``principal`` may see it, else NotFoundError."""

    def plan(self, spec: AnySpec, principal: Principal) -> CallPlan:
        """What the policy decided about ``spec`` for ``principal`` (``CallPlan``)."""
