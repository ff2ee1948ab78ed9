"""A large Prowler CSV is parsed by two Arrow readers, split where a row starts near the middle
of the file: the split never falls inside a quoted cell, is not made where quotes could mislead
it, and the load is what one reader (and the row path) loads."""

from __future__ import annotations

from pathlib import Path

import pytest

from cloudg_nb.estate import DatasetLoadError
from cloudg_nb.estate.formats import prowler_csv_scan
from cloudg_nb.estate.formats.prowler_csv import read_prowler_csv, read_prowler_csv_by_row
from cloudg_nb.estate.formats.prowler_csv_columns import read_columns
from cloudg_nb.estate.formats.prowler_csv_parse import read_cells
from cloudg_nb.estate.formats.prowler_csv_scan import scan, utf8_from

from .test_prowler_csv import COLUMNS, ROWS, _csv


@pytest.fixture(params=[1 << 20, 61, 2])
def split_any_size(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files of any size split; the scan reads them a megabyte at a time, or in chunks so
    small that quotes and their neighbours straddle chunk after chunk."""
    monkeypatch.setattr(prowler_csv_scan, "SPLIT_FROM", 0)
    monkeypatch.setattr(prowler_csv_scan, "_CHUNK", request.param)


def _with(cells: dict[str, str], base: str = ROWS[0]) -> str:
    values = base.split(";")
    for column, value in cells.items():
        values[COLUMNS.index(column)] = value
    return ";".join(values)


def _rows(count: int, **cells: str) -> list[str]:
    return [_with({"FINDING_UID": f"f-{i}", **cells}, ROWS[i % 3]) for i in range(count)]


def _assert_loads_like_the_row_path(path: Path) -> None:
    by_row, by_column = read_prowler_csv_by_row(path), read_columns(path)
    assert by_column is not None
    for frame in ("assets", "findings", "edges", "compliance"):
        assert getattr(by_column, frame).equals(getattr(by_row, frame)), frame
    assert by_column.load_report == by_row.load_report


def test_the_split_starts_the_first_row_past_the_middle(tmp_path: Path,
                                                        split_any_size: None) -> None:
    path = _csv(tmp_path, _rows(40))
    data = path.read_bytes()
    found = scan(path)
    assert found is not None and found.size == len(data) and found.split is not None
    middle = prowler_csv_scan._middle(len(data))
    assert data[found.split - 1:found.split] == b"\n"
    assert b"\n" not in data[middle:found.split - 1]  # (the first newline from there)
    cells, rows = read_cells(path, frozenset())  # type: ignore[misc]
    assert rows == 40 and cells["FINDING_UID"].num_chunks == 2  # (one chunk per reader)
    assert cells["FINDING_UID"].to_pylist() == [f"f-{i}" for i in range(40)]
    _assert_loads_like_the_row_path(path)


def test_a_quoted_cell_with_newlines_across_the_middle_is_never_split(
        tmp_path: Path, split_any_size: None) -> None:
    long_cell = '"port 22; open\n' + "\n".join(f"line {i}" for i in range(200)) + '\nend"'
    rows = _rows(4)
    rows[2] = _with({"STATUS_EXTENDED": long_cell}, rows[2])
    path = _csv(tmp_path, rows)
    data = path.read_bytes()
    start, end = data.index(b'"port'), data.index(b'end"')
    assert start < prowler_csv_scan._middle(len(data)) < end  # (the middle: in the cell)
    found = scan(path)
    assert found is not None and found.split is not None
    assert found.split > end and data[found.split - 1:found.split] == b"\n"
    _assert_loads_like_the_row_path(path)
    details = read_columns(path).findings["evidence"].tolist()  # type: ignore[union-attr]
    assert any(d and d.startswith("port 22; open\nline 0") for d in details)


@pytest.mark.parametrize("cell", ['"said ""hi"" twice"', '""', '"a;b"', '""""',
                                  '"ends with ""quote"""'])
def test_doubled_and_empty_quoted_cells_still_split(tmp_path: Path, split_any_size: None,
                                                    cell: str) -> None:
    path = _csv(tmp_path, _rows(30, STATUS_EXTENDED=cell))
    found = scan(path)
    assert found is not None and found.split is not None
    _assert_loads_like_the_row_path(path)


@pytest.mark.parametrize("cell", ['say "hi"', 'trailing"', '"closed"then-more'])
def test_a_quote_a_writer_would_not_write_leaves_the_file_to_one_reader(
        tmp_path: Path, split_any_size: None, cell: str) -> None:
    rows = _rows(30)
    rows[1] = _with({"NOTES": cell}, rows[1])  # (before the middle)
    path = _csv(tmp_path, rows)
    found = scan(path)
    assert found is not None and found.split is None
    _assert_loads_like_the_row_path(path)


def test_a_row_of_another_width_in_the_second_half_loads_like_the_row_path(
        tmp_path: Path, split_any_size: None) -> None:
    rows = _rows(30)
    rows[25] = rows[25] + ";stray;cells"
    rows[27] = rows[27][:60]
    path = _csv(tmp_path, rows)
    assert scan(path).split is not None  # type: ignore[union-attr]
    _assert_loads_like_the_row_path(path)


def test_small_files_and_a_last_row_past_the_middle_are_one_readers(
        tmp_path: Path, split_any_size: None, monkeypatch: pytest.MonkeyPatch) -> None:
    one_row = _csv(tmp_path, [_with({"NOTES": "x" * 50_000})], name="one.csv")
    assert scan(one_row).split is None  # type: ignore[union-attr]
    monkeypatch.setattr(prowler_csv_scan, "SPLIT_FROM", 8 << 20)
    small = _csv(tmp_path, _rows(40), name="small.csv")
    assert scan(small).split is None  # type: ignore[union-attr]


def test_a_file_that_is_not_utf8_is_refused_by_the_scan(tmp_path: Path) -> None:
    path = _csv(tmp_path, _rows(4))
    path.write_bytes(path.read_bytes().replace(b"f-2", b"f-\xff"))
    assert scan(path) is None


def test_bytes_past_the_split_that_are_not_utf8_are_refused_like_the_row_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the scan reads a little past the middle; a thread of its own checks the rest meanwhile
    for name, value in (("SPLIT_FROM", 0), ("_CHUNK", 61), ("_REACH", 2000)):
        monkeypatch.setattr(prowler_csv_scan, name, value)
    path = _csv(tmp_path, _rows(30))
    data = path.read_bytes()
    last = data.rindex(b"f-29")
    path.write_bytes(data[:last] + b"f-\xff9" + data[last + 4:])
    found = scan(path)
    assert found is not None and found.split is not None and found.split < last
    assert not utf8_from(path, found.split) and utf8_from(path, 0) is False
    assert read_cells(path, frozenset()) is None  # (pandas refuses it too)
    with pytest.raises(DatasetLoadError) as by_row:
        read_prowler_csv_by_row(path)
    with pytest.raises(DatasetLoadError) as by_column:
        read_prowler_csv(path)
    assert by_column.value.problem == by_row.value.problem
