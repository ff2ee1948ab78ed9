"""The tool conventions every catalog module shares (catalog reference §2).

Argument types with their descriptions and constraints (``DatasetArg``: empty = the active
dataset; ``LimitArg``/``CursorArg`` for paging; ``RefArg`` for asset references), the dataset
lookup, and ``page`` — the paging envelope whose cursor fingerprints the dataset version and
the call's filter arguments, so it goes stale when either changes. ``inline_when_cached``
lets a sync list tool answer a small page on the event loop when everything it reads is
cached (``ToolSpec.inline``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, cast

import numpy as np
import pandas as pd
from pydantic import Field

from ..estate import DEFAULT_LIMIT, MAX_LIMIT, Dataset, frame_records, paginate
from ..estate.dataset import CacheMiss
from ..estate.paging import FrameRows
from ..estate.progress_callbacks import ProgressFn
from ..layer.context import ToolContext
from ..layer.jsonable import to_jsonable
from ..layer.wire import ARROW_FORMAT, CHANGED_SINCE_META, FORMAT_META, MAX_ROWS_META
from ..layer.workers import LIGHT, RunInWorker

if TYPE_CHECKING:
    from ..workspace import Workspace

__all__ = [
    "DatasetArg", "LimitArg", "CursorArg", "RefArg", "OptionalRefArg", "StrList",
    "dataset_of", "workspace_of", "page", "filters", "progress_of", "CHANGED_SINCE", "delta_base",
    "request_meta", "query_key", "point_lookup", "inline_when_cached", "INLINE_ROWS",
    "FORMAT", "ARROW", "MAX_ROWS",
]

T = TypeVar("T")

DatasetArg = Annotated[str, Field(
    max_length=64,
    description="Name of a loaded dataset (list_datasets shows them); empty means the active "
                "dataset.")]
LimitArg = Annotated[int, Field(
    ge=1, le=MAX_LIMIT, description=f"Items per page, 1-{MAX_LIMIT} (default {DEFAULT_LIMIT}).")]
CursorArg = Annotated[str | None, Field(
    max_length=40,
    description="The next_cursor of the previous page, to continue; omit for the first page. "
                "It goes stale when the dataset changes or the filters differ.")]
RefArg = Annotated[str, Field(
    min_length=1, max_length=2048,
    description="An asset reference: id, ARN, name, or the text after the last '/' of an ARN "
                "(resolved in that order; ambiguous names list candidates).")]
OptionalRefArg = Annotated[str | None, Field(
    max_length=2048,
    description="An asset reference (id, ARN or name); graph tools also accept 'internet'.")]
#: A list of enum values; one comma-separated string is accepted too.
StrList = list[str] | str | None


def workspace_of(ctx: ToolContext) -> Workspace:
    """The layer's workspace, as the catalog's tools are written against it: a layer built
    by ``build_layer`` (or without a workspace given) always holds a ``Workspace``."""
    return cast("Workspace", ctx.workspace)


def dataset_of(ctx: ToolContext, name: str | None = "") -> Dataset:
    """The dataset ``name`` (the active one when empty); NoDatasetError with a hint else."""
    return workspace_of(ctx).get(name or "")


async def point_lookup(ctx: ToolContext, ds: Dataset, fn: Callable[..., T], /,
                       *args: Any) -> T:
    """``fn(*args)``, a lookup that only reads ``ds``'s cached indexes: run right on the event
    loop when every cache it reads is built (microseconds, less than the hop to a worker
    thread and back, and no GIL contention with busy workers), else in a light worker thread,
    where the first call after a change builds the indexes (seconds on a large estate) and an
    unknown reference's error computes its close matches."""
    try:
        with ds.cache_only():
            return fn(*args)
    except CacheMiss:
        if ctx.layer is None:  # a handler called outside a layer has no worker lanes
            return fn(*args)
        return await ctx.layer.workers.run(LIGHT, ctx.principal, fn, *args)


#: Pages of at most this many rows may answer on the event loop (``inline_when_cached``).
INLINE_ROWS = 50


