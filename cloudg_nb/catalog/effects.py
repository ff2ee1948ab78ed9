"""What each tool does to the workspace and the files (its effects), and what one call will do.

``EFFECTS`` is the table (docs/DESIGN-governance.md shows it; a test holds the two and the
catalog together). ``plan_call`` works out, before a call runs, its concrete effects on the
current workspace — which datasets it adds, replaces, unloads or suppresses findings in, whose
they are and how big, which paths it reads or writes — and the arguments as the analyst should
read them. The approval gate shows that plan, asks the analyst when an item touches another
principal's data, and the workspace refuses any such change the plan did not name. A call
whose effect cannot be shown in full is refused (``EffectNotShowable``), never cut.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from ..acting import Change, owner_label
from ..estate.formats.tabular import TABLES
from ..layer.errors import AccessDeniedError, MCPLayerError
from ..workspace import Workspace

__all__ = ["EFFECTS", "Effect", "EffectItem", "EffectNotShowable", "EffectPlan",
           "MAX_SHOWN_FINDINGS", "ToolEffects", "plan_call", "plans_effects"]

#: Findings one suppression call may name and still be shown in full for approval.
MAX_SHOWN_FINDINGS = 200
#: Characters of one text argument shown in full; longer ones show their start and length.
MAX_SHOWN_TEXT = 1000
#: Items of a list argument shown; longer lists show these and their length.
MAX_SHOWN_ITEMS = 50


class Effect(StrEnum):
    """What a call may do. Those marked (shared) change data another principal may own."""

    READ = "read"  #: reads the workspace
    READ_FILES = "read_files"  #: reads files under the allowed folders
    ADD_DATASET = "add_dataset"  #: adds a dataset of the caller's own
    REPLACE_DATASET = "replace_dataset"  #: (shared) replaces a loaded dataset
    UNLOAD_DATASET = "unload_dataset"  #: (shared) removes a dataset
    EVICT_DATASETS = "evict_datasets"  #: the analyst's own oldest inactive ones, past a cap
    SELECT_DATASET = "select_dataset"  #: changes the caller's own active dataset
    CHANGE_SUPPRESSIONS = "change_suppressions"  #: (shared) suppresses / unsuppresses findings
    WRITE_FILES = "write_files"  #: writes (and may overwrite) files under the output folder
    REVEAL = "reveal"  #: shows the real value behind a pseudonym
    OVERSEE = "oversee"  #: decides approvals, manages credentials (the analyst only)


#: Effects whose target may belong to another principal, and the workspace change each is.
SHARED: dict[Effect, Change] = {
    Effect.REPLACE_DATASET: Change.REPLACE,
    Effect.UNLOAD_DATASET: Change.UNLOAD,
    Effect.CHANGE_SUPPRESSIONS: Change.SUPPRESSIONS,
}


class EffectNotShowable(AccessDeniedError):
    """The call's effect is too large to show the analyst in full, so it is refused."""


@dataclass(frozen=True)
class EffectItem:
    """One concrete effect of one call: what, on which dataset (owned by whom), details."""

    effect: Effect
    dataset: str | None = None
    owner: str | None = None  #: the dataset's owner (None: the analyst side)
    others: bool = False  #: whether it changes data another principal owns
    detail: Mapping[str, Any] = field(default_factory=dict)
    epoch: int | None = None  #: the dataset object's epoch (not shown: it pins the one shown)
    #: Files it overwrites, as (shown path, modification time): pins the very files shown.
    files: tuple[tuple[str, int], ...] = ()

    def view(self) -> dict[str, Any]:
        out: dict[str, Any] = {"effect": str(self.effect)}
        if self.dataset is not None:
            out["dataset"] = self.dataset
            out["owner"] = owner_label(self.owner)
        out["changes_others_data"] = self.others
        out.update(self.detail)
        return out


