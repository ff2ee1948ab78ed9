"""Prompts: ready-made analyst tasks that gather the facts with the estate queries and ask
the assistant to reason over them (posture review, asset investigation, blast radius,
incident triage, drift review).

Each returns one user message: the task, the facts as a JSON block, and which tools to call
next. With no dataset loaded, a prompt returns a "load data first" message instead.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pandas as pd

from .. import estate
from ..estate.drift import drift
from ..estate.finding_exposure import relationship_note
from ..layer.context import ToolContext
from ..layer.jsonable import to_jsonable
from ..layer.registry import Registry
from ..layer.specs import PromptArgument
from .completions import (
    complete_dataset,
    complete_finding_id,
    complete_framework,
    complete_ref,
    complete_severity,
)
from .conventions import workspace_of

__all__ = ["register", "LOAD_FIRST"]

LOAD_FIRST = (
    "No estate data is loaded yet, so there is nothing to review. Load data first: call the "
    "load_dataset tool with an estate file (an inventory-map.json, a folder of CSV / JSON "
    "lines / Parquet tables, or Prowler JSON-OCSF output), or sample_estate to explore the "
    "built-in demo estate. Then ask again."
)
_TOP = 10


def _facts(title: str, facts: dict[str, Any], ask: str) -> str:
    block = json.dumps(to_jsonable(facts), indent=1, ensure_ascii=False, default=str)
    return f"{title}\n\nFacts from the cloudg tools:\n```json\n{block}\n```\n\n{ask}"


def _loaded(ctx: ToolContext) -> bool:
    return workspace_of(ctx).active_name() is not None


def _records(frame: pd.DataFrame, columns: list[str], n: int = _TOP) -> list[dict[str, Any]]:
    return estate.frame_records(frame[columns].head(n))


def _graph_note(ds: estate.Dataset) -> dict[str, str]:
    """``{"graph_note": ...}`` when the dataset has no relationship data (the paths and
    dependents above are then empty or end at an exposure derived from a finding)."""
    note = relationship_note(ds.edges)
    return {"graph_note": note} if note else {}


def _derived_column(items: pd.DataFrame) -> list[str]:
    """``["derived_from"]`` when some exposure was derived from a finding, else nothing."""
    if "derived_from" in items.columns and items["derived_from"].map(bool).any():
        return ["derived_from"]
    return []


def security_posture_review(
    ctx: ToolContext, dataset: str = "", framework: str = "", min_severity: str = "HIGH"
) -> str:
    """Review the security posture of a dataset: findings, internet exposure, top risks and
    compliance, then a prioritised remediation plan."""
    if not _loaded(ctx):
        return LOAD_FIRST
    ds = workspace_of(ctx).get(dataset)
    summary = ds.summary()
    exposure = estate.internet_exposure(ds)
    severe = estate.list_findings(ds, min_severity=min_severity or "HIGH")
    facts = {
        "dataset": ds.name, "assets": summary["assets"], "providers": summary["providers"],
        "accounts": summary["accounts"],
        "open_findings_by_severity": summary["findings_by_severity"],
        "severe_findings": _records(severe, ["id", "severity", "title", "resource_name",
                                             "source_tool"]),
        "internet_entry_points": _records(exposure.items, [
            "name", "type", "open_ports", "sensitive_ports", "waf_protected",
            *_derived_column(exposure.items)]),
        "top_risks": _records(estate.top_risks(ds), ["rank", "name", "type", "score",
                                                     "top_finding_title"]),
        "compliance": estate.frame_records(estate.compliance_summary(ds, framework or None)),
        **_graph_note(ds),
    }
    return _facts(
        f"Review the security posture of the cloud estate '{ds.name}'.", facts,
        "Summarise the posture in a few sentences, then list the five most important problems "
        "with why they matter (exposure, blast radius, data at risk) and a concrete fix for "
        "each. Use attack_paths, blast_radius and get_finding to check a claim before making "
        "it, and compliance_gaps for the failing controls.")


def investigate_asset(ctx: ToolContext, ref: str, dataset: str = "") -> str:
    """Investigate one asset: what it is, its findings, what it connects to, how the
    internet reaches it and what depends on it."""
    if not _loaded(ctx):
        return LOAD_FIRST
    ds = workspace_of(ctx).get(dataset)
    asset = estate.get_asset(ds, ref)
    near = estate.neighbors(ds, asset["id"], depth=1)
    blast = estate.blast_radius(ds, asset["id"])
    attack = estate.attack_paths(ds, asset["id"], max_paths=3)
    facts = {
        "asset": {k: asset[k] for k in ("id", "name", "asset_type", "provider", "account_id",
                                        "region", "is_internet_exposed", "tags")},
        "findings": asset["findings"],
        "neighbours": _records(near.items, ["name", "type", "edge_type", "edge_direction"], 25),
        "dependents": {k: blast.summary[k] for k in ("total", "by_depth",
                                                      "accounts_affected")},
        "attack_paths_from_internet": [[n["name"] for n in p["nodes"]]
                                       for p in attack["paths"]],
        **_graph_note(ds),
    }
    return _facts(
        f"Investigate the asset '{asset['name']}' in the estate '{ds.name}'.", facts,
        "Explain what this asset is for, how exposed it is and how bad its findings are in "
        "context. Say whether an attacker can reach it and what breaks if it is compromised, "
        "and recommend what to do first. Call neighbors, find_paths or get_finding for more.")


def blast_radius_assessment(ctx: ToolContext, ref: str, dataset: str = "") -> str:
    """Assess what breaks if an asset (a key, a role, a network) is deleted or compromised."""
    if not _loaded(ctx):
        return LOAD_FIRST
    ds = workspace_of(ctx).get(dataset)
    asset = estate.get_asset(ds, ref)
    blast = estate.blast_radius(ds, asset["id"])
    facts = {
        "asset": {k: asset[k] for k in ("id", "name", "asset_type", "account_id")},
        **{k: blast.summary[k] for k in ("total", "by_depth", "accounts_affected",
                                         "providers_affected")},
        "dependents": _records(blast.items, ["depth", "name", "type", "account_id",
                                             "edge_type"], 40),
    }
    return _facts(
        f"Assess the blast radius of '{asset['name']}' in the estate '{ds.name}'.", facts,
        "Explain which services fail, and in what order, if this asset is deleted, disabled "
        "or compromised; point out dependents that hold sensitive data or sit in other "
        "accounts; and suggest how to reduce the dependency (separate keys, roles or "
        "networks). Use blast_radius with a cursor for the full list.")


def incident_triage(ctx: ToolContext, finding_id: str, dataset: str = "") -> str:
    """Triage one finding: how severe it really is given exposure and blast radius, and the
    first response steps."""
    if not _loaded(ctx):
        return LOAD_FIRST
    ds = workspace_of(ctx).get(dataset)
    finding = estate.get_finding(ds, finding_id)
    facts: dict[str, Any] = {"finding": {k: finding[k] for k in (
        "id", "severity", "title", "description", "remediation", "source_tool", "cvss_score",
        "risk_score", "in_inventory", "controls")}}
    asset = finding.get("asset")
    if asset:
        attack = estate.attack_paths(ds, asset["id"], max_paths=3)
        blast = estate.blast_radius(ds, asset["id"])
        facts["asset"] = asset
        facts["attack_paths_from_internet"] = [[n["name"] for n in p["nodes"]]
                                               for p in attack["paths"]]
        facts["dependents"] = blast.summary["total"]
        facts.update(_graph_note(ds))
    else:
        facts["asset"] = "not in the inventory (the scanner saw a resource the estate lacks)"
    return _facts(
        f"Triage the security finding {finding['id']} in the estate '{ds.name}'.", facts,
        "Decide how urgent this is in context (reachability from the internet, what depends "
        "on the asset, data at risk), say whether it could be a false positive, and give the "
        "first three response steps. If it is accepted risk, suppress_findings records that.")


def drift_review(ctx: ToolContext, base: str, target: str = "") -> str:
    """Review what changed between two datasets (e.g. last week's snapshot and today)."""
    if not _loaded(ctx):
        return LOAD_FIRST
    ws = workspace_of(ctx)
    b, t = ws.get(base), ws.get(target)
    d = estate.diff(b, t)
    report = drift(b, t, d)
    cap = 25
    facts = {
        "base": d["base"], "target": d["target"], "headline": report["summary"],
        "worse": {k: v[:cap] for k, v in report["worse"].items()},
        "better": {k: v[:cap] for k, v in report["better"].items()},
        "summary": d["summary"] | report["counts"],
        "assets_added": d["assets"]["added"][:cap], "assets_removed": d["assets"]["removed"][:cap],
        "assets_changed": d["assets"]["changed"][:cap],
        "edges_removed": d["edges"]["removed"][:cap], "edges_added": d["edges"]["added"][:cap],
        "findings_new": d["findings"]["new"][:cap],
        "findings_resolved": d["findings"]["resolved"][:cap],
        "severity_changed": d["findings"]["severity_changed"][:cap],
        "newly_internet_exposed": d["newly_internet_exposed"][:cap],
    }
    return _facts(
        f"Review the drift from '{b.name}' to '{t.name}'.", facts,
        "Start from what got worse (lost protections such as WAFs, attack paths to crown "
        "jewels that opened, new exposure, new findings), then what improved; say whether any "
        "looks unintended and what to verify first. Use diff_datasets for the full lists.")


def register(registry: Registry) -> None:
    ds_arg = PromptArgument("dataset", "Dataset to use (empty: the active one)",
                            completion=complete_dataset)
    prompts: list[tuple[Callable[..., str], str, list[PromptArgument]]] = [
        (security_posture_review, "Security posture review", [
            ds_arg,
            PromptArgument("framework", "Compliance framework to focus on (empty: all)",
                           completion=complete_framework),
            PromptArgument("min_severity", "Least severity of the findings listed (HIGH)",
                           completion=complete_severity)]),
        (investigate_asset, "Investigate an asset", [
            PromptArgument("ref", "The asset (id, ARN or name)", required=True,
                           completion=complete_ref), ds_arg]),
        (blast_radius_assessment, "Blast radius assessment", [
            PromptArgument("ref", "The asset whose loss to assess (id, ARN or name)",
                           required=True, completion=complete_ref), ds_arg]),
        (incident_triage, "Incident triage", [
            PromptArgument("finding_id", "The finding to triage", required=True,
                           completion=complete_finding_id), ds_arg]),
        (drift_review, "Drift review", [
            PromptArgument("base", "The earlier dataset (e.g. a snapshot)", required=True,
                           completion=complete_dataset),
            PromptArgument("target", "The later dataset (empty: the active one)",
                           completion=complete_dataset)]),
    ]
    for fn, title, args in prompts:
        registry.prompt(title=title, category="prompts", arguments=args)(fn)
