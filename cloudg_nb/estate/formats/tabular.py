"""The plain tabular format: a folder of ``assets``, ``edges``, ``findings`` and
``compliance`` tables as CSV, JSON lines or Parquet (only ``assets`` is required).

In CSV and Parquet, dict and list cells (tags, metadata, properties, compliance_frameworks,
finding_ids) are JSON text; ports may also be ``22;443``. A bad row is skipped and reported
(``row_check``) unless the load is strict.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from ..dataset import Dataset
from ..errors import DatasetLoadError
from ..frames import normalize_assets, normalize_compliance, normalize_edges, normalize_findings
from .jsonio import read_json_lines
from .load_report import LoadReport
from .row_check import normalize_checked
from .safewrite import replacing

__all__ = ["TABLES", "TABULAR_SUFFIXES", "find_tables", "read_tabular", "write_tabular"]

TABLES = ("assets", "edges", "findings", "compliance")
TABULAR_SUFFIXES = (".csv", ".jsonl", ".ndjson", ".parquet")
_NORMALIZERS = {"assets": normalize_assets, "edges": normalize_edges,
                "findings": normalize_findings, "compliance": normalize_compliance}


def find_tables(folder: Path) -> dict[str, Path]:
    """The table files of ``folder`` by table name (first suffix found wins)."""
    found: dict[str, Path] = {}
    for table in TABLES:
        for suffix in TABULAR_SUFFIXES:
            p = folder / f"{table}{suffix}"
            if p.is_file():
                found[table] = p
                break
    return found


def _read_table(path: Path) -> pd.DataFrame:
    suffix = path.suffix.lower()
    if suffix == ".csv":
        try:
            frame = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])
        except UnicodeDecodeError:
            raise DatasetLoadError(path.name, "the file is not UTF-8 text") from None
        except (pd.errors.ParserError, ValueError) as exc:
            problem = "the file is empty" if isinstance(exc, pd.errors.EmptyDataError) else \
                "the CSV is malformed (rows with a different number of fields?)"
            raise DatasetLoadError(path.name, problem) from None
        return frame
    if suffix in (".jsonl", ".ndjson"):
        rows = read_json_lines(path)
        if not all(isinstance(r, dict) for r in rows):
            raise DatasetLoadError(path.name, "every line must be a JSON object")
        return pd.DataFrame.from_records(rows) if rows else pd.DataFrame()
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise DatasetLoadError(path.name, "reading Parquet needs pyarrow; install it with "
                                          "pip install pyarrow") from None
    try:
        return pd.read_parquet(path)
    except Exception:  # pyarrow raises several unrelated types for a broken file
        raise DatasetLoadError(path.name, "the file is not a readable Parquet file "
                                          "(truncated or another format?)") from None


def read_tabular(folder: Path, *, name: str = "dataset", strict: bool = False) -> Dataset:
    """Load a tabular folder; every table is normalised (errors name the table's file). Bad
    rows are skipped and reported by file and row index in ``Dataset.load_report`` (or fail
    the load when ``strict``)."""
    tables = find_tables(folder)
    if "assets" not in tables:
        raise DatasetLoadError(folder.name, "the folder has no assets table (assets.csv, "
                                            "assets.jsonl or assets.parquet)")
    report = LoadReport(folder.name, strict=strict)
    frames: dict[str, Any] = {}
    rows: dict[str, int] = {}
    for table, path in tables.items():
        raw = _read_table(path)
        rows[table] = len(raw)
        frames[table] = normalize_checked(raw, _NORMALIZERS[table], source=path.name,
                                          report=report)
    report.records = sum(rows.values())
    findings = frames.get("findings")
    report.findings = len(findings) if findings is not None else 0
    report.explanation = (
        f"{report.records} rows read (" + ", ".join(f"{t} {n}" for t, n in rows.items())
        + f"): {report.skipped_count} skipped")
    ds = Dataset(frames.get("assets"), frames.get("edges"), findings,
                 frames.get("compliance"), normalize=False, name=name, source=folder.name,
                 kind="tabular")
    ds.load_report = report.to_dict()
    return ds


def _encode(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    for col in out.columns:
        if out[col].dtype == object and out[col].map(lambda v: isinstance(v, (dict, list))).any():
            out[col] = out[col].map(
                lambda v: json.dumps(v) if isinstance(v, (dict, list)) else v).astype(object)
    return out


def write_tabular(ds: Dataset, folder: Path, fmt: str = "csv") -> list[Path]:
    """Write the dataset's tables into ``folder`` as ``csv``, ``jsonl`` or ``parquet``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for table in TABLES:
        frame = getattr(ds, table)
        if table == "findings":
            frame = frame.drop(columns=["risk_score"])
        path = folder / f"{table}.{fmt}"
        with replacing(path) as tmp:
            if fmt == "csv":
                _encode(frame).to_csv(tmp, index=False)
            elif fmt == "jsonl":
                frame.to_json(tmp, orient="records", lines=True)
            elif fmt == "parquet":
                enc = _encode(frame)
                text = pd.DataFrame({
                    c: pd.Series([None if v is None or (isinstance(v, float) and v != v)
                                  else str(v) for v in enc[c].tolist()], dtype=object)
                    for c in enc.columns})
                text.to_parquet(tmp, index=False)
            else:
                raise ValueError("fmt must be csv, jsonl or parquet")
        paths.append(path)
    return paths