def inline_when_cached(handler: Callable[..., T], *, max_depth: int | None = None
                       ) -> Callable[..., T]:
    """The ``inline`` fast path of a sync list tool: ``handler`` itself, run on the event
    loop inside ``Dataset.cache_only`` for a page of at most ``INLINE_ROWS`` rows (and, with
    ``max_depth``, a ``depth`` no deeper), not a delta. Then it only slices a cached query or
    walks one hop over built graph views: tens of µs, less than the hop to a worker thread
    and back. Anything else — a query or index not built yet, an unknown reference (its
    error computes close matches) — raises ``RunInWorker`` and the handler runs in its
    worker lane as before, with the same answer."""

    def inline(ctx: ToolContext, **kwargs: Any) -> T:
        limit = kwargs.get("limit", DEFAULT_LIMIT)
        if not isinstance(limit, int) or limit > INLINE_ROWS or (
                max_depth is not None and kwargs.get("depth", 1) > max_depth) or (
                CHANGED_SINCE in request_meta(ctx)):
            raise RunInWorker
        ds = dataset_of(ctx, kwargs.get("dataset", ""))
        try:
            with ds.cache_only():
                return handler(ctx, **kwargs)
        except CacheMiss:
            raise RunInWorker from None

    return inline


def progress_of(ctx: ToolContext) -> ProgressFn:
    """The progress callback a sync handler passes to estate functions; it carries the
    call's ``check_cancelled`` so a cancelled call stops between phases and levels."""
    return ctx.progress_sync


def query_key(tool: str, *parts: Mapping[str, Any], **more: Any) -> str:
    """A cache key for one query of ``tool`` with these arguments (``Dataset.cached_query``)."""
    merged: dict[str, Any] = {}
    for part in parts:
        merged.update(part)
    merged.update(more)
    return tool + json.dumps(merged, sort_keys=True, default=str)


def filters(**args: Any) -> dict[str, Any]:
    """The call's filter arguments as the cursor fingerprint sees them (lists kept in order)."""
    return {k: list(v) if isinstance(v, (list, tuple)) else v for k, v in args.items()}


#: Request ``_meta`` keys of a caller that reads columns (the notebook client): ``FORMAT`` =
#: ``ARROW`` asks a list tool for its whole result (up to ``MAX_ROWS`` rows, default and cap
#: ``COLUMN_ROWS``) as Arrow IPC columns in ``columns``, instead of a page of ``items``.
FORMAT, ARROW, MAX_ROWS = FORMAT_META, ARROW_FORMAT, MAX_ROWS_META
COLUMN_ROWS = 1_000_000


def _max_rows(value: Any) -> int:
    try:
        wanted = int(value)
    except (TypeError, ValueError):
        return COLUMN_ROWS
    return max(1, min(wanted, COLUMN_ROWS))


#: Request ``_meta`` key: the ``delta_base`` of a result the caller holds; list tools that
#: support it answer with only the rows that changed since (see ``page``).
CHANGED_SINCE = CHANGED_SINCE_META
_BASE = re.compile(r"e(\d{1,12})v(\d{1,12})")
#: More changed rows than this and a delta is no cheaper than a full read: send a page.
MAX_DELTA_ROWS = 2_000


def delta_base(ds: Dataset, version: int) -> str:
    """Names the dataset state a result came from: ``e<epoch>v<version>``."""
    return f"e{ds.epoch}v{version}"


