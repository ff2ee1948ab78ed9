"""The estate domain: models, ``Dataset`` (pandas frames + cached graph indexes), loaders,
sample estates, diff, and the analyst queries the catalog wraps.

Queries are plain functions taking a ``Dataset`` first (``find_assets(ds, ...)``,
``blast_radius(ds, ref)``); list-shaped answers are ordered DataFrames (or ``QueryResult``
with a summary and items) that ``paginate`` turns into the tool paging envelope.
"""

from __future__ import annotations

from .compliance import (
    compliance_gaps,
    compliance_summary,
    control_status,
    list_controls,
    list_frameworks,
    resolve_framework,
)
from .dataset import BRIEF_COLUMNS, Dataset, asset_uri
from .diff import diff
from .errors import (
    DatasetLoadError,
    DatasetNameConflictError,
    NoDatasetError,
    ReferenceNotFoundError,
)
from .export import subgraph_export
from .exposure import cross_account_edges, internet_exposure
from .findings import findings_for_asset, findings_summary, get_finding, list_findings, top_risks
from .formats import FORMATS, detect_format, load_path, write_inventory_map, write_tabular
from .graph_metrics import centrality_top, graph_stats
from .inventory import (
    count_assets,
    find_assets,
    get_asset,
    list_accounts,
    list_asset_types,
    list_regions,
    list_tags,
    select_fields,
)
from .models import (
    ASSET_TYPE_INFO,
    EDGE_TYPE_INFO,
    INTERNET_REF,
    SENSITIVE_PORTS,
    Asset,
    AssetType,
    ComplianceResult,
    ComplianceStatus,
    DependencyDirection,
    Edge,
    EdgeFamily,
    EdgeType,
    ExportFormat,
    Finding,
    PathMode,
    Provider,
    Severity,
    TraversalDirection,
    close_matches,
    explain_asset_type,
    explain_edge_type,
    parse_choice,
    parse_enum,
    parse_enum_list,
)
from .paging import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    decode_cursor,
    encode_cursor,
    frame_records,
    paginate,
)
from .progress_callbacks import CancelCheck, Phases, ProgressFn, checker
from .query_results import QueryResult
from .samples import DEMO_DATA_DIR, demo, drifted, sample, scaled
from .traversal import (
    attack_paths,
    blast_radius,
    crown_jewels,
    dependents,
    depends_on,
    find_paths,
    get_edges,
    lateral_movement_paths,
    neighbors,
)

__all__ = [
    # models
    "Asset", "Edge", "Finding", "ComplianceResult", "AssetType", "Provider", "EdgeType",
    "EdgeFamily", "DependencyDirection", "Severity", "ComplianceStatus", "TraversalDirection",
    "PathMode", "ExportFormat", "ASSET_TYPE_INFO", "EDGE_TYPE_INFO", "SENSITIVE_PORTS",
    "INTERNET_REF", "parse_enum", "parse_enum_list", "parse_choice", "close_matches",
    "explain_asset_type",
    "explain_edge_type",
    # dataset, errors, paging
    "Dataset", "BRIEF_COLUMNS", "asset_uri", "QueryResult", "Phases", "ProgressFn",
    "CancelCheck", "checker",
    "NoDatasetError", "ReferenceNotFoundError", "DatasetLoadError", "DatasetNameConflictError",
    "paginate", "encode_cursor", "decode_cursor", "frame_records",
    "DEFAULT_LIMIT", "MAX_LIMIT",
    # loaders and samples
    "FORMATS", "detect_format", "load_path", "write_inventory_map", "write_tabular",
    "demo", "drifted", "scaled", "sample", "DEMO_DATA_DIR", "diff",
    # inventory
    "find_assets", "get_asset", "count_assets", "list_accounts", "list_regions", "list_tags",
    "list_asset_types", "select_fields",
    # graph
    "neighbors", "get_edges", "find_paths", "attack_paths", "lateral_movement_paths",
    "blast_radius", "depends_on", "dependents", "crown_jewels", "internet_exposure",
    "cross_account_edges", "centrality_top", "graph_stats", "subgraph_export",
    # findings and compliance
    "list_findings", "get_finding", "findings_summary", "findings_for_asset", "top_risks",
    "list_frameworks", "compliance_summary", "list_controls", "control_status",
    "compliance_gaps", "resolve_framework",
]
