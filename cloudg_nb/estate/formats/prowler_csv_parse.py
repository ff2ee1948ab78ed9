"""Prowler CSV's columns as Arrow arrays, for the column-wise reader (``prowler_csv_columns``).

Arrow's CSV reader parses a plainly shaped file (its header names the read columns exactly and
once, no quotes in it; every row as wide as the header; UTF-8) straight into dictionary-encoded
columns; on those files it reads what pandas' C parser reads (tests compare both on every
fixture). Any other file, or one Arrow refuses, is parsed by pandas as before (``None`` when
pandas refuses it too: the row path then decides).
"""

from __future__ import annotations

import codecs
import csv
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv

from .prowler_csv_cells import READ_SET

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
#: Bytes read at a time: the header is looked for in the first chunk.
_CHUNK = 1 << 20
#: The high bit of each byte of a 64-bit word: set in any non-ASCII byte.
_HIGH_BITS = 0x8080808080808080


def read_cells(path: Path, plain: frozenset[str]
               ) -> tuple[dict[str, pa.ChunkedArray], int] | None:
    """The read columns (``prowler_csv_cells.READ_SET``) present in the file, by their header
    name stripped and upper-cased, as Arrow arrays (dictionary-encoded, or plain text for the
    ``plain`` columns; cells not yet stripped; a null is the cell of a short row), and the
    row count; None when pandas' C parser refuses the file."""
    try:
        wanted = _plain_header(path)
        if wanted is not None and _utf8(path):
            cells = _arrow_cells(path, wanted, plain)
            if cells is not None:
                return cells
    except OSError:
        pass  # (pandas meets it too, and the row path says what is wrong)
    frame = _frame(path)
    if frame is None:
        return None
    names = {str(k).strip().upper(): k for k in frame.columns}  # the last one wins
    return ({c: frame[k].array.__arrow_array__() for c, k in names.items()}, len(frame))


def _plain_header(path: Path) -> list[str] | None:
    """The read columns a plainly written header names, in file order: each exactly as
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
    return wanted


def _utf8(path: Path) -> bool:
    """Whether the whole file is UTF-8 (pandas decodes every column, Arrow only those read);
    read a chunk at a time into one buffer, ASCII chunks skip the decoder."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    buffer = bytearray(_CHUNK)
    ascii_so_far = True  # the decoder holds nothing
    try:
        with path.open("rb", buffering=0) as fh:
            while size := fh.readinto(buffer):
                chunk = buffer if size == _CHUNK else buffer[:size]
                if ascii_so_far and _ascii(chunk):
                    continue
                ascii_so_far = False
                decoder.decode(chunk)
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def _ascii(chunk: bytearray) -> bool:
    """Whether ``chunk`` is ASCII: no byte has its high bit set (tested eight bytes at a
    time, NumPy's OR-reduction being quicker than ``bytearray.isascii``)."""
    whole = len(chunk) - len(chunk) % 8
    words = np.frombuffer(chunk, dtype=np.uint64, count=whole // 8)
    return not int(np.bitwise_or.reduce(words)) & _HIGH_BITS and chunk[whole:].isascii()


def _arrow_cells(path: Path, wanted: list[str], plain: frozenset[str]
                 ) -> tuple[dict[str, pa.ChunkedArray], int] | None:
    """Arrow's parse of the file; None when it refuses the file (a row of another width,
    an unterminated quote): pandas then reads it, as it reads such files."""
    types = {c: pa.string() if c in plain else _CODED for c in wanted}
    try:
        with pa.OSFile(str(path)) as source:  # (a path's suffix could ask to decompress)
            table = pa_csv.read_csv(
                source, read_options=pa_csv.ReadOptions(use_threads=False),
                parse_options=pa_csv.ParseOptions(delimiter=";", newlines_in_values=True),
                convert_options=pa_csv.ConvertOptions(
                    include_columns=wanted, column_types=types, strings_can_be_null=False,
                    quoted_strings_can_be_null=False, check_utf8=False),  # (``_utf8`` did)
                memory_pool=POOL)
    except (pa.ArrowException, OSError):
        return None
    if table.column_names != wanted:
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
