"""Inventory tools: find, count and describe assets, accounts, regions, tags and types.

Thin wrappers over ``cloudg_nb.estate.inventory``: they resolve the dataset, page list
answers with cursors, and leave enum parsing (case-insensitive, close matches) to the estate.
``get_asset`` runs on the event loop (a point lookup over cached indexes); the rest filter or
group whole tables, so they run in worker threads (find_assets and list_tags in the heavy lane),
except that a small page of a find_assets query already cached is only a slice: it answers on
the loop (``inline_when_cached``).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from .. import estate
from ..estate import AssetType, Provider, Severity, parse_choice
from ..estate.inventory import (
    BRIEF_FIELDS,
    GROUP_KEYS,
    SORT_KEYS,
    AssetGroupKey,
    AssetSortKey,
    BriefField,
)
from ..layer.context import ToolContext
from ..layer.registry import Registry
from .choices import enum_value, enum_values, many_of, one_of, read_by
from .conventions import (
    CursorArg,
    DatasetArg,
    LimitArg,
    RefArg,
    StrList,
    dataset_of,
    filters,
    inline_when_cached,
    page,
    point_lookup,
    query_key,
)
from .schemas import ANY, BOOL, BRIEF, INT, NSTR, OBJ, STR, arr, int_map, obj, page_schema

__all__ = ["register"]

QueryArg = Annotated[str | None, Field(
    max_length=256, description="Text to look for in asset names, ids and ARNs "
                                "(case-insensitive substring).")]
ProviderArg = Annotated[list[Provider] | Provider | None, enum_values(Provider), Field(
    description="Cloud provider(s): AWS, AZURE, GCP, KUBERNETES, or OTHER (providers the "
                "model has no name for, e.g. M365, GitHub; case-insensitive).")]
TypesArg = Annotated[list[AssetType] | AssetType | None, enum_values(AssetType), Field(
    description="Asset type(s), e.g. EC2, S3_BUCKET, IAM_ROLE, RDS_INSTANCE, KMS_KEY "
                "(explain_asset_type lists them; case-insensitive).")]
RegionArg = Annotated[str | None, Field(max_length=64, description="Region, e.g. us-east-1.")]
AccountArg = Annotated[str | None, Field(max_length=128, description="Cloud account id.")]
TagArg = Annotated[StrList, Field(
    description="Tag filter(s): 'key' (has the tag) or 'key=value'; all must hold.")]
ExposedArg = Annotated[bool | None, Field(
    description="Only assets flagged internet-exposed (true) or not (false).")]
HasFindingsArg = Annotated[bool | None, Field(
    description="Only assets with (true) or without (false) open findings.")]
OriginalTypeArg = Annotated[StrList, Field(
    description="The resource type(s) as the source file wrote them (metadata.original_type,"
                " e.g. AwsCloudTrailTrail, Microsoft.Web/sites, Pod; case-insensitive).")]
MinSeverityArg = Annotated[Severity | None, enum_value(Severity, blank_is_none=True), Field(
    description="Only assets whose worst open finding is at least this severity: CRITICAL, "
                "HIGH, MEDIUM, LOW or INFO.")]


#: count_assets groups by a tag's values with ``tag:<key>``.
TagGroupKey = Annotated[str, Field(pattern=r"^tag:", max_length=128)]


def _group_key(value: object, field: str) -> object:
    """A count_assets group: one of GROUP_KEYS, or ``tag:`` and a tag key."""
    if isinstance(value, str) and value.startswith("tag:"):
        return value
    return parse_choice(value, [*GROUP_KEYS, "tag:<key>"], field=field)


def find_assets(
    ctx: ToolContext,
    query: QueryArg = None,
    provider: ProviderArg = None,
    asset_types: TypesArg = None,
    region: RegionArg = None,
    account_id: AccountArg = None,
    tag: TagArg = None,
    internet_exposed: ExposedArg = None,
    has_findings: HasFindingsArg = None,
    min_severity: MinSeverityArg = None,
    original_type: OriginalTypeArg = None,
    sort_by: Annotated[AssetSortKey, one_of(tuple(SORT_KEYS)), Field(
        description="name, id, type, provider, region, account_id, open_findings, "
                    "max_severity or risk (counts and severities sort worst first).")
    ] = "name",
    fields: Annotated[list[BriefField] | BriefField | None, many_of(BRIEF_FIELDS), Field(
        description="Only these brief fields (id is always kept): name, type, provider, "
                    "region, account_id, arn, internet_exposed, open_findings, max_severity, "
                    "uri.")] = None,
    dataset: DatasetArg = "",
    limit: LimitArg = 50,
    cursor: CursorArg = None,
) -> dict[str, Any]:
    """Search the inventory: assets matching every filter given (text, provider, type,
    region, account, tags, internet exposure, findings, minimum severity), as briefs with
    open finding counts, worst severity and a cloudg://assets URI, one page at a time."""
    ds = dataset_of(ctx, dataset)
    version = ds.version
    args = filters(query=query, provider=provider, asset_types=asset_types, region=region,
                   account_id=account_id, tag=tag, internet_exposed=internet_exposed,
                   has_findings=has_findings, min_severity=min_severity,
                   original_type=original_type)
    key = query_key("find_assets", args, sort_by=sort_by)
    frame = ds.cached_query(key, lambda: estate.find_assets(ds, sort_by=sort_by, **args))
    frame = estate.select_fields(frame, fields)
    return page(ds, version, frame, {**args, "sort_by": sort_by, "fields": fields}, limit,
                cursor, ctx=ctx, delta_keys=("id",), rows_key=query_key(key, fields=fields))