@dataclass
class EffectPlan:
    """A call's effects on the current workspace, and its arguments as shown for approval."""

    tool: str
    items: list[EffectItem]
    arguments: dict[str, Any]

    @property
    def others(self) -> list[EffectItem]:
        """The items that change data another principal owns."""
        return [item for item in self.items if item.others]

    def permitted(self) -> frozenset[tuple[str, str, int]]:
        """The changes an approval of this plan allows: (change, dataset, epoch) for
        datasets, (overwrite_file, path, modification time) for files."""
        datasets = {(str(SHARED[i.effect]), str(i.dataset), int(i.epoch)) for i in self.others
                    if i.effect in SHARED and i.dataset is not None and i.epoch is not None}
        files = {(str(Change.OVERWRITE), path, stamp) for i in self.others
                 for path, stamp in i.files}
        return frozenset(datasets | files)

    def view(self) -> dict[str, Any]:
        """What the analyst reads: a sentence, every effect, every argument."""
        return {"summary": summary(self), "effects": [i.view() for i in self.items],
                "arguments": self.arguments}


Planner = Callable[[Workspace, dict[str, Any], str], list[EffectItem]]


@dataclass(frozen=True)
class ToolEffects:
    """A tool's possible effects, and (for tools that change things) how to plan one call."""

    effects: frozenset[Effect]
    plan: Planner | None = None


# -- describing datasets and paths -----------------------------------------------------------


def _dataset_detail(ws: Workspace, name: str) -> dict[str, Any]:
    ds = ws.get(name)
    findings = ds.findings
    suppressed = int(findings["is_suppressed"].sum()) if "is_suppressed" in findings else 0
    return {"version": ds.version, "assets": len(ds.assets), "edges": len(ds.edges),
            "findings": len(findings), "suppressed_findings": suppressed,
            "source": ds.source, "analysts_active_dataset": ws.active == name}


def _touch(ws: Workspace, effect: Effect, name: str, caller: str,
           **detail: Any) -> EffectItem:
    """An effect on existing dataset ``name``, marked when another principal owns it."""
    owner = ws.owner_of(name)
    return EffectItem(effect, name, owner, owner != caller,
                      {**_dataset_detail(ws, name), **detail}, ws.get(name).epoch)


def _shown_path(ws: Workspace, path: Path, *, write: bool = False) -> str:
    return ws.shown_path(path, write=write)


def export_files(fmt: str) -> list[str]:
    """The files ``export_dataset`` writes in format ``fmt``."""
    return ["inventory-map.json", "findings.json"] if fmt == "inventory" else \
        [f"{table}.{fmt}" for table in TABLES]


#: Entries of a folder counted for an approval (a larger one shows "at least" this many).
MAX_COUNTED_FILES = 10_000


def _file_detail(path: Path) -> dict[str, Any]:
    if path.is_dir():
        count = 0
        for entry in path.rglob("*"):
            count += entry.is_file()
            if count >= MAX_COUNTED_FILES:
                return {"what": "folder", "files": f"at least {MAX_COUNTED_FILES:,}"}
        return {"what": "folder", "files": count}
    if path.is_file():
        return {"what": "file", "bytes": path.stat().st_size}
    return {"what": "missing"}


def _load_name(ws: Workspace, resolved: Path, name: str | None) -> str:
    return name if name else ws.default_name(resolved)


def _added(ws: Workspace, target: str, caller: str, replace: bool,
           **detail: Any) -> list[EffectItem]:
    """A new dataset ``target`` for ``caller``, or the replacement of the loaded one."""
    if target in ws:
        if not replace:
            return []  # the call fails on the name: it changes nothing
        return [_touch(ws, Effect.REPLACE_DATASET, target, caller,
                       note="its suppressions and version history are replaced", **detail)]
    return [EffectItem(Effect.ADD_DATASET, target, caller, False, detail)]


def _selected(target: str, caller: str, activate: bool) -> list[EffectItem]:
    if not activate:
        return []
    return [EffectItem(Effect.SELECT_DATASET, target, caller, False,
                       {"for": owner_label(caller),
                        "note": "the caller's own active dataset; the analyst's stays"})]


# -- planners ----------------------------------------------------------------------------------


