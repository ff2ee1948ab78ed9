"""Graph tools: neighbourhoods, edges, paths, attack and lateral-movement paths, internet
exposure, blast radius, cross-account edges, centrality, subgraph export and statistics.

All are sync handlers — the layer runs them in worker threads — and pass
``ctx.report_progress_sync`` to the estate functions, which report start, each phase
(including a first index build) and the end, strictly increasing. A small page of
``neighbors`` at depth 1 over built views answers on the loop (``inline_when_cached``). On a
dataset without relationship data each answer carries a one-line ``note`` saying so.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from .. import estate
from ..estate import EdgeType, ExportFormat, PathMode, TraversalDirection
from ..estate.finding_exposure import relationship_note
from ..estate.graph_metrics import CENTRALITY_METRICS, CentralityMetric
from ..layer.context import ToolContext
from ..layer.registry import Registry
from .choices import enum_value, enum_values, one_of
from .conventions import (
    CursorArg,
    DatasetArg,
    LimitArg,
    OptionalRefArg,
    RefArg,
    dataset_of,
    filters,
    inline_when_cached,
    page,
    progress_of,
)
from .schemas import (
    ANY,
    BOOL,
    INT,
    NINT,
    NODE,
    NSTR,
    NUM,
    PATHS,
    STR,
    arr,
    int_map,
    nullable,
    obj,
    page_schema,
)

__all__ = ["register"]


def _note(ds: estate.Dataset) -> dict[str, Any]:
    """``{"note": ...}`` when the dataset has no relationship data, else nothing."""
    note = ds.cached("relationship_note", lambda: relationship_note(ds.edges))
    return {"note": note} if note else {}

EdgeTypesArg = Annotated[list[EdgeType] | EdgeType | None, enum_values(EdgeType), Field(
    description="Only these edge types, e.g. SECURITY_GROUP_RULE, LOAD_BALANCER_TARGET, "
                "ASSUMES_ROLE, GRANTS_ACCESS, REFERENCES, IAM_TRUST (all when empty; "
                "explain_edge_type describes them).")]
DirectionArg = Annotated[TraversalDirection, enum_value(TraversalDirection), Field(
    description="out (edges leaving), in (edges arriving) or both.")]
MaxPathsArg = Annotated[int, Field(ge=1, le=100, description="At most this many paths.")]


SourceArg = Annotated[str, Field(
    min_length=1, max_length=2048,
    description="Where paths start: an asset reference (id, ARN or name) or 'internet'.")]
TargetArg = Annotated[str, Field(
    min_length=1, max_length=2048, description="Where paths end: an asset reference.")]


def neighbors(
    ctx: ToolContext,
    ref: Annotated[str, Field(
        min_length=1, max_length=2048,
        description="The asset to start from (id, ARN or name), or 'internet'.")],
    direction: DirectionArg = TraversalDirection.BOTH,
    edge_types: EdgeTypesArg = None,
    depth: Annotated[int, Field(ge=1, le=4, description="Hops to walk, 1-4.")] = 1,
    dataset: DatasetArg = "",
    limit: LimitArg = 50,
    cursor: CursorArg = None,
) -> dict[str, Any]:
    """What is connected to an asset: the nodes within depth hops following outgoing,
    incoming or all edges (optionally only some edge types), each with the node it was
    reached from and the edge used, nearest first."""
    # A worker thread, not the loop: depth up to 4 can reach much of a large estate, and the
    # first walk after a change builds the graph view it follows (seconds at 100k assets).
    # One hop over a view already built, for a small page, is microseconds: that answers on
    # the loop (registered inline_when_cached with max_depth=1).
    ds = dataset_of(ctx, dataset)
    version = ds.version
    result = estate.neighbors(ds, ref, direction=direction, edge_types=edge_types, depth=depth,
                              progress=progress_of(ctx))
    args = filters(ref=ref, direction=direction, edge_types=edge_types, depth=depth)
    return page(ds, version, result.items, args, limit, cursor, **result.summary, **_note(ds))


_REACHED = {"depth": INT, "id": STR, "name": NSTR, "type": NSTR, "provider": NSTR,
            "region": NSTR, "account_id": NSTR}
_NEIGHBOR = obj({**_REACHED, "via_id": STR, "edge_id": NSTR, "edge_type": STR,
                 "edge_direction": STR})
_NEIGHBORS = page_schema(_NEIGHBOR, source=NODE, direction=STR, depth=INT,
                         edge_types=nullable(arr(STR)), by_depth=int_map())


def get_edges(
    ctx: ToolContext,
    ref: OptionalRefArg = None,
    direction: DirectionArg = TraversalDirection.BOTH,
    edge_types: EdgeTypesArg = None,
    port: Annotated[int | None, Field(
        ge=0, le=65535, description="Only edges whose ports or port range include it.")
    ] = None,
    protocol: Annotated[str | None, Field(max_length=16, description="tcp, udp, icmp ...")
                        ] = None,
    source: OptionalRefArg = None,
    target: OptionalRefArg = None,
    dataset: DatasetArg = "",
    limit: LimitArg = 50,
    cursor: CursorArg = None,
) -> dict[str, Any]:
    """List edges matching every filter: touching an asset (ref + direction), from a
    source, to a target, of some types, admitting a port or using a protocol — with both
    ends' names, ports, CIDR and rule direction."""
    ds = dataset_of(ctx, dataset)
    version = ds.version
    frame = estate.get_edges(ds, ref=ref, direction=direction, edge_types=edge_types, port=port,
                             protocol=protocol, source=source, target=target)
    args = filters(ref=ref, direction=direction, edge_types=edge_types, port=port,
                   protocol=protocol, source=source, target=target)
    return page(ds, version, frame, args, limit, cursor, **_note(ds))


