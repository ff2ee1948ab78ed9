"""LiveFrame: a list query kept current — its DataFrame re-read whenever the data changes.

``client.live(tool, **args)`` runs the query (all pages, up to ``max_rows``), subscribes to the
resources its dataset's content shows through (``cloudg://datasets/{name}/summary|assets|
findings``, plus ``cloudg://workspace`` when the query follows the active dataset; the version
shown is the result's ``dataset_version``) and re-runs
it, debounced, when one changes — one refresh at a time, on the client loop. A failed refresh
keeps the old frame and says so in the caption. In a kernel it shows ONE widget tree
(``VBox([HTML caption, grid])``, the grid of ``grid.py``, or an HTML table with ``grid=False``
/ ``CLOUDG_GRID=html`` / no perspective) made on the creating thread (the grid's viewer when
first shown); updates only assign traits and replace the grid's rows. Elsewhere it renders as
HTML / text.
"""

from __future__ import annotations

import asyncio
import datetime
import html
import logging
import math
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..layer.wire import (
    ARROW_FORMAT,
    CHANGED_SINCE_META,
    COLUMNS_UNAVAILABLE,
    FORMAT_META,
    MAX_ROWS_META,
)
from .progress import kernel_shell, progress_for
from .result import CloudGError, ErrorInfo

if TYPE_CHECKING:
    import pandas

    from .backends import ProgressFn
    from .client import Client
    from .grid import DataGrid
    from .loop import LoopThread
    from .result import Result

__all__ = ["LiveFrame", "DEBOUNCE_SECONDS", "TABLE_ROWS", "MAX_ROWS", "apply_delta"]

logger = logging.getLogger("cloudg.notebook")

#: Change events closer together than this cause one refresh: while changes keep coming, a
#: LiveFrame refreshes at most once per this.
DEBOUNCE_SECONDS = 0.03
#: The wait before refreshing on a change after a quiet spell: enough for the rest of that
#: mutation's events (they leave the server in one burst), not a whole debounce.
LEAD_SECONDS = 0.005
#: Request ``_meta`` asking a list tool for the rows changed since a result's ``delta_base``,
#: and for a whole result as Arrow columns (served by ``cloudg_nb.catalog.conventions.page``).
CHANGED_SINCE = CHANGED_SINCE_META
#: Rows the displayed table shows ("showing 50 of N").
TABLE_ROWS = 50
#: Rows a LiveFrame reads at most (pages stop there).
MAX_ROWS = 1_000_000
WORKSPACE_URI = "cloudg://workspace"
#: How long a caption says "reconnected ... ago" after the client re-established its session.
RECONNECT_NOTE_SECONDS = 600.0


def reconnect_note(client: Client) -> str | None:
    """``reconnected 12 s ago`` while the client's last reconnection is recent, else None."""
    at = getattr(client, "reconnected_at", None)
    if at is None:
        return None
    age = time.time() - at
    return f"reconnected {ago(max(0.0, age))}" if age < RECONNECT_NOTE_SECONDS else None


def _columns_unavailable(result: Result) -> bool:
    return result.is_error and result.error is not None and \
        result.error.code == COLUMNS_UNAVAILABLE


def dataset_uris(name: str) -> list[str]:
    return [f"cloudg://datasets/{name}/{part}" for part in ("summary", "assets", "findings")]


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


def ago(seconds: float) -> str:
    """``2 s ago``, ``3 min ago``, ``2 h ago``."""
    if seconds < 60:
        return f"{int(seconds)} s ago"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    return f"{int(seconds // 3600)} h ago"


def _tick_after(age: float) -> float:
    """When the caption's "updated ... ago" next changes enough to be worth a message."""
    if age < 10:
        return 1.0
    if age < 60:
        return 10.0
    if age < 3600:
        return 60.0
    return 3600.0