def _plan_load(ws: Workspace, args: dict[str, Any], caller: str) -> list[EffectItem]:
    resolved = ws.resolve_path(args["path"])
    target = _load_name(ws, resolved, args.get("name"))
    read = EffectItem(Effect.READ_FILES, None, None, False,
                      {"path": _shown_path(ws, resolved), **_file_detail(resolved),
                       "kind": args.get("kind", "auto"), "strict": bool(args.get("strict"))})
    return [read, *_added(ws, target, caller, bool(args.get("replace"))),
            *_selected(target, caller, bool(args.get("activate", True)))]


def _plan_sample(ws: Workspace, args: dict[str, Any], caller: str) -> list[EffectItem]:
    sample = args.get("name", "demo")
    target = args.get("dataset_name") or ws.unique_name(str(sample))
    detail = {"sample": sample, **({"n": args["n"]} if args.get("n") is not None else {})}
    return [*_added(ws, target, caller, bool(args.get("replace")), **detail),
            *_selected(target, caller, bool(args.get("activate", True)))]


def _plan_select(ws: Workspace, args: dict[str, Any], caller: str) -> list[EffectItem]:
    name = args.get("name", "")
    return _selected(name, caller, True) if name in ws else []


def _plan_unload(ws: Workspace, args: dict[str, Any], caller: str) -> list[EffectItem]:
    name = args.get("name", "")
    if name not in ws:
        return []
    return [_touch(ws, Effect.UNLOAD_DATASET, name, caller,
                   analysts_active_after=ws.successor(name))]


def _plan_snapshot(ws: Workspace, args: dict[str, Any], caller: str) -> list[EffectItem]:
    source = ws.get(args.get("dataset") or "")
    target = args.get("name") or ws.unique_name(f"{source.name}-snapshot")
    return [EffectItem(Effect.ADD_DATASET, target, caller, False,
                       {"copy_of": source.name, "assets": len(source.assets)})]


def _plan_export(ws: Workspace, args: dict[str, Any], caller: str) -> list[EffectItem]:
    ds = ws.get(args.get("dataset") or "")
    fmt = args.get("format", "inventory")
    folder = ws.resolve_path(args.get("folder") or ds.name, write=True)
    names = export_files(fmt)
    existing = [n for n in names if (folder / n).exists()]
    stamps = tuple((_shown_path(ws, folder / n, write=True), (folder / n).stat().st_mtime_ns)
                   for n in existing)
    return [EffectItem(Effect.WRITE_FILES, ds.name, ws.owner_of(ds.name), bool(existing),
                       {"folder": _shown_path(ws, folder, write=True), "files": names,
                        "overwrites": existing}, files=stamps)]


def _plan_suppressions(action: str) -> Planner:
    """The planner of ``suppress`` or ``unsuppress``: the dataset and every finding named,
    with its severity, title and asset."""

    def plan(ws: Workspace, args: dict[str, Any], caller: str) -> list[EffectItem]:
        ds = ws.get(args.get("dataset") or "")
        raw = args.get("ids") or []
        ids = [raw] if isinstance(raw, str) else [str(i) for i in dict.fromkeys(raw)]
        if len(ids) > MAX_SHOWN_FINDINGS:
            raise EffectNotShowable(
                f"This call names {len(ids)} findings: more than the {MAX_SHOWN_FINDINGS} an "
                "approval can show one by one, so it was refused. Split it into calls of at "
                f"most {MAX_SHOWN_FINDINGS} finding ids.",
                data={"reason": "effect-too-large", "findings": len(ids),
                      "max_findings": MAX_SHOWN_FINDINGS})
        index = ds.finding_index()
        named, unknown = [], []
        for fid in ids:
            row = index.row_of_id.get(fid)
            if row is None:
                unknown.append(fid)
                continue
            record = ds.record("findings", row)
            asset_row = int(index.asset_row[row])
            asset = ds.record("assets", asset_row).get("name") if asset_row >= 0 else None
            named.append({"id": fid, "severity": record.get("severity"),
                          "title": record.get("title"),
                          "asset": asset or record.get("resource_id"),
                          "suppressed_now": bool(record.get("is_suppressed"))})
        detail: dict[str, Any] = {"action": action, "findings_named": named,
                                  "unknown_ids": unknown}
        if action == "suppress":
            detail["reason"] = args.get("reason")
        return [_touch(ws, Effect.CHANGE_SUPPRESSIONS, ds.name, caller, **detail)]

    return plan