_EDGE = obj({"id": STR, "source_id": STR, "source_name": NSTR, "target_id": STR,
             "target_name": NSTR, "edge_type": STR, "relationship": NSTR,
             "ports": nullable(arr(INT)), "port_range": NSTR, "protocol": NSTR, "cidr": NSTR,
             "direction": NSTR, "description": NSTR})


def find_paths(
    ctx: ToolContext,
    source: SourceArg,
    target: TargetArg,
    max_depth: Annotated[int, Field(ge=1, le=10, description="Longest path in hops.")] = 6,
    max_paths: MaxPathsArg = 10,
    mode: Annotated[PathMode, enum_value(PathMode), Field(
        description="flow (how traffic and attackers move), directed (edges as stored) or "
                    "undirected.")] = PathMode.FLOW,
    edge_types: EdgeTypesArg = None,
    dataset: DatasetArg = "",
) -> dict[str, Any]:
    """How two assets connect: up to max_paths simple paths from source to target, shortest
    first, each with its nodes and the edges between them."""
    ds = dataset_of(ctx, dataset)
    return {"dataset": ds.name, **estate.find_paths(
        ds, source, target, max_depth=max_depth, max_paths=max_paths, mode=mode,
        edge_types=edge_types, progress=progress_of(ctx)), **_note(ds)}


_FIND_PATHS = obj({"dataset": STR, "source": NODE, "target": NODE, "mode": STR,
                   "max_depth": INT, "count": INT, "truncated": BOOL, "paths": PATHS})


def attack_paths(
    ctx: ToolContext,
    target: OptionalRefArg = None,
    max_depth: Annotated[int, Field(ge=1, le=10, description="Longest path in hops.")] = 6,
    max_paths: MaxPathsArg = 10,
    dataset: DatasetArg = "",
) -> dict[str, Any]:
    """How an attacker on the internet reaches a target (e.g. a database): the shortest
    paths over network and identity edges from the internet entry point, hop by hop.
    Without a target: one path to each reachable data or key store, sensitive ones first."""
    ds = dataset_of(ctx, dataset)
    return {"dataset": ds.name, **estate.attack_paths(
        ds, target, max_depth=max_depth, max_paths=max_paths, progress=progress_of(ctx)),
        **_note(ds)}


_ATTACK_PATH = obj({**PATHS["items"]["properties"], "entry": nullable(NODE),
                    "target_sensitive": BOOL})
_ATTACK = obj({"dataset": STR, "source": NODE, "target": nullable(NODE), "max_depth": INT,
               "count": INT, "truncated": BOOL, "targets_reachable": INT,
               "paths": arr(_ATTACK_PATH)})


def lateral_movement_paths(
    ctx: ToolContext,
    source: OptionalRefArg = None,
    target: OptionalRefArg = None,
    max_depth: Annotated[int, Field(ge=1, le=10, description="Longest path in hops.")] = 4,
    max_paths: MaxPathsArg = 20,
    dataset: DatasetArg = "",
) -> dict[str, Any]:
    """How an identity moves sideways: paths over identity edges only (trusts, assumed
    roles, policy attachments, access grants). Give a source, a target, both, or neither
    (then from identities nothing leads to, towards data and key stores)."""
    ds = dataset_of(ctx, dataset)
    return {"dataset": ds.name, **estate.lateral_movement_paths(
        ds, source, target, max_depth=max_depth, max_paths=max_paths,
        progress=progress_of(ctx)), **_note(ds)}


