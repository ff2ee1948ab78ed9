"""Smoke runs of bench/loaders.py on tiny files: it runs and reports every file next to pandas
(no timing asserts)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "loaders.py"


def _run(*flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), "--mb", "0.2", "--rounds", "1", *flags],
                          cwd=ROOT, capture_output=True, text=True, timeout=180, check=False)


def test_json_report_has_both_files_with_positive_figures_for_both_readers() -> None:
    proc = _run("--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)["rows"]
    assert [(r["file"], r["ours"]["reader"], r["pandas"]["reader"]) for r in rows] == [
        ("Prowler OCSF", "load_path", "pandas.read_json"),
        ("Prowler CSV", "load_path", "pandas.read_csv"),
        ("CSV 1 row/res", "load_path", "pandas.read_csv"),
        ("CSV by row", "csv row by row", "pandas.read_csv")]
    for row in rows:
        assert row["records"] > 0 and 0 < row["findings"] < row["records"], row
        assert row["ours"]["seconds"] > 0 and row["pandas"]["seconds"] > 0, row
        assert row["ratio"] > 0, row
    # the three load_path rows carry the target; the row path is a reference
    assert [r["pass"] is None for r in rows] == [False, False, False, True]
    assert all(isinstance(r["pass"], bool) and r["target"] == 3.0 for r in rows[:3])
    # resources checked several times, as Prowler writes them; then a resource per row
    checked, spread = rows[1]["ours"]["assets"], rows[2]["ours"]["assets"]
    assert 0 < 2 * checked < spread <= rows[2]["records"] + 10, (checked, spread)


def test_table_prints_a_line_per_reader_with_the_ratio_and_target() -> None:
    proc = _run()
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "time ratio" in lines[1] and "peak MB" in lines[1]
    ours = [line for line in lines if "load_path" in line]
    assert len(ours) == 3 and all("<= 3x" in line for line in ours)
    assert sum("reference" in line for line in lines if "csv row by row" in line) == 1
    assert sum("pandas.read_json" in line for line in lines) == 1
    assert sum("pandas.read_csv" in line for line in lines) == 3  # two CSVs, one by both paths