def page(
    ds: Dataset,
    version: int,
    items: pd.DataFrame | Sequence[Any],
    args: Mapping[str, Any],
    limit: int | None,
    cursor: str | None,
    *,
    ctx: ToolContext | None = None,
    delta_keys: Sequence[str] = (),
    rows_key: str | None = None,
    **summary: Any,
) -> dict[str, Any]:
    """``{dataset, dataset_version, **summary, total, offset, returned, next_cursor,
    truncated, items}``.

    ``version`` is the dataset version read before the query ran, so a page computed while
    the dataset changed carries a cursor that is already stale; it is returned as
    ``dataset_version`` (notebook captions show "dataset demo v3").

    Tools whose rows are keyed by finding or asset ids name those columns in ``delta_keys``;
    their pages carry a ``delta_base``. A caller that sends one back in the request's
    ``_meta`` (``cloudg/changed_since``) gets, when the dataset's journal reaches back that
    far, only the rows that changed: ``items`` are the changed rows that still match, in
    result order, and ``delta`` = ``{since, keys, key_columns, positions}``: drop the rows
    whose key columns hold one of ``keys``, then put each item at its position in the new
    result of ``total`` rows. Otherwise the answer is an ordinary page.

    ``rows_key`` names a DataFrame ``items`` that is the same for the same key while the
    dataset version holds (a cached query's result, with any column selection in the key):
    its rows are converted once for every page read from it (``FrameRows``).
    """
    base = {"delta_base": delta_base(ds, version)} if delta_keys else {}
    since = request_meta(ctx).get(CHANGED_SINCE) if delta_keys and ctx is not None else None
    if isinstance(since, str) and isinstance(items, pd.DataFrame) and cursor is None:
        delta = _delta(ds, version, items, since, delta_keys)
        if delta is not None:
            rows, info = delta
            return {"dataset": ds.name, "dataset_version": version, **base,
                    **to_jsonable(summary), "total": len(items), "offset": 0,
                    "returned": len(rows), "next_cursor": None, "truncated": False,
                    "items": rows, "delta": info}
    wanted = request_meta(ctx).get(FORMAT) if ctx is not None else None
    if wanted == ARROW and isinstance(items, pd.DataFrame) and cursor is None:
        from .frame_columns import FrameColumns  # pyarrow, only when columns are asked for

        size = min(len(items), _max_rows(request_meta(ctx).get(MAX_ROWS)))
        return {"dataset": ds.name, "dataset_version": version, **base,
                **to_jsonable(summary), "total": len(items), "offset": 0, "returned": size,
                "next_cursor": None, "truncated": size < len(items), "items": [],
                "columns": FrameColumns(items.iloc[:size])}
    listed: pd.DataFrame | FrameRows | Sequence[Any] = items
    if rows_key is not None and isinstance(items, pd.DataFrame):
        listed = _frame_rows(ds, version, rows_key, items)
    envelope = paginate(listed, dataset=ds.name, version=version, args=args, limit=limit,
                        cursor=cursor)
    return {"dataset": ds.name, "dataset_version": version, **base, **to_jsonable(summary),
            **envelope}


#: Queries whose converted rows a dataset version keeps (the store empties when full); each
#: holds its query's frame, so about as many as the dataset's query cache keeps.
ROWS_KEPT = 4


def _frame_rows(ds: Dataset, version: int, key: str, frame: pd.DataFrame) -> FrameRows:
    """The converted rows kept for ``key`` of dataset ``version`` (made on first use; the
    version is the one read before the query ran, as in ``page``)."""
    store: dict[str, FrameRows] = ds.cached("page_rows", dict)
    key = f"{version}:{key}"
    rows = store.get(key)
    if rows is None:
        if len(store) >= ROWS_KEPT:
            store.clear()
        rows = store[key] = FrameRows(frame)
    return rows


def request_meta(ctx: ToolContext | None) -> Mapping[str, Any]:
    """The ``cloudg/`` entries of the request's ``_meta`` (empty for in-process calls that
    set none)."""
    meta = ctx.meta.get("request") if ctx is not None else None
    return meta if isinstance(meta, Mapping) else {}


def _delta(ds: Dataset, version: int, items: pd.DataFrame, since: str,
           keys: Sequence[str]) -> tuple[list[dict[str, Any]], dict[str, Any]] | None:
    found = _BASE.fullmatch(since)
    if found is None or int(found.group(1)) != ds.epoch:
        return None
    changes = ds.changes_since(int(found.group(2)), upto=version)
    if changes is None:
        return None
    changed = sorted(changes[0] | changes[1])
    columns = [c for c in keys if c in items.columns]
    if not columns:
        return None
    hit = np.zeros(len(items), dtype=bool)
    if changed:
        for column in columns:
            hit |= items[column].isin(changed).to_numpy(dtype=bool)
    positions = np.flatnonzero(hit)
    if len(positions) > MAX_DELTA_ROWS:
        return None
    rows = frame_records(items.iloc[positions]) if len(positions) else []
    return rows, {"since": since, "keys": changed, "key_columns": columns,
                  "positions": [int(p) for p in positions]}
