"""Workspace tools: what is loaded, loading files and sample estates, switching, snapshots,
unloading, exporting, and what changed between two datasets.

Mutations go through ``Workspace`` (which fires the change events: resource updates for
``cloudg://workspace``, ``cloudg://datasets``, the dataset's summary/assets/findings and the
active-dataset resources when it is involved, plus a resources list change when a name
appears or goes). Destructive: ``unload_dataset``, loads that may replace a dataset of the
same name, and ``export_dataset`` (it overwrites its files).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import Field

from ..acting import current as current_acting
from ..acting import owner_label
from ..estate import MAX_LIMIT, Dataset, Phases, diff, write_inventory_map, write_tabular
from ..estate.drift import drift
from ..estate.formats import DatasetKind, dataset_kind
from ..estate.samples import MAX_SCALED
from ..layer.context import ToolContext
from ..layer.enums import Capability, Sensitivity
from ..layer.errors import InvalidArgumentsError
from ..layer.registry import Registry
from ..layer.wire import summary_uri
from ..workspace import Workspace
from .choices import one_of, read_by
from .conventions import DatasetArg, dataset_of, progress_of, workspace_of
from .effects import export_files
from .schemas import BOOL, INT, NSTR, OBJ, STR, arr, int_map, obj, str_map

__all__ = ["register", "EXPORT_FORMATS", "SAMPLE_NAMES"]

#: export_dataset formats: an inventory map, or tables of one file format.
ExportFileFormat = Literal["inventory", "csv", "jsonl", "parquet"]
EXPORT_FORMATS: tuple[ExportFileFormat, ...] = get_args(ExportFileFormat)
#: sample_estate names (``estate.samples.SAMPLES``).
SampleName = Literal["demo", "drifted", "scaled"]
SAMPLE_NAMES: tuple[SampleName, ...] = get_args(SampleName)

NameArg = Annotated[str, Field(
    min_length=1, max_length=64,
    description="A loaded dataset's name (list_datasets shows them).")]
NewNameArg = Annotated[str | None, Field(
    max_length=64,
    description="Name for the new dataset (letters, digits, '_', '.', '-'); default: derived "
                "and made unique.")]


def _line(ws: Workspace, ds: Dataset, active: str | None = None) -> dict[str, Any]:
    """One dataset as lists show it; ``active``: the caller's active dataset name."""
    if active is None:
        active = ws.active_name()
    return {"name": ds.name, "version": ds.version, "active": active == ds.name,
            "owner": owner_label(ws.owner_of(ds.name)), "source": ds.source, "kind": ds.kind,
            "assets": len(ds.assets), "edges": len(ds.edges), "findings": len(ds.findings),
            "summary_uri": summary_uri(ds.name)}


_LINE = obj({"name": STR, "version": INT, "active": BOOL, "owner": STR, "source": NSTR,
             "kind": NSTR, "assets": INT, "edges": INT, "findings": INT, "summary_uri": STR})


def _loaded(ctx: ToolContext, ds: Dataset, replaced: bool, evicted: list[str]
            ) -> dict[str, Any]:
    ws = workspace_of(ctx)
    ctx.link(summary_uri(ds.name), f"{ds.name} summary",
             description="Counts by provider, type and severity of the loaded dataset")
    return {**_line(ws, ds), "compliance_results": len(ds.compliance), "replaced": replaced,
            "datasets": ws.names(), **_evicted(evicted)}


def _evicted(names: list[str]) -> dict[str, Any]:
    """``evicted`` (always) and, when it is not empty, a ``note`` saying what happened."""
    out: dict[str, Any] = {"evicted": list(names)}
    if names:
        out["note"] = (f"The workspace was full (CLOUDG_MCP_MAX_DATASETS / "
                       f"CLOUDG_MCP_MAX_ASSETS), so {len(names)} older dataset(s) were "
                       "unloaded: " + ", ".join(names) + ". Reload them if still needed.")
    return out


_EVICTED = {"evicted": arr(STR), "note": STR}
_LOAD_ISSUE = obj({"index": INT, "field": STR, "reason": STR, "file": STR},
                  required=["index", "field", "reason"])