def _plan_reveal(ws: Workspace, args: dict[str, Any], caller: str) -> list[EffectItem]:
    return [EffectItem(Effect.REVEAL, None, None, False, {"pseudonym": args.get("token")})]


_R = ToolEffects(frozenset({Effect.READ}))
_ADDS = frozenset({Effect.ADD_DATASET, Effect.REPLACE_DATASET, Effect.EVICT_DATASETS,
                   Effect.SELECT_DATASET})

#: Every tool of the catalog (and of the oversight catalog) and what it may do.
EFFECTS: dict[str, ToolEffects] = {
    # workspace
    "workspace_status": _R, "list_datasets": _R, "dataset_summary": _R, "diff_datasets": _R,
    "load_dataset": ToolEffects(frozenset({Effect.READ_FILES, *_ADDS}), _plan_load),
    "sample_estate": ToolEffects(_ADDS, _plan_sample),
    "select_dataset": ToolEffects(frozenset({Effect.SELECT_DATASET}), _plan_select),
    "unload_dataset": ToolEffects(frozenset({Effect.UNLOAD_DATASET}), _plan_unload),
    "snapshot_dataset": ToolEffects(frozenset({Effect.ADD_DATASET, Effect.EVICT_DATASETS}),
                                    _plan_snapshot),
    "export_dataset": ToolEffects(frozenset({Effect.WRITE_FILES}), _plan_export),
    # inventory, graph, compliance, meta: reads only
    "find_assets": _R, "get_asset": _R, "count_assets": _R, "list_accounts": _R,
    "list_regions": _R, "list_tags": _R, "list_asset_types": _R,
    "neighbors": _R, "get_edges": _R, "find_paths": _R, "attack_paths": _R,
    "lateral_movement_paths": _R, "internet_exposure": _R, "blast_radius": _R,
    "cross_account_edges": _R, "centrality_top": _R, "subgraph_export": _R, "graph_stats": _R,
    "compliance_summary": _R, "compliance_gaps": _R,
    "list_capabilities": _R, "explain_asset_type": _R, "explain_edge_type": _R,
    # findings
    "list_findings": _R, "get_finding": _R, "findings_summary": _R, "top_risks": _R,
    "suppress_findings": ToolEffects(frozenset({Effect.CHANGE_SUPPRESSIONS}),
                                     _plan_suppressions("suppress")),
    "unsuppress_findings": ToolEffects(frozenset({Effect.CHANGE_SUPPRESSIONS}),
                                       _plan_suppressions("unsuppress")),
    # privacy
    "privacy_status": _R, "preview_transform": _R, "list_detectors": _R,
    "privacy_audit_log": _R,
    "reveal_token": ToolEffects(frozenset({Effect.REVEAL}), _plan_reveal),
    # oversight (the analyst only)
    "decide_approval": ToolEffects(frozenset({Effect.OVERSEE})),
    "list_assistants": ToolEffects(frozenset({Effect.OVERSEE})),
    "revoke_assistant": ToolEffects(frozenset({Effect.OVERSEE})),
}


# -- the plan of one call ----------------------------------------------------------------------


def plans_effects(tool: str) -> bool:
    """Whether calls of ``tool`` (internal name) have effects worth planning (else: reads,
    or a tool of another registry, whose changes to others' data the workspace refuses)."""
    entry = EFFECTS.get(tool)
    return entry is not None and entry.plan is not None


