"""Which assets count as internet-exposed: those the inventory flags (``is_internet_exposed``)
and those a scanner finding says are open to the internet (INTERNET_EXPOSED edges derived by
``finding_exposure``). Summaries, filters, groupings and briefs all read ``exposed_flags``,
so they agree with ``internet_exposure``; ``derived_only`` marks the finding-only ones.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import numpy as np

from .finding_exposure import DERIVED_RELATIONSHIP

if TYPE_CHECKING:
    import pandas as pd

    from .refs import AssetIndex

__all__ = ["derived_exposure", "exposed_flags", "derived_only", "ExposureSource"]

T = TypeVar("T")


class ExposureSource(Protocol):
    """What the flags read of a dataset (``Dataset``, which imports this module): its assets
    and edges, its reference index, and its per-version cache."""

    @property
    def assets(self) -> pd.DataFrame: ...

    @property
    def edges(self) -> pd.DataFrame: ...

    @property
    def index(self) -> AssetIndex: ...

    def cached(self, key: str, build: Callable[[], T], *, label: str | None = None) -> T: ...


def derived_exposure(ds: ExposureSource) -> dict[int, list[str]]:
    """Asset row → ids of the findings its internet exposure is derived from, for the rows
    that have a derived INTERNET_EXPOSED edge (cached per version)."""

    def build() -> dict[int, list[str]]:
        e = ds.edges
        if not len(e):
            return {}
        rows = np.flatnonzero((e["relationship"] == DERIVED_RELATIONSHIP).to_numpy(dtype=bool))
        if not len(rows):
            return {}
        index = ds.index
        src = e["source_id"].to_numpy(dtype=object)
        dst = e["target_id"].to_numpy(dtype=object)
        props = e["properties"].to_numpy(dtype=object)
        out: dict[int, list[str]] = {}
        for r in rows.tolist():
            end = str(dst[r] if src[r] == "internet" else src[r])
            row = index.row_of_id.get(end)
            if row is None:
                row = index.row_of_arn.get(end)
            if row is None:
                continue
            found = out.setdefault(row, [])
            p: Any = props[r]
            fid = p.get("derived_from_finding") if isinstance(p, dict) else None
            if fid and str(fid) not in found:
                found.append(str(fid))
        return out

    return ds.cached("derived_exposure", build, label="derived exposure")


def exposed_flags(ds: ExposureSource) -> np.ndarray:
    """Per asset row: True when internet-exposed, flagged by the inventory or derived from
    a finding (cached per version; do not modify)."""

    def build() -> np.ndarray:
        flags = ds.assets["is_internet_exposed"].to_numpy(dtype=bool).copy()
        rows = list(derived_exposure(ds))
        if rows:
            flags[rows] = True
        return flags

    return ds.cached("exposed_flags", build, label="exposure flags")


def derived_only(ds: ExposureSource, rows: np.ndarray | list[int]) -> list[list[str] | None]:
    """Per asset row of ``rows``: the findings its exposure is derived from when the
    inventory does not flag it (exposed by findings only), else None."""
    derived = derived_exposure(ds)
    if not derived:
        return [None] * len(rows)
    flagged = ds.assets["is_internet_exposed"].to_numpy(dtype=bool)
    return [None if flagged[r] or r not in derived else list(derived[r])
            for r in np.asarray(rows, dtype=np.int64).tolist()]