_REPORT_KEYS = {"file": STR, "records": INT, "loaded_records": INT, "findings": INT,
                "passed_checks": INT, "manual_checks": INT, "duplicates_merged": INT,
                "skipped": INT, "skipped_records": arr(_LOAD_ISSUE), "notes": arr(_LOAD_ISSUE),
                "warnings": arr(STR), "explanation": STR}
#: What a scanner load merged, renamed or kept apart, and what loaded per provider: present
#: when there is something to say (``estate.formats.load_report``).
_LOAD_REPORT = obj({
    **_REPORT_KEYS,
    "merged": arr(obj({"finding_id": STR, "records": arr(INT), "count": INT, "kept": INT})),
    "finding_ids_renamed": INT,
    "renamed": arr(obj({"finding_id": STR, "loaded_as": STR, "records": arr(INT),
                        "count": INT})),
    "assets_kept_apart": INT,
    "kept_apart": arr(obj({"id": STR, "loaded_as": arr(STR), "count": INT})),
    "providers": str_map(obj({"records": INT, "assets": INT, "findings": INT,
                              "as_written": arr(STR)},
                             required=["records", "assets", "findings"])),
}, required=list(_REPORT_KEYS))
_LOADED = obj({**_LINE["properties"], "compliance_results": INT, "replaced": BOOL,
               "datasets": arr(STR), **_EVICTED, "load_report": _LOAD_REPORT},
              required=[*_LINE["properties"], "compliance_results", "replaced", "datasets",
                        "evicted"])


# -- read-only ----------------------------------------------------------------------------


def workspace_status(ctx: ToolContext) -> dict[str, Any]:
    """Show which estate datasets are loaded in the shared workspace and which one is active
    (the one every tool uses when its dataset argument is empty), with their sizes."""
    return workspace_of(ctx).status()


_STATUS = obj({"datasets": arr(STR), "active": NSTR, "max_datasets": INT,
               "loaded": arr(obj({"name": STR, "version": INT, "active": BOOL,
                                  "owner": STR, "source": NSTR, "kind": NSTR, "assets": INT,
                                  "edges": INT, "findings": INT}))})


def list_datasets(ctx: ToolContext) -> dict[str, Any]:
    """List the loaded datasets in load order: name, version (bumped by every change),
    whether it is active, where it came from, and asset/edge/finding counts."""
    ws = workspace_of(ctx)
    active = ws.active_name()
    lines = [_line(ws, ws.get(n), active) for n in ws.names()]
    return {"active": active, "total": len(lines), "datasets": lines}


def dataset_summary(ctx: ToolContext, dataset: DatasetArg = "") -> dict[str, Any]:
    """Orient yourself in a dataset: asset counts by provider and type, accounts, regions,
    open and suppressed findings by severity, internet-exposed assets, edge types and
    compliance frameworks."""
    ds = dataset_of(ctx, dataset)
    return {"dataset": ds.name, **ds.summary(), "uri": summary_uri(ds.name)}


_SUMMARY = obj({"dataset": STR, "name": STR, "version": INT, "source": NSTR, "kind": NSTR,
                "assets": INT, "edges": INT, "findings": INT, "open_findings": INT,
                "suppressed_findings": INT, "orphan_findings": INT,
                "internet_exposed_assets": INT, "providers": int_map(),
                "asset_types": int_map(), "accounts": INT, "regions": arr(STR),
                "findings_by_severity": int_map(), "edge_types": int_map(),
                "compliance_frameworks": arr(STR), "uri": STR})


