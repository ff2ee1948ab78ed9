"""Resources and resource templates: the workspace, datasets, findings and compliance.

Static resources follow the active dataset (``cloudg://findings/summary``,
``cloudg://compliance``); templates name one (``cloudg://datasets/{dataset}/...``) or
resolve against the active one (``cloudg://assets/{+ref}``, ``cloudg://findings/...``).
The ``/assets`` and ``/findings`` tables are compact "split" JSON without an index —
``{"columns": [...], "data": [[...], ...]}`` — which ``pd.DataFrame(**json.loads(text))``
turns into a DataFrame as is.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .. import estate
from ..acting import owner_label
from ..layer.context import ToolContext
from ..layer.enums import Sensitivity
from ..layer.jsonable import to_jsonable
from ..layer.registry import Registry
from ..layer.wire import (
    ASSET_TEMPLATE,
    COMPLIANCE_URI,
    DATASET_ASSETS_TEMPLATE,
    DATASET_FINDINGS_TEMPLATE,
    DATASET_SUMMARY_TEMPLATE,
    DATASETS_URI,
    FINDING_TEMPLATE,
    FINDINGS_BY_SEVERITY_TEMPLATE,
    FINDINGS_SUMMARY_URI,
    FRAMEWORK_TEMPLATE,
    WORKSPACE_URI,
    dataset_uri,
    summary_uri,
)
from .completions import (
    complete_dataset,
    complete_finding_id,
    complete_framework,
    complete_ref,
    complete_severity,
)
from .conventions import workspace_of

__all__ = ["register", "table", "ASSET_TABLE_COLUMNS"]

#: Columns of ``cloudg://datasets/{dataset}/assets``.
ASSET_TABLE_COLUMNS = ["id", "name", "type", "provider", "region", "account_id", "arn",
                       "internet_exposed", "open_findings", "max_severity", "tags"]


def table(frame: pd.DataFrame) -> dict[str, Any]:
    """``frame`` as split-orient JSON without the index (``pd.DataFrame(**obj)``).

    Returned as a value, not a string, so the privacy transforms work cell by cell (a fenced
    or redacted cell keeps the document parseable)."""
    records = estate.frame_records(frame)
    columns = [str(c) for c in frame.columns]
    return {"columns": columns, "data": [[r[c] for c in columns] for r in records]}


# -- static -------------------------------------------------------------------------------


def workspace_resource(ctx: ToolContext) -> dict[str, Any]:
    """The datasets loaded in the shared workspace, their versions and the active one."""
    return workspace_of(ctx).status()


def datasets_resource(ctx: ToolContext) -> dict[str, Any]:
    """Every loaded dataset with its version, source, sizes and summary URI."""
    ws = workspace_of(ctx)
    active = ws.active_name()
    out = []
    for name in ws.names():
        ds = ws.get(name)
        out.append({"name": name, "version": ds.version, "active": name == active,
                    "owner": owner_label(ws.owner_of(name)),
                    "source": ds.source, "kind": ds.kind, "assets": len(ds.assets),
                    "edges": len(ds.edges), "findings": len(ds.findings),
                    "summary_uri": summary_uri(name),
                    "assets_uri": dataset_uri(name, "assets"),
                    "findings_uri": dataset_uri(name, "findings")})
    return {"active": active, "datasets": out}


def findings_summary_resource(ctx: ToolContext) -> dict[str, Any]:
    """Open findings of the active dataset by severity, with totals and counts per scanner."""
    ds = workspace_of(ctx).get("")
    return {"dataset": ds.name, "version": ds.version,
            **estate.findings_summary(ds, group_by="source_tool")}


def compliance_resource(ctx: ToolContext) -> dict[str, Any]:
    """Pass rates per compliance framework of the active dataset, and its failing controls."""
    ds = workspace_of(ctx).get("")
    return {"dataset": ds.name, "version": ds.version,
            "frameworks": estate.frame_records(estate.compliance_summary(ds)),
            "gaps": estate.frame_records(estate.compliance_gaps(ds))}


# -- templates ----------------------------------------------------------------------------


def dataset_summary_template(ctx: ToolContext, dataset: str) -> dict[str, Any]:
    """One dataset's summary: counts by provider, type, severity, exposure and framework."""
    return workspace_of(ctx).get(dataset).summary()


