"""One pass over a Prowler CSV before Arrow parses it (``prowler_csv_parse``): a row boundary
near its middle where two readers can split the parse, and whether the file is UTF-8 (up to the
boundary here, the rest on a thread of its own meanwhile; a file without a boundary is checked
whole here).

A newline ends a row unless it lies in a quoted cell, and counting quotes tells which when every
quote in the file before it is one the CSV writer put there: one that opens a cell (after a
delimiter, a line end or another quote), one that closes a cell (before a delimiter, a line end
or another quote), or half of a doubled quote. A newline with an even number of such quotes
before it then ends a row, for Arrow's reader as for pandas'. Before any other quote (a literal
quote inside an unquoted cell, as a hand-edited file may hold) no boundary is given: one reader
parses the whole file, as before.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from io import FileIO
from pathlib import Path

import numpy as np

from .on_thread import OnThread

__all__ = ["SPLIT_FROM", "Scan", "scan", "utf8_from"]

#: Bytes read at a time.
_CHUNK = 1 << 20
#: The high bit of each byte of a 64-bit word: set in any non-ASCII byte.
_HIGH_BITS = 0x8080808080808080
#: Files smaller than this are parsed by one reader (a second thread would cost more than it
#: saves).
SPLIT_FROM = 8 << 20
#: How far past the middle of the file the boundary may lie (a quoted cell that spans the
#: middle and this many bytes more leaves the file to one reader).
_REACH = 1 << 20
#: Bytes read at a time when looking for a newline.
_PIECE = 1 << 16
_QUOTE = ord('"')
#: Per byte value: whether a quote that opens a cell may follow it, or one that closes a cell
#: precede it (besides another quote): the delimiter and the line ends.
_EDGE = np.zeros(256, dtype=bool)
_EDGE[[ord(";"), ord("\n"), ord("\r")]] = True


@dataclass(frozen=True)
class Scan:
    """What one pass over the file found."""

    #: The file's size in bytes.
    size: int
    #: Where a second reader can start (the first byte of a row, past the header), or None.
    split: int | None
    #: With a ``split``: whether the bytes from there on are UTF-8, told by a thread of its
    #: own that checked them while the scan ran.
    _rest: OnThread[bool] | None = field(default=None, repr=False)

    def rest_is_utf8(self) -> bool:
        """Whether the bytes from ``split`` on are UTF-8 (the scan checked those before)."""
        return self._rest.result() if self._rest is not None else True


def scan(path: Path) -> Scan | None:
    """The file's size and a row boundary near its middle (see the module; none in a file
    smaller than ``SPLIT_FROM``); None when the file is not UTF-8 up to that boundary, or
    throughout when there is none (pandas decodes every column, Arrow only those read, so
    pandas' refusal stands)."""
    with path.open("rb", buffering=0) as fh:
        size = os.fstat(fh.fileno()).st_size
        splitting = size >= max(SPLIT_FROM, 1)
        # the bytes from the first newline past the middle on, checked meanwhile on a thread
        # of their own (the boundary can only lie there or further)
        rest = OnThread(_utf8_past, path, _middle(size), size,
                        name="cloudg-csv-utf8") if splitting else None
        # the quotes that can lie before the boundary: those up to _REACH past the middle
        quotes = _Quotes(_middle(size) + _REACH if splitting else 0)
        text = _Utf8()
        chunks = _chunks(fh)
        split: int | None = None
        try:
            for chunk in chunks:
                quotes.add(chunk)
                if not text.add(chunk):
                    return None
                if splitting and quotes.end >= quotes.until:
                    break
            split = _row_start(fh.fileno(), size, quotes) if splitting else None
            if split is not None:  # (a newline precedes it: no character is cut in two)
                return Scan(size, split, rest)
            if not all(text.add(chunk) for chunk in chunks) or not text.add(b"", final=True):
                return None
            return Scan(size, None)
        finally:
            if rest is not None and split is None:
                rest.result()  # (not needed: the file is checked here, or refused)


def utf8_from(path: Path, start: int) -> bool:
    """Whether the bytes of the file from ``start`` (a character's first byte) on are
    UTF-8."""
    with path.open("rb", buffering=0) as fh:
        return _utf8_rest(fh, start)


def _utf8_past(path: Path, start: int, size: int) -> bool:
    """Whether the bytes of the file from the first newline at or past ``start`` on are
    UTF-8 (True when there is none: no boundary lies past ``start`` then)."""
    with path.open("rb", buffering=0) as fh:
        newline = _newline(fh.fileno(), start, size)
        return newline < 0 or _utf8_rest(fh, newline)


def _utf8_rest(fh: FileIO, start: int) -> bool:
    """Whether the bytes of ``fh`` from ``start`` on are UTF-8."""
    text = _Utf8()
    fh.seek(start)
    return all(text.add(chunk) for chunk in _chunks(fh)) and text.add(b"", final=True)


def _chunks(fh: FileIO) -> Iterator[bytearray]:
    """The rest of the file, a chunk at a time, read into one buffer (each chunk is valid
    until the next is read)."""
    buffer = bytearray(_CHUNK)
    while read := fh.readinto(buffer):
        yield buffer if read == len(buffer) else buffer[:read]


class _Utf8:
    """UTF-8 decoded chunk after chunk; chunks while all is ASCII skip the decoder."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._ascii_so_far = True  # (while ASCII, the decoder holds nothing)

    def add(self, chunk: bytes | bytearray, *, final: bool = False) -> bool:
        """Whether the text is still UTF-8 after ``chunk`` (after the last: ``final``)."""
        if self._ascii_so_far and not final and _ascii(chunk):
            return True
        self._ascii_so_far = False
        try:
            self._decoder.decode(chunk, final=final)
        except UnicodeDecodeError:
            return False
        return True


def _ascii(chunk: bytes | bytearray) -> bool:
    """Whether ``chunk`` is ASCII: no byte has its high bit set (tested eight bytes at a
    time, NumPy's OR-reduction being quicker than ``bytearray.isascii``)."""
    whole = len(chunk) - len(chunk) % 8
    words = np.frombuffer(chunk, dtype=np.uint64, count=whole // 8)
    return not int(np.bitwise_or.reduce(words)) & _HIGH_BITS and chunk[whole:].isascii()


class _Quotes:
    """The quotes of the chunks read up to byte ``until`` (and the chunk that crosses it):
    their positions, and the bytes just before and after each (-1: none, the file's first
    byte or past the chunks read)."""

    def __init__(self, until: int) -> None:
        self.until = until
        self.end = 0  # where the chunks read end
        self._parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._last = -1  # the byte that ends the chunks read
        self._pending: np.ndarray | None = None  # ``after`` whose last byte the next chunk's

    def add(self, chunk: bytearray) -> None:
        """Note the quotes of the next chunk of the file (or only count it, past ``until``)."""
        start, self.end = self.end, self.end + len(chunk)
        if start >= self.until or not chunk:
            return
        if self._pending is not None:  # (a quote ended the chunk before)
            self._pending[-1], self._pending = chunk[0], None
        if chunk.find(b'"') >= 0:  # (a memchr: most chunks of most files hold none)
            data = np.frombuffer(chunk, dtype=np.uint8)
            found = np.flatnonzero(data == _QUOTE)
            before = data[found - 1].astype(np.int16)
            if found[0] == 0:
                before[0] = self._last
            after = np.full(len(found), -1, dtype=np.int16)
            inside = found + 1 < len(data)
            after[inside] = data[found[inside] + 1]
            if not inside[-1]:
                self._pending = after
            self._parts.append((found + start, before, after))
        self._last = chunk[-1]

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Positions, bytes before, bytes after (a quote at the end of what was read: -1)."""
        if not self._parts:
            none = np.zeros(0, dtype=np.int64)
            return none, none, none
        positions, before, after = (np.concatenate(p) for p in zip(*self._parts, strict=True))
        return positions, before, after


def _row_start(fd: int, size: int, quotes: _Quotes) -> int | None:
    """The first byte of the first row that starts at or past the middle of the file (the
    byte after a newline outside quoted cells, see the module), or None."""
    header_end = _newline(fd, 0, size)
    newline = _newline(fd, max(_middle(size), header_end + 1), size) if header_end >= 0 else -1
    positions, before, after = quotes.arrays()
    while 0 <= newline < min(size - 1, quotes.end):
        count = int(np.searchsorted(positions, newline))  # quotes before the newline
        if count % 2 == 0:
            written = _written(positions[:count], before[:count], after[:count])
            return newline + 1 if written else None
        # in a quoted cell: the next candidate is the first newline after its closing quote
        newline = -1 if count == len(positions) else _newline(fd, int(positions[count]) + 1,
                                                               size)
    return None


def _middle(size: int) -> int:
    """Where the boundary is looked for: the middle of the file (the two readers then parse
    about as much; the second one's part was checked as UTF-8 during the scan)."""
    return size // 2


def _newline(fd: int, start: int, size: int) -> int:
    """The position of the first newline at or after ``start``, or -1."""
    while start < size:
        piece = os.pread(fd, _PIECE, start)
        found = piece.find(b"\n")
        if found >= 0:
            return start + found
        if len(piece) < _PIECE:
            break
        start += len(piece)
    return -1


def _written(positions: np.ndarray, before: np.ndarray, after: np.ndarray) -> bool:
    """Whether each quote (an even count, by position) is one a CSV writer puts there: by
    parity, the opening ones (even) follow a delimiter, a line end or the quote before; the
    closing ones (odd) precede a delimiter, a line end or the quote after."""
    if not len(positions):
        return True
    adjacent = np.diff(positions) == 1  # quote i and quote i + 1 side by side
    opening_ok = _EDGE[before[0::2]]  # (-1, no byte, reads the table's last entry: False)
    opening_ok[1:] |= adjacent[1::2]  # (opening quote 2k follows quote 2k - 1)
    closing_ok = _EDGE[after[1::2]]
    closing_ok[:-1] |= adjacent[1::2]  # (closing quote 2k + 1 precedes quote 2k + 2)
    return bool(opening_ok.all() and closing_ok.all())
