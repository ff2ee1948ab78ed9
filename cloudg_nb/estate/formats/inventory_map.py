"""The ``inventory-map.json`` format (+ sibling ``findings.json``): read and write.

inventory-map.json: ``{summary, providers, regions, assets[], edges[],
unresolved_references[]}``; findings.json: ``{metadata, summary, assets[], findings[],
compliance[]}``. A findings.json alone loads as a dataset whose inventory is its assets[].
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from ..dataset import Dataset
from ..errors import DatasetLoadError
from ..frames import (
    normalize_assets,
    normalize_compliance,
    normalize_edges,
    normalize_findings,
    records_frame,
)
from ..models import INTERNET_CIDRS, Severity
from ..paging import frame_records
from ..progress_callbacks import CancelCheck, checker
from .jsonio import read_json
from .load_report import LoadReport
from .row_check import Normalizer, normalize_checked
from .safewrite import replacing

__all__ = ["INVENTORY_FILE", "FINDINGS_FILE", "read_inventory_map", "read_findings_file",
           "write_inventory_map", "looks_like_inventory", "looks_like_findings"]

INVENTORY_FILE = "inventory-map.json"
FINDINGS_FILE = "findings.json"


def looks_like_inventory(doc: Any) -> bool:
    return isinstance(doc, dict) and isinstance(doc.get("assets"), list) and (
        "edges" in doc or "unresolved_references" in doc or "providers" in doc)


def looks_like_findings(doc: Any) -> bool:
    return isinstance(doc, dict) and isinstance(doc.get("findings"), list)


def _records(doc: dict[str, Any], key: str, file: str) -> list[dict[str, Any]]:
    value = doc.get(key, [])
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(x, dict) for x in value):
        raise DatasetLoadError(file, f"'{key}' must be a list of objects")
    return value


def _frame(kind: str, rows: list[dict[str, Any]], file: str) -> pd.DataFrame:
    try:
        return records_frame(kind, rows)
    except (TypeError, ValueError):
        raise DatasetLoadError(file, f"'{kind}' records have an unexpected shape") from None


def _table(doc: dict[str, Any], key: str, file: str, normalize: Normalizer,
           report: LoadReport) -> pd.DataFrame:
    """``doc[key]`` normalised; bad records skipped and reported (``row_check``)."""
    records = _records(doc, key, file)
    report.records += len(records)
    return normalize_checked(_frame(key, records, file), normalize, source=file, report=report)


def read_findings_file(path: Path, report: LoadReport | None = None
                       ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(assets, findings, compliance) frames of a findings.json, normalised (bad records
    reported in ``report``)."""
    report = report or LoadReport(path.name)
    doc = read_json(path)
    if not looks_like_findings(doc):
        raise DatasetLoadError(path.name, "not a findings file: expected an object with a "
                                          "'findings' list")
    assets = _table(doc, "assets", path.name, normalize_assets, report)
    findings = _table(doc, "findings", path.name, normalize_findings, report)
    compliance = _table(doc, "compliance", path.name, normalize_compliance, report)
    return assets, findings, compliance


def _finish(ds: Dataset, report: LoadReport) -> Dataset:
    report.findings = len(ds.findings)
    report.explanation = f"{report.records} records read: {report.skipped_count} skipped"
    ds.load_report = report.to_dict()
    return ds


def read_inventory_map(path: Path, *, name: str = "dataset",
                       check: CancelCheck | None = None, strict: bool = False) -> Dataset:
    """Load an inventory-map.json and, when present, the findings.json beside it; ``check``
    runs between the steps (it raises to stop a cancelled load). Bad records are skipped and
    reported in ``Dataset.load_report`` (or fail the load when ``strict``)."""
    check = check or checker(None)
    report = LoadReport(path.name, strict=strict)
    doc = read_json(path)
    check()
    if not looks_like_inventory(doc):
        if looks_like_findings(doc):
            assets, findings, compliance = read_findings_file(path, report)
            return _finish(Dataset(assets, None, findings, compliance, normalize=False,
                                   name=name, source=path.name, kind="findings"), report)
        raise DatasetLoadError(
            path.name, "not an inventory map: expected an object with 'assets' and 'edges' "
                       "lists")
    assets = _table(doc, "assets", path.name, normalize_assets, report)
    check()
    edges = _table(doc, "edges", path.name, normalize_edges, report)
    check()
    beside: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame] | None = None
    sibling = path.with_name(FINDINGS_FILE)
    if sibling.is_file() and sibling != path:
        beside = read_findings_file(sibling, report)
        check()
    return _finish(Dataset(assets, edges, beside[1] if beside else None,
                           beside[2] if beside else None, normalize=False, name=name,
                           source=path.name, kind="inventory"), report)


def write_inventory_map(ds: Dataset, folder: Path) -> list[Path]:
    """Write ``inventory-map.json`` and ``findings.json`` into ``folder``; returns the paths."""
    folder.mkdir(parents=True, exist_ok=True)
    assets = frame_records(ds.assets)
    edges = frame_records(ds.edges)
    ids = set(ds.assets["id"].astype(str))
    unresolved = sorted({str(x) for x in pd.concat([ds.edges["source_id"], ds.edges["target_id"]])
                         if str(x) not in ids and str(x).lower() not in INTERNET_CIDRS})
    inventory = {
        "summary": {"assets": len(assets), "edges": len(edges), "source": ds.source},
        "providers": sorted({str(a["provider"]) for a in assets}),
        "regions": sorted({str(a["region"]) for a in assets}),
        "assets": assets, "edges": edges, "unresolved_references": unresolved,
    }
    f = ds.findings.drop(columns=["risk_score"])
    findings = frame_records(f)
    counts = ds.findings["severity"].value_counts()
    referenced = set(ds.findings["resource_id"].dropna().astype(str))
    doc = {
        "metadata": {"dataset": ds.name, "source": ds.source},
        "summary": {"findings": len(findings),
                    "by_severity": {s.value: int(counts.get(s.value, 0))
                                    for s in Severity.ordered()}},
        "assets": [{"id": a["id"], "arn": a["arn"], "name": a["name"],
                    "asset_type": a["asset_type"], "provider": a["provider"]}
                   for a in assets if a["id"] in referenced],
        "findings": findings, "compliance": frame_records(ds.compliance),
    }
    inv_path = folder / INVENTORY_FILE
    fnd_path = folder / FINDINGS_FILE
    for path, content in ((inv_path, inventory), (fnd_path, doc)):
        with replacing(path) as tmp:  # never writes through a symlink at ``path``
            tmp.write_text(json.dumps(content, indent=1, sort_keys=False) + "\n")
    return [inv_path, fnd_path]
