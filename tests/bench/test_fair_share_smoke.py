"""Smoke run of bench/fair_share.py: it starts a Jupyter server, floods it from an assistant's
connections and reports the analyst's idle and flood rows side by side with the target (no
timing asserts: the figures are the bench's job)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

#: What it starts (the benchmark starts a Jupyter server): tests/lanes.py.
pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "fair_share.py"


def test_quick_json_run_reports_idle_and_flood_side_by_side_with_the_target() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    for phase in ("idle", "flood"):
        row = report[phase]
        assert row["calls"] > 0 and row["p95_ms"] > 0, row
        assert row["errors"] == 0, row["error_samples"]
    flood = report["assistant"]
    assert "failed" not in flood, flood
    assert flood["busy"] > 0 and flood["exceptions"] == 0, flood
    target = report["target"]
    assert set(target) == {"p95_ms", "ratio", "flood_p95_ms", "flood_over_idle", "pass"}
    assert isinstance(target["pass"], bool)