def diff_datasets(
    ctx: ToolContext,
    base: Annotated[str, Field(
        max_length=64,
        description="The earlier dataset (e.g. last week's snapshot). Empty: the latest "
                    "snapshot of target (snapshot_dataset), i.e. what changed since that "
                    "review.")] = "",
    target: DatasetArg = "",
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT,
                                description="At most this many entries per list; the summary "
                                            "counts everything.")] = 100,
) -> dict[str, Any]:
    """What got worse and what improved from base to target (empty = active), in a
    sentence first: protections lost (a WAF or security group removed), attack paths to crown
    jewels opened or closed, assets newly exposed to the internet, findings opened or
    closed. Then every change: assets added, removed and changed (field by field), edges,
    findings new, resolved, with a changed severity or suppression."""
    ws = workspace_of(ctx)
    t = dataset_of(ctx, target)
    b = ws.get(base) if base else _latest_snapshot(ws, t.name)
    if b is t:
        raise InvalidArgumentsError(
            f"base and target are the same dataset ({t.name!r}), so nothing can differ: name "
            "an earlier one as base, e.g. a snapshot taken before the change "
            "(snapshot_dataset).", data={"field": "base", "dataset": t.name})
    ph = Phases(progress_of(ctx))
    result = diff(b, t, progress=ph.sub(0, 55))
    ph.step(60, "walking attack paths to crown jewels")
    report = drift(b, t, result)
    ph.done()
    truncated = False

    def cap(items: list[Any]) -> list[Any]:
        nonlocal truncated
        if len(items) > limit:
            truncated = True
            return items[:limit]
        return items

    for group in ("assets", "edges", "findings"):
        result[group] = {k: cap(v) for k, v in result[group].items()}
    for key in ("newly_internet_exposed", "no_longer_internet_exposed"):
        result[key] = cap(result[key])
    result["summary"] |= report["counts"]
    return {"headline": report["summary"],
            "since_snapshot": not base,
            "worse": {k: cap(v) for k, v in report["worse"].items()},
            "better": {k: cap(v) for k, v in report["better"].items()},
            **result, "truncated": truncated}


def _latest_snapshot(ws: Workspace, name: str) -> Dataset:
    """The most recent snapshot of dataset ``name`` that the caller took (the baseline of
    "since my last review"), else an error saying how to take one. Only the caller's own
    count: a snapshot another principal took later must not become the caller's baseline
    (an assistant could otherwise hide what got worse behind a fresh one)."""
    acting = current_acting()
    mine = acting.owner if acting is not None else None
    snapshots = [n for n in reversed(ws.names())
                 if getattr(ws.datasets.get(n), "snapshot_of", None) == name]
    own = [n for n in snapshots if ws.owner_of(n) == mine]
    if own:
        return ws.get(own[0])
    others = {n: owner_label(ws.owner_of(n)) for n in snapshots}
    raise InvalidArgumentsError(
        f"No snapshot of {name!r} of yours to compare with: take one when you review it "
        f"(snapshot_dataset dataset={name}) and diff against it later, or name base"
        + (" (snapshots others took are in the error data)." if others else "."),
        data={"field": "base", "dataset": name, "others_snapshots": others})


_DIFF_ASSET = obj({"id": STR, "name": NSTR, "type": STR, "account_id": NSTR, "arn": NSTR})
_DIFF_EDGE = obj({"id": STR, "source_id": STR, "target_id": STR, "edge_type": STR})
_DIFF_FINDING = obj({"id": STR, "severity": STR, "title": NSTR, "resource_id": NSTR})
_DIFF_ASSET_BRIEF = obj({"id": STR, "name": NSTR, "type": STR})
_DIFF_PATH = obj({"crown_jewel": _DIFF_ASSET_BRIEF, "entry": _DIFF_ASSET_BRIEF,
                  "path": arr(STR), "hops": INT, "why": STR})
_DIFF_PROTECTION = obj({"protector": _DIFF_ASSET_BRIEF, "protected": _DIFF_ASSET_BRIEF,
                        "edge_type": STR, "how": STR, "text": STR})