def dataset_assets_template(ctx: ToolContext, dataset: str) -> dict[str, Any]:
    """Every asset of a dataset as a table: {"columns": [...], "data": [[...], ...]}, which
    pandas reads as pd.DataFrame(**json.loads(text))."""
    ds = workspace_of(ctx).get(dataset)
    briefs = ds.briefs()
    briefs["tags"] = ds.assets["tags"].to_numpy(dtype=object)
    return table(briefs[ASSET_TABLE_COLUMNS])


def dataset_findings_template(ctx: ToolContext, dataset: str) -> dict[str, Any]:
    """Every finding of a dataset, suppressed ones included, worst first, as a table:
    {"columns": [...], "data": [[...], ...]}, which pandas reads as
    pd.DataFrame(**json.loads(text))."""
    ds = workspace_of(ctx).get(dataset)
    return table(estate.list_findings(ds, include_suppressed=True))


def asset_template(ctx: ToolContext, ref: str) -> dict[str, Any]:
    """One asset of the active dataset (by id, ARN or name) with its findings and edges."""
    ds = workspace_of(ctx).get("")
    return {"dataset": ds.name, **estate.get_asset(ds, ref)}


def finding_template(ctx: ToolContext, finding_id: str) -> dict[str, Any]:
    """One finding of the active dataset in full, with its asset and failing controls."""
    ds = workspace_of(ctx).get("")
    return to_jsonable({"dataset": ds.name, **estate.get_finding(ds, finding_id)})


def findings_by_severity_template(ctx: ToolContext, severity: str) -> dict[str, Any]:
    """The open findings of one severity in the active dataset, highest risk first."""
    ds = workspace_of(ctx).get("")
    sev = estate.parse_enum(estate.Severity, severity, field="severity")
    rows = estate.frame_records(estate.list_findings(ds, severities=[sev.value]))
    return {"dataset": ds.name, "severity": sev.value, "count": len(rows), "findings": rows}


def framework_template(ctx: ToolContext, framework: str) -> dict[str, Any]:
    """One compliance framework of the active dataset: pass rate and every control."""
    ds = workspace_of(ctx).get("")
    name = estate.resolve_framework(ds, framework)
    summary = estate.frame_records(estate.compliance_summary(ds, name))[0]
    return {"dataset": ds.name, **summary,
            "controls": estate.frame_records(estate.list_controls(ds, name))}


def register(registry: Registry) -> None:
    internal = {"sensitivity": Sensitivity.INTERNAL}
    registry.resource(WORKSPACE_URI, name="workspace", title="Workspace", category="workspace",
                      **internal)(workspace_resource)
    registry.resource(DATASETS_URI, name="datasets", title="Loaded datasets",
                      category="workspace", **internal)(datasets_resource)
    registry.resource(FINDINGS_SUMMARY_URI, name="findings-summary",
                      title="Findings summary (active dataset)",
                      category="findings")(findings_summary_resource)
    registry.resource(COMPLIANCE_URI, name="compliance",
                      title="Compliance (active dataset)",
                      category="compliance")(compliance_resource)
    dataset = {"dataset": complete_dataset}
    registry.resource_template(DATASET_SUMMARY_TEMPLATE, name="dataset-summary",
                               title="Dataset summary", category="workspace",
                               completions=dataset)(dataset_summary_template)
    registry.resource_template(DATASET_ASSETS_TEMPLATE, name="dataset-assets",
                               title="Assets table", category="inventory",
                               completions=dataset)(dataset_assets_template)
    registry.resource_template(DATASET_FINDINGS_TEMPLATE, name="dataset-findings",
                               title="Findings table", category="findings",
                               completions=dataset)(dataset_findings_template)
    registry.resource_template(ASSET_TEMPLATE, name="asset", title="Asset",
                               category="inventory",
                               completions={"ref": complete_ref})(asset_template)
    registry.resource_template(FINDING_TEMPLATE, name="finding",
                               title="Finding", category="findings",
                               completions={"finding_id": complete_finding_id}
                               )(finding_template)
    registry.resource_template(FINDINGS_BY_SEVERITY_TEMPLATE,
                               name="findings-by-severity", title="Findings of one severity",
                               category="findings",
                               completions={"severity": complete_severity}
                               )(findings_by_severity_template)
    registry.resource_template(FRAMEWORK_TEMPLATE, name="framework",
                               title="Compliance framework", category="compliance",
                               completions={"framework": complete_framework}
                               )(framework_template)
