"""Reading a list result sent as columns (``columns`` = Arrow IPC, see
``cloudg_nb.catalog.frame_columns``) into the DataFrame its rows would have made: text
dictionary-decoded, JSON-text columns parsed back to lists and mappings."""

from __future__ import annotations

import base64
import contextlib
import gc
import json
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas

__all__ = ["ARROW_FORMAT", "decode_columns", "is_columns"]

ARROW_FORMAT = "arrow-ipc"


def is_columns(value: Any) -> bool:
    return isinstance(value, Mapping) and value.get("format") == ARROW_FORMAT and \
        isinstance(value.get("data"), str)


def decode_columns(value: Mapping[str, Any]) -> pandas.DataFrame:
    """The DataFrame of an encoded ``columns`` value (as ``DataFrame.from_records`` of the
    same rows would give)."""
    import pandas
    import pyarrow as pa
    import pyarrow.compute as pc

    table = pa.ipc.open_stream(base64.b64decode(value["data"])).read_all()
    json_columns = [str(n) for n in value.get("json_columns") or () if n in table.column_names]
    with _collector_paused():  # (one cell object per row: acyclic, freed by refcount)
        parsed = {name: _json_cells(table.column(name)) for name in json_columns}
    plain = {name: pc.cast(column, column.type.value_type)
             if pa.types.is_dictionary(column.type) else column
             for name, column in zip(table.column_names, table.columns, strict=True)
             if name not in parsed}
    frame = pa.table(plain).to_pandas() if plain else pandas.DataFrame(
        index=range(int(value.get("rows") or 0)))
    for name, cells in parsed.items():  # back in its place, in column order
        frame.insert(table.column_names.index(name), name, pandas.Series(cells, dtype=object))
    return frame


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a column's cells are made: 50k new lists would
    otherwise set off collections over every object in the kernel (a full one costs 0.1 s
    there), for objects that hold no cycles. Back on after, if it was on."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _json_cells(column: Any) -> list[Any]:
    """The cells of a column of JSON texts, parsed: each distinct text once (a column of
    framework lists holds a handful), each cell its own copy as ``json.loads`` would give."""
    import pyarrow as pa

    cells: list[Any] = []
    for chunk in column.chunks:
        if not pa.types.is_dictionary(chunk.type):
            cells.extend(None if v is None else json.loads(v) for v in chunk.to_pylist())
            continue
        texts = chunk.dictionary.to_pylist()
        values = [None if t is None else json.loads(t) for t in texts]
        copies = [_copier(v) for v in values]
        kinds = set(copies)
        if chunk.null_count == 0 and len(kinds) == 1 and None not in kinds:
            # one way of copying for every value (all scalars, or all lists of scalars...):
            # the cells are made in C, not in this loop
            picked = map(values.__getitem__, chunk.indices.to_pylist())
            copy = copies[0] or _same
            cells.extend(picked if copy is _same else map(copy, picked))
            continue
        for code in chunk.indices.to_pylist():
            if code is None:
                cells.append(None)
            else:
                copy = copies[code]
                cells.append(copy(values[code]) if copy is not None else json.loads(texts[code]))
    return cells


def _copier(value: Any) -> Callable[[Any], Any] | None:
    """How a cell gets its own copy of a parsed ``value``: shared (a scalar), copied shallow
    (a list or mapping of scalars), or None: parsed again (nested lists or mappings)."""
    t = type(value)
    if t is not list and t is not dict:
        return _same
    items = value if t is list else value.values()
    return None if any(isinstance(v, (list, dict)) for v in items) else t


def _same(value: Any) -> Any:
    return value
