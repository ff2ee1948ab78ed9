"""Prowler CSV's columns as Arrow arrays, for the column-wise reader (``prowler_csv_columns``).

Arrow's CSV reader parses a plainly shaped file (its header names the read columns exactly and
once, no quotes in it; every row as wide as the header; UTF-8) straight into dictionary-encoded
columns; on those files it reads what pandas' C parser reads (tests compare both on every
fixture). Any other file, or one Arrow refuses, is parsed by pandas as before (``None`` when
pandas refuses it too: the row path then decides).
"""

from __future__ import annotations

import csv
import warnings
from pathlib import Path
from typing import NamedTuple

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv

from .on_thread import OnThread
from .prowler_csv_cells import READ_SET
from .prowler_csv_scan import Scan, scan

__all__ = ["POOL", "read_cells"]

#: Cells as Arrow text when pandas parses: the C parser's fast string path.
_TEXT = pd.ArrowDtype(pa.large_string())
#: Arrow text, one dictionary per column (values repeat row after row).
_CODED = pa.dictionary(pa.int32(), pa.string())


def _pool() -> pa.MemoryPool:
    """jemalloc where pyarrow has it (the fastest start for a fresh process's hash tables,
    and its own arena: the caller's default pool is left alone), else the system pool."""
    try:
        return pa.jemalloc_memory_pool()
    except NotImplementedError:
        return pa.system_memory_pool()


#: The pool the column-wise reader's Arrow work allocates from.
POOL = _pool()
_BOM = b"\xef\xbb\xbf"
#: Bytes read for the header.
_CHUNK = 1 << 20


def read_cells(path: Path, plain: frozenset[str]
               ) -> tuple[dict[str, pa.ChunkedArray], int] | None:
    """The read columns (``prowler_csv_cells.READ_SET``) present in the file, by their header
    name stripped and upper-cased, as Arrow arrays (dictionary-encoded, or plain text for the
    ``plain`` columns; cells not yet stripped; a null is the cell of a short row), and the
    row count; None when pandas' C parser refuses the file."""
    try:
        header = _plain_header(path)
        if header is not None and (shape := scan(path)) is not None:
            cells = _arrow_cells(path, header, plain, shape)
            if cells is not None:
                return cells
    except OSError:
        pass  # (pandas meets it too, and the row path says what is wrong)
    frame = _frame(path)
    if frame is None:
        return None
    names = {str(k).strip().upper(): k for k in frame.columns}  # the last one wins
    return ({c: frame[k].array.__arrow_array__() for c, k in names.items()}, len(frame))


class _Header(NamedTuple):
    """A plainly written header: every column's name, and the read ones in file order."""

    names: list[str]
    wanted: list[str]


def _plain_header(path: Path) -> _Header | None:
    """The header's names, and the read columns it names, in file order: each exactly as
    READ_SET spells it and once; None for any other header (pandas reads those)."""
    with path.open("rb") as fh:
        head = fh.read(_CHUNK)
    end = head.find(b"\n")
    if end < 0:
        return None
    line = head[:end].removeprefix(_BOM).removesuffix(b"\r")
    if b'"' in line or b"\r" in line:
        return None
    try:
        names = line.decode("utf-8").split(";")
    except UnicodeDecodeError:
        return None
    wanted = [c for c in names if c.strip().upper() in READ_SET]
    if any(c != c.strip().upper() for c in wanted) or len(set(wanted)) < len(wanted):
        return None
    return _Header(names, wanted)


def _arrow_cells(path: Path, header: _Header, plain: frozenset[str], shape: Scan
                 ) -> tuple[dict[str, pa.ChunkedArray], int] | None:
    """Arrow's parse of the file, by two readers (this thread and one more) when the scan
    found where a row starts near the middle (``prowler_csv_scan``); None when Arrow refuses
    the file (a row of another width, an unterminated quote) or it is not UTF-8 past that
    row: pandas then reads it, as it reads such files."""
    size, split = shape.size, shape.split
    wanted = header.wanted
    types = {c: pa.string() if c in plain else _CODED for c in wanted}
    options = {
        "parse_options": pa_csv.ParseOptions(delimiter=";", newlines_in_values=True),
        "convert_options": pa_csv.ConvertOptions(
            include_columns=wanted, column_types=types, strings_can_be_null=False,
            quoted_strings_can_be_null=False, check_utf8=False),  # (checked before)
        "memory_pool": POOL}

    def parse(source: pa.NativeFile, names: list[str] | None = None) -> pa.Table:
        read = pa_csv.ReadOptions(use_threads=False, column_names=names)
        return pa_csv.read_csv(source, read_options=read, **options)

    try:
        with pa.OSFile(str(path)) as source:  # (a path's suffix could ask to decompress)
            if split is None:
                table = parse(source)
            else:  # (each reader reads its part with ``pread``, and parses without the GIL)
                second = OnThread(parse, source.get_stream(split, size - split), header.names,
                                  name="cloudg-csv-parse")
                try:
                    first = parse(source.get_stream(0, split))
                finally:
                    rest = second.result()  # (the file stays open until both are done)
                if not shape.rest_is_utf8():
                    return None  # (pandas refuses it too)
                table = pa.concat_tables([first, rest])  # (names differ: Arrow refuses)
        if table.column_names != wanted:
            return None
    except (pa.ArrowException, OSError):
        return None
    table = table.unify_dictionaries(memory_pool=POOL)
    return dict(zip(wanted, table.columns, strict=True)), table.num_rows


def _frame(path: Path) -> pd.DataFrame | None:
    """The read columns as pandas parses them (text, not inferred types); None when pandas'
    C parser refuses the file (the row path then decides)."""
    try:
        with warnings.catch_warnings():  # extra cells in a row: dropped, like the csv module
            warnings.simplefilter("ignore", pd.errors.ParserWarning)
            return pd.read_csv(path, sep=";", dtype=_TEXT, keep_default_na=False,
                               na_filter=False, encoding="utf-8-sig", index_col=False,
                               usecols=lambda c: str(c).strip().upper() in READ_SET)
    except (pd.errors.ParserError, ValueError, csv.Error):
        return None
