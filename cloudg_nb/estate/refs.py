"""Asset reference resolution: the lookup tables behind ``Dataset.resolve``.

A reference resolves, in this order: internal id; exact unique ARN (or
``metadata.resource_id``; an ARN two assets hold, as scans of two accounts or providers may
give, is ambiguous); exact unique name; unique text after the last ``/`` of an ARN or id;
unique case-insensitive name. A miss or an ambiguous reference raises
``ReferenceNotFoundError`` with up to 3 close matches (and the candidates when ambiguous) in
its data.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
import pandas as pd

from .errors import ReferenceNotFoundError

__all__ = ["AssetIndex"]

_MAX_FUZZY_POOL = 4000
#: Texts located by one `list.index` each (a linear C-level scan); more: one Python loop.
_FEW_HELD = 32


def _text_keys(values: list[Any]) -> np.ndarray:
    """Object array: each value that is a non-empty string, None otherwise."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    if pd.api.types.infer_dtype(out, skipna=True) in ("string", "empty"):
        out[pd.isna(out) | (out == "")] = None  # (all text: no per-cell Python)
    else:
        out[:] = [v if isinstance(v, str) and v else None for v in values]
    return out


def _firsts(keys: np.ndarray) -> tuple[list[Any], np.ndarray]:
    """The distinct non-None ``keys`` in order of first appearance, and the row of each."""
    codes, uniques = pd.factorize(keys)
    first = np.empty(len(uniques), dtype=np.int64)
    hit = np.flatnonzero(codes >= 0)[::-1]
    first[codes[hit]] = hit  # the earliest row writes last
    return uniques.tolist(), first


def _first_rows(values: list[Any], wanted: set[str]) -> dict[str, int]:
    """The first row of ``values`` holding each text of ``wanted``, for those it holds (which
    ones: one C-level pass; where: one ``index`` each, or one loop when many are held)."""
    try:
        held = wanted.intersection(values)
    except TypeError:  # an unhashable value: look at the text ones only
        held = wanted.intersection(v for v in values if isinstance(v, str))
    if len(held) <= _FEW_HELD:
        return {v: values.index(v) for v in held}
    found: dict[str, int] = {}
    for row, v in enumerate(values):
        if isinstance(v, str) and v in held and v not in found:
            found[v] = row
    return found


class _Groups:
    """Key → row numbers (in the order given), for non-None keys; keys iterate in order of
    first appearance. Built with pandas/numpy: one factorize and one stable sort."""

    def __init__(self, keys: np.ndarray, rows: np.ndarray) -> None:
        codes, uniques = pd.factorize(keys)
        order = np.argsort(codes, kind="stable")
        counts = np.bincount(codes[codes >= 0], minlength=len(uniques))
        self._rows = rows[order]
        self._starts = np.concatenate(([0], np.cumsum(counts))) + int((codes < 0).sum())
        self._code_of: dict[str, int] = dict(zip(uniques.tolist(), range(len(uniques)),
                                                 strict=True))

    def __getitem__(self, key: str) -> list[int]:
        c = self._code_of[key]
        return self._rows[self._starts[c]:self._starts[c + 1]].tolist()

    def get(self, key: str, default: Any = None) -> Any:
        c = self._code_of.get(key)
        if c is None:
            return default
        return self._rows[self._starts[c]:self._starts[c + 1]].tolist()

    def __iter__(self) -> Iterator[str]:
        return iter(self._code_of)

    def __len__(self) -> int:
        return len(self._code_of)

    def __contains__(self, key: object) -> bool:
        return key in self._code_of

    def first_rows(self) -> np.ndarray:
        """Per key (in iteration order): its first row."""
        return self._rows[self._starts[:-1]]


def _tails(values: list[Any]) -> np.ndarray:
    """Per value: the non-empty text after its last ``/``, else None."""
    out = np.empty(len(values), dtype=object)
    out[:] = [v.rsplit("/", 1)[1] or None if isinstance(v, str) and "/" in v else None
              for v in values]
    return out


