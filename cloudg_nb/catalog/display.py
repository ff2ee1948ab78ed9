"""How each list tool's rows read in a table (``_meta`` ``cloudg/display``): the columns a
notebook shows by default, most telling first, and what one row is (for captions such as
"showing 100 of 12,431 findings"). Rows keep every column; only the default view is chosen
here, in one table beside the tools, so a new list tool gets its view in one place.
"""

from __future__ import annotations

from typing import Any

from ..layer.registry import Registry
from ..layer.wire import DISPLAY_META

__all__ = ["DISPLAY", "add_display_meta"]

#: tool -> (what a row is, the columns shown by default). Tools whose rows have few columns
#: (list_regions, list_tags ...) show them all and only name their rows.
DISPLAY: dict[str, tuple[str, tuple[str, ...]]] = {
    "find_assets": ("assets", ("id", "name", "type", "provider", "region", "account_id",
                               "internet_exposed", "open_findings", "max_severity")),
    "list_accounts": ("accounts", ()),
    "list_regions": ("regions", ()),
    "list_tags": ("tags", ()),
    "list_asset_types": ("asset types", ()),
    "neighbors": ("neighbours", ("depth", "id", "name", "type", "account_id", "edge_type",
                                 "edge_direction", "via_id")),
    "get_edges": ("edges", ("id", "source_name", "edge_type", "target_name", "ports",
                            "protocol", "cidr", "description")),
    "internet_exposure": ("exposed assets", ("id", "name", "type", "account_id", "exposure",
                                             "open_ports", "sensitive_ports", "via",
                                             "waf_protected", "open_findings",
                                             "max_severity")),
    "blast_radius": ("assets", ("depth", "id", "name", "type", "account_id", "depends_on_id",
                                "edge_type")),
    "cross_account_edges": ("edges", ("id", "edge_type", "source_name", "source_account",
                                      "target_name", "target_account", "relationship",
                                      "external")),
    "centrality_top": ("assets", ("rank", "id", "name", "type", "account_id", "score")),
    "list_findings": ("findings", ("id", "severity", "risk_score", "title", "resource_name",
                                   "resource_type", "source_tool", "compliance_frameworks",
                                   "detected_at", "is_suppressed")),
    "top_risks": ("assets", ("rank", "id", "name", "type", "score", "max_severity",
                             "open_findings", "internet_exposed", "top_finding_id",
                             "top_finding_title")),
    "compliance_gaps": ("controls", ("framework", "control_id", "control_title",
                                     "open_findings", "max_severity", "resources")),
    "list_datasets": ("datasets", ("name", "active", "version", "owner", "kind", "source",
                                   "assets", "edges", "findings")),
    "list_detectors": ("detectors", ("name", "kind", "entities", "description", "builtin")),
}


def display_meta(rows: str, columns: tuple[str, ...]) -> dict[str, Any]:
    """The ``cloudg/display`` value: ``{"rows": ..., "columns": [...]}`` (no columns: all)."""
    return {"rows": rows, **({"columns": list(columns)} if columns else {})}


def add_display_meta(registry: Registry) -> Registry:
    """Put each listed tool's display into its ``_meta`` (tools the registry lacks skipped)."""
    for name, (rows, columns) in DISPLAY.items():
        spec = registry.tools.get(name)
        if spec is not None:
            spec.meta[DISPLAY_META] = display_meta(rows, columns)
    return registry
