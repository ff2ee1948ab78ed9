"""Row-by-row validation for table-shaped estate files (tabular folders, inventory maps).

``normalize_checked`` normalises a whole table at once (the fast path); only when that fails
does it normalise row by row to find the bad rows, skip and report them in a ``LoadReport``
(row index, column, reason; a repeated id too) and load the rest. A missing required column,
or a table with no valid row, still fails the load with the original error.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pandas as pd

from ..errors import DatasetLoadError
from .load_report import LoadReport

__all__ = ["normalize_checked"]

Normalizer = Callable[..., pd.DataFrame]
_COLUMN = re.compile(r"column '([^']{1,64})'")
_NAMED = (("resource_id", "resource_id"), ("no id", "id"), ("severity", "severity"),
          ("source_id", "source_id"), ("target_id", "target_id"), ("status", "status"))


def _field(err: DatasetLoadError) -> str:
    found = _COLUMN.search(err.problem)
    if found:
        return found.group(1)
    for needle, name in _NAMED:
        if needle in err.problem:
            return name
    return "record"


def normalize_checked(raw: pd.DataFrame, normalize: Normalizer, *, source: str,
                      report: LoadReport) -> pd.DataFrame:
    """``normalize(raw)``; on a bad row, the other rows (bad ones reported by index)."""
    try:
        return normalize(raw, source=source)
    except DatasetLoadError as whole:
        if not len(raw) or "required column" in whole.problem:
            raise
        first_error = whole
    raw = raw.reset_index(drop=True)
    keep: list[int] = []
    seen: dict[str, int] = {}
    ids = raw["id"].tolist() if "id" in raw.columns else [None] * len(raw)
    for i in range(len(raw)):
        try:
            normalize(raw.iloc[[i]], source=source)
        except DatasetLoadError as err:
            report.skip(i, _field(err), err.problem, file=source)
            continue
        key = str(ids[i]) if ids[i] is not None else None
        if key is not None and key in seen:
            report.skip(i, "id", f"repeats the id of record {seen[key]}", file=source)
            continue
        if key is not None:
            seen[key] = i
        keep.append(i)
    if not keep:
        raise first_error
    return normalize(raw.iloc[keep], source=source)
