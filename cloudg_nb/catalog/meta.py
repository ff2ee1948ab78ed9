"""Meta tools and resources: what this server offers and what the workspace holds."""

from __future__ import annotations

from typing import Any

from ..layer.context import ToolContext
from ..layer.enums import Sensitivity
from ..layer.registry import Registry

__all__ = ["register"]


def list_capabilities(ctx: ToolContext) -> dict[str, Any]:
    """List the tools, resources, templates and prompts this server offers to the caller,
    with their titles and categories, so an assistant can plan which ones to use."""
    layer = ctx.layer
    assert layer is not None
    p = ctx.principal
    return {
        "server": {"name": layer.name, "version": layer.version, "policy": layer.policy.name},
        "tools": [
            {"name": layer.exposed_name(s.name), "title": s.title, "category": s.category}
            for s in layer.list_tools(p)
        ],
        "resources": [{"uri": s.uri, "name": s.name} for s in layer.list_resources(p)],
        "templates": [
            {"uriTemplate": s.uri_template, "name": s.name} for s in layer.list_templates(p)
        ],
        "prompts": [layer.exposed_name(s.name) for s in layer.list_prompts(p)],
    }


def workspace_status(ctx: ToolContext) -> dict[str, Any]:
    """Show which estate datasets are loaded in the shared workspace and which one is
    active (the one tools use when no dataset argument is given)."""
    return ctx.workspace.status()


def workspace_resource(ctx: ToolContext) -> dict[str, Any]:
    """The datasets loaded in the shared workspace and the active one."""
    return ctx.workspace.status()


def register(registry: Registry) -> None:
    registry.tool(
        list_capabilities, title="List capabilities", category="meta",
        sensitivity=Sensitivity.PUBLIC,
    )
    registry.tool(
        workspace_status, title="Workspace status", category="workspace",
        sensitivity=Sensitivity.INTERNAL,
    )
    registry.resource(
        "cloudg://workspace", name="workspace", title="Workspace", category="workspace",
        sensitivity=Sensitivity.INTERNAL,
    )(workspace_resource)
