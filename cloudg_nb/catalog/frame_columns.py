"""``FrameColumns``: a list result's rows as Arrow IPC columns (the layer's ``Columns``).

Each column's cells are converted to JSON values as a page's rows are (``to_jsonable``), its
distinct values go through the layer's column transform (the output pipeline), and the column
is written back by their codes: text as a dictionary-encoded Arrow string column, numbers and
flags densely, lists and mappings as JSON text named in ``json_columns``. The stream is zstd
compressed and base64 encoded into the structured result.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from ..estate.frames import text_array
from ..layer.column_results import MISSING, ColumnTransform
from ..layer.jsonable import PLAIN_TYPES, to_jsonable

__all__ = ["ARROW_FORMAT", "FrameColumns"]

#: ``format`` of the encoded columns.
ARROW_FORMAT = "arrow-ipc"
_SEQUENCES = frozenset((list, tuple))
_UNHASHABLE = frozenset((list, dict, set))
#: Joins the items of a list of text into its key (used only when no item holds it).
_SEP = "\x1f"


def _distinct(series: pd.Series) -> tuple[np.ndarray, list[Any]]:
    """(codes, distinct JSON values) of a column; cells that are lists or mappings are told
    apart by their JSON text."""
    try:
        if len(series) and type(series.iat[0]) in _UNHASHABLE:
            raise TypeError  # (what factorize would say, after a pass over the column)
        if series.dtype == object and (text := _object_text(series)) is not None:
            return text
        codes, uniques = pd.factorize(series, use_na_sentinel=False)
        cells = np.asarray(uniques, dtype=object).tolist()
        if set(map(type, cells)) <= PLAIN_TYPES:  # (text columns: no per-cell Python)
            return codes.astype(np.int32), cells
        return codes.astype(np.int32), [v if type(v) in PLAIN_TYPES else to_jsonable(v)
                                        for v in cells]
    except TypeError:  # unhashable cells (tags, metadata)
        cells = series.tolist()
        lists = _text_lists(cells)
        if lists is not None:
            return lists
        index: dict[str, int] = {}
        values: list[Any] = []
        out = np.empty(len(series), dtype=np.int32)
        texts: dict[tuple[str, ...], int] = {}  # lists of text (tags, frameworks): no JSON
        for i, cell in enumerate(cells):
            items = _texts(cell)
            if items is not None and (j := texts.get(items)) is not None:
                out[i] = j
                continue
            value = to_jsonable(cell)
            key = json.dumps(value, sort_keys=True, default=str)
            j = index.get(key)
            if j is None:
                j = index[key] = len(values)
                values.append(value)
            if items is not None:
                texts[items] = j
            out[i] = j
        return out, values


def _object_text(series: pd.Series) -> tuple[np.ndarray, list[Any]] | None:
    """(codes, distinct values) of an object column holding only text and missing cells
    (None, NaN: one null value), told apart in Arrow (a third faster than pandas' hashing of
    Python objects at 500k rows); None when a cell is something else."""
    text = text_array(series)
    if text is None:
        return None
    codes, dictionary = _encoded(text)
    return codes, dictionary.to_pylist()


def _encoded(text: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """(codes, distinct values) of Arrow text, null one value, in order of first appearance."""
    encoded = text.dictionary_encode(null_encoding="encode")
    return encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32), encoded.dictionary


def _text_lists(cells: list[Any]) -> tuple[np.ndarray, list[Any]] | None:
    """(codes, distinct values) when every cell is a list (or tuple) of text, else None. A
    cell's key is its items joined by a separator no item holds: text, so 50k rows make no
    containers (which would wake the garbage collector over the whole process); the keys are
    told apart in Arrow. Each cell is visited once (at 500k rows, every pass over the cells
    costs ~0.1 s)."""
    if not cells or not set(map(type, cells)) <= _SEQUENCES:
        return None
    try:
        keys = list(map(_SEP.join, cells))  # (a cell holding something else than text fails)
    except TypeError:
        return None
    lengths = np.fromiter(map(len, cells), dtype=np.int64, count=len(cells))
    # a key of n items holds n - 1 separators, unless an item holds one itself
    if "".join(keys).count(_SEP) != int(lengths.sum()) - int(np.count_nonzero(lengths)):
        return None
    # [] has no key (null), so it stays apart from [""]; codes in order of first appearance
    codes, dictionary = _encoded(pa.array(keys, pa.string(), mask=lengths == 0))
    first = np.empty(len(dictionary), dtype=np.int64)
    first[codes[::-1]] = np.arange(len(codes) - 1, -1, -1)  # the earliest row writes last
    # (as JSON: items that are text of a subclass, e.g. numpy's, become plain text)
    return codes, [to_jsonable(cells[i]) for i in first.tolist()]


def _texts(cell: Any) -> tuple[str, ...] | None:
    """A list cell whose items are all text, as a tuple (a key as telling as its JSON)."""
    t = type(cell)
    if t is np.ndarray:
        cell = cell.tolist()
    elif t is not list and t is not tuple:
        return None
    return tuple(cell) if all(type(v) is str for v in cell) else None


def _arrow(values: list[Any], codes: np.ndarray) -> tuple[pa.Array, bool]:
    """The column as Arrow (whether its values are JSON text) from distinct ``values``."""
    kinds = set(map(type, values))
    kinds.discard(type(None))
    if not kinds:
        return pa.nulls(len(codes)), False
    if kinds <= {str}:
        return pa.DictionaryArray.from_arrays(pa.array(codes), pa.array(values, pa.string())), False
    if kinds <= {bool}:
        return pa.array(values, pa.bool_()).take(pa.array(codes)), False
    if kinds <= {int} and all(-(2**63) <= v < 2**63 for v in values if v is not None):
        return pa.array(values, pa.int64()).take(pa.array(codes)), False
    if kinds <= {int, float}:
        return pa.array([None if v is None else float(v) for v in values],
                        pa.float64()).take(pa.array(codes)), False
    text = [None if v is None else json.dumps(v) for v in values]
    return pa.DictionaryArray.from_arrays(pa.array(codes), pa.array(text, pa.string())), True


class FrameColumns:
    """The rows of ``frame`` (a query result the caller does not change) as columns."""

    CLOUDG_COLUMNS = True

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame

    def __len__(self) -> int:
        return len(self.frame)

    def encode(self, transform: ColumnTransform | None) -> dict[str, Any]:
        names: list[str] = []
        arrays: list[pa.Array] = []
        json_columns: list[str] = []
        for column in self.frame.columns:
            name = str(column)
            codes, values = _distinct(self.frame[column])
            if transform is not None:
                shown = transform(name, values)
                if shown is not values:  # (the very list back: nothing changed)
                    if shown and all(v is MISSING for v in shown):
                        continue  # the policy leaves this field out
                    values = [None if v is MISSING else v for v in shown]
            array, is_json = _arrow(values, codes)
            names.append(name)
            arrays.append(array)
            if is_json:
                json_columns.append(name)
        table = pa.table(arrays, names=names) if names else pa.table({})
        sink = pa.BufferOutputStream()
        options = pa.ipc.IpcWriteOptions(compression="zstd")
        with pa.ipc.new_stream(sink, table.schema, options=options) as writer:
            writer.write_table(table)
        return {"format": ARROW_FORMAT, "compression": "zstd", "encoding": "base64",
                "rows": len(self.frame), "columns": names, "json_columns": json_columns,
                "data": base64.b64encode(sink.getvalue().to_pybytes()).decode("ascii")}
