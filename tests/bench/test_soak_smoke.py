"""Smoke run of bench/soak.py: it serves, drives clients over HTTP and reports every row and
target (no timing asserts: the figures are the bench's job)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

#: What it starts (the benchmark starts an MCP server process): tests/lanes.py.
pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "soak.py"


def test_short_json_run_reports_every_n_with_its_figures() -> None:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--seconds", "2", "--n", "1", "2", "--assets", "2000",
         "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=180, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert [r["n"] for r in report["rows"]] == [1, 2]
    for row in report["rows"]:
        assert row["cheap_calls"] > 0, row
        assert row["cheap_p95_ms"] > 0 and row["rss_start_mib"] > 0, row
        assert row["errors"] == 0, row["error_samples"]
    assert set(report["targets"]) == {"cheap_p95_ms_at_8", "rss_growth_overall", "errors"}
