"""A changed-rows answer applied to the frame a LiveFrame holds: the tools answer
``cloudg/changed_since`` with the rows changed since a version and their positions
(``cloudg_nb.catalog.conventions.page``); ``apply_delta`` gives the frame a fresh read would
give, or None when the answer does not fit (the caller then reads the whole result).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas

__all__ = ["apply_delta"]


def apply_delta(frame: pandas.DataFrame, delta: dict[str, Any], rows: list[Any],
                total: Any) -> pandas.DataFrame | None:
    """``frame`` with a changed-rows answer applied: rows whose key columns hold one of
    ``delta["keys"]`` dropped, each of ``rows`` put at its ``delta["positions"]`` entry.
    ``None`` when the answer does not fit ``frame`` (sizes, columns), so the caller re-reads."""
    import numpy as np
    import pandas

    keys = {str(k) for k in delta.get("keys") or ()}
    columns = [c for c in delta.get("key_columns") or () if c in frame.columns]
    positions = [int(p) for p in delta.get("positions") or ()]
    if not isinstance(total, int) or len(positions) != len(rows) or (keys and not columns):
        return None
    hit = np.zeros(len(frame), dtype=bool)
    for column in columns:
        hit |= frame[column].isin(keys).to_numpy(dtype=bool)
    if rows and total == len(frame) and np.flatnonzero(hit).tolist() == positions:
        updated = _updated_in_place(frame, positions, rows)
        if updated is not None:
            return updated
    kept = frame.loc[~hit]
    size = len(kept) + len(rows)
    if size != total or positions != sorted(set(positions)) or (
            positions and (positions[0] < 0 or positions[-1] >= size)):
        return None
    if not rows:
        return kept.reset_index(drop=True) if hit.any() else frame
    new = pandas.DataFrame.from_records(rows)
    if not set(new.columns) <= set(frame.columns):
        return None
    new = new.reindex(columns=frame.columns)
    combined = pandas.concat([kept, new], ignore_index=True)
    for column in frame.columns:  # re-infer where the parts differ (as one read would)
        if kept[column].dtype != new[column].dtype:
            combined[column] = pandas.Series(
                [None if isinstance(v, float) and v != v else v
                 for v in combined[column].tolist()])
    is_new = np.zeros(size, dtype=bool)
    is_new[positions] = True
    order = np.empty(size, dtype=np.int64)
    order[~is_new] = np.arange(len(kept))
    order[is_new] = len(kept) + np.arange(len(rows))
    return combined.iloc[order].reset_index(drop=True)


def _updated_in_place(frame: pandas.DataFrame, positions: list[int], rows: list[Any]
                      ) -> pandas.DataFrame | None:
    """``frame`` with the rows at ``positions`` replaced by ``rows`` (the common change: the
    same rows, some cells new), only in the columns that changed; None when a row does not
    have the frame's columns or a value does not fit its column's type (the caller then
    rebuilds the frame)."""
    columns = list(frame.columns)
    wanted = set(columns)
    if any(not isinstance(row, dict) or row.keys() != wanted for row in rows):
        return None
    # the rows as shown now, read in one take (few rows: the usual delta)
    shown = frame.iloc[positions].to_numpy(dtype=object).tolist() if len(
        positions) < 64 else None
    out = frame.copy(deep=False)
    changed: list[str] = []
    try:
        for j, column in enumerate(columns):
            values = [row[column] for row in rows]
            if shown is not None and all(_same(old[j], new) for old, new in zip(
                    shown, values, strict=True)):
                continue  # nothing new in this column: its array stays shared
            out.iloc[positions, j] = values
            changed.append(column)
    except (TypeError, ValueError):
        return None
    if any(out[c].dtype != frame[c].dtype for c in changed):
        return None
    return out


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b) or (a != a and b != b)
    except (TypeError, ValueError):
        return False

