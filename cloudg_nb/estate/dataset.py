"""Dataset: one loaded estate as four pandas DataFrames plus cached indexes and graphs.

Frames: ``assets``, ``edges``, ``findings``, ``compliance`` (columns in ``frames``). Indexes
(reference lookups, the graph views, per-asset finding aggregates) are built lazily, once per
``version``; every mutation (``update``, ``suppress_findings`` ...) bumps ``version``, drops
the caches and tells listeners (the workspace turns that into change events). A short journal
says which findings and assets each recent version changed (``changes_since``), so a caller
holding an older result can re-read only what changed; ``epoch`` tells datasets apart.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import itertools
import logging
import random
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from ..layer.listeners import Listeners
from ..layer.wire import asset_uri  # re-exported: the estate's URIs are the wire's
from .errors import ReferenceNotFoundError
from .exposure_flags import derived_exposure, derived_only, exposed_flags
from .frames import (
    empty_frame,
    normalize_assets,
    normalize_compliance,
    normalize_edges,
    normalize_findings,
    records_frame,
)
from .graph import Adjacency, EstateGraph, account_of_endpoint
from .models import INTERNET_CIDRS, Asset, Finding, Severity, close_matches
from .progress_callbacks import ProgressFn, checker, report, rescaled
from .refs import AssetIndex

logger = logging.getLogger("cloudg.estate")

__all__ = ["Dataset", "FindingIndex", "RowGroups", "CacheMiss", "asset_uri", "BRIEF_COLUMNS"]

T = TypeVar("T")

#: Dataset epochs: a counter from a random start, so a restarted server does not reuse the
#: numbers a client may still hold.
_EPOCHS = itertools.count(random.randrange(1, 1_000_000) * 1000)
#: Query results (list tools' whole filtered tables) kept per dataset version.
QUERY_CACHE = 4
#: Mutations the change journal remembers (older ones answer ``changes_since`` with None).
JOURNAL_VERSIONS = 256

#: Columns of an asset brief (``Dataset.briefs``), in order.
BRIEF_COLUMNS = ["id", "name", "type", "provider", "region", "account_id", "arn",
                 "internet_exposed", "open_findings", "max_severity", "uri"]

_RANK_TO_SEVERITY = {s.rank: s.value for s in Severity}
#: Severity by rank + 1 (rank -1: no open finding -> None), for vectorised lookups.
_SEVERITY_OF_RANK = np.array(
    [None] + [_RANK_TO_SEVERITY.get(r) for r in range(max(_RANK_TO_SEVERITY) + 1)],
    dtype=object)


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and v != v) or v is pd.NA


#: Caches that read assets, edges or compliance only (or the finding join, which a change
#: of suppression flags keeps): they carry over to the next version after such a change.
_SUPPRESSION_KEEPS = frozenset({
    "index", "graph", "node_table", "node_arrays", "node_matrix", "edge_ids", "ports",
    "relationship_note", "edges_by_source", "edges_by_target", "controls_by_finding",
    "derived_exposure", "exposed_flags", "original_type", "search_text", "tags",
    "tag_index", "findings_by_asset", "brief_columns", "name_rank", "accounts_by_provider",
    "columns:assets",
    "columns:edges",
    "columns:compliance"})


def _survives_suppression(key: str) -> bool:
    # (list_findings' sort orders read severities, risk, ids, dates and resources: not flags)
    return key in _SUPPRESSION_KEEPS or key.startswith(("codes:", "findings_order:"))


def _rows_of_ids(ids: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """The row of each of ``cells`` among the (unique) asset ``ids``, -1 where none. Text:
    the distinct refs (usually far fewer than the assets) are hashed and every id is looked
    up among them, in Arrow; other cells take pandas' lookup (per-cell Python objects)."""
    if not len(cells):
        return np.zeros(0, dtype=np.int64)
    import pyarrow as pa
    import pyarrow.compute as pc

    codes, distinct = pd.factorize(cells)  # -1: no resource
    try:
        at = pc.index_in(pa.array(ids, pa.string()),
                         value_set=pa.array(np.asarray(distinct, dtype=object), pa.string()))
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # ids or refs not all text
        return pd.Index(ids).get_indexer(cells).astype(np.int64)
    of_distinct = at.fill_null(-1).to_numpy().astype(np.int64)
    rows = np.flatnonzero(of_distinct >= 0)
    # the row of each distinct ref (a last slot, -1, answers the missing cells' code -1)
    row_of = np.full(len(distinct) + 1, -1, dtype=np.int64)
    row_of[of_distinct[rows[::-1]]] = rows[::-1]  # (written last: the first row of an id)
    return row_of[codes]


