"""Smoke run of bench/loop_stall.py: it serves, probes, runs every attack and reports each
scenario's figures and the target (no timing asserts: the figures are the bench's job)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

#: What it starts (the benchmark starts a Jupyter server): tests/lanes.py.
pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "loop_stall.py"


def test_quick_json_run_reports_every_scenario_and_the_target() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    rows = {r["scenario"]: r for r in report["rows"]}
    assert list(rows) == ["idle", "keys_300k", "keys_24k", "string_990k", "flood",
                          "same_process"]
    for key, row in rows.items():
        assert row["probe_calls"] > 0 and 0 < row["p50_ms"] <= row["p99_ms"] <= row["worst_ms"]
        assert len(row["rounds_worst_ms"]) == report["plan"]["rounds"]
        assert key == "idle" or row["requests"] > 0, row
    target = rows["keys_300k"]
    assert target["target_worst_ms"] == 100.0 and isinstance(target["pass"], bool)