def plan_call(ws: Workspace, tool: str, arguments: dict[str, Any], caller: str,
              ) -> EffectPlan:
    """The effects of calling ``tool`` (internal name) with validated ``arguments`` as
    ``caller`` (a principal id), on the workspace as it is now. A tool without a planner
    (reads, and tools from other registries) plans no item: the workspace refuses any change
    of another principal's data it tries. Errors the call itself would raise (an unknown
    dataset, a path outside the roots) come back as an empty plan; the call then fails the
    same way when it runs. ``EffectNotShowable`` is raised, not swallowed."""
    entry = EFFECTS.get(tool)
    items: list[EffectItem] = []
    if entry is not None and entry.plan is not None:
        try:
            items = entry.plan(ws, arguments, caller)
        except EffectNotShowable:
            raise
        except (MCPLayerError, KeyError, ValueError, OSError):
            items = []
    return EffectPlan(tool, items, shown_arguments(ws, tool, arguments))


def shown_arguments(ws: Workspace, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Every argument (defaults included), long values summarised, never a key dropped;
    a ``path`` as the file it resolves to, relative to its root."""
    out: dict[str, Any] = {}
    for key, value in arguments.items():
        if key == "path" and isinstance(value, str):
            try:
                out[key] = _shown_path(ws, ws.resolve_path(value))
                continue
            except MCPLayerError:
                pass
        out[key] = _summarised(value, depth=0)
    return out


def _summarised(value: Any, depth: int) -> Any:
    if isinstance(value, str):
        if len(value) <= MAX_SHOWN_TEXT:
            return value
        return f"{value[:MAX_SHOWN_TEXT]}… ({len(value):,} characters in all)"
    if isinstance(value, (list, tuple)):
        items = [_summarised(v, depth + 1) for v in value[:MAX_SHOWN_ITEMS]]
        if len(value) > MAX_SHOWN_ITEMS:
            items.append(f"… ({len(value):,} items in all)")
        return items
    if isinstance(value, dict):
        if depth >= 2 or len(value) > MAX_SHOWN_ITEMS:
            return f"(an object with {len(value):,} keys)"
        return {str(k): _summarised(v, depth + 1) for k, v in value.items()}
    return value


def summary(plan: EffectPlan) -> str:
    """One sentence of what the call does, naming whose data it changes."""
    parts = [_sentence(item) for item in plan.items]
    text = "; ".join(p for p in parts if p)
    return f"{plan.tool}: {text}." if text else f"{plan.tool}: reads only."


def _sentence(item: EffectItem) -> str:
    d = item.detail
    whose = f" (the {owner_label(item.owner)}'s" if item.dataset is not None else ""
    size = f"; {d.get('assets', 0):,} assets, {d.get('findings', 0):,} findings" \
        if "findings" in d else ""
    close = ")" if whose else ""
    active = " — the analyst's active dataset" if d.get("analysts_active_dataset") else ""
    e = item.effect
    if e is Effect.READ_FILES:
        return f"reads {d.get('what', 'path')} {d.get('path')}"
    if e is Effect.ADD_DATASET:
        copy = f" as a copy of {d['copy_of']}" if d.get("copy_of") else ""
        return f"adds dataset {item.dataset}{copy}, owned by {owner_label(item.owner)}"
    if e is Effect.REPLACE_DATASET:
        return f"REPLACES dataset {item.dataset}{whose}{size}{close}{active}"
    if e is Effect.UNLOAD_DATASET:
        after = d.get("analysts_active_after")
        then = f"; afterwards the analyst's active dataset is {after}" if active else ""
        return f"UNLOADS dataset {item.dataset}{whose}{size}{close}{active}{then}"
    if e is Effect.SELECT_DATASET:
        return f"makes {item.dataset} the active dataset of {d.get('for')}"
    if e is Effect.CHANGE_SUPPRESSIONS:
        named = d.get("findings_named", [])
        verb = "SUPPRESSES" if d.get("action") == "suppress" else "UNSUPPRESSES"
        return f"{verb} {len(named)} finding(s) in dataset {item.dataset}{whose}{close}"
    if e is Effect.WRITE_FILES:
        over = f", overwriting {', '.join(d['overwrites'])}" if d.get("overwrites") else ""
        return f"writes {', '.join(d.get('files', []))} into {d.get('folder')}{over}"
    if e is Effect.REVEAL:
        return "reveals the real value behind a pseudonym"
    return str(e)
