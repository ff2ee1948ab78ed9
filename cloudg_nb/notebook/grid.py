"""The interactive grid for LiveFrames and large results: perspective's Jupyter widget.

The rows stay in the kernel, in a perspective ``Table`` (its C++ engine); the viewer in the
browser (WebAssembly, shipped inside the perspective-python wheel as an anywidget module, so
nothing comes from a CDN) asks the kernel for the rows it draws, as Arrow. 500,000 rows
scroll, sort and filter without ever travelling as one message. ``DataGrid.show(frame)``
replaces the rows in place, from any thread; only a frame whose columns no longer fit the
table (a column added, a type that cannot be kept) gets a new viewer in the same container.
``CLOUDG_GRID=html`` (or perspective not installed) keeps the HTML tables.

anywidget evaluates a widget's module once per widget, and perspective 5.6's bundle defines
some custom elements (``regular-layout``) without checking whether an earlier copy did, so the
second grid on a page failed; ``_viewer_class`` prefixes the bundle with a guard that skips
defining an element name that is already defined (the first definition serves every copy).
perspective's widget keeps the theme Python gave it (Pro Light); ``follow_theme`` wraps it in
``static/grid_theme.js`` so the viewer shows Pro Light or Pro Dark as the page's theme is
(JupyterLab's ``data-jp-theme-light``, VS Code's body class) and switches with it.

perspective's ``Table.replace`` is a clear and then an update: a read from another thread in
between sees no rows. A LiveFrame replaces rows on its client's loop thread while the kernel's
thread serves the viewer's reads, so the viewer drew a header over an empty body, and kept it
when that was its last draw. ``ENGINE_LOCK`` makes the two take turns: ``DataGrid`` replaces
rows under it and the viewer's requests are served under it (synchronously, on the kernel's
thread, in ``_viewer_class``'s ``handle_message``).
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import json
import math
import os
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .progress_bars import kernel_shell
from .readable_table import TABLE_ROWS

if TYPE_CHECKING:
    import pandas
    import pyarrow

__all__ = ["DataGrid", "ENGINE_LOCK", "GRID_ENV", "LARGE_RESULT_ROWS", "grid_available", "use_grid",
           "to_arrow", "column_kinds", "SchemaChanged"]

#: ``CLOUDG_GRID=html`` (or ``off``, ``0``, ``false``): tables stay HTML everywhere.
GRID_ENV = "CLOUDG_GRID"
#: A list result or table with more rows than this shows as a grid in a kernel (smaller
#: ones stay an HTML table, which is quicker to read and saves with the notebook): the rows
#: an HTML table shows (``readable_table.TABLE_ROWS``), so no row is ever out of sight.
LARGE_RESULT_ROWS = TABLE_ROWS
#: Grid heights in pixels: the header and toolbar, one row, and the most the grid takes.
_CHROME_PX, _ROW_PX, _MIN_PX, _MAX_PX = 70, 24, 160, 520
_OFF = {"html", "off", "0", "false", "no"}
#: Held while the grid's perspective tables change and while a viewer's request is served: a
#: viewer never reads a table halfway through a ``replace`` (see the module's docstring).
ENGINE_LOCK = threading.RLock()


def grid_available() -> bool:
    """Whether the grid can be used: perspective imports and ``CLOUDG_GRID`` allows it."""
    if os.environ.get(GRID_ENV, "").strip().lower() in _OFF:
        return False
    try:
        import perspective.widget  # noqa: F401
    except Exception:  # not installed, or its native part does not load here
        return False
    return True


def use_grid(choice: bool | None = None) -> bool:
    """Whether a table should be a grid: ``choice`` False never; True when available;
    None (the default) when available and running in a kernel (a browser shows it)."""
    if choice is False or not grid_available():
        return False
    return choice is True or kernel_shell() is not None


class SchemaChanged(ValueError):
    """A frame does not fit a table's columns and types (a new viewer is needed)."""


# -- DataFrame -> Arrow, with the types perspective shows -----------------------------------------

#: perspective's column types that a DataFrame column maps to.
_KINDS = ("integer", "float", "boolean", "datetime", "string")