async def get_asset(ctx: ToolContext, ref: RefArg, dataset: DatasetArg = ""
                    ) -> dict[str, Any]:
    """Everything about one asset: its record (type, provider, account, region, ARN, tags,
    metadata), internet exposure, its findings (worst first) and its edge counts by type.
    Unknown references return close matches."""
    # On the loop: a point lookup over cached indexes (tens of µs); cold indexes and unknown
    # references go to a worker thread (see point_lookup).
    ds = dataset_of(ctx, dataset)
    out = await point_lookup(ctx, ds, estate.get_asset, ds, ref)
    ctx.link(out["uri"], str(out["name"]), description="The asset as a resource")
    return {"dataset": ds.name, **out}


_ASSET = obj({
    "dataset": STR, "id": STR, "arn": NSTR, "name": STR, "asset_type": STR, "provider": STR,
    "region": NSTR, "account_id": NSTR, "tags": OBJ, "metadata": OBJ,
    "is_internet_exposed": BOOL, "open_findings": INT, "max_severity": NSTR, "uri": STR,
    "category": STR,
    "findings": arr(obj({"id": STR, "severity": STR, "title": STR, "source_tool": NSTR,
                         "is_suppressed": BOOL, "risk_score": {"type": "number"}})),
    "edges": obj({"outgoing": int_map(), "incoming": int_map()})})


def count_assets(
    ctx: ToolContext,
    group_by: Annotated[AssetGroupKey | TagGroupKey, read_by(_group_key), Field(
        description="asset_type, provider, region, account_id, internet_exposed, "
                    "max_severity, original_type (the source file's resource type), or "
                    "tag:<key> (e.g. tag:env).")] = "asset_type",
    query: QueryArg = None,
    provider: ProviderArg = None,
    asset_types: TypesArg = None,
    region: RegionArg = None,
    account_id: AccountArg = None,
    tag: TagArg = None,
    internet_exposed: ExposedArg = None,
    has_findings: HasFindingsArg = None,
    min_severity: MinSeverityArg = None,
    original_type: OriginalTypeArg = None,
    dataset: DatasetArg = "",
) -> dict[str, Any]:
    """Count assets per group (type, provider, region, account, exposure, worst severity or
    a tag's values), optionally only those matching the find_assets filters; largest
    groups first."""
    ds = dataset_of(ctx, dataset)
    frame = estate.count_assets(ds, group_by=group_by, query=query, provider=provider,
                          asset_types=asset_types, region=region, account_id=account_id,
                          tag=tag, internet_exposed=internet_exposed,
                          has_findings=has_findings, min_severity=min_severity,
                          original_type=original_type)
    groups = estate.frame_records(frame)
    return {"dataset": ds.name, "group_by": group_by,
            "total": int(sum(g["count"] for g in groups)), "groups": groups}


