"""LiveFrame: a list query kept current — its DataFrame re-read whenever the data changes.

``client.live(tool, **args)`` runs the query (all pages, up to ``max_rows``), subscribes to the
resources its dataset's content shows through (``cloudg://datasets/{name}/summary|assets|
findings``, plus ``cloudg://workspace`` when the query follows the active dataset; the version
shown is the result's ``dataset_version``) and re-runs it when one changes, with the lifecycle
of every display that follows the workspace (``follow.Follower``: debounced, one refresh at a
time, on the client loop; a failed refresh keeps the old frame and says so in the caption). In
a kernel it shows ONE widget tree (``VBox([HTML caption, grid])``, the grid of ``grid.py``, or
an HTML table with ``grid=False`` / ``CLOUDG_GRID=html`` / no perspective) made on the creating
thread (the grid's viewer when first shown); updates only assign traits and replace the grid's
rows. Elsewhere it renders as HTML / text.
"""

from __future__ import annotations

import datetime
import html
import time
from typing import TYPE_CHECKING, Any

from ..layer.wire import (
    ARROW_FORMAT,
    CHANGED_SINCE_META,
    COLUMNS_UNAVAILABLE,
    FORMAT_META,
    MAX_ROWS_META,
    WORKSPACE_URI,
    dataset_uris,
)
from .call_result import CloudGError, ErrorInfo
from .follow import Follower, ago
from .frame_delta import apply_delta
from .progress_bars import progress_for

if TYPE_CHECKING:
    import asyncio

    import pandas

    from .backends import ProgressFn
    from .call_result import Result
    from .client_api import ClientAPI
    from .grid import DataGrid

__all__ = ["LiveFrame", "DEBOUNCE_SECONDS", "TABLE_ROWS", "MAX_ROWS", "ago", "apply_delta"]

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


def _columns_unavailable(result: Result) -> bool:
    return result.is_error and result.error is not None and \
        result.error.code == COLUMNS_UNAVAILABLE


def _tick_after(age: float) -> float:
    """When the caption's "updated ... ago" next changes enough to be worth a message."""
    if age < 10:
        return 1.0
    if age < 60:
        return 10.0
    if age < 3600:
        return 60.0
    return 3600.0