_LATERAL = obj({"dataset": STR, "source": nullable(NODE), "target": nullable(NODE),
                "max_depth": INT, "count": INT, "truncated": BOOL, "paths": PATHS})


def internet_exposure(
    ctx: ToolContext,
    sensitive_only: Annotated[bool, Field(
        description="Only entry points with a sensitive port (22, 3389, 3306, 5432, 1433, "
                    "27017, 6379, 9200, 5601, 8080, 8443) or every port open.")] = False,
    dataset: DatasetArg = "",
    limit: LimitArg = 50,
    cursor: CursorArg = None,
) -> dict[str, Any]:
    """What the internet can reach directly: assets flagged exposed, resources behind
    security groups or NSGs open to 0.0.0.0/0 (not those an inventory says have no public
    IP: counted in without_public_ip), and assets a scanner finding says are open
    (derived_from names the finding), with the ports, protocols and source ranges open to
    the world, the sensitive ones, and whether a WAF protects them; most sensitive first."""
    ds = dataset_of(ctx, dataset)
    version = ds.version
    result = estate.internet_exposure(ds, sensitive_only=sensitive_only,
                                      progress=progress_of(ctx))
    return page(ds, version, result.items, filters(sensitive_only=sensitive_only), limit,
                cursor, **result.summary, **_note(ds))


_EXPOSED = obj({"id": STR, "name": NSTR, "type": STR, "provider": STR, "account_id": NSTR,
                "exposure": {"enum": ["direct", "security_group", "both", "finding"]},
                "via": arr(STR), "open_ports": arr(INT), "sensitive_ports": arr(INT),
                "all_ports": BOOL, "protocols": arr(STR), "sources": arr(STR),
                "derived_from": arr(STR),
                "waf_protected": BOOL, "protected_by": arr(STR), "open_findings": INT,
                "max_severity": NSTR})
_EXPOSURE = page_schema(_EXPOSED, exposed_assets=INT, with_sensitive_ports=INT,
                        waf_protected=INT, unprotected=INT, open_world_rules=INT,
                        reachable_from_internet=INT, sensitive_ports_checked=arr(INT),
                        derived_from_findings=INT, without_public_ip=INT)


def blast_radius(
    ctx: ToolContext,
    ref: RefArg,
    max_depth: Annotated[int | None, Field(
        ge=1, le=20, description="Stop after this many dependency hops (default: all).")
    ] = None,
    dataset: DatasetArg = "",
    limit: LimitArg = 50,
    cursor: CursorArg = None,
) -> dict[str, Any]:
    """What breaks if an asset (a key, a role, a network) is deleted or compromised: every
    asset that depends on it directly or transitively, by depth, with the accounts and
    providers affected."""
    ds = dataset_of(ctx, dataset)
    version = ds.version
    result = estate.blast_radius(ds, ref, max_depth=max_depth, progress=progress_of(ctx))
    return page(ds, version, result.items, filters(ref=ref, max_depth=max_depth), limit,
                cursor, **result.summary, **_note(ds))


_DEPENDENT = obj({**_REACHED, "depends_on_id": STR, "edge_id": NSTR, "edge_type": STR})
_BLAST = page_schema(_DEPENDENT, source=NODE, by_depth=int_map(), max_depth_reached=INT,
                     accounts_affected=arr(STR), providers_affected=arr(STR), complete=BOOL)


def cross_account_edges(
    ctx: ToolContext,
    account_id: Annotated[str | None, Field(
        max_length=128, description="Only edges with an end in this account.")] = None,
    edge_types: EdgeTypesArg = None,
    external_only: Annotated[bool, Field(
        description="Only edges reaching an account outside the estate.")] = False,
    dataset: DatasetArg = "",
    limit: LimitArg = 50,
    cursor: CursorArg = None,
) -> dict[str, Any]:
    """Edges joining two different accounts (trusts, peering, grants ...), with both ends'
    names and accounts and whether one end lies outside the estate (an external account)."""
    ds = dataset_of(ctx, dataset)
    version = ds.version
    frame = estate.cross_account_edges(ds, account_id=account_id, edge_types=edge_types,
                                       external_only=external_only)
    args = filters(account_id=account_id, edge_types=edge_types, external_only=external_only)
    return page(ds, version, frame, args, limit, cursor, **_note(ds))


_CROSS = obj({"id": STR, "edge_type": STR, "source_id": STR, "source_name": NSTR,
              "source_account": NSTR, "target_id": STR, "target_name": NSTR,
              "target_account": NSTR, "relationship": NSTR, "external": BOOL})