_COUNTS = obj({"dataset": STR, "group_by": STR, "total": INT,
               "groups": arr(obj({"group": ANY, "count": INT}))})


def list_accounts(
    ctx: ToolContext, dataset: DatasetArg = "", limit: LimitArg = 50, cursor: CursorArg = None
) -> dict[str, Any]:
    """List the cloud accounts (AWS accounts, Azure subscriptions, GCP projects, Kubernetes
    clusters) with their provider, asset count, internet-exposed assets, open findings, and
    whether the account lies outside the estate (external); one id used by two providers is
    two accounts."""
    ds = dataset_of(ctx, dataset)
    version = ds.version
    return page(ds, version, estate.list_accounts(ds), {}, limit, cursor)


_ACCOUNT = obj({"account_id": STR, "name": NSTR, "provider": NSTR, "assets": INT,
                "internet_exposed": INT, "open_findings": INT, "external": BOOL})


def list_regions(
    ctx: ToolContext, dataset: DatasetArg = "", limit: LimitArg = 50, cursor: CursorArg = None
) -> dict[str, Any]:
    """List the regions assets live in, with provider and asset count, busiest first."""
    ds = dataset_of(ctx, dataset)
    version = ds.version
    return page(ds, version, estate.list_regions(ds), {}, limit, cursor)


def list_tags(
    ctx: ToolContext,
    key: Annotated[str | None, Field(
        max_length=128,
        description="A tag key: list its values and their asset counts instead of the "
                    "keys.")] = None,
    dataset: DatasetArg = "",
    limit: LimitArg = 50,
    cursor: CursorArg = None,
) -> dict[str, Any]:
    """List tag keys with how many assets carry each and how many distinct values it has;
    with key, list that key's values and their asset counts (useful before filtering
    find_assets by tag)."""
    ds = dataset_of(ctx, dataset)
    version = ds.version
    return page(ds, version, estate.list_tags(ds, key), filters(key=key), limit, cursor, key=key)


def list_asset_types(
    ctx: ToolContext, dataset: DatasetArg = "", limit: LimitArg = 50, cursor: CursorArg = None
) -> dict[str, Any]:
    """List the asset types present in a dataset with their count, category (network,
    compute, identity, data, keys ...) and a one-line description, most common first."""
    ds = dataset_of(ctx, dataset)
    version = ds.version
    return page(ds, version, estate.list_asset_types(ds), {}, limit, cursor)


def register(registry: Registry) -> None:
    inv = {"category": "inventory"}
    registry.tool(find_assets, title="Find assets",
                  output_schema=page_schema(obj({**BRIEF["properties"]}, required=["id"]),
                                            delta=True),
                  lane="heavy", inline=inline_when_cached(find_assets), **inv)
    registry.tool(get_asset, title="Get an asset", output_schema=_ASSET, **inv)
    registry.tool(count_assets, title="Count assets by group", output_schema=_COUNTS, **inv)
    registry.tool(list_accounts, title="List cloud accounts",
                  output_schema=page_schema(_ACCOUNT), **inv)
    registry.tool(list_regions, title="List regions",
                  output_schema=page_schema(obj({"region": STR, "provider": STR,
                                                 "assets": INT})), **inv)
    registry.tool(list_tags, title="List tags",
                  output_schema=page_schema(
                      obj({"key": STR, "assets": INT}, required=["key", "assets"]),
                      key=NSTR), lane="heavy", **inv)
    registry.tool(list_asset_types, title="List asset types",
                  output_schema=page_schema(obj({"asset_type": STR, "assets": INT,
                                                 "category": STR, "description": STR})),
                  **inv)
