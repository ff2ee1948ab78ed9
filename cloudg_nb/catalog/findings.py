"""Findings tools: filtered lists, one finding, summaries, the top risks, and suppression.

``suppress_findings`` / ``unsuppress_findings`` mutate the dataset (version bump, cursors go
stale) and the workspace turns that into change events for every resource showing it
(``cloudg://workspace``, ``cloudg://datasets``, the dataset's summary/assets/findings and,
for the active dataset, ``cloudg://findings/summary`` and ``cloudg://compliance``).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from .. import estate
from ..estate import Severity
from ..estate.findings import (
    FINDING_GROUP_KEYS,
    FINDING_SORT_KEYS,
    FindingGroupKey,
    FindingSortKey,
)
from ..layer.context import ToolContext
from ..layer.enums import Capability
from ..layer.jsonable import to_jsonable
from ..layer.registry import Registry
from .choices import enum_value, enum_values, one_of
from .conventions import (
    CursorArg,
    DatasetArg,
    LimitArg,
    dataset_of,
    filters,
    inline_when_cached,
    page,
    point_lookup,
    progress_of,
    query_key,
)
from .schemas import BOOL, INT, NNUM, NSTR, NUM, OBJ, STR, arr, int_map, nullable, obj, page_schema

__all__ = ["register"]

FindingIdArg = Annotated[str, Field(
    min_length=1, max_length=256, description="A finding id (list_findings shows them).")]
IdsArg = Annotated[list[str] | str, Field(
    description="Finding id(s) (list_findings shows them); unknown ones are reported back.")]


def list_findings(
    ctx: ToolContext,
    severities: Annotated[list[Severity] | Severity | None, enum_values(Severity), Field(
        description="Only these severities: CRITICAL, HIGH, MEDIUM, LOW, INFO.")] = None,
    min_severity: Annotated[Severity | None, enum_value(Severity, blank_is_none=True), Field(
        description="Only findings at least this severe.")] = None,
    source_tool: Annotated[str | None, Field(
        max_length=64, description="Only from this scanner (prowler, trivy, checkov, "
                                   "scoutsuite ...).")] = None,
    framework: Annotated[str | None, Field(
        max_length=64, description="Only findings mapped to this compliance framework, e.g. "
                                   "PCI-DSS-4.0.")] = None,
    resource: Annotated[str | None, Field(
        max_length=2048, description="Only findings on this asset (id, ARN or name).")
    ] = None,
    query: Annotated[str | None, Field(
        max_length=256, description="Text to look for in titles and descriptions.")] = None,
    include_suppressed: Annotated[bool, Field(
        description="Include suppressed findings.")] = False,
    sort_by: Annotated[FindingSortKey, one_of(FINDING_SORT_KEYS), Field(
        description="severity (worst first, then risk), risk, detected_at (newest first), "
                    "id, source_tool or resource.")] = "severity",
    dataset: DatasetArg = "",
    limit: LimitArg = 50,
    cursor: CursorArg = None,
) -> dict[str, Any]:
    """List security findings matching every filter (severity, scanner, framework, asset,
    text), worst first, with risk score, the asset concerned and whether it is in the
    inventory; suppressed findings only when asked."""
    # A worker thread runs the query (seconds on a large estate); a small page of a query
    # already cached answers on the loop instead (registered inline_when_cached).
    ds = dataset_of(ctx, dataset)
    version = ds.version
    args = filters(severities=severities, min_severity=min_severity, source_tool=source_tool,
                   framework=framework, resource=resource, query=query,
                   include_suppressed=include_suppressed)
    key = query_key("list_findings", args, sort_by=sort_by)
    frame = ds.cached_query(key, lambda: estate.list_findings(ds, sort_by=sort_by, **args))
    return page(ds, version, frame, {**args, "sort_by": sort_by}, limit, cursor, ctx=ctx,
                delta_keys=("id", "resource_id"), rows_key=key)


_FINDING_ROW = obj({"id": STR, "severity": STR, "risk_score": NUM, "title": STR,
                    "resource_id": NSTR, "resource_name": NSTR, "resource_type": NSTR,
                    "in_inventory": BOOL, "source_tool": NSTR, "compliance_frameworks": arr(STR),
                    "cvss_score": NNUM, "detected_at": NSTR, "is_suppressed": BOOL,
                    "suppression_reason": NSTR, "uri": STR})


async def get_finding(ctx: ToolContext, finding_id: FindingIdArg, dataset: DatasetArg = ""
                      ) -> dict[str, Any]:
    """One finding in full: description, evidence, remediation, scanner, CVSS and risk
    score, the asset it concerns (or that it is outside the inventory) and the compliance
    controls it fails."""
    # On the loop: a point lookup over cached indexes (tens of µs); cold indexes and unknown
    # ids go to a worker thread (see point_lookup).
    ds = dataset_of(ctx, dataset)
    found = await point_lookup(ctx, ds, estate.get_finding, ds, finding_id)
    return to_jsonable({"dataset": ds.name, **found})


_FINDING = obj({
    "dataset": STR, "id": STR, "resource_id": NSTR, "resource_arn": NSTR, "severity": STR,
    "title": STR, "description": NSTR, "evidence": NSTR, "remediation": NSTR,
    "source_tool": NSTR, "source_finding_id": NSTR, "compliance_frameworks": arr(STR),
    "cvss_score": NNUM, "detected_at": NSTR, "is_suppressed": BOOL, "suppression_reason": NSTR,
    "risk_score": NUM, "in_inventory": BOOL, "asset": nullable(OBJ), "uri": STR,
    "controls": arr(obj({"framework": STR, "control_id": STR, "status": STR}))})


def findings_summary(
    ctx: ToolContext,
    group_by: Annotated[FindingGroupKey, one_of(FINDING_GROUP_KEYS), Field(
        description="severity, source_tool, framework, resource, asset_type, account_id or "
                    "provider.")] = "severity",
    include_suppressed: Annotated[bool, Field(
        description="Count suppressed findings in the groups too.")] = False,
    dataset: DatasetArg = "",
) -> dict[str, Any]:
    """How many findings there are: totals (open, suppressed, outside the inventory), open
    findings by severity, and counts per group (scanner, framework, asset, type, account,
    provider)."""
    ds = dataset_of(ctx, dataset)
    return {"dataset": ds.name, **estate.findings_summary(
        ds, group_by=group_by, include_suppressed=include_suppressed)}


_SUMMARY = obj({"dataset": STR, "group_by": STR, "include_suppressed": BOOL, "total": INT,
                "open": INT, "suppressed": INT, "not_in_inventory": INT,
                "by_severity": int_map(),
                "groups": arr(obj({"key": STR, "count": INT}))})


def top_risks(
    ctx: ToolContext, dataset: DatasetArg = "", limit: LimitArg = 20, cursor: CursorArg = None
) -> dict[str, Any]:
    """Which assets to fix first: assets with open findings ranked by a score combining the
    worst finding's risk, internet exposure (within two hops), blast radius (dependents)
    and the number of findings, with each factor shown."""
    ds = dataset_of(ctx, dataset)
    version = ds.version
    return page(ds, version, estate.top_risks(ds, progress=progress_of(ctx)), {}, limit, cursor)


_RISK = obj({"rank": INT, "id": STR, "name": NSTR, "type": STR, "provider": STR,
             "account_id": NSTR, "score": NUM, "max_risk": NUM, "exposure_factor": NUM,
             "blast_factor": NUM, "volume_factor": NUM, "open_findings": INT,
             "max_severity": NSTR, "internet_exposed": BOOL,
             "exposed_by_findings": arr(STR), "dependents": INT,
             "top_finding_id": STR, "top_finding_title": NSTR, "uri": STR})


def suppress_findings(
    ctx: ToolContext,
    ids: IdsArg,
    reason: Annotated[str | None, Field(
        max_length=500, description="Why (accepted risk, false positive ...); kept with "
                                    "the finding.")] = None,
    dataset: DatasetArg = "",
) -> dict[str, Any]:
    """Suppress findings (accepted risk, false positive): they drop out of lists, summaries
    and risk scores unless asked for. Reports which changed, which already were, and which
    ids are unknown; the dataset version goes up."""
    ds = dataset_of(ctx, dataset)
    return {"dataset": ds.name, **ds.suppress_findings(ids, reason)}


def unsuppress_findings(ctx: ToolContext, ids: IdsArg, dataset: DatasetArg = ""
                        ) -> dict[str, Any]:
    """Undo suppression: the findings count again in lists, summaries and risk scores.
    Reports which changed, which were not suppressed, and which ids are unknown."""
    ds = dataset_of(ctx, dataset)
    return {"dataset": ds.name, **ds.unsuppress_findings(ids)}


def _mutation_schema(key: str) -> dict[str, Any]:
    return obj({"dataset": STR, key: arr(STR), "already": arr(STR), "unknown": arr(STR),
                "version": INT})


def register(registry: Registry) -> None:
    f = {"category": "findings"}
    registry.tool(list_findings, title="List findings",
                  output_schema=page_schema(_FINDING_ROW, delta=True),
                  inline=inline_when_cached(list_findings), **f)
    registry.tool(get_finding, title="Get a finding", output_schema=_FINDING, **f)
    registry.tool(findings_summary, title="Findings summary", output_schema=_SUMMARY, **f)
    registry.tool(top_risks, title="Top risks", output_schema=page_schema(_RISK), lane="heavy",
                  **f)
    registry.tool(suppress_findings, title="Suppress findings",
                  capabilities={Capability.WRITE_STATE},
                  output_schema=_mutation_schema("suppressed"),
                  annotations={"destructive": False, "idempotent": True}, **f)
    registry.tool(unsuppress_findings, title="Unsuppress findings",
                  capabilities={Capability.WRITE_STATE},
                  output_schema=_mutation_schema("unsuppressed"),
                  annotations={"destructive": False, "idempotent": True}, **f)
