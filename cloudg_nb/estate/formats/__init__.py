"""Estate file formats: detection, loading and writing. ``load_path(path, kind="auto")`` reads
an inventory map (or a folder holding ``inventory-map.json``), a tabular folder, scanner output
(Prowler JSON-OCSF / CSV / native JSON, JSON-ASFF, Security Hub findings) or an AWS inventory
(AWS Config, EC2 describe-*). Every problem is a ``DatasetLoadError`` naming the file (its
base name) and what was wrong; nothing is half-loaded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal, get_args

from ..dataset import Dataset
from ..errors import DatasetLoadError
from ..models import parse_choice
from ..progress_callbacks import CancelCheck, Phases, ProgressFn
from .asff import looks_like_asff, looks_like_asff_document, read_asff
from .aws_files import AWS_CONFIG, AWS_DESCRIBE, aws_folder_kind, aws_kind_of, read_aws
from .inventory_map import (
    FINDINGS_FILE,
    INVENTORY_FILE,
    looks_like_findings,
    looks_like_inventory,
    read_inventory_map,
    write_inventory_map,
)
from .jsonio import TOO_DEEP, first_line, parse_json, read_text
from .prowler import looks_like_prowler, read_prowler
from .prowler_compliance_csv import looks_like_prowler_compliance_csv, read_prowler_compliance_csv
from .prowler_csv import looks_like_prowler_csv
from .prowler_folder import looks_like_prowler_folder, read_prowler_folder
from .prowler_native_json import looks_like_prowler_native, read_prowler_native
from .tabular import TABULAR_SUFFIXES, find_tables, read_tabular, write_tabular

__all__ = ["FORMATS", "DatasetKind", "dataset_kind", "detect_format", "load_path",
           "write_inventory_map", "write_tabular", "INVENTORY_FILE", "FINDINGS_FILE"]

#: Accepted ``kind`` values of ``load_path`` (``auto`` detects).
DatasetKind = Literal["auto", "inventory", "tabular", "prowler", "prowler-compliance",
                      "aws-config", "aws-describe", "asff", "prowler-json"]
FORMATS: tuple[DatasetKind, ...] = get_args(DatasetKind)
#: How messages name a format (``kind`` values not listed are named as they are).
_FORMAT_NAMES = {"inventory": "an inventory map", "tabular": "a tabular folder",
                 "prowler": "Prowler output (JSON-OCSF or CSV)",
                 "asff": "JSON-ASFF (Prowler json-asff or Security Hub get-findings)",
                 "prowler-json": "Prowler native JSON (-M json)",
                 "prowler-compliance": "a Prowler compliance CSV",
                 AWS_CONFIG: "AWS Config items", AWS_DESCRIBE: "EC2 describe-* output"}


def _scanner_kind(record: object) -> str | None:
    """``asff`` or ``prowler-json`` when ``record`` is one finding of those formats."""
    if looks_like_asff(record):
        return "asff"
    return "prowler-json" if looks_like_prowler_native(record) else None


def _sniff_json(path: Path) -> str | None:
    text = read_text(path)
    head = text.lstrip()[:1]
    if head == "[":
        if text.lstrip()[1:].lstrip().startswith("]"):
            return "prowler"  # an empty scan: Prowler writes [] when it has no results
        # peek at the first record without parsing a possibly huge array twice
        try:
            first = json.JSONDecoder().raw_decode(text.lstrip()[1:].lstrip())[0]
        except RecursionError:
            raise DatasetLoadError(path.name, TOO_DEEP, data={"reason": "too_deep"}) from None
        except json.JSONDecodeError:
            return "prowler" if "finding_info" in text[:20000] else None
        return "prowler" if looks_like_prowler(first) else _scanner_kind(first)
    if head == "{":
        head_line = text.lstrip().split("\n", 1)[0]
        try:
            doc = parse_json(head_line, path.name)
            if looks_like_prowler(doc):
                return "prowler"
            if _scanner_kind(doc):
                return _scanner_kind(doc)
        except json.JSONDecodeError:
            pass
        try:
            doc = parse_json(text, path.name)
        except json.JSONDecodeError:
            return "json-invalid"
        if looks_like_inventory(doc) or looks_like_findings(doc):
            return "inventory"
        if looks_like_prowler(doc):
            return "prowler"
        if looks_like_asff_document(doc):
            return "asff"
        return aws_kind_of(doc)
    return None


def detect_format(path: Path) -> str:
    """``inventory``, ``tabular`` or ``prowler`` for ``path``; DatasetLoadError otherwise."""
    if path.is_dir():
        if (path / INVENTORY_FILE).is_file():
            return "inventory"
        if find_tables(path):
            return "tabular"
        if (path / FINDINGS_FILE).is_file():
            return "inventory"
        aws = aws_folder_kind(path)
        if aws:
            return aws
        if looks_like_prowler_folder(path):
            return "prowler"  # Prowler's output folder: a scan and its compliance CSVs
        raise DatasetLoadError(
            path.name, f"the folder holds no estate files (expected {INVENTORY_FILE}, or "
                       "assets.csv / assets.jsonl / assets.parquet)")
    if not path.is_file():
        raise DatasetLoadError(path.name, "no such file or folder")
    suffix = path.suffix.lower()
    if path.stem.lower() in ("assets", "edges", "findings", "compliance") and \
            suffix in TABULAR_SUFFIXES:
        return "tabular"
    if suffix == ".csv" and looks_like_prowler_csv(first_line(path)):
        return "prowler"
    if suffix == ".csv" and looks_like_prowler_compliance_csv(first_line(path)):
        return "prowler-compliance"
    if suffix in (".json", ".jsonl", ".ndjson", ""):
        kind = _sniff_json(path)
        if kind == "json-invalid":
            return "inventory"  # the reader reports where the JSON breaks
        if kind:
            return kind
    raise DatasetLoadError(
        path.name, "the format is not recognised; expected an inventory map (JSON), a "
                   "tabular folder (CSV / JSON lines / Parquet), Prowler output (JSON-OCSF, "
                   "CSV, native JSON), JSON-ASFF / Security Hub findings or an AWS inventory",
        data={"formats": list(FORMATS[1:])})


def load_path(path: Path, *, kind: str = "auto", name: str = "dataset",
              progress: ProgressFn | None = None, strict: bool = False) -> Dataset:
    """Read ``path`` (already checked against the allowed roots) as an estate dataset.

    Readers that validate record by record (Prowler) skip bad records and describe them in
    ``ds.load_report``; ``strict`` makes the first bad record fail the load instead."""
    key = dataset_kind(kind)
    ph = Phases(progress)
    ph.step(0, "detecting the format")
    if not path.exists():
        raise DatasetLoadError(path.name, "no such file or folder")
    fmt = detect_format(path) if key == "auto" else key
    ph.step(10, f"reading {fmt} data")
    try:
        ds = _read(path, fmt, name, ph.check, strict)
    except RecursionError:  # a value nested deeper than a later step can follow
        raise DatasetLoadError(path.name, TOO_DEEP, data={"reason": "too_deep"}) from None
    except DatasetLoadError as err:
        if key == "auto":
            raise
        raise _with_fitting_kind(err, path, fmt) from None
    ph.step(80, "indexing")
    ds.index  # noqa: B018  (build the reference index now, so the first query is quick)
    ph.done(f"loaded {len(ds.assets)} assets")
    return ds


def dataset_kind(kind: object) -> str:
    """``kind`` as ``load_path`` reads it: case and padding ignored, empty = ``auto``; an
    unknown kind is an InvalidArgumentsError with close matches and the allowed kinds."""
    return parse_choice(str(kind or "auto"), FORMATS, field="kind", fold=True)


def _with_fitting_kind(err: DatasetLoadError, path: Path, forced: str) -> DatasetLoadError:
    """``err`` of a forced reader; when another reader fits the file, it says which."""
    try:
        fits = detect_format(path)
    except (DatasetLoadError, RecursionError):
        return err
    if fits == forced or f"kind={fits}" in err.problem:
        return err
    data = {k: v for k, v in (err.data or {}).items() if k not in ("file", "problem")}
    return DatasetLoadError(
        err.file, f"{err.problem}; this file looks like {_FORMAT_NAMES.get(fits, fits)}: "
                  f"use kind={fits}", data={**data, "fitting_kind": fits})


def _read(path: Path, fmt: str, name: str, check: CancelCheck, strict: bool) -> Dataset:
    if fmt == "inventory":
        target = path / INVENTORY_FILE if path.is_dir() else path
        if path.is_dir() and not target.is_file():
            target = path / FINDINGS_FILE
        ds = read_inventory_map(target, name=name, check=check, strict=strict)
    elif fmt in (AWS_CONFIG, AWS_DESCRIBE):
        ds = read_aws(path, kind=fmt, name=name, strict=strict)
    elif fmt == "tabular":
        ds = read_tabular(path if path.is_dir() else path.parent, name=name, strict=strict)
    elif fmt == "asff":
        ds = read_asff(path, name=name, strict=strict)
    elif fmt == "prowler-json":
        ds = read_prowler_native(path, name=name, strict=strict)
    elif fmt == "prowler-compliance":
        ds = read_prowler_compliance_csv(path, name=name, strict=strict)
    else:
        ds = (read_prowler_folder(path, name=name, strict=strict) if path.is_dir()
              else read_prowler(path, name=name, strict=strict))
    return ds
