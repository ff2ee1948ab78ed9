"""Smoke runs of bench/transforms.py: it runs and reports every row (no timing asserts)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "transforms.py"


def _run(*flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", *flags],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )


def test_quick_json_run_reports_every_size_and_case_with_positive_figures() -> None:
    proc = _run("--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    rows = report["rows"]
    assert {(r["size"], r["case"]) for r in rows} == {
        (size, case) for size in ("100 KB", "1 MB")
        for case in ("json.dumps", "standard", "strict")
    }
    for row in rows:
        assert row["median_ms"] > 0 and row["rounds_ms"] and row["chars"] > 0, row
    assert {(r["size"], r["case"]) for r in report["ratios"]} == {
        (size, case) for size in ("100 KB", "1 MB") for case in ("standard", "strict")
    }
    assert all(isinstance(r["pass"], bool) for r in report["ratios"] if r["target"])


def test_quick_table_prints_a_row_per_size() -> None:
    proc = _run()
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert any(line.startswith("100 KB") for line in lines)
    assert any(line.startswith("1 MB") for line in lines)
    assert "json.dumps" in lines[1] and "standard" in lines[1]