_DIFF_EXPOSURE = obj({"asset": _DIFF_ASSET_BRIEF, "changes": arr(STR)})
_DIFF_SEVERITY = obj({"id": STR, "title": NSTR, "from": STR, "to": STR})
_DIFF = obj({
    "headline": STR, "since_snapshot": BOOL,
    "worse": obj({"lost_protections": arr(_DIFF_PROTECTION),
                  "attack_paths_opened": arr(_DIFF_PATH),
                  "newly_internet_exposed": arr(_DIFF_ASSET),
                  "exposure_weakened": arr(_DIFF_EXPOSURE),
                  "findings_opened": arr(_DIFF_FINDING),
                  "severity_raised": arr(_DIFF_SEVERITY)}),
    "better": obj({"protections_gained": arr(_DIFF_PROTECTION),
                   "attack_paths_closed": arr(_DIFF_PATH),
                   "no_longer_internet_exposed": arr(_DIFF_ASSET),
                   "exposure_strengthened": arr(_DIFF_EXPOSURE),
                   "findings_closed": arr(_DIFF_FINDING),
                   "severity_lowered": arr(_DIFF_SEVERITY)}),
    "base": obj({"name": STR, "version": INT}), "target": obj({"name": STR, "version": INT}),
    "assets": obj({"added": arr(_DIFF_ASSET), "removed": arr(_DIFF_ASSET),
                   "changed": arr(obj({"id": STR, "name": STR, "changes": OBJ}))}),
    "edges": obj({"added": arr(_DIFF_EDGE), "removed": arr(_DIFF_EDGE)}),
    "findings": obj({"new": arr(_DIFF_FINDING), "resolved": arr(_DIFF_FINDING),
                     "severity_changed": arr(_DIFF_SEVERITY)}),
    "newly_internet_exposed": arr(_DIFF_ASSET), "no_longer_internet_exposed": arr(_DIFF_ASSET),
    "summary": int_map(), "truncated": BOOL})


# -- mutations ----------------------------------------------------------------------------


def load_dataset(
    ctx: ToolContext,
    path: Annotated[str, Field(
        min_length=1, max_length=4096,
        description="File or folder under an allowed root: an inventory-map.json (a "
                    "findings.json beside it is read too), a folder of assets/edges/findings "
                    "tables (CSV, JSON lines or Parquet), or Prowler output (JSON-OCSF, its "
                    "default semicolon CSV, a compliance CSV, its output folder with the "
                    "compliance/ CSVs, JSON-ASFF or native -M json), Security Hub "
                    "get-findings output, or an AWS inventory (AWS Config items, EC2 describe-* "
                    "outputs; a file or a folder). Relative "
                    "paths start at the first allowed root.")],
    name: NewNameArg = None,
    kind: Annotated[DatasetKind, read_by(lambda value, _field: dataset_kind(value)), Field(
        description="File format: auto (detect), inventory, tabular, prowler, "
                    "prowler-compliance, asff (JSON-ASFF / Security Hub get-findings), "
                    "prowler-json (Prowler 2/3 -M json), aws-config (AWS Config items) or "
                    "aws-describe (EC2 describe-* outputs).")] = "auto",
    activate: Annotated[bool, Field(description="Make it the active dataset.")] = True,
    replace: Annotated[bool, Field(
        description="Replace a loaded dataset of the same name (else that is an error).")
    ] = False,
    strict: Annotated[bool, Field(
        description="Fail on the first invalid record instead of skipping it (skipped "
                    "records are listed in load_report).")] = False,
) -> dict[str, Any]:
    """Load an estate file or folder as a named dataset in the shared workspace, so every
    tool can query it. A file that cannot be read is an error naming the file and the
    problem, and leaves the workspace exactly as it was. Scanner output is checked record by
    record: invalid records are skipped and reported (load_report: index, field, reason;
    also logged as a warning) unless strict; load_report explains the counts."""
    ws = workspace_of(ctx)
    replaced = bool(name) and name in ws
    with ws.evictions() as evicted:
        ds = ws.load(path, name=name, kind=kind, activate=activate, replace=replace,
                     progress=progress_of(ctx), strict=strict)
    out = _loaded(ctx, ds, replaced, evicted)
    report = ds.load_report
    if report:
        out["load_report"] = report
        warning = _report_warning(report)
        if warning:
            ctx.log_sync("warning", {"message": warning, "dataset": ds.name,
                                     "skipped_records": report["skipped_records"]})
    return out