def _severity_ranks(severity: pd.Series) -> np.ndarray:
    """The rank of each finding's severity (its distinct values looked up once)."""
    codes, uniques = pd.factorize(severity)
    rank_of = {s.value: s.rank for s in Severity}
    if (codes < 0).any() or any(u not in rank_of for u in uniques):
        return severity.map(rank_of).to_numpy(dtype=np.int64)  # (fails as it always did)
    return np.array([rank_of[u] for u in uniques], dtype=np.int64)[codes]


class FindingIndex:
    """Findings joined to assets: ``asset_row`` per finding (-1 = not in the inventory) and,
    per asset row, the open (unsuppressed) finding count, max severity rank and max risk."""

    def __init__(self, findings: pd.DataFrame, index: AssetIndex) -> None:
        n = index.n
        rid = findings["resource_id"].to_numpy(dtype=object)
        arn = findings["resource_arn"].to_numpy(dtype=object)
        rows = _rows_of_ids(index.ids, rid)
        missed = np.flatnonzero(rows < 0)
        by_arn = index.rows_of_arns([*arn[missed], *rid[missed]])
        for i in missed:
            hit = by_arn.get(arn[i]) if isinstance(arn[i], str) else None
            if hit is None and isinstance(rid[i], str):
                hit = by_arn.get(rid[i])
            rows[i] = -1 if hit is None else hit
        self.asset_row = rows
        self._ids = findings["id"]
        self._row_of_id: dict[str, int] | None = None
        self.severity_rank = _severity_ranks(findings["severity"])
        self._risk = findings["risk_score"].to_numpy(dtype=np.float64)
        self._n = n
        self._aggregate(findings)

    def _aggregate(self, findings: pd.DataFrame) -> None:
        """The per-asset open finding count, worst severity and risk (from the join)."""
        n, rows = self._n, self.asset_row
        sel = ~findings["is_suppressed"].to_numpy(dtype=bool) & (rows >= 0)
        self.open_count = np.bincount(rows[sel], minlength=n).astype(np.int64)[:n] if n else \
            np.zeros(0, dtype=np.int64)
        self.max_rank = np.full(n, -1, dtype=np.int64)
        self.max_risk = np.zeros(n, dtype=np.float64)
        if sel.any():
            np.maximum.at(self.max_rank, rows[sel], self.severity_rank[sel])
            np.maximum.at(self.max_risk, rows[sel], self._risk[sel])

    @property
    def row_of_id(self) -> dict[str, int]:
        """Finding id → row (built on first use: listing findings does not need it)."""
        table = self._row_of_id
        if table is None:
            table = self._row_of_id = {str(f): i for i, f in enumerate(self._ids.tolist())}
        return table

    def with_suppression_of(self, findings: pd.DataFrame) -> FindingIndex:
        """This index for ``findings`` that differ from its own only in which are suppressed
        (same rows, ids, assets, severities): the join is shared, the aggregates redone."""
        new = copy.copy(self)
        new._aggregate(findings)
        return new

    def max_severity(self, rows: np.ndarray | Sequence[int]) -> list[str | None]:
        return _SEVERITY_OF_RANK[self.max_rank[rows] + 1].tolist()


#: Set inside ``Dataset.cache_only()``: reads that would build a cache raise CacheMiss.
_CACHE_ONLY: contextvars.ContextVar[bool] = contextvars.ContextVar("cloudg_cache_only",
                                                                   default=False)


class CacheMiss(Exception):
    """Inside ``Dataset.cache_only()``: the answer needs work beyond cached lookups (an index
    to build, or an error with close matches to compute); redo the call where that may run."""


