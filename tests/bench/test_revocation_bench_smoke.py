"""Smoke run of bench/revocation.py: it starts a Jupyter server, revokes assistants both ways
with their event streams open, and reports both rows and the watcher's cost (no timing
asserts)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

#: What it starts (the benchmark starts a Jupyter server): tests/lanes.py.
pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "revocation.py"


def test_quick_json_run_reports_both_ways_of_revoking_and_the_watchers_cost() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    rows = report["rows"]
    assert set(rows) == {"api", "file"}
    assert all(len(row["samples_ms"]) == report["plan"]["rounds"] for row in rows.values())
    assert all(0 < row["min_ms"] <= row["median_ms"] <= row["max_ms"] for row in rows.values())
    assert report["look_us"] > 0 and isinstance(report["pass"], bool)
    assert report["poll_seconds"] > 0