def _report_warning(report: dict[str, Any]) -> str | None:
    """One warning sentence for skipped records, notes and warnings of a load report."""
    parts = []
    if report["skipped"]:
        first = ", ".join(f"#{s['index']} ({s['field']}: {s['reason']})"
                          for s in report["skipped_records"][:3])
        parts.append(f"{report['skipped']} of {report['records']} records of "
                     f"{report['file']} were skipped: {first}"
                     + (" ..." if report["skipped"] > 3 else ""))
    if report["notes"]:
        parts.append(f"{len(report['notes'])} record(s) loaded with a value not read as "
                     "written (see load_report.notes)")
    parts.extend(report["warnings"])
    return "; ".join(parts) or None


def sample_estate(
    ctx: ToolContext,
    name: Annotated[SampleName, one_of(SAMPLE_NAMES, fold=True), Field(
        description="Which sample estate: demo (60 assets across AWS, Azure and GCP that tell "
                    "an attack story), drifted (demo a week later) or scaled (generated, n "
                    "assets).")] = "demo",
    n: Annotated[int | None, Field(
        ge=10, le=MAX_SCALED,
        description=f"Assets of a scaled estate (10-{MAX_SCALED:,}; default 10,000).")] = None,
    seed: Annotated[int, Field(ge=0, description="Random seed of a scaled estate.")] = 7,
    dataset_name: NewNameArg = None,
    activate: Annotated[bool, Field(description="Make it the active dataset.")] = True,
    replace: Annotated[bool, Field(
        description="Replace a loaded dataset named dataset_name.")] = False,
) -> dict[str, Any]:
    """Load a built-in sample estate (no files or cloud access needed) to explore the tools:
    the demo estate has an internet-facing load balancer in front of web hosts whose role
    reads a PII database, a shared KMS key, an external trust and an SSH rule open to all."""
    ws = workspace_of(ctx)
    ph = Phases(progress_of(ctx))
    ph.step(0, "generating the sample estate")
    replaced = bool(dataset_name) and dataset_name in ws
    with ws.evictions() as evicted:
        ds = ws.load_sample(name, n=n, seed=seed, name=dataset_name, activate=activate,
                            replace=replace)
    ph.step(70, "indexing")
    ds.index  # noqa: B018  (build reference lookups now, so the first query is quick)
    ph.done(f"loaded {len(ds.assets)} assets")
    return _loaded(ctx, ds, replaced, evicted)


def select_dataset(ctx: ToolContext, name: NameArg) -> dict[str, Any]:
    """Make a loaded dataset the active one: tools called with an empty dataset argument
    (and the cloudg://findings/summary and cloudg://compliance resources) then use it."""
    ws = workspace_of(ctx)
    ds = ws.select(name)
    return {"active": ds.name, "version": ds.version, "datasets": ws.names()}


_SELECTED = obj({"active": STR, "version": INT, "datasets": arr(STR)})


def unload_dataset(ctx: ToolContext, name: NameArg) -> dict[str, Any]:
    """Remove a dataset from the workspace (its data is gone unless saved or snapshotted);
    if it was active, the most recently loaded remaining dataset becomes active."""
    ws = workspace_of(ctx)
    ds = ws.remove(name)
    return {"unloaded": ds.name, "active": ws.active_name(), "datasets": ws.names()}


_UNLOADED = obj({"unloaded": STR, "active": NSTR, "datasets": arr(STR)})


def snapshot_dataset(
    ctx: ToolContext, dataset: DatasetArg = "", name: NewNameArg = None
) -> dict[str, Any]:
    """Copy a dataset under a new name (default '<name>-snapshot') without activating it,
    to keep a baseline before changes (suppressions, reloads) and diff against it later."""
    ws = workspace_of(ctx)
    src = dataset_of(ctx, dataset)
    with ws.evictions() as evicted:
        copy = ws.snapshot(src.name, name)
    return {"snapshot": copy.name, "source_dataset": src.name, "version": copy.version,
            "active": ws.active_name(), "datasets": ws.names(), **_evicted(evicted)}


