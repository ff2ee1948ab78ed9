"""ParseCache: a parse is reused only while the file, the files beside it, the package and
its readers are unchanged; a cached load equals a fresh one; bad entries are misses."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from cloudg_nb.estate import DatasetLoadError, load_path
from cloudg_nb.estate.parse_cache import ParseCache, default_cache_folder

SCAN = Path(__file__).parent / "data" / "scanner-only-estate.ocsf.json"


@pytest.fixture
def scan(tmp_path: Path) -> Path:
    path = tmp_path / "data" / "scan.ocsf.json"
    path.parent.mkdir()
    path.write_bytes(SCAN.read_bytes())
    return path


def test_a_cached_load_equals_a_fresh_parse(tmp_path: Path, scan: Path) -> None:
    cache = ParseCache(tmp_path / "cache")
    cache.load(scan, name="first")
    ds = cache.load(scan, name="second")
    fresh = load_path(scan, name="second")
    assert cache.last == "hit" and ds.name == "second"
    for table in ("assets", "edges", "findings", "compliance"):
        pd.testing.assert_frame_equal(getattr(ds, table), getattr(fresh, table))
    assert ds.load_report == fresh.load_report
    assert (ds.source, ds.kind) == (fresh.source, fresh.kind)


def test_a_cached_dataset_is_a_new_object_each_time(tmp_path: Path, scan: Path) -> None:
    cache = ParseCache(tmp_path / "cache")
    first = cache.load(scan)
    second = cache.load(scan)
    second.suppress_findings(second.findings["id"].iloc[0])
    assert not first.findings["is_suppressed"].iloc[0]


def test_strict_and_lenient_loads_are_cached_apart(tmp_path: Path, scan: Path) -> None:
    cache = ParseCache(tmp_path / "cache")
    cache.load(scan)
    cache.load(scan, strict=True)
    assert cache.last == "miss"


def test_an_entry_moved_to_another_paths_name_is_not_used(tmp_path: Path) -> None:
    cache = ParseCache(tmp_path / "cache")
    one, two = tmp_path / "a" / "scan.json", tmp_path / "b" / "scan.json"
    for p in (one, two):
        p.parent.mkdir()
        p.write_bytes(SCAN.read_bytes())
    os.utime(two, ns=(one.stat().st_atime_ns, one.stat().st_mtime_ns))
    cache.load(one, name="a")
    cache.entry_path(one, "auto", False).rename(cache.entry_path(two, "auto", False))
    cache.load(two, name="b")
    assert cache.last == "miss"


def test_a_file_that_fails_to_load_stores_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"assets": ')
    cache = ParseCache(tmp_path / "cache")
    with pytest.raises(DatasetLoadError):
        cache.load(bad)
    assert not (tmp_path / "cache").exists() or not list((tmp_path / "cache").iterdir())


def test_old_entries_beyond_the_limit_are_deleted(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("cloudg_nb.estate.parse_cache.MAX_ENTRIES", 2)
    cache = ParseCache(tmp_path / "cache")
    for i in range(3):
        path = tmp_path / f"d{i}" / "scan.json"
        path.parent.mkdir()
        path.write_text(json.dumps([]))
        cache.load(path)
    assert len(list((tmp_path / "cache").glob("*.pickle"))) == 2


def test_the_cache_folder_follows_xdg_cache_home(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_folder() == tmp_path / "cloudg-nb"


def test_an_unrelated_file_written_beside_it_keeps_the_entry(tmp_path: Path,
                                                             scan: Path) -> None:
    cache = ParseCache(tmp_path / "cache")
    cache.load(scan)
    (scan.parent / "calls.log").write_text("output of the last run")
    cache.load(scan)
    assert cache.last == "hit"


def test_a_table_file_is_parsed_again_when_another_table_of_its_folder_changes(
        tmp_path: Path) -> None:
    folder = tmp_path / "tables"
    folder.mkdir()
    (folder / "assets.csv").write_text("id,name,asset_type,provider\ni-1,web,EC2,AWS\n")
    cache = ParseCache(tmp_path / "cache")
    cache.load(folder / "assets.csv")
    (folder / "findings.csv").write_text("id,resource_id,severity,title\nf-1,i-1,HIGH,t\n")
    ds = cache.load(folder / "assets.csv")
    assert cache.last == "miss" and ds.findings["id"].tolist() == ["f-1"]


def test_a_folder_with_too_many_files_is_read_without_the_cache(tmp_path: Path,
                                                                monkeypatch) -> None:
    monkeypatch.setattr("cloudg_nb.estate.parse_cache.MAX_FILES", 2)
    folder = tmp_path / "tables"
    folder.mkdir()
    (folder / "assets.csv").write_text("id,name,asset_type,provider\ni-1,web,EC2,AWS\n")
    for i in range(3):
        (folder / f"notes-{i}.txt").write_text("x")
    cache = ParseCache(tmp_path / "cache")
    ds = cache.load(folder)
    assert cache.last == "off" and len(ds.assets) == 1
    assert not (tmp_path / "cache").exists()


def test_a_changed_file_in_a_loaded_folder_is_parsed_again(tmp_path: Path) -> None:
    folder = tmp_path / "tables"
    folder.mkdir()
    (folder / "assets.csv").write_text("id,name,asset_type,provider\ni-1,web,EC2,AWS\n")
    cache = ParseCache(tmp_path / "cache")
    cache.load(folder)
    cache.load(folder)
    assert cache.last == "hit"
    (folder / "assets.csv").write_text("id,name,asset_type,provider\ni-1,web,EC2,AWS\n"
                                       "i-2,db,RDS_INSTANCE,AWS\n")
    assert len(cache.load(folder).assets) == 2 and cache.last == "miss"
