"""Meta tools: what this server offers, and what the estate's asset and edge types mean.

They need no dataset: ``list_capabilities`` reads the layer's (policy-filtered) listings,
``explain_asset_type`` / ``explain_edge_type`` the estate model's vocabulary.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from .. import estate
from ..estate import AssetType, EdgeType
from ..layer.context import ToolContext
from ..layer.enums import Sensitivity
from ..layer.registry import Registry
from .choices import enum_value
from .schemas import BOOL, NSTR, STR, arr, obj

__all__ = ["register"]


def list_capabilities(ctx: ToolContext) -> dict[str, Any]:
    """List the tools, resources, templates and prompts this server offers to the caller,
    with their titles and categories, so an assistant can plan which ones to use."""
    layer = ctx.layer
    assert layer is not None
    p = ctx.principal
    routed = getattr(layer.policy, "policy_for", None)  # a PolicyRouter: the caller's policy
    policy = routed(p).name if callable(routed) else layer.policy.name
    return {
        "server": {"name": layer.name, "version": layer.version, "policy": policy},
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


_CAPABILITIES = obj({
    "server": obj({"name": STR, "version": STR, "policy": STR}),
    "tools": arr(obj({"name": STR, "title": NSTR, "category": STR})),
    "resources": arr(obj({"uri": STR, "name": STR})),
    "templates": arr(obj({"uriTemplate": STR, "name": STR})),
    "prompts": arr(STR)})


def explain_asset_type(
    ctx: ToolContext,
    asset_type: Annotated[AssetType | None, enum_value(AssetType, blank_is_none=True), Field(
        description="An asset type such as EC2, S3_BUCKET, IAM_ROLE or KMS_KEY "
                    "(case-insensitive); empty lists every type.")] = None,
) -> dict[str, Any]:
    """What an asset type is: its category (network, compute, identity, data, keys ...),
    whether attackers aim for it as a data store, and a description. Without an argument,
    every type the estate model knows."""
    if asset_type:
        return {"types": [estate.explain_asset_type(asset_type)]}
    return {"types": [estate.explain_asset_type(t) for t in estate.AssetType]}


_TYPE = obj({"asset_type": STR, "category": STR, "data_store": BOOL, "description": STR})


def explain_edge_type(
    ctx: ToolContext,
    edge_type: Annotated[EdgeType | None, enum_value(EdgeType, blank_is_none=True), Field(
        description="An edge type such as ASSUMES_ROLE, REFERENCES or SECURITY_GROUP_RULE "
                    "(case-insensitive); empty lists every type.")] = None,
) -> dict[str, Any]:
    """What an edge type means: its family (network, structure, identity, workload,
    governance), which end depends on the other (used by blast_radius), and a description.
    Without an argument, every edge type."""
    if edge_type:
        return {"types": [estate.explain_edge_type(edge_type)]}
    return {"types": [estate.explain_edge_type(t) for t in estate.EdgeType]}


_EDGE_TYPE = obj({"edge_type": STR, "family": STR, "dependency": STR, "description": STR})


def register(registry: Registry) -> None:
    registry.tool(list_capabilities, title="List capabilities", category="meta",
                  sensitivity=Sensitivity.PUBLIC, output_schema=_CAPABILITIES)
    registry.tool(explain_asset_type, title="Explain an asset type", category="meta",
                  sensitivity=Sensitivity.PUBLIC, output_schema=obj({"types": arr(_TYPE)}))
    registry.tool(explain_edge_type, title="Explain an edge type", category="meta",
                  sensitivity=Sensitivity.PUBLIC,
                  output_schema=obj({"types": arr(_EDGE_TYPE)}))