class RowGroups:
    """Row positions grouped by an integer key (findings by asset row, edges by endpoint):
    one stable argsort per version, then each lookup is a binary search returning the rows
    in their table order."""

    __slots__ = ("_order", "_sorted")

    def __init__(self, keys: np.ndarray) -> None:
        self._order = np.argsort(keys, kind="stable")
        self._sorted = keys[self._order]

    def rows(self, key: int) -> list[int]:
        lo, hi = np.searchsorted(self._sorted, (key, key + 1))
        return self._order[lo:hi].tolist()


def _native(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


class Dataset:
    """One estate: DataFrames, a version counter, and caches derived from them."""

    def __init__(
        self,
        assets: pd.DataFrame | None = None,
        edges: pd.DataFrame | None = None,
        findings: pd.DataFrame | None = None,
        compliance: pd.DataFrame | None = None,
        *,
        name: str = "dataset",
        source: str | None = None,
        kind: str | None = None,
        normalize: bool = True,
    ) -> None:
        self.name = name
        self.source = source
        self.kind = kind
        self.loaded_at = time.time()
        #: What a loader that checks record by record skipped and noted (``LoadReport``
        #: as a dict); empty for datasets not read by such a loader (samples, snapshots).
        self.load_report: dict[str, Any] = {}
        #: The dataset this one is a snapshot of (``Workspace.snapshot``), else None: the
        #: baseline ``diff_datasets`` compares with when no base is named.
        self.snapshot_of: str | None = None
        self.version = 1
        #: Random per Dataset object: a (epoch, version) pair names one state of one dataset,
        #: also across a reload under the same name (which starts again at version 1).
        self.epoch = next(_EPOCHS)
        #: (version, finding ids, asset ids) per recent mutation; None ids = anything changed.
        self._journal: deque[tuple[int, frozenset[str] | None, frozenset[str] | None]] = \
            deque(maxlen=JOURNAL_VERSIONS)
        self._lock = threading.RLock()
        self._cache: dict[str, Any] = {}
        self._listeners = Listeners(logger, "dataset listener")
        #: Called before a mutation with what changes (``suppressions`` or ``content``); it
        #: raises to refuse. The workspace holding the dataset sets it (ownership guard).
        self.guard: Callable[[str], None] | None = None
        # (a given frame stands in until _set_frames replaces it: no empty frame built for it)
        self._assets = empty_frame("assets") if assets is None else assets
        self._edges = empty_frame("edges") if edges is None else edges
        self._findings = empty_frame("findings") if findings is None else findings
        self._compliance = empty_frame("compliance") if compliance is None else compliance
        self._set_frames(assets, edges, findings, compliance, normalize)

    def __repr__(self) -> str:
        return (f"Dataset(name={self.name!r}, version={self.version}, assets={len(self._assets)},"
                f" edges={len(self._edges)}, findings={len(self._findings)})")

    @classmethod
    def from_records(
        cls,
        assets: Iterable[dict[str, Any]] = (),
        edges: Iterable[dict[str, Any]] = (),
        findings: Iterable[dict[str, Any]] = (),
        compliance: Iterable[dict[str, Any]] = (),
        **kwargs: Any,
    ) -> Dataset:
        """A dataset from dict records (the JSON shape of the models), normalised."""
        return cls(records_frame("assets", assets), records_frame("edges", edges),
                   records_frame("findings", findings), records_frame("compliance", compliance),
                   **kwargs)

    # -- frames ------------------------------------------------------------------------

    @property
    def assets(self) -> pd.DataFrame:
        return self._assets

    @property
    def edges(self) -> pd.DataFrame:
        return self._edges

    @property
    def findings(self) -> pd.DataFrame:
        return self._findings

    @property
    def compliance(self) -> pd.DataFrame:
        return self._compliance

    def _set_frames(self, assets: pd.DataFrame | None, edges: pd.DataFrame | None,
                    findings: pd.DataFrame | None, compliance: pd.DataFrame | None,
                    normalize: bool) -> None:
        if assets is not None:
            self._assets = (normalize_assets(assets) if normalize else assets).reset_index(
                drop=True)
        if edges is not None:
            self._edges = (normalize_edges(edges) if normalize else edges).reset_index(drop=True)
        if findings is not None:
            self._findings = (normalize_findings(findings) if normalize else findings
                              ).reset_index(drop=True)
        if compliance is not None:
            self._compliance = (normalize_compliance(compliance) if normalize else compliance
                                ).reset_index(drop=True)

    # -- mutation ----------------------------------------------------------------------

    def on_change(self, fn: Callable[[Dataset], Any]) -> Callable[[], None]:
        """Call ``fn(dataset)`` after every mutation; returns an unsubscribe function."""
        return self._listeners.add(fn)

    def _mutated(self, findings: Iterable[str] | None = None,
                 assets: Iterable[str] | None = None, *, suppression_only: bool = False) -> None:
        """Bump the version, recording what changed (``None``: anything may have). After a
        change of suppression flags alone, the caches that do not read them carry over."""
        with self._lock:
            self.version += 1
            old, self._cache = self._cache, {}
            if suppression_only:
                self._cache = {k: v for k, v in old.items() if _survives_suppression(k)}
                if "findings" in old:
                    self._cache["findings"] = old["findings"].with_suppression_of(
                        self._findings)
            known = findings is not None and assets is not None
            self._journal.append((self.version,
                                  frozenset(findings or ()) if known else None,
                                  frozenset(assets or ()) if known else None))
        self._listeners.emit(self)  # a broken listener must not undo the mutation

    def changes_since(self, version: int, upto: int | None = None
                      ) -> tuple[frozenset[str], frozenset[str]] | None:
        """The finding ids and asset ids changed after ``version`` up to ``upto`` (default:
        now); ``None`` when the journal cannot say (too old, a whole-frame update between,
        or a version this dataset never had)."""
        with self._lock:
            end = self.version if upto is None else min(upto, self.version)
            if version < 1 or version > end:
                return None
            entries = [e for e in self._journal if version < e[0] <= end]
            if len(entries) != end - version:
                return None
            findings: set[str] = set()
            assets: set[str] = set()
            for _, fids, aids in entries:
                if fids is None or aids is None:
                    return None
                findings |= fids
                assets |= aids
            return frozenset(findings), frozenset(assets)

    def update(
        self,
        *,
        assets: pd.DataFrame | None = None,
        edges: pd.DataFrame | None = None,
        findings: pd.DataFrame | None = None,
        compliance: pd.DataFrame | None = None,
        normalize: bool = True,
    ) -> None:
        """Replace some frames (normalised unless told not to); one version bump."""
        if self.guard is not None:
            self.guard("content")
        with self._lock:
            self._set_frames(assets, edges, findings, compliance, normalize)
        self._mutated()

    def _finding_rows(self, ids: Iterable[str]) -> tuple[list[int], list[str]]:
        fidx = self.finding_index()
        rows, unknown = [], []
        for fid in dict.fromkeys(str(i) for i in ids):
            row = fidx.row_of_id.get(fid)
            if row is None:
                unknown.append(fid)
            else:
                rows.append(row)
        return rows, unknown

    def _set_suppressed(self, ids: Iterable[str], value: bool, reason: str | None) -> dict:
        ids = [ids] if isinstance(ids, str) else list(ids)
        if self.guard is not None:  # outside the lock: the guard takes the workspace's
            self.guard("suppressions")
        with self._lock:
            rows, unknown = self._finding_rows(ids)
            if not rows and unknown:
                raise ReferenceNotFoundError(
                    "None of the finding ids is known; list_findings shows valid ids.",
                    data={"field": "ids", "close_matches": close_matches(
                        unknown[0], self._findings["id"].tolist())},
                )
            current = self._findings["is_suppressed"].to_numpy(dtype=bool)
            changed = [r for r in rows if current[r] != value]
            unchanged = [r for r in rows if current[r] == value]
            if changed:
                frame = self._findings.copy()
                flags = frame["is_suppressed"].to_numpy(dtype=bool).copy()
                flags[changed] = value
                frame["is_suppressed"] = flags
                reasons = frame["suppression_reason"].to_numpy(dtype=object).copy()
                reasons[changed] = reason if value else None
                frame["suppression_reason"] = reasons
                self._findings = frame
        fids = self._findings["id"].to_numpy(dtype=object)
        if changed:
            assets = self._assets_of_findings(changed)  # read with this version's index
            self._mutated(findings=[str(fids[r]) for r in changed], assets=assets,
                          suppression_only=True)
        key = "suppressed" if value else "unsuppressed"
        return {key: [str(fids[r]) for r in changed],
                "already": [str(fids[r]) for r in unchanged], "unknown": unknown,
                "version": self.version}

    def _assets_of_findings(self, rows: list[int]) -> list[str]:
        """The assets findings ``rows`` concern: as written (resource_id) and as resolved."""
        raw = self._findings["resource_id"].to_numpy(dtype=object)
        out = {str(raw[r]) for r in rows if isinstance(raw[r], str)}
        index = self.index
        asset_rows = self.finding_index().asset_row
        out.update(str(index.ids[asset_rows[r]]) for r in rows if asset_rows[r] >= 0)
        return sorted(out)

    def suppress_findings(self, ids: Iterable[str] | str, reason: str | None = None) -> dict:
        """Mark findings suppressed: {suppressed, already, unknown, version}.

        Bumps the version (and fires change events) only when something changed; raises
        ReferenceNotFoundError when no id is known.
        """
        return self._set_suppressed(ids, True, reason)

    def unsuppress_findings(self, ids: Iterable[str] | str) -> dict:
        """Clear suppression: {unsuppressed, already, unknown, version}."""
        return self._set_suppressed(ids, False, None)

    def copy(self, name: str | None = None) -> Dataset:
        """A deep copy (frames and their dict/list cells) at version 1, without listeners."""
        with self._lock:
            frames = [self._assets, self._edges, self._findings, self._compliance]
        copies = []
        for frame in frames:
            c = frame.copy(deep=True)
            for col in c.columns:
                if c[col].dtype == object:
                    values = c[col].tolist()
                    if any(isinstance(v, (dict, list)) for v in values):
                        c[col] = pd.Series(
                            [copy.deepcopy(v) if isinstance(v, (dict, list)) else v
                             for v in values], index=c.index, dtype=object)
            copies.append(c)
        return Dataset(*copies, name=name or self.name, source=self.source, kind=self.kind,
                       normalize=False)

    # -- caches ------------------------------------------------------------------------

    @contextlib.contextmanager
    def cache_only(self) -> Iterator[None]:
        """Inside: reading a cache that is not built yet, or an unknown reference (whose
        error computes close matches), raises CacheMiss instead of doing the work. Lets an
        event loop answer point lookups inline and hand anything slower to a thread."""
        token = _CACHE_ONLY.set(True)
        try:
            yield
        finally:
            _CACHE_ONLY.reset(token)

    def cached(self, key: str, build: Callable[[], T], *, progress: ProgressFn | None = None,
               label: str | None = None) -> T:
        """The cached value ``key`` of this version, built once (0/1 then 1/1 progress)."""
        cache = self._cache
        if key in cache:
            return cache[key]
        if _CACHE_ONLY.get():
            raise CacheMiss(key)
        with self._lock:
            cache = self._cache
            if key in cache:
                return cache[key]
            report(progress, 0, 1, f"building {label or key}")
            value = build()
            cache[key] = value
            report(progress, 1, 1, f"{label or key} ready")
            return value

    def cached_query(self, key: str, build: Callable[[], T]) -> T:
        """A query result of this version, kept for the ``QUERY_CACHE`` most recent keys
        (the pages of one query, read one after another, share one computation). Inside
        ``cache_only`` a key not cached raises CacheMiss."""
        if _CACHE_ONLY.get():  # never wait for the lock: a worker may be building a query
            cached: OrderedDict[str, Any] | None = self._cache.get("queries")
            if cached is None or key not in cached:
                raise CacheMiss(key)
            with contextlib.suppress(KeyError):  # evicted meanwhile by a worker
                cached.move_to_end(key)
                return cached[key]
            raise CacheMiss(key)
        with self._lock:
            queries: OrderedDict[str, Any] = self._cache.setdefault("queries", OrderedDict())
            if key in queries:
                queries.move_to_end(key)
                return queries[key]
            value = build()
            queries[key] = value
            while len(queries) > QUERY_CACHE:
                queries.popitem(last=False)
            return value

    @property
    def index(self) -> AssetIndex:
        """Reference lookups (ids, ARNs, names)."""
        return self.cached("index", lambda: AssetIndex(self._assets), label="asset index")

    def graph(self, progress: ProgressFn | None = None) -> EstateGraph:
        """Node numbering and adjacency views (views themselves build on first use); a
        cancelled ``progress`` stops the build between its phases (nothing is cached)."""
        check = checker(progress)

        def build() -> EstateGraph:
            row_of_arn = self.index.row_of_arn
            check()
            return EstateGraph(self._assets, self._edges, row_of_arn, check=check)

        return self.cached("graph", build, progress=progress, label="graph index")

    def view(self, name: str, progress: ProgressFn | None = None) -> Adjacency:
        """``graph().view(name)``; progress covers whichever of the two is built first."""
        if _CACHE_ONLY.get() and name not in self.graph()._views:
            raise CacheMiss(f"view:{name}")
        if "graph" not in self._cache and progress is not None:
            g = self.graph(rescaled(progress, 0, 0.5))
            return g.view(name, rescaled(progress, 0.5, 1))
        return self.graph().view(name, progress)

    def finding_index(self) -> FindingIndex:
        return self.cached("findings", lambda: FindingIndex(self._findings, self.index),
                           label="finding index")

    def node_table(self) -> pd.DataFrame:
        """One row per graph node (assets, then internet, then external endpoints)."""

        def build() -> pd.DataFrame:
            g = self.graph()
            a = self._assets
            ext = g.external_ids
            k = 1 + len(ext)

            def col(name: str, extra: list[Any]) -> pd.Series:
                values = a[name].to_numpy(dtype=object)
                missing = pd.isna(values)
                if missing.any():
                    values = values.copy()
                    values[missing] = None
                return pd.Series(np.concatenate([values, np.array(extra, dtype=object)]),
                                 dtype=object)

            return pd.DataFrame({
                "id": col("id", ["internet", *ext]),
                "name": col("name", ["Internet", *ext]),
                "type": col("asset_type", ["INTERNET"] + ["EXTERNAL"] * len(ext)),
                "provider": col("provider", [None] * k),
                "region": col("region", [None] * k),
                "account_id": col("account_id", [None] + [account_of_endpoint(x) for x in ext]),
                "arn": col("arn", [None] + [x if x.startswith("arn:") else None for x in ext]),
                "internet_exposed": np.concatenate(
                    [exposed_flags(self), np.zeros(k, dtype=bool)]),
            })

        return self.cached("node_table", build, label="node table")

    def columns(self, table: str) -> dict[str, np.ndarray]:
        """One frame (assets, edges, findings, compliance) as a numpy array per column
        (cached; object columns are views, not copies): point lookups read cells from these
        instead of slicing the DataFrame."""
        frame = {"assets": self._assets, "edges": self._edges, "findings": self._findings,
                 "compliance": self._compliance}[table]
        return self.cached(f"columns:{table}", lambda: {c: frame[c].to_numpy()
                                                        for c in frame.columns},
                           label=f"{table} columns")

    def record(self, table: str, row: int) -> dict[str, Any]:
        """Row ``row`` of a frame as a dict of plain Python values (as ``iloc[row].to_dict()``
        gives, without building a Series)."""
        return {c: _native(values[row]) for c, values in self.columns(table).items()}

    def brief(self, row: int) -> dict[str, Any]:
        """The brief (BRIEF_COLUMNS) of asset ``row`` as a dict: ``briefs([row])``'s only row,
        read from the cached columns and finding aggregates."""
        a = self.columns("assets")
        fidx = self.finding_index()
        asset_id = a["id"][row]
        out = {
            "id": asset_id, "name": a["name"][row], "type": a["asset_type"][row],
            "provider": a["provider"][row], "region": a["region"][row],
            "account_id": a["account_id"][row], "arn": a["arn"][row],
            "internet_exposed": bool(exposed_flags(self)[row]),
            "open_findings": int(fidx.open_count[row]),
            "max_severity": _RANK_TO_SEVERITY.get(int(fidx.max_rank[row])),
            "uri": asset_uri(asset_id),
        }
        if derived_exposure(self):
            out["exposure_derived_from"] = derived_only(self, [row])[0]
        return out

    def finding_rows_of(self, asset_row: int) -> list[int]:
        """Finding rows concerning asset ``asset_row``, in table order (cached grouping)."""
        return self.cached("findings_by_asset",
                           lambda: RowGroups(self.finding_index().asset_row),
                           label="findings by asset").rows(asset_row)

    def edge_rows_of(self, node: int, *, outgoing: bool) -> list[int]:
        """Stored edge rows leaving (``outgoing``) or entering graph node ``node``, in table
        order (cached grouping)."""
        key = "edges_by_source" if outgoing else "edges_by_target"
        return self.cached(key, lambda: RowGroups(self.graph().edge_src if outgoing
                                                  else self.graph().edge_dst),
                           label=key.replace("_", " ")).rows(node)

    def controls_of(self, finding_id: str) -> list[dict[str, Any]]:
        """Compliance controls listing finding ``finding_id`` (framework, control_id, status),
        in table order (cached index)."""

        def build() -> dict[str, list[dict[str, Any]]]:
            out: dict[str, list[dict[str, Any]]] = {}
            c = self.columns("compliance")
            for i, ids in enumerate(c["finding_ids"]):
                control = {"framework": _native(c["framework"][i]),
                           "control_id": _native(c["control_id"][i]),
                           "status": _native(c["status"][i])}
                for fid in dict.fromkeys(ids or []):
                    out.setdefault(fid, []).append(control)
            return out

        return [dict(c) for c in self.cached("controls_by_finding", build,
                                             label="controls by finding").get(finding_id, [])]

    def edge_ids(self) -> np.ndarray:
        """Edge ids as an object array, by edge row (cached)."""
        return self.cached("edge_ids", lambda: self._edges["id"].to_numpy(dtype=object),
                           label="edge ids")

    def codes(self, column: str) -> tuple[np.ndarray, np.ndarray]:
        """(codes, uniques) of an asset column via ``pd.factorize`` (cached): fast
        equality filters on low-cardinality columns such as provider or asset_type."""
        return self.cached(f"codes:{column}",
                           lambda: pd.factorize(self._assets[column].to_numpy(dtype=object)),
                           label=f"{column} codes")

    def node_arrays(self) -> dict[str, np.ndarray]:
        """``node_table`` as one object array per column (fast per-node lookups)."""

        def build() -> dict[str, np.ndarray]:
            t = self.node_table()
            return {c: t[c].to_numpy(dtype=object) for c in t.columns}

        return self.cached("node_arrays", build, label="node arrays")

    # -- references --------------------------------------------------------------------

    def resolve(self, ref: str, *, field: str = "ref") -> int:
        """The asset row ``ref`` names (see ``refs`` for the order); ReferenceNotFoundError."""
        if _CACHE_ONLY.get() and isinstance(ref, str):
            row = self.index.lookup(ref)[0] if ref.strip() else None
            if row is None:
                raise CacheMiss("ref")
            return row
        return self.index.resolve(ref, field=field)

    def resolve_node(self, ref: str, *, field: str = "ref") -> int:
        """A graph node: ``internet``/``0.0.0.0/0``, an asset reference, or an external id."""
        if isinstance(ref, str) and ref.strip().lower() in INTERNET_CIDRS:
            return self.graph().internet
        try:
            return self.resolve(ref, field=field)
        except ReferenceNotFoundError:
            node = self.graph().node_of_id(ref) if isinstance(ref, str) else None
            if node is not None:
                return node
            raise

    def asset(self, ref: str) -> Asset:
        return Asset.from_row(self.record("assets", self.resolve(ref)))

    def finding_row(self, finding_id: str) -> int:
        row = self.finding_index().row_of_id.get(str(finding_id))
        if row is None and _CACHE_ONLY.get():
            raise CacheMiss("finding_id")
        if row is None:
            raise ReferenceNotFoundError(
                "No finding has that id; list_findings shows valid ids.",
                data={"field": "finding_id", "close_matches": close_matches(
                    str(finding_id), self._findings["id"].tolist())},
            )
        return row

    def finding(self, finding_id: str) -> Finding:
        return Finding.from_row(self.record("findings", self.finding_row(finding_id)))

    def briefs(self, rows: np.ndarray | list[int] | None = None) -> pd.DataFrame:
        """Asset briefs (BRIEF_COLUMNS) for asset ``rows`` (all assets when None); on a
        dataset with exposure derived from findings, ``exposure_derived_from`` follows
        ``internet_exposed`` (the findings, when they alone make the asset exposed)."""
        a = self._assets
        every = rows is None
        rows = np.arange(len(a)) if rows is None else np.asarray(rows, dtype=np.int64)
        fidx = self.finding_index()
        static = self.brief_columns()
        out = static.copy(deep=False) if every else static.take(rows).reset_index(drop=True)
        out["internet_exposed"] = exposed_flags(self)[rows]
        out["open_findings"] = fidx.open_count[rows]
        out["max_severity"] = pd.Series(fidx.max_severity(rows), dtype=object).to_numpy()
        out = out[BRIEF_COLUMNS]
        if derived_exposure(self):
            out.insert(BRIEF_COLUMNS.index("internet_exposed") + 1, "exposure_derived_from",
                       pd.Series(derived_only(self, rows), dtype=object).to_numpy())
        return out

    def brief_columns(self) -> pd.DataFrame:
        """The brief columns read from the assets alone (id, name, type, provider, region,
        account_id, arn, uri) for every asset row, typed once (cached; they carry over a
        change of suppression flags). Do not modify."""

        def build() -> pd.DataFrame:
            a = self._assets
            out = {name: a[column].astype(object).to_numpy() for name, column in (
                ("id", "id"), ("name", "name"), ("type", "asset_type"),
                ("provider", "provider"), ("region", "region"),
                ("account_id", "account_id"), ("arn", "arn"))}
            out["uri"] = np.array([asset_uri(i) for i in out["id"]], dtype=object)
            return pd.DataFrame(out)

        return self.cached("brief_columns", build, label="asset briefs")

    def complete_refs(self, partial: str, limit: int = 100) -> list[str]:
        """Completion values for an asset reference (prefix on name/ARN/id, then substring)."""
        return self.index.complete(partial, limit)

    def complete_finding_ids(self, partial: str, limit: int = 100) -> list[str]:
        p = str(partial or "").lower()
        ids = [str(i) for i in self._findings["id"].tolist()]
        out = [i for i in ids if i.lower().startswith(p)]
        out += [i for i in ids if p and p in i.lower() and i not in out]
        return out[:limit]

    # -- summary -----------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        """Counts a reader needs to orient: assets by provider/type, findings by severity ..."""
        a, e, f, c = self._assets, self._edges, self._findings, self._compliance
        open_f = f[~f["is_suppressed"].astype(bool)] if len(f) else f
        fidx = self.finding_index()
        by_sev = open_f["severity"].value_counts() if len(open_f) else pd.Series(dtype=int)
        return {
            "name": self.name, "version": self.version, "source": self.source,
            "kind": self.kind, "loaded_at": self.loaded_at,
            "assets": len(a), "edges": len(e), "findings": len(f),
            "open_findings": len(open_f), "suppressed_findings": int(len(f) - len(open_f)),
            "orphan_findings": int((fidx.asset_row < 0).sum()),
            "internet_exposed_assets": int(exposed_flags(self).sum()),
            "internet_exposed_by_findings_only": sum(
                r is not None for r in derived_only(self, list(derived_exposure(self)))),
            "providers": {str(k): int(v) for k, v in a["provider"].value_counts().items()},
            "asset_types": {str(k): int(v) for k, v in a["asset_type"].value_counts().items()},
            "accounts": int(a["account_id"].nunique()),
            "regions": sorted(str(r) for r in a["region"].dropna().unique()),
            "findings_by_severity": {s.value: int(by_sev.get(s.value, 0))
                                     for s in Severity.ordered()},
            "edge_types": {str(k): int(v) for k, v in e["edge_type"].value_counts().items()},
            "compliance_frameworks": sorted(str(x) for x in c["framework"].unique()),
        }