class AssetIndex:
    """Lookups from ids, ARNs and names to asset row numbers (built once per version).

    Each table is built (vectorised where pandas can) on the first use that needs it, so a
    load does not pay for lookups nobody makes; a table never changes once built."""

    def __init__(self, assets: pd.DataFrame) -> None:
        self.n = len(assets)
        self.ids = assets["id"].to_numpy(dtype=object)
        self.names = assets["name"].to_numpy(dtype=object)
        self._arns = assets["arn"].tolist()
        self._metadata = assets["metadata"].tolist()
        self._row_of_id: dict[str, int] | None = None
        self._row_of_arn: dict[str, int] | None = None
        self._arn_repeats: _Groups | None = None
        self._by_name: _Groups | None = None
        self._by_lower: _Groups | None = None
        self._by_tail: _Groups | None = None

    @property
    def row_of_id(self) -> dict[str, int]:
        """Id → row (the last row of a repeated id)."""
        if self._row_of_id is None:
            self._row_of_id = dict(zip(map(str, self.ids.tolist()), range(self.n), strict=True))
        return self._row_of_id

    @property
    def row_of_arn(self) -> dict[str, int]:
        """ARN, then ``metadata.resource_id`` → the first row naming it."""
        if self._row_of_arn is None:
            keys, rows = _firsts(_text_keys(self._arns))
            arn_map = dict(zip(keys, rows.tolist(), strict=True))
            rids = [m.get("resource_id") if isinstance(m, dict) else None
                    for m in self._metadata]
            if any(rids):
                keys, rows = _firsts(_text_keys(rids))
                for key, row in zip(keys, rows.tolist(), strict=True):
                    arn_map.setdefault(key, row)
            self._row_of_arn = arn_map
        return self._row_of_arn

    @property
    def arn_repeats(self) -> _Groups:
        """ARN → its rows, for the ARNs more than one asset holds."""
        if self._arn_repeats is None:
            keys = _text_keys(self._arns)
            codes, _ = pd.factorize(keys)
            known = codes >= 0
            counts = np.bincount(codes[known], minlength=1)
            repeated = np.flatnonzero(known & (counts[np.where(known, codes, 0)] > 1))
            self._arn_repeats = _Groups(keys[repeated], repeated)
        return self._arn_repeats

    def rows_of_arns(self, refs: Iterable[Any]) -> dict[str, int]:
        """``row_of_arn`` for ``refs`` only: one pass over the ARNs (and the resource ids,
        for refs no ARN names) when the full table is not built yet, so a few lookups (the
        findings a join by id missed) do not build it."""
        wanted = {r for r in refs if isinstance(r, str) and r}
        table = self._row_of_arn
        if table is not None or not wanted:
            return {r: table[r] for r in wanted if r in table} if table else {}
        found = _first_rows(self._arns, wanted)
        rest = wanted.difference(found)
        if rest and any(issubclass(t, dict) for t in set(map(type, self._metadata))):
            rids = [m.get("resource_id") if isinstance(m, dict) else None
                    for m in self._metadata]
            found.update(_first_rows(rids, rest))
        return found

    @property
    def by_name(self) -> _Groups:
        """Exact name → rows."""
        if self._by_name is None:
            self._by_name = _Groups(_text_keys(self.names.tolist()), np.arange(self.n))
        return self._by_name

    @property
    def by_lower(self) -> _Groups:
        """Lower-cased name → rows."""
        if self._by_lower is None:
            lowered = [s.lower() if isinstance(s, str) else None for s in self.names.tolist()]
            self._by_lower = _Groups(_text_keys(lowered), np.arange(self.n))
        return self._by_lower

    @property
    def by_tail(self) -> _Groups:
        """Text after the last ``/`` of the ARN, then of the id → rows (each row once)."""
        if self._by_tail is None:
            ids = self.ids.tolist()
            id_tails = _tails(ids)
            arns = np.empty(self.n, dtype=object)
            arns[:] = self._arns
            arn_tails = np.full(self.n, None, dtype=object)
            is_id = arns == self.ids  # (most ARNs are the id: read once)
            same, other = np.flatnonzero(is_id), np.flatnonzero(~is_id)
            arn_tails[same] = id_tails[same]
            arn_tails[other] = _tails(arns[other].tolist())
            id_tails[same] = None  # the row is already listed under its ARN's tail
            id_tails[id_tails == arn_tails] = None
            keys = np.concatenate([arn_tails, id_tails])
            rows = np.concatenate([np.arange(self.n), np.arange(self.n)])
            listed = np.flatnonzero(keys != None)  # noqa: E711
            self._by_tail = _Groups(keys[listed], rows[listed])
        return self._by_tail

    def lookup(self, ref: str) -> tuple[int | None, list[int]]:
        """(row, []) when ``ref`` resolves; (None, candidates) when ambiguous or unknown."""
        ref = str(ref).strip()
        row = self.row_of_id.get(ref)
        if row is not None:
            return row, []
        row = self.row_of_arn.get(ref)
        if row is not None:
            repeats = self.arn_repeats.get(ref)
            return (row, []) if repeats is None else (None, [int(r) for r in repeats])
        ambiguous: list[int] = []
        for rows in self._name_matches(ref):
            if rows is None:
                continue
            if len(rows) == 1:
                return int(rows[0]), []
            if not ambiguous:
                ambiguous = [int(r) for r in rows]
        return None, ambiguous

    def _name_matches(self, ref: str) -> Iterator[list[int] | None]:
        """Rows by exact name, then tail, then case-insensitive name (each table built only
        when the lookup reaches it)."""
        yield self.by_name.get(ref)
        yield None if "/" in ref else self.by_tail.get(ref)  # (a tail holds no '/')
        yield self.by_lower.get(ref.lower())

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
        lower = self.by_lower
        pool: dict[str, str] = dict(zip(lower, map(str, self.names[lower.first_rows()].tolist()),
                                        strict=True))
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
