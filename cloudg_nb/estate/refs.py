"""Asset reference resolution: the lookup tables behind ``Dataset.resolve``.

A reference resolves, in this order: internal id; exact ARN (or ``metadata.resource_id``);
exact unique name; unique text after the last ``/`` of an ARN or id; unique
case-insensitive name. A miss or an ambiguous reference raises ``ReferenceNotFoundError``
with up to 3 close matches (and the candidates when ambiguous) in its data.
"""

from __future__ import annotations

import difflib
from typing import Any

import pandas as pd

from .errors import ReferenceNotFoundError

__all__ = ["AssetIndex"]

_MAX_FUZZY_POOL = 4000


def _groups(keys: list[Any]) -> dict[str, list[int]]:
    """Key → row numbers for every key that is a non-empty string."""
    out: dict[str, list[int]] = {}
    for i, k in enumerate(keys):
        if isinstance(k, str) and k:
            rows = out.get(k)
            if rows is None:
                out[k] = [i]
            else:
                rows.append(i)
    return out


def _tail(value: Any) -> str | None:
    if not isinstance(value, str) or "/" not in value:
        return None
    tail = value.rsplit("/", 1)[1]
    return tail or None


class AssetIndex:
    """Lookups from ids, ARNs and names to asset row numbers (built once per version)."""

    def __init__(self, assets: pd.DataFrame) -> None:
        self.n = len(assets)
        ids = assets["id"].to_numpy(dtype=object)
        self.ids = ids
        self.row_of_id: dict[str, int] = {str(v): i for i, v in enumerate(ids)}
        arn_map: dict[str, int] = {}
        for i, a in enumerate(assets["arn"].tolist()):
            if isinstance(a, str) and a:
                arn_map.setdefault(a, i)
        for i, meta in enumerate(assets["metadata"].tolist()):
            rid = meta.get("resource_id") if isinstance(meta, dict) else None
            if isinstance(rid, str) and rid:
                arn_map.setdefault(rid, i)
        self.row_of_arn = arn_map
        names = assets["name"].to_numpy(dtype=object)
        self.names = names
        name_list = names.tolist()
        self.by_name = _groups(name_list)
        self.by_lower = _groups([s.lower() if isinstance(s, str) else None for s in name_list])
        tail_groups = _groups([_tail(a) for a in assets["arn"].tolist()])
        for i, t in enumerate(_tail(v) for v in ids.tolist()):
            if t is not None:
                rows = tail_groups.setdefault(t, [])
                if i not in rows:
                    rows.append(i)
        self.by_tail = tail_groups

    def lookup(self, ref: str) -> tuple[int | None, list[int]]:
        """(row, []) when ``ref`` resolves; (None, candidates) when ambiguous or unknown."""
        ref = str(ref).strip()
        row = self.row_of_id.get(ref)
        if row is not None:
            return row, []
        row = self.row_of_arn.get(ref)
        if row is not None:
            return row, []
        ambiguous: list[int] = []
        for table, key in ((self.by_name, ref), (self.by_tail, ref), (self.by_lower, ref.lower())):
            rows = table.get(key)
            if rows is None:
                continue
            if len(rows) == 1:
                return int(rows[0]), []
            if not ambiguous:
                ambiguous = [int(r) for r in rows]
        return None, ambiguous

    def resolve(self, ref: str, *, field: str = "ref") -> int:
        """The asset row ``ref`` names; ReferenceNotFoundError with close matches otherwise."""
        if not isinstance(ref, str) or not ref.strip():
            raise ReferenceNotFoundError(
                f"The {field} argument is empty; pass an asset id, ARN or name.",
                data={"field": field, "close_matches": []},
            )
        row, ambiguous = self.lookup(ref)
        if row is not None:
            return row
        if ambiguous:
            raise ReferenceNotFoundError(
                f"The {field} names more than one asset; use an id or ARN from the candidates "
                "in the error data.",
                data={"field": field, "candidates": [str(self.ids[r]) for r in ambiguous[:10]],
                      "close_matches": [str(self.names[r]) for r in ambiguous[:3]]},
            )
        raise ReferenceNotFoundError(
            f"No asset matches the {field}; check the close matches in the error data or "
            "search with find_assets.",
            data={"field": field, "close_matches": self.close_matches(ref)},
        )

    def close_matches(self, ref: str, n: int = 3) -> list[str]:
        """Up to ``n`` asset names or ids that look like ``ref``."""
        needle = str(ref).strip().lower()
        if not needle or self.n == 0:
            return []
        pool: dict[str, str] = {}
        for key in self.by_lower:
            pool.setdefault(key, str(self.names[int(self.by_lower[key][0])]))
        if len(pool) > _MAX_FUZZY_POOL:
            head = needle[:3]
            narrowed = {k: v for k, v in pool.items()
                        if head in k and abs(len(k) - len(needle)) <= max(4, len(needle) // 2)}
            if len(narrowed) < n:
                narrowed.update({k: v for k, v in list(pool.items())[:_MAX_FUZZY_POOL]})
            pool = dict(list(narrowed.items())[:_MAX_FUZZY_POOL])
        hits = difflib.get_close_matches(needle, list(pool), n=n, cutoff=0.5)
        out = [pool[h] for h in hits]
        if len(out) < n:
            for key, name in pool.items():
                if len(out) >= n:
                    break
                if name not in out and (needle in key or key in needle):
                    out.append(name)
        return out

    def complete(self, partial: str, limit: int = 100) -> list[str]:
        """Completion values: names, ARNs and ids starting with ``partial``, then containing it."""
        p = str(partial or "").lower()
        seen: dict[str, None] = {}
        keys = list(self.by_name) + list(self.row_of_arn) + list(self.row_of_id)
        for key in keys:
            if key.lower().startswith(p):
                seen.setdefault(key, None)
                if len(seen) >= limit:
                    return list(seen)
        if p:
            for key in keys:
                if p in key.lower():
                    seen.setdefault(key, None)
                    if len(seen) >= limit:
                        break
        return list(seen)