def centrality_top(
    ctx: ToolContext,
    metric: Annotated[CentralityMetric, one_of(CENTRALITY_METRICS), Field(
        description="degree (distinct neighbours), in_degree, out_degree or betweenness "
                    "(sampled above 1,500 nodes).")] = "degree",
    top: Annotated[int, Field(ge=1, le=500, description="How many assets to return.")] = 20,
    dataset: DatasetArg = "",
) -> dict[str, Any]:
    """The most central assets — hubs many things connect to or pass through, where a
    compromise or outage spreads furthest — ranked by the chosen metric."""
    ds = dataset_of(ctx, dataset)
    result = estate.centrality_top(ds, metric=metric, top=top, progress=progress_of(ctx))
    return {"dataset": ds.name, **result.to_dict(), **_note(ds)}


_CENTRAL = obj({"dataset": STR, "metric": STR, "top": INT, "sampled": BOOL, "samples": NINT,
                "nodes": INT,
                "items": arr(obj({"rank": INT, "id": STR, "name": NSTR, "type": NSTR,
                                  "provider": NSTR, "account_id": NSTR, "score": NUM}))})


def subgraph_export(
    ctx: ToolContext,
    seeds: Annotated[list[str] | str, Field(
        description="Asset reference(s) to centre the subgraph on.")],
    depth: Annotated[int, Field(ge=0, le=4, description="Hops around the seeds, 0-4.")] = 1,
    format: Annotated[ExportFormat, enum_value(ExportFormat), Field(
        description="d3 ({nodes, links}), cytoscape ({elements}) or graphml (XML text).")
    ] = ExportFormat.D3,
    edge_types: EdgeTypesArg = None,
    max_nodes: Annotated[int, Field(ge=1, le=5000, description="Node cap, nearest first.")
                         ] = 500,
    dataset: DatasetArg = "",
) -> dict[str, Any]:
    """Export the neighbourhood of some assets (nodes within depth hops and every edge among
    them) as a graph for drawing: d3 or cytoscape JSON, or GraphML."""
    ds = dataset_of(ctx, dataset)
    return {"dataset": ds.name, **estate.subgraph_export(
        ds, seeds, depth=depth, format=format, edge_types=edge_types, max_nodes=max_nodes,
        progress=progress_of(ctx)), **_note(ds)}


_SUBGRAPH = obj({"dataset": STR, "format": STR, "node_count": INT, "edge_count": INT,
                 "truncated": BOOL, "seeds": arr(STR), "graph": ANY})


def graph_stats(ctx: ToolContext, dataset: DatasetArg = "") -> dict[str, Any]:
    """The shape of the estate graph: assets, edges by type, connected components, isolated
    assets, average and maximum degree, density and the number of internet entry points."""
    ds = dataset_of(ctx, dataset)
    return {"dataset": ds.name, **estate.graph_stats(ds, progress=progress_of(ctx)),
            **_note(ds)}


_STATS = obj({"dataset": STR, "assets": INT, "edges": INT, "external_nodes": INT, "nodes": INT,
              "edge_types": int_map(), "connected_components": INT, "largest_component": INT,
              "isolated_assets": INT, "average_degree": NUM, "max_degree": INT,
              "max_degree_asset": NSTR, "density": NUM, "internet_entry_points": INT})


def register(registry: Registry) -> None:
    g = {"category": "graph"}
    registry.tool(neighbors, title="Neighbours of an asset", output_schema=_NEIGHBORS,
                  inline=inline_when_cached(neighbors, max_depth=1), **g)
    registry.tool(get_edges, title="List edges", output_schema=page_schema(_EDGE), **g)
    registry.tool(find_paths, title="Find paths between assets", output_schema=_FIND_PATHS,
                  **g)
    registry.tool(attack_paths, title="Attack paths from the internet", output_schema=_ATTACK,
                  **g)
    registry.tool(lateral_movement_paths, title="Lateral movement paths",
                  output_schema=_LATERAL, **g)
    registry.tool(internet_exposure, title="Internet exposure", output_schema=_EXPOSURE, **g)
    registry.tool(blast_radius, title="Blast radius", output_schema=_BLAST, **g)
    registry.tool(cross_account_edges, title="Cross-account edges",
                  output_schema=page_schema(_CROSS), **g)
    registry.tool(centrality_top, title="Most central assets", output_schema=_CENTRAL, **g)
    registry.tool(subgraph_export, title="Export a subgraph", output_schema=_SUBGRAPH, **g)
    registry.tool(graph_stats, title="Graph statistics", output_schema=_STATS, **g)