class LiveFrame:
    """A query's DataFrame that refreshes itself when the workspace data changes.

    ``df`` (the current frame), ``version`` (the dataset version it shows), ``updated_at``,
    ``dataset``, ``error`` (of the last failed refresh, else None), ``pause()``, ``resume()``,
    ``refresh()``, ``close()``. Build it with ``client.live(tool, **args)``.
    """

    def __init__(self, client: Client, tool: str, arguments: dict[str, Any], *,
                 debounce: float = DEBOUNCE_SECONDS, max_rows: int = MAX_ROWS,
                 widget: bool | None = None, start: bool = True,
                 grid: bool | None = None, progress: bool | ProgressFn = True) -> None:
        import pandas

        self.client = client
        self.tool = tool
        self.arguments = dict(arguments)
        self.debounce = debounce
        self.max_rows = max_rows
        self.df: pandas.DataFrame = pandas.DataFrame()
        self.version: int | None = None
        self.dataset: str | None = None
        self.updated_at: datetime.datetime | None = None
        self.error: ErrorInfo | None = None
        self.total: int | None = None
        self.refreshes = 0
        #: How the last refresh read its data: "changes" (only the rows changed since the
        #: frame's version) or "full" (every page).
        self.last_read: str | None = None
        self._updated_mono = 0.0
        self._refreshed_mono = -math.inf  # when the last refresh ended
        self._paused = False
        self._closed = False
        self._stale = False
        self._dirty = False
        self._timer: asyncio.TimerHandle | None = None
        self._tick: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[None] | None = None
        self._lock: asyncio.Lock | None = None
        self._subscribed: dict[str, Callable[[], Awaitable[None]]] = {}
        self._page_limit: int | None = None  # the tool's largest page, once asked
        self._page_limit_known = False
        self._delta_base: str | None = None
        self._columns: list[str] | None = None
        self.widget: Any = None
        self._caption: Any = None
        self._table: Any = None
        self._grid_choice = grid
        self._grid: DataGrid | None = None
        #: Hears the first load's progress reports (then None: refreshes show in the caption).
        self._progress: ProgressFn | None = progress if callable(progress) else None
        if widget if widget is not None else kernel_shell() is not None:
            self._make_widgets()
        if start:
            self._first_load(progress is True)

    def _first_load(self, display: bool) -> None:
        """Run the first query (blocking), behind a progress display when ``display`` (it
        shows once the load takes longer than a moment, or the tool reports progress)."""
        shown = progress_for(self.tool) if display else None
        if shown is not None:
            self._progress = shown.update
        started = time.monotonic()
        try:
            self._loop.run(self._start())
        except BaseException as exc:
            if shown is not None:
                why = "interrupted" if isinstance(exc, KeyboardInterrupt) else "failed"
                shown.finish(ok=False, summary=f"{self.tool}: {why} after "
                                               f"{time.monotonic() - started:.1f} s")
            self._loop.run(self._unsubscribe_all())
            raise
        finally:
            self._progress = None
        if shown is not None:
            shown.finish(ok=True, summary=f"{self.tool}: {len(self.df)} rows · "
                                          f"{time.monotonic() - started:.1f} s")

    @classmethod
    async def aopen(cls, client: Client, tool: str, arguments: dict[str, Any],
                    **options: Any) -> LiveFrame:
        """Build a LiveFrame from async code (``await client.alive(...)``): the widgets are
        made on the calling thread, the first query awaited without blocking its loop."""
        frame = cls(client, tool, arguments, start=False, **options)
        future = frame._loop.submit(frame._start())
        try:
            await asyncio.wrap_future(future)
        except BaseException:
            await asyncio.wrap_future(frame._loop.submit(frame._unsubscribe_all()))
            raise
        finally:
            frame._progress = None
        return frame

    # -- public --------------------------------------------------------------------------------

    @property
    def _loop(self) -> LoopThread:
        return self.client.loop

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def closed(self) -> bool:
        return self._closed

    def refresh(self) -> None:
        """Re-run the query now (blocks until done); a failure keeps the old frame and is
        shown in the caption and in ``error``."""
        if self._closed:
            raise RuntimeError("this LiveFrame is closed; make a new one with client.live()")
        self._loop.run(self._refresh())

    def pause(self) -> None:
        """Stop refreshing (changes are remembered)."""
        self._paused = True
        self._loop.call_soon(self._render_caption)

    def resume(self) -> None:
        """Refresh again on changes; refreshes now if something changed while paused."""
        self._paused = False
        self._loop.call_soon(self._resumed)

    def close(self) -> None:
        """Unsubscribe and stop refreshing for good; the last frame stays shown."""
        if self._closed:
            return
        self._closed = True
        if self._loop.alive:
            self._loop.run(self._stop())

    def __repr__(self) -> str:
        return f"<LiveFrame {self.caption()}>"

    def caption(self) -> str:
        """``updated 2 s ago · dataset demo v4 · 12 rows`` (with the state in front)."""
        parts: list[str] = []
        if self._closed:
            parts.append("closed")
        elif self._paused:
            parts.append("paused" + (" (changes waiting)" if self._stale else ""))
        if self.error is not None:
            parts.append(f"refresh failed: {self.error.message}")
        note = reconnect_note(self.client)
        if note is not None:
            parts.append(note)
        if self.updated_at is not None:
            parts.append(f"updated {ago(time.monotonic() - self._updated_mono)}")
        if self.dataset:
            parts.append(f"dataset {self.dataset}"
                         + (f" v{self.version}" if self.version is not None else ""))
        rows = f"{len(self.df)} rows"
        if self.total is not None and self.total > len(self.df):
            rows += f" (of {self.total}; max_rows={self.max_rows})"
        parts.append(rows)
        return " · ".join(parts)

    @property
    def columns(self) -> list[str] | None:
        """The columns the displayed table shows (None: all); ``.df`` keeps every column.
        Setting it re-renders the table in place: ``lf.columns = ["id", "severity"]``."""
        return self._columns

    @columns.setter
    def columns(self, value: list[str] | None) -> None:
        self._columns = None if value is None else [str(c) for c in value]
        self._render()

    def table_html(self) -> str:
        """The first ``TABLE_ROWS`` rows as an HTML table, with "showing 50 of N" when cut."""
        shown = self.df.head(TABLE_ROWS)
        if self._columns is not None:
            shown = shown[[c for c in self._columns if c in shown.columns]]
        out = shown.to_html(index=False, border=0, max_cols=30, notebook=True, na_rep="—")
        if len(self.df) > TABLE_ROWS:
            out += (f"<div class='cloudg-note'>showing {TABLE_ROWS} of {len(self.df)} rows "
                    "(all rows are in <code>.df</code>)</div>")
        return out

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        shown = self.df.head(TABLE_ROWS)
        if self._columns is not None:
            shown = shown[[c for c in self._columns if c in shown.columns]]
        text = f"{self.caption()}\n{shown.to_string(index=False)}"
        if self._grid is not None:  # its viewer is made here, on the displaying thread
            self._grid.show_first(lambda: self.df, self._columns)
        if self.widget is not None:
            bundle = self.widget._repr_mimebundle_()
            bundle = bundle[0] if isinstance(bundle, tuple) else bundle
            return {**bundle, "text/plain": text}
        caption = f"<div class='cloudg-caption'><small>{html.escape(self.caption())}</small></div>"
        return {"text/html": caption + self.table_html(), "text/plain": text}

    # -- widgets (created on the constructing thread) ------------------------------------------

    def _make_widgets(self) -> None:
        import ipywidgets as widgets

        from .grid import DataGrid, use_grid

        self._caption = widgets.HTML(value="")
        if use_grid(self._grid_choice):
            self._grid = DataGrid(title=self.tool)
            self.widget = widgets.VBox([self._caption, self._grid.widget])
            return
        self._table = widgets.HTML(value="")
        self.widget = widgets.VBox([self._caption, self._table])

    def _render_caption(self) -> None:
        if self._caption is not None:
            self._caption.value = f"<small>{html.escape(self.caption())}</small>"

    def _render(self) -> None:
        if self._grid is not None:
            with self.widget.hold_sync():
                self._grid.update(self.df, self._columns)  # (once shown: see show_first)
                self._render_caption()
        elif self._table is not None:
            with self.widget.hold_sync():
                self._table.value = self.table_html()
                self._render_caption()

    # -- on the client loop --------------------------------------------------------------------

    async def _start(self) -> None:
        self._lock = asyncio.Lock()
        async with self._lock:
            await self._run_query(raise_errors=True)
        self._schedule_tick()

    async def _paged(self, args: dict[str, Any]) -> dict[str, Any] | None:
        """``args`` with the tool's largest ``limit`` (fewer pages), or None when that is
        what they already ask (the caller's own limit, or the tool has none). Asked the first
        time pages are read, not before: a whole result sent as columns needs no pages."""
        if "limit" in self.arguments:
            return None
        if not self._page_limit_known:
            self._page_limit = await self._largest_page()
            self._page_limit_known = True
        if not self._page_limit or args.get("limit") == self._page_limit:
            return None
        return {**args, "limit": self._page_limit}

    async def _largest_page(self) -> int | None:
        """The tool's largest ``limit`` (None: it has none, or the tools are unreadable)."""
        try:
            tools = await self.client.atools()
        except Exception:
            return None
        for spec in tools:
            if spec.get("name") == self.tool:
                limit = (spec.get("inputSchema") or {}).get("properties", {}).get("limit", {})
                maximum = limit.get("maximum") if isinstance(limit, dict) else None
                return int(maximum) if isinstance(maximum, (int, float)) else None
        return None

    async def _follow(self, name: str | None) -> None:
        """Subscribe to what the frame's content depends on (and drop what it no longer does)."""
        wanted = dataset_uris(name) if name else []
        if not self.arguments.get("dataset"):
            wanted.append(WORKSPACE_URI)
        for uri in [u for u in self._subscribed if u not in wanted]:
            unsubscribe = self._subscribed.pop(uri)
            try:
                await unsubscribe()
            except Exception:
                logger.debug("unsubscribing %s failed", uri, exc_info=True)
        for uri in wanted:
            if uri not in self._subscribed:
                self._subscribed[uri] = await self.client.asubscribe(uri, self._changed)

    async def _run_query(self, *, raise_errors: bool = False) -> None:
        """(Re)subscribe, then read what changed (a delta) or every page; apply or record
        the failure.

        Subscriptions come first so no change between the read and the subscription is
        missed: the named dataset's URIs, or — following the active dataset — the workspace
        (which changes with every dataset change) plus the URIs of the dataset last shown.
        A frame holding a whole result asks for only the rows changed since (the request's
        ``cloudg/changed_since`` = the result's ``delta_base``); tools or states that cannot
        answer so reply with a first page, and the frame reads every page."""
        import pandas

        try:
            name = str(self.arguments.get("dataset") or self.dataset or "") or None
            await self._follow(name)
            args = dict(self.arguments)
            if self._page_limit:
                args["limit"] = self._page_limit
            whole = {FORMAT_META: ARROW_FORMAT, MAX_ROWS_META: self.max_rows}
            meta = dict(whole)
            if self._delta_base and self.total == len(self.df):
                meta[CHANGED_SINCE] = self._delta_base
            result = await self.client.arequest(self.tool, args, meta=meta,
                                                progress=self._progress)
            if CHANGED_SINCE in meta:
                if self._applied_delta(result):
                    return
                if isinstance(result.data, dict) and "delta" in result.data:
                    result = await self.client.arequest(self.tool, args, meta=whole)  # again
            if _columns_unavailable(result):  # the policy cannot send columns: read pages
                args = await self._paged(args) or args
                result = await self.client.arequest(self.tool, args)
            columns = None if result.is_error else result.columns_frame()
            if columns is not None:
                data = result.data if isinstance(result.data, dict) else {}
                dataset = str(data.get("dataset") or name or "") or None
                if dataset != name:
                    await self._follow(dataset)
                shown = data.get("dataset_version")
                held = data.get("delta_base")
                self._show(columns, dataset, shown if isinstance(shown, int) else None,
                           len(columns), held if isinstance(held, str) else None)
                return
            if not result.is_error and result.next_cursor:
                larger = await self._paged(args)  # more pages to come: read them larger
                if larger is not None:
                    args = larger
                    result = await self.client.arequest(self.tool, args)
            rows: list[Any] = []
            total: int | None = None
            version: int | None = None
            base: str | None = None
            dataset = name
            while True:
                if result.is_error:
                    raise CloudGError(result.error or ErrorInfo("error", result.text))
                page = result._rows()
                if page is None:
                    raise CloudGError(ErrorInfo(
                        "not_a_list", f"{self.tool} does not return a list; a LiveFrame needs "
                                      "a list tool (find_assets, list_findings ...)."))
                rows.extend(page)
                data = result.data if isinstance(result.data, dict) else {}
                dataset = str(data.get("dataset") or dataset or "") or None
                if version is None and isinstance(data.get("dataset_version"), int):
                    version = data["dataset_version"]  # the version the first page came from
                    base = data.get("delta_base") if isinstance(
                        data.get("delta_base"), str) else None
                if isinstance(data.get("total"), int):
                    total = data["total"]
                cursor = result.next_cursor
                if not cursor or len(rows) >= self.max_rows:
                    break
                args = {**args, "cursor": cursor}
                result = await self.client.arequest(self.tool, args)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if raise_errors:
                raise
            if self._dirty:  # changed meanwhile (a stale cursor, most likely): the rerun tells
                return
            self.error = exc.error if isinstance(exc, CloudGError) else ErrorInfo(
                "connection", f"{type(exc).__name__}: {exc}")
            self._render_caption()
            return
        rows = rows[: self.max_rows]
        # one frame from every page's rows, built as Result.df builds one page
        frame = pandas.DataFrame.from_records(rows) if rows and all(
            isinstance(r, dict) for r in rows) else pandas.DataFrame({"value": rows})
        if dataset != name:  # first read, or the active dataset changed
            await self._follow(dataset)
        self._show(frame, dataset, version, total, base)

    def _applied_delta(self, result: Result) -> bool:
        """Apply a changed-rows answer to the frame shown; False when it is not one or does
        not fit (then the caller reads the whole result)."""
        data = result.data if not result.is_error and isinstance(result.data, dict) else None
        delta = data.get("delta") if data else None
        if not isinstance(delta, dict) or data is None:
            return False
        if data.get("dataset") not in (None, self.dataset):
            return False
        frame = apply_delta(self.df, delta, result._rows() or [], data.get("total"))
        if frame is None:
            return False
        version = data.get("dataset_version")
        base = data.get("delta_base")
        self._show(frame, self.dataset, version if isinstance(version, int) else None,
                   len(frame), base if isinstance(base, str) else None, read="changes")
        return True

    def _show(self, frame: pandas.DataFrame, dataset: str | None, version: int | None,
              total: int | None, base: str | None, read: str = "full") -> None:
        self.df = frame
        self.last_read = read
        self.dataset = dataset
        self.version = version
        self.total = total
        self._delta_base = base
        self.error = None
        self.updated_at = datetime.datetime.now(datetime.UTC)
        self._updated_mono = time.monotonic()
        self.refreshes += 1
        self._render()

    async def _refresh(self) -> None:
        assert self._lock is not None
        self._dirty = False
        async with self._lock:
            try:
                await self._run_query()
            finally:
                self._refreshed_mono = time.monotonic()
        self._schedule_tick()

    def _changed(self, uri: str) -> None:
        """A subscribed resource changed (loop thread): refresh soon after a quiet spell,
        else after the debounce."""
        if self._closed:
            return
        if self._paused:
            self._stale = True
            self._render_caption()
            return
        self._dirty = True
        if self._timer is None and (self._task is None or self._task.done()):
            quiet = time.monotonic() - self._refreshed_mono >= self.debounce
            delay = min(LEAD_SECONDS, self.debounce) if quiet else self.debounce
            self._timer = self._loop.loop.call_later(delay, self._fire)

    def _fire(self) -> None:
        self._timer = None
        if self._closed or self._paused:
            return
        self._task = self._loop.loop.create_task(self._refresh_while_dirty())

    async def _refresh_while_dirty(self) -> None:
        try:
            while self._wanted():
                await self._refresh()
                if self._wanted():  # changes kept coming: gather them for one refresh
                    await asyncio.sleep(self.debounce)
        except Exception:
            logger.exception("LiveFrame refresh failed")

    def _wanted(self) -> bool:
        return self._dirty and not self._closed and not self._paused

    def _resumed(self) -> None:
        if self._closed:
            return
        if self._stale:
            self._stale = False
            self._changed("resume")
        else:
            self._render_caption()

    def _schedule_tick(self) -> None:
        """Keep "updated N s ago" current (captions only; a message per tick at most)."""
        if self._tick is not None:
            self._tick.cancel()
        if self._closed or self._caption is None:
            return
        age = time.monotonic() - self._updated_mono

        def tick() -> None:
            self._tick = None
            self._render_caption()
            self._schedule_tick()

        self._tick = self._loop.loop.call_later(_tick_after(age), tick)

    async def _unsubscribe_all(self) -> None:
        for uri in list(self._subscribed):
            unsubscribe = self._subscribed.pop(uri)
            try:
                await unsubscribe()
            except Exception:
                logger.debug("unsubscribing %s failed", uri, exc_info=True)

    async def _stop(self) -> None:
        for handle in (self._timer, self._tick):
            if handle is not None:
                handle.cancel()
        self._timer = self._tick = None
        if self._task is not None and not self._task.done():
            self._task.cancel()
        await self._unsubscribe_all()
        self._render_caption()