class LiveFrame(Follower):
    """A query's DataFrame that refreshes itself when the workspace data changes.

    ``df`` (the current frame), ``version`` (the dataset version it shows), ``updated_at``,
    ``dataset``, ``error`` (of the last failed refresh, else None), ``pause()``, ``resume()``,
    ``refresh()``, ``close()``. Build it with ``client.live(tool, **args)``.
    """

    remake = "client.live()"

    def __init__(self, client: ClientAPI, tool: str, arguments: dict[str, Any], *,
                 debounce: float = DEBOUNCE_SECONDS, max_rows: int = MAX_ROWS,
                 widget: bool | None = None, start: bool = True,
                 grid: bool | None = None, progress: bool | ProgressFn = True) -> None:
        import pandas

        self.tool = tool
        self.arguments = dict(arguments)
        self.max_rows = max_rows
        self.df: pandas.DataFrame = pandas.DataFrame()
        self.version: int | None = None
        self.dataset: str | None = None
        self.updated_at: datetime.datetime | None = None
        self.total: int | None = None
        #: How the last refresh read its data: "changes" (only the rows changed since the
        #: frame's version) or "full" (every page).
        self.last_read: str | None = None
        self._updated_mono = 0.0
        self._tick: asyncio.TimerHandle | None = None
        self._page_limit: int | None = None  # the tool's largest page, once asked
        self._page_limit_known = False
        self._delta_base: str | None = None
        self._columns: list[str] | None = None
        self._caption: Any = None
        self._table: Any = None
        self._grid_choice = grid
        self._grid: DataGrid | None = None
        #: Hears the first load's progress reports (then None: refreshes show in the caption).
        self._progress: ProgressFn | None = progress if callable(progress) else None
        self._show_first_load = progress is True
        super().__init__(client, min_interval=debounce, debounce=debounce, widget=widget,
                         start=start)

    def _open(self) -> None:
        """The first query (blocking), behind a progress display when asked for (it shows
        once the load takes longer than a moment, or the tool reports progress)."""
        shown = progress_for(self.tool) if self._show_first_load else None
        if shown is not None:
            self._progress = shown.update
        started = time.monotonic()
        try:
            super()._open()
        except BaseException as exc:
            if shown is not None:
                why = "interrupted" if isinstance(exc, KeyboardInterrupt) else "failed"
                shown.finish(ok=False, summary=f"{self.tool}: {why} after "
                                               f"{time.monotonic() - started:.1f} s")
            raise
        if shown is not None:
            shown.finish(ok=True, summary=f"{self.tool}: {len(self.df)} rows · "
                                          f"{time.monotonic() - started:.1f} s")

    # -- public --------------------------------------------------------------------------------

    def __repr__(self) -> str:
        return f"<LiveFrame {self.caption()}>"

    def caption(self) -> str:
        """``updated 2 s ago · dataset demo v4 · 12 rows`` (with the state in front)."""
        state = self.state()
        parts = [state] if state else []
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
        from .readable_table import readable_table

        out = readable_table(self.df, columns=self._columns, max_rows=TABLE_ROWS).html
        if len(self.df) > TABLE_ROWS:
            out += (f"<div class='cloudg-note'>showing {TABLE_ROWS} of {len(self.df)} rows "
                    "(all rows are in <code>.df</code>)</div>")
        return out

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        from .readable_table import readable_table

        shown = readable_table(self.df, columns=self._columns, max_rows=TABLE_ROWS)
        text = f"{self.caption()}\n{shown.text}"
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

    # -- the lifecycle's hooks (on the client loop) ----------------------------------------------

    async def _start(self) -> None:
        try:
            await super()._start()
        finally:
            self._progress = None  # refreshes show in the caption

    async def _subscribe(self) -> None:
        """Nothing before the first read: each read subscribes first (``_follow_dataset``)."""

    def _delay(self) -> float:
        """A change after a quiet spell is read at once (after ``LEAD_SECONDS`` for the rest
        of its events); while changes keep coming, once per ``debounce``."""
        quiet = self._loop.loop.time() - self._refreshed_at >= self.debounce
        return min(LEAD_SECONDS, self.debounce) if quiet else self.debounce

    def _failed(self, exc: Exception) -> None:
        if self._dirty:  # changed meanwhile (a stale cursor, most likely): the rerun tells
            return
        super()._failed(exc)

    def _refreshed(self) -> None:
        self._schedule_tick()

    async def _stop(self) -> None:
        if self._tick is not None:
            self._tick.cancel()
            self._tick = None
        await super()._stop()

    # -- reading (on the client loop) ------------------------------------------------------------

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

    async def _follow_dataset(self, name: str | None) -> None:
        """Subscribe to what the frame's content depends on (and drop what it no longer does)."""
        wanted = list(dataset_uris(name)) if name else []
        if not self.arguments.get("dataset"):
            wanted.append(WORKSPACE_URI)
        await self._follow(wanted)

    async def _read(self) -> None:
        """(Re)subscribe, then read what changed (a delta) or every page.

        Subscriptions come first so no change between the read and the subscription is
        missed: the named dataset's URIs, or — following the active dataset — the workspace
        (which changes with every dataset change) plus the URIs of the dataset last shown.
        A frame holding a whole result asks for only the rows changed since (the request's
        ``cloudg/changed_since`` = the result's ``delta_base``); tools or states that cannot
        answer so reply with a first page, and the frame reads every page."""
        import pandas

        name = str(self.arguments.get("dataset") or self.dataset or "") or None
        await self._follow_dataset(name)
        args = dict(self.arguments)
        if self._page_limit:
            args["limit"] = self._page_limit
        whole = {FORMAT_META: ARROW_FORMAT, MAX_ROWS_META: self.max_rows}
        meta = dict(whole)
        if self._delta_base and self.total == len(self.df):
            meta[CHANGED_SINCE] = self._delta_base
        result = await self.client.arequest(self.tool, args, meta=meta, progress=self._progress)
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
                await self._follow_dataset(dataset)
            shown = data.get("dataset_version")
            held = data.get("delta_base")
            self._hold(columns, dataset, shown if isinstance(shown, int) else None,
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
        rows = rows[: self.max_rows]
        # one frame from every page's rows, built as Result.df builds one page
        frame = pandas.DataFrame.from_records(rows) if rows and all(
            isinstance(r, dict) for r in rows) else pandas.DataFrame({"value": rows})
        if dataset != name:  # first read, or the active dataset changed
            await self._follow_dataset(dataset)
        self._hold(frame, dataset, version, total, base)

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
        self._hold(frame, self.dataset, version if isinstance(version, int) else None,
                   len(frame), base if isinstance(base, str) else None, read="changes")
        return True

    def _hold(self, frame: pandas.DataFrame, dataset: str | None, version: int | None,
              total: int | None, base: str | None, read: str = "full") -> None:
        """Keep a read's frame (the refresh then renders it)."""
        self.df = frame
        self.last_read = read
        self.dataset = dataset
        self.version = version
        self.total = total
        self._delta_base = base
        self.updated_at = datetime.datetime.now(datetime.UTC)
        self._updated_mono = time.monotonic()

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