def column_kinds(frame: pandas.DataFrame) -> dict[str, str]:
    """Each column's grid type: integer, float, boolean, datetime or string (anything else,
    lists and dicts as JSON)."""
    return {name: _kind(frame[column]) for name, column in _named(frame)}


def _kind(series: pandas.Series) -> str:
    from pandas.api import types

    if types.is_bool_dtype(series.dtype):
        return "boolean"
    if types.is_integer_dtype(series.dtype):
        return "integer"
    if types.is_float_dtype(series.dtype):
        return "float"
    if types.is_datetime64_any_dtype(series.dtype):
        return "datetime"
    inferred = types.infer_dtype(series, skipna=True)
    if inferred == "boolean":
        return "boolean"
    if inferred == "integer":
        return "integer"
    if inferred in ("floating", "mixed-integer-float", "decimal"):
        return "float"
    if inferred in ("datetime", "datetime64", "date"):
        return "datetime"
    return "string"


def _named(frame: pandas.DataFrame) -> list[tuple[str, Any]]:
    """(unique string name, column label) pairs in order."""
    seen: dict[str, int] = {}
    out: list[tuple[str, Any]] = []
    for column in frame.columns:
        name = str(column)
        if name in seen:
            seen[name] += 1
            name = f"{name} ({seen[name]})"
        else:
            seen[name] = 1
        out.append((name, column))
    return out


def _integral(series: pandas.Series) -> bool:
    values = series.dropna()
    try:
        return bool(((values % 1) == 0).all())
    except TypeError:
        return False


def to_arrow(frame: pandas.DataFrame, kinds: Mapping[str, str] | None = None) -> pyarrow.Table:
    """``frame`` as an Arrow table typed by ``kinds`` (``column_kinds`` of the frame when
    None); raises ``SchemaChanged`` when the frame has columns ``kinds`` lacks, or values
    that a column's type cannot hold. Columns ``kinds`` has but the frame lacks are null."""
    import pyarrow as pa

    named = dict(_named(frame))
    kinds = dict(kinds) if kinds is not None else column_kinds(frame)
    extra = [name for name in named if name not in kinds]
    if extra:
        raise SchemaChanged(f"new columns: {', '.join(extra)}")
    arrays = []
    for name, kind in kinds.items():
        if name in named:
            arrays.append(_array(frame[named[name]], kind))
        else:
            arrays.append(pa.nulls(len(frame), type=_arrow_type(kind)))
    return pa.Table.from_arrays(arrays, names=list(kinds))


def _arrow_type(kind: str) -> pyarrow.DataType:
    import pyarrow as pa

    return {"integer": pa.int64(), "float": pa.float64(), "boolean": pa.bool_(),
            "datetime": pa.timestamp("ms"), "string": pa.string()}[kind]


def _array(series: pandas.Series, kind: str) -> pyarrow.Array:
    """One column as an Arrow array of ``kind`` (strings dictionary-encoded: perspective
    loads those fastest); raises ``SchemaChanged`` for values the kind cannot hold."""
    import pandas as pd
    import pyarrow as pa
    from pandas.api import types

    if kind == "string":
        try:
            array = pa.array(series, type=pa.string(), from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            array = pa.array([_text(v) for v in series.tolist()], type=pa.string())
        return array.dictionary_encode()
    if kind == "datetime":
        values = pd.to_datetime(series, errors="coerce", utc=True)
        if (values.isna() & series.notna()).any():
            raise SchemaChanged(f"{series.name}: not all dates")
        return pa.array(values.dt.tz_localize(None).astype("datetime64[ms]"),
                        type=pa.timestamp("ms"), from_pandas=True)
    if kind == "boolean":
        if types.is_bool_dtype(series.dtype):
            return pa.array(series, type=pa.bool_(), from_pandas=True)
        cells = series.tolist()
        if not all(isinstance(v, bool) or _missing(v) or type(v).__name__ == "bool_"
                   for v in cells):
            raise SchemaChanged(f"{series.name}: not all booleans")
        return pa.array([None if _missing(v) else bool(v) for v in cells], type=pa.bool_())
    if types.is_bool_dtype(series.dtype):
        raise SchemaChanged(f"{series.name}: booleans, not numbers")
    if types.is_numeric_dtype(series.dtype):
        numbers = series
    else:
        numbers = pd.to_numeric(series, errors="coerce")
        if (numbers.isna() & series.notna()).any():
            raise SchemaChanged(f"{series.name}: not all numbers")
    if kind == "integer":
        if types.is_float_dtype(numbers.dtype) and not _integral(numbers):
            raise SchemaChanged(f"{series.name}: not all whole numbers")
        return pa.array(numbers.astype("Int64"), type=pa.int64(), from_pandas=True)
    return pa.array(numbers.astype("float64"), type=pa.float64(), from_pandas=True)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or (
        type(value).__name__ in ("NaTType", "NAType"))


def _text(value: Any) -> str | None:
    if _missing(value):
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (Mapping, list, tuple)):
        return json.dumps(value, default=str, ensure_ascii=False)
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return str(value)


