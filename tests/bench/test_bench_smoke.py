"""Smoke runs of bench/layer_overhead.py: it runs and reports every row (no timing asserts)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.bench.script_runs import run_without

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "layer_overhead.py"

EXPECTED_ROWS = {
    ("async", "handler"), ("async", "layer"), ("async", "full"), ("async", "fastmcp"),
    ("sync", "handler"), ("sync", "to_thread"), ("sync", "layer"), ("sync", "full"),
    ("sync", "fastmcp"),
}


def test_quick_json_run_reports_every_row_with_positive_figures() -> None:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)

    rows = report["rows"]
    assert {(r["flavour"], r["case"]) for r in rows} == EXPECTED_ROWS
    for row in rows:
        figures = [row["median_us"], row["min_us"], row["max_us"], *row["rounds_us"]]
        assert row["rounds_us"], row
        assert all(isinstance(x, (int, float)) and x > 0 for x in figures), row

    ratios = report["ratios"]
    assert {(r["name"], r["flavour"]) for r in ratios} == {
        ("bare layer / FastMCP", "async"), ("bare layer / FastMCP", "sync"),
        ("full stack / FastMCP", "async"), ("full stack / FastMCP", "sync"),
    }
    assert all(r["value"] > 0 and r["paired"] > 0 and isinstance(r["pass"], bool) for r in ratios)
    assert report["environment"]["audit_lines_written"] > 0


def test_missing_fastmcp_exits_2_with_install_hint() -> None:
    proc = run_without(SCRIPT, "fastmcp")
    assert proc.returncode == 2
    assert "pip install -e '.[bench]'" in proc.stderr
