"""``cloudg-nb call`` / ``read`` output (the structured answer once, ``--text``, errors as one
short block on stderr) and ``--dataset`` loads: the parse cache across runs, and a scanner
file with bad records loading its good records with the report on stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cloudg_nb.cli import main

SCAN = Path(__file__).parent / "estate" / "data" / "scanner-only-estate.ocsf.json"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder that is the only allowed root, with its own cache folder."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("CLOUDG_MCP_ALLOWED_ROOTS", str(work))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (work / "scan.ocsf.json").write_bytes(SCAN.read_bytes())
    return work


def _call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["--policy", "open", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _entries(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache" / "cloudg-nb").glob("*.pickle"))


# -- output ------------------------------------------------------------------------------


def test_call_prints_the_answer_once_as_json(capsys) -> None:
    code, out, _ = _call(capsys, "call", "find_assets", "--sample", "demo",
                         "--args", '{"limit": 3}')
    assert code == 0
    answer = json.loads(out)
    assert answer["total"] == 60 and len(answer["items"]) == 3
    assert out.count(answer["items"][0]["uri"]) == 1


def test_call_text_prints_the_text_content(capsys) -> None:
    code, out, _ = _call(capsys, "call", "get_asset", "--sample", "demo", "--text",
                         "--args", '{"ref": "customers-db"}')
    assert code == 0
    assert "customers-db" in out and "structuredContent" not in out


def test_a_failed_call_is_one_short_block_on_stderr_with_exit_1(capsys) -> None:
    code, out, err = _call(capsys, "call", "get_asset", "--sample", "demo",
                           "--args", '{"ref": "customer-db"}')
    assert code == 1 and out == ""
    lines = err.strip().splitlines()
    assert lines[0].startswith("cloudg-nb: get_asset: No asset matches the ref")
    assert len(lines) == 2 and "customers-db" in lines[1] and "Traceback" not in err


def test_read_of_an_unknown_resource_exits_1_with_the_reason(capsys) -> None:
    code, out, err = _call(capsys, "read", "cloudg://datasets/nope/summary")
    assert code == 1 and out == ""
    assert err.startswith("cloudg-nb: cloudg://datasets/nope/summary: ")


# -- the parse cache -----------------------------------------------------------------------


def test_a_second_call_reads_the_parse_from_the_cache_with_the_same_answer(
        here: Path, tmp_path: Path, capsys) -> None:
    argv = ("call", "internet_exposure", "--dataset", "scan=scan.ocsf.json")
    code, first, err = _call(capsys, *argv)
    assert code == 0 and "(cached parse)" not in err and len(_entries(tmp_path)) == 1
    code, second, err = _call(capsys, *argv)
    assert code == 0 and "(cached parse)" in err
    assert json.loads(second) == json.loads(first)


def test_a_touched_file_is_parsed_again(here: Path, capsys) -> None:
    argv = ("call", "list_findings", "--dataset", "scan=scan.ocsf.json")
    _call(capsys, *argv)
    scan = here / "scan.ocsf.json"
    records = json.loads(scan.read_text())
    scan.write_text(json.dumps(records[:3]))
    code, out, err = _call(capsys, *argv)
    assert code == 0 and "(cached parse)" not in err
    assert json.loads(out)["total"] == sum(r["status_code"] == "FAIL" for r in records[:3])


def test_a_changed_file_beside_it_is_parsed_again(here: Path, capsys) -> None:
    argv = ("call", "list_datasets", "--dataset", "scan=scan.ocsf.json")
    _call(capsys, *argv)
    (here / "findings.json").write_text("{}")
    assert "(cached parse)" not in _call(capsys, *argv)[2]


def test_no_cache_parses_afresh_and_stores_nothing(here: Path, tmp_path: Path,
                                                   capsys) -> None:
    argv = ("call", "list_datasets", "--dataset", "scan=scan.ocsf.json", "--no-cache")
    assert _call(capsys, *argv)[0] == 0
    assert "(cached parse)" not in _call(capsys, *argv)[2]
    assert _entries(tmp_path) == []


def test_a_corrupt_cache_entry_is_ignored_and_rewritten(here: Path, tmp_path: Path,
                                                         capsys) -> None:
    argv = ("call", "list_findings", "--dataset", "scan=scan.ocsf.json")
    _, first, _ = _call(capsys, *argv)
    [entry] = _entries(tmp_path)
    entry.write_bytes(b"not a pickle")
    code, second, err = _call(capsys, *argv)
    assert code == 0 and "(cached parse)" not in err
    assert json.loads(second)["items"] == json.loads(first)["items"]
    assert "(cached parse)" in _call(capsys, *argv)[2]


def test_a_cached_file_outside_the_allowed_roots_is_still_refused(
        here: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    scan = here / "scan.ocsf.json"
    assert _call(capsys, "call", "list_datasets", "--dataset", f"scan={scan}")[0] == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("CLOUDG_MCP_ALLOWED_ROOTS", str(elsewhere))
    code, out, err = _call(capsys, "call", "list_datasets", "--dataset", f"scan={scan}")
    assert code == 2 and out == ""
    assert "outside the allowed folders" in err and "(cached parse)" not in err


# -- bad records through the CLI -----------------------------------------------------------


def _record(index: int, **extra: Any) -> dict[str, Any]:
    rec: dict[str, Any] = json.loads(SCAN.read_text())[0]
    rec = json.loads(json.dumps(rec))
    rec["finding_info"]["uid"] = f"{rec['finding_info']['uid']}-{index}"
    rec.update(extra)
    return rec


def test_a_scan_with_a_bad_record_loads_the_rest_and_reports_it_without_a_traceback(
        tmp_path: Path) -> None:
    records = [_record(0), _record(1, cloud="aws"), _record(2)]
    (tmp_path / "bad.json").write_text(json.dumps(records))
    env = {**os.environ, "CLOUDG_MCP_ALLOWED_ROOTS": str(tmp_path),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-m", "cloudg_nb", "--policy", "open", "call", "--dataset",
         "x=bad.json", "list_findings"], capture_output=True, text=True, timeout=120,
        cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert "3 records read: 1 skipped" in out.stderr
    assert "skipped record #1: cloud:" in out.stderr
    assert out.stderr.count("skipped") == 2  # the report once, not the tool's log line again
    assert json.loads(out.stdout)["total"] == 2


def test_an_empty_scan_through_the_cli_is_an_empty_dataset(here: Path, capsys) -> None:
    (here / "empty.json").write_text("[]")
    code, out, err = _call(capsys, "call", "list_findings", "--dataset", "e=empty.json")
    assert code == 0 and json.loads(out)["total"] == 0
    assert "0 records read" in err