def arrow_bytes(table: pyarrow.Table) -> bytes:
    """An Arrow table as IPC stream bytes (what perspective loads fastest)."""
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return bytes(sink.getvalue().to_pybytes())


def grid_height(rows: int) -> int:
    """Pixels for a grid of ``rows`` rows: all of a short frame, at most ``_MAX_PX``."""
    return max(_MIN_PX, min(_MAX_PX, _CHROME_PX + _ROW_PX * max(rows, 1)))


# -- the widget ------------------------------------------------------------------------------------

#: Runs before perspective's bundle: a second copy of the bundle on the page (one per widget)
#: skips the custom elements the first copy defined, instead of failing.
_DEFINE_ONCE = """\
if (!customElements.__cloudgDefineOnce) {
  const define = customElements.define.bind(customElements);
  customElements.define = (name, constructor, options) =>
    customElements.get(name) ? undefined : define(name, constructor, options);
  customElements.__cloudgDefineOnce = true;
}
"""


#: perspective's bundle ends ``export{<widget> as default, ...}``: the widget is re-exported
#: wrapped by grid_theme.js's ``cloudgFollowTheme``.
_EXPORTS = re.compile(r"export\s*\{([^{}]*)\}\s*;?\s*(//# sourceMappingURL=\S*\s*)?$")
#: perspective's light and dark themes in a grid: numbers and placeholders (the untitled title)
#: darker on the light one and lighter on the dark one than perspective's, so text reads at
#: least 4.5:1; in JupyterLab and Notebook 7, the notebook's own background (the theme's
#: ``--jp-layout-color0``) and dim text (``--jp-ui-font-color2``).
_THEME_CSS = """
.cloudg-grid perspective-viewer[theme="Pro Light"],
.cloudg-grid perspective-viewer [theme="Pro Light"] {
  --psp-datagrid--pos-cell--color: #1f6fb2;
  --psp-datagrid--neg-cell--color: #c62828;
  --psp-inactive--color: #707070;
}
.cloudg-grid perspective-viewer[theme="Pro Dark"],
.cloudg-grid perspective-viewer [theme="Pro Dark"] {
  --psp-inactive--color: #9a9ea6;
}
body[data-jp-theme-light] .cloudg-grid
  perspective-viewer:is([theme="Pro Light"], [theme="Pro Dark"]),
body[data-jp-theme-light] .cloudg-grid
  perspective-viewer :is([theme="Pro Light"], [theme="Pro Dark"]) {
  --psp--background-color: var(--jp-layout-color0);
  background-color: var(--jp-layout-color0);
  --psp-inactive--color: var(--jp-ui-font-color2);
}
"""