_SNAPSHOT = obj({"snapshot": STR, "source_dataset": STR, "version": INT, "active": NSTR,
                 "datasets": arr(STR), **_EVICTED},
                required=["snapshot", "source_dataset", "version", "active", "datasets",
                          "evicted"])


def export_dataset(
    ctx: ToolContext,
    dataset: DatasetArg = "",
    folder: Annotated[str | None, Field(
        max_length=1024,
        description="Folder under the output root to write into (default: the dataset "
                    "name).")] = None,
    format: Annotated[ExportFileFormat, one_of(EXPORT_FORMATS, fold=True), Field(
        description="inventory (inventory-map.json + findings.json), csv, jsonl or "
                    "parquet.")] = "inventory",
) -> dict[str, Any]:
    """Save a dataset (with its suppressions) as files under the server's output folder, in
    a format load_dataset reads back: an inventory map or tables (CSV, JSON lines, Parquet)."""
    fmt = format
    ws = workspace_of(ctx)
    ds = dataset_of(ctx, dataset)
    target = ws.resolve_path(folder or ds.name, write=True)
    ws.guard_overwrite([target / name for name in export_files(fmt)])
    paths = write_inventory_map(ds, target) if fmt == "inventory" else \
        write_tabular(ds, target, fmt)
    root = ws.output_root
    return {"dataset": ds.name, "version": ds.version, "format": fmt,
            "folder": str(target.relative_to(root)) if target != root else ".",
            "files": sorted(p.name for p in paths)}


_EXPORTED = obj({"dataset": STR, "version": INT, "format": STR, "folder": STR,
                 "files": arr(STR)})


#: Loading may replace a dataset of the same name (``replace=true``), dropping its
#: suppressions; each load makes a new version.
_REPLACES = {"destructive": True, "idempotent": False}


def register(registry: Registry) -> None:
    read = {"category": "workspace"}
    write = {"category": "workspace", "capabilities": {Capability.WRITE_STATE}}
    registry.tool(workspace_status, title="Workspace status", sensitivity=Sensitivity.INTERNAL,
                  output_schema=_STATUS, **read)
    registry.tool(list_datasets, title="List loaded datasets", sensitivity=Sensitivity.INTERNAL,
                  output_schema=obj({"active": NSTR, "total": INT, "datasets": arr(_LINE)}),
                  **read)
    registry.tool(dataset_summary, title="Dataset summary", output_schema=_SUMMARY,
                  lane="heavy", **read)
    registry.tool(diff_datasets, title="Diff two datasets", output_schema=_DIFF, lane="heavy",
                  **read)
    registry.tool(load_dataset, title="Load an estate dataset", sensitivity=Sensitivity.INTERNAL,
                  output_schema=_LOADED, category="workspace",
                  capabilities={Capability.READ_FS, Capability.WRITE_STATE},
                  annotations=_REPLACES)
    registry.tool(sample_estate, title="Load a sample estate", sensitivity=Sensitivity.INTERNAL,
                  output_schema=_LOADED, lane="heavy", annotations=_REPLACES, **write)
    registry.tool(select_dataset, title="Select the active dataset",
                  sensitivity=Sensitivity.INTERNAL, output_schema=_SELECTED,
                  annotations={"destructive": False, "idempotent": True}, **write)
    registry.tool(unload_dataset, title="Unload a dataset", sensitivity=Sensitivity.INTERNAL,
                  output_schema=_UNLOADED,
                  annotations={"destructive": True, "idempotent": True}, **write)
    registry.tool(snapshot_dataset, title="Snapshot a dataset",
                  sensitivity=Sensitivity.INTERNAL, output_schema=_SNAPSHOT, lane="heavy",
                  annotations={"destructive": False, "idempotent": False}, **write)
    registry.tool(export_dataset, title="Export a dataset to files", output_schema=_EXPORTED,
                  category="workspace",
                  capabilities={Capability.READ_STATE, Capability.WRITE_FS},
                  # Writes the same files again for the same arguments, over what was there.
                  annotations={"destructive": True, "idempotent": True})

