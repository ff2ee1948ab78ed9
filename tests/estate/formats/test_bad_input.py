"""Bad input: malformed, truncated or wrong-format files fail with an error that names the
file and the problem (never the path or the file's content)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cloudg_nb.estate import DatasetLoadError, demo, load_path, write_inventory_map
from cloudg_nb.layer.errors import InvalidArgumentsError


def _load_error(path: Path, **kw) -> DatasetLoadError:
    with pytest.raises(DatasetLoadError) as err:
        load_path(path, **kw)
    assert err.value.code == -32602
    assert str(path.parent) not in err.value.message
    return err.value


def test_truncated_inventory_map_names_the_file_and_says_truncated(tmp_path: Path) -> None:
    write_inventory_map(demo(), tmp_path)
    inv = tmp_path / "inventory-map.json"
    inv.write_text(inv.read_text()[:5000])
    err = _load_error(inv)
    assert err.data["file"] == "inventory-map.json" and "truncated" in err.problem


def test_malformed_sibling_findings_file_is_named(tmp_path: Path) -> None:
    write_inventory_map(demo(), tmp_path)
    (tmp_path / "findings.json").write_text('{"findings": [1, 2,, 3]}')
    err = _load_error(tmp_path)
    assert err.file == "findings.json" and "malformed" in err.problem


def test_binary_file_is_not_a_recognised_format(tmp_path: Path) -> None:
    png = tmp_path / "diagram.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    err = _load_error(png)
    assert err.file == "diagram.png" and "not recognised" in err.problem


def test_yaml_file_is_not_a_recognised_format(tmp_path: Path) -> None:
    y = tmp_path / "estate.yaml"
    y.write_text("assets:\n  - id: a\n")
    assert "not recognised" in _load_error(y).problem


def test_json_of_another_shape_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "package.json"
    other.write_text('{"name": "x", "version": "1.0"}')
    err = _load_error(other, kind="inventory")
    assert "not an inventory map" in err.problem


def test_empty_file_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "inventory-map.json"
    empty.write_text("  \n")
    assert "empty" in _load_error(empty).problem


def test_ragged_csv_names_the_table_file(tmp_path: Path) -> None:
    (tmp_path / "assets.csv").write_text('id,name\na,"unterminated\n')
    err = _load_error(tmp_path)
    assert err.file == "assets.csv"


def test_missing_required_column_is_named(tmp_path: Path) -> None:
    (tmp_path / "assets.csv").write_text("id,name\na,b\n")
    (tmp_path / "edges.csv").write_text("source_id,target_id\na,b\n")
    err = _load_error(tmp_path)
    assert err.file == "edges.csv" and err.data["missing_columns"] == ["edge_type"]


def test_unknown_edge_type_lists_close_matches(tmp_path: Path) -> None:
    (tmp_path / "assets.csv").write_text("id\na\nb\n")
    (tmp_path / "edges.jsonl").write_text(
        '{"source_id": "a", "target_id": "b", "edge_type": "CONTAIN"}\n')
    err = _load_error(tmp_path)
    assert err.file == "edges.jsonl" and "CONTAINS" in err.data["close_matches"]


def test_duplicate_asset_ids_are_refused_under_strict(tmp_path: Path) -> None:
    (tmp_path / "assets.jsonl").write_text('{"id": "a"}\n{"id": "a"}\n')
    err = _load_error(tmp_path, strict=True)
    assert err.file == "assets.jsonl" and (err.data["index"], err.data["field"]) == (1, "id")


def test_a_repeated_asset_id_is_skipped_and_reported(tmp_path: Path) -> None:
    (tmp_path / "assets.jsonl").write_text('{"id": "a", "name": "first"}\n'
                                           '{"id": "a", "name": "second"}\n')
    ds = load_path(tmp_path)
    assert ds.assets["name"].tolist() == ["first"]
    assert ds.load_report["skipped_records"] == [
        {"index": 1, "field": "id", "reason": "repeats the id of record 0",
         "file": "assets.jsonl"}]


def test_bad_json_line_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "assets.jsonl").write_text('{"id": "a"}\n{"id": \n')
    err = _load_error(tmp_path)
    assert err.data["line"] == 2


def test_garbage_parquet_is_refused(tmp_path: Path) -> None:
    (tmp_path / "assets.parquet").write_bytes(b"PAR1 not really parquet")
    err = _load_error(tmp_path)
    assert err.file == "assets.parquet" and "Parquet" in err.problem


def test_folder_without_estate_files_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    assert "no estate files" in _load_error(tmp_path).problem


def test_unknown_kind_has_close_matches(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgumentsError) as err:
        load_path(tmp_path, kind="prowlr")
    assert err.value.data["close_matches"][0] == "prowler"


def test_a_bad_finding_row_is_skipped_by_index_and_the_others_load(tmp_path: Path) -> None:
    (tmp_path / "assets.csv").write_text("id\na\nb\n")
    (tmp_path / "findings.csv").write_text(
        "id,resource_id,severity\nf1,a,HIGH\nf2,,LOW\nf3,b,LOW\n")
    ds = load_path(tmp_path)
    assert ds.findings["id"].tolist() == ["f1", "f3"]
    assert [(s["file"], s["index"], s["field"]) for s in ds.load_report["skipped_records"]] \
        == [("findings.csv", 1, "resource_id")]


def test_a_bad_edge_row_is_skipped_by_index_and_the_others_load(tmp_path: Path) -> None:
    (tmp_path / "assets.csv").write_text("id\na\nb\n")
    (tmp_path / "edges.csv").write_text(
        "source_id,target_id,edge_type\na,b,CONTAINS\na,b,CONTAIN\n")
    ds = load_path(tmp_path)
    assert ds.edges["edge_type"].tolist() == ["CONTAINS"]
    assert [(s["index"], s["field"]) for s in ds.load_report["skipped_records"]] == [
        (1, "edge_type")]


def test_a_bad_finding_in_findings_json_is_skipped_and_reported_with_its_file(
        tmp_path: Path) -> None:
    write_inventory_map(demo(), tmp_path)
    path = tmp_path / "findings.json"
    doc = json.loads(path.read_text())
    doc["findings"][3]["severity"] = "SPICY"
    path.write_text(json.dumps(doc))
    ds = load_path(tmp_path)
    assert len(ds.findings) == 14
    assert [(s["file"], s["index"], s["field"]) for s in ds.load_report["skipped_records"]] \
        == [("findings.json", 3, "severity")]