def follow_theme(bundle: str) -> str:
    """perspective's anywidget module with its widget wrapped by ``grid_theme.js``: the
    viewer's theme follows the page's, light or dark. A bundle laid out otherwise (another
    perspective build) is returned as it is: its viewer keeps perspective's theme."""
    match = _EXPORTS.search(bundle)
    names = [part.strip() for part in match.group(1).split(",")] if match else []
    widget = [name.split(" as ")[0].strip() for name in names if name.endswith(" as default")]
    if match is None or len(widget) != 1:
        return bundle
    kept = [name for name in names if not name.endswith(" as default")]
    follower = (Path(__file__).parent / "static" / "grid_theme.js").read_text(encoding="utf-8")
    return (f"{bundle[:match.start()]}export {{{', '.join(kept)}}};\n{follower}\n"
            f"export default cloudgFollowTheme({widget[0]});\n")


@functools.cache
def _viewer_class() -> type:
    """perspective's ``PerspectiveWidget`` with its module behind ``_DEFINE_ONCE`` and its
    theme following the page's (``follow_theme``)."""
    import perspective.widget as psp

    static = Path(psp.__file__).parent / "static"
    bundle = (static / "perspective-anywidget.js").read_text(encoding="utf-8")
    css = (static / "perspective-anywidget.css").read_text(encoding="utf-8")
    return type("GridViewer", (psp.PerspectiveWidget,), {
        "_esm": _DEFINE_ONCE + follow_theme(bundle), "_css": css + _THEME_CSS,
        "handle_message": _handle_message, "__module__": __name__,
        "__doc__": "perspective's viewer; its module defines each custom element once, its "
                   "theme follows the page's and its requests are served under ENGINE_LOCK."})


def _handle_message(self: Any, widget: Any, content: Any, buffers: Any) -> None:
    """A message from the viewer in the browser: a request to the engine is served at once,
    under ``ENGINE_LOCK`` (perspective's own handler serves it later in a task, unlocked);
    anything else (connect, hang up) as perspective does."""
    import perspective.widget as psp

    if isinstance(content, dict) and content.get("type") == "binary_msg" and buffers:
        session = self._sessions.get(content.get("client_id"))
        if session is not None:
            with ENGINE_LOCK:
                session.handle_request(bytes(buffers[0]))
            return
    psp.PerspectiveWidget.handle_message(self, widget, content, buffers)


class DataGrid:
    """A DataFrame in an interactive grid; ``show(frame)`` updates it in place.

    ``widget`` is the container shown (a VBox holding perspective's viewer, ``viewer``);
    ``table`` the perspective Table holding the rows. Sort, filter and the columns shown are
    the viewer's (``viewer.sort``, ``viewer.filter``, ``viewer.columns``, synced both ways);
    ``columns(...)`` sets the columns shown, ``rows()`` reads the rows back (tests, exports).
    """

    def __init__(self, frame: pandas.DataFrame | None = None, *, title: str | None = None,
                 columns: Sequence[str] | None = None, height: int | None = None) -> None:
        import ipywidgets as widgets

        self._lock = threading.RLock()
        self.title = title
        self._shown: list[str] | None = None if columns is None else [str(c) for c in columns]
        self._fixed_height = height
        self.kinds: dict[str, str] = {}
        self.table: Any = None
        self.viewer: Any = None
        self.rebuilds = 0
        self.widget = widgets.VBox([], layout=widgets.Layout(width="100%"))
        self.widget.add_class("cloudg-grid")
        if frame is not None:
            self.show(frame)

    # -- public ----------------------------------------------------------------------------------

    @property
    def size(self) -> int:
        """Rows in the table."""
        table = self.table
        if table is None:
            return 0
        with ENGINE_LOCK:
            return int(table.size())

    def show(self, frame: pandas.DataFrame) -> None:
        """Make ``frame`` the grid's rows: replaced in the same table (the viewer keeps its
        sort, filter and scroll) when it fits the table's columns, else a new table and
        viewer in the same container. Safe from the client's loop thread."""
        with self._lock:
            if self.table is not None:
                try:
                    data = to_arrow(frame, self.kinds)
                except SchemaChanged:
                    pass
                else:
                    rows = arrow_bytes(data)
                    with ENGINE_LOCK:
                        self.table.replace(rows)
                    return
            self._build(frame)

    def show_first(self, frame: Callable[[], pandas.DataFrame],
                   columns: Sequence[str] | None = None) -> None:
        """Build the viewer from ``frame()`` unless it is built: for a grid made empty on one
        thread and first shown on another (a LiveFrame's rows arrive on the client loop,
        its widget is displayed on the kernel's thread), so widgets open where displayed."""
        with self._lock:
            if self.viewer is None:
                self._shown = None if columns is None else [str(c) for c in columns]
                self._build(frame())

    def update(self, frame: pandas.DataFrame, columns: Sequence[str] | None = None) -> bool:
        """``show(frame)`` and ``columns(columns)`` once the viewer is built (else False:
        ``show_first`` reads the rows then)."""
        with self._lock:
            if self.viewer is None:
                return False
            self.columns(columns)
            self.show(frame)
            return True

    def columns(self, names: Sequence[str] | None) -> None:
        """Show only ``names`` (those the table has), in that order; None: every column."""
        with self._lock:
            self._shown = None if names is None else [str(c) for c in names]
            if self.viewer is not None:
                self.viewer.columns = self._visible()

    def rows(self) -> list[dict[str, Any]]:
        """Every row of the table as a dict (in table order; no sort or filter)."""
        with self._lock:
            if self.table is None:
                return []
            with ENGINE_LOCK:
                view = self.table.view()
                try:
                    return list(view.to_records())
                finally:
                    view.delete()

    def close(self) -> None:
        """Close the viewer and free the table."""
        with self._lock:
            self._drop()
            self.widget.close()

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        bundle = self.widget._repr_mimebundle_()
        bundle = bundle[0] if isinstance(bundle, tuple) else bundle
        return {**bundle, "text/plain": f"<DataGrid {self.size} rows>"}

    # -- building ----------------------------------------------------------------------------------

    def _visible(self) -> list[str]:
        if self._shown is None:
            return list(self.kinds)
        return [c for c in self._shown if c in self.kinds]

    def _build(self, frame: pandas.DataFrame) -> None:
        import ipywidgets as widgets
        import perspective

        kinds = column_kinds(frame)
        if not kinds:
            kinds = {"value": "string"}
        rows = arrow_bytes(to_arrow(frame, kinds))
        with ENGINE_LOCK:
            table = perspective.table(rows)
        height = self._fixed_height or grid_height(len(frame))
        old = self.viewer
        config: dict[str, Any] = {}
        if old is not None:  # keep what the person set where it still applies
            config = {key: value for key, value in (
                ("sort", [s for s in old.sort if s and s[0] in kinds]),
                ("filter", [f for f in old.filter if f and f[0] in kinds])) if value}
        self.kinds = kinds
        viewer = _viewer_class()(
            table, plugin="Datagrid", settings=False, title=self.title,
            columns=self._visible(), **config)
        # (perspective's constructor takes no ``layout``; its CSS gives 520 px, at least; in
        # a VBox its ``flex: 1`` would shrink it to nothing)
        viewer.layout = widgets.Layout(height=f"{height}px", min_height=f"{height}px",
                                       width="100%", flex="0 0 auto")
        old_table = self.table
        self.table, self.viewer = table, viewer
        self.widget.children = (viewer,)
        _close(old, old_table)
        if old is not None:
            self.rebuilds += 1

    def _drop(self) -> None:
        viewer, table = self.viewer, self.table
        self.viewer = self.table = None
        _close(viewer, table)


def _close(viewer: Any, table: Any) -> None:
    if viewer is not None:
        viewer.close()
    if table is not None:
        # a view open in a browser holds the table: it stays
        with ENGINE_LOCK, contextlib.suppress(Exception):
            table.delete()


def grid_display(frame: pandas.DataFrame, below_html: str = "",
                 columns: Sequence[str] | None = None) -> Any:
    """A large table as shown in a kernel: its grid (every row; ``columns`` shown first, the
    others a click away in the viewer's settings), and ``below_html`` (a caption) under it;
    None where the grid is not used (the caller shows HTML)."""
    if not use_grid():
        return None
    import ipywidgets

    grid = DataGrid(frame, height=_MAX_PX, columns=columns)
    if not below_html:
        return grid.widget
    return ipywidgets.VBox([grid.widget, ipywidgets.HTML(below_html)])
