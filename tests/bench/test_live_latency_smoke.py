"""Smoke runs of bench/live_latency.py at tiny sizes: it serves, keeps LiveFrames in step with
another client's changes and times the magic in a kernel, reporting every row (no timing
asserts: the figures are the bench's job)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

#: What it starts (the benchmark starts a Jupyter server and kernels): tests/lanes.py.
pytestmark = [pytest.mark.server, pytest.mark.kernel]

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "live_latency.py"
ARGS = ["--rows", "100", "300", "--repeats", "1", "--magic-repeats", "2"]


def run_bench(*extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *ARGS, *extra], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)


def test_json_run_reports_every_table_size_mode_and_magic_row() -> None:
    proc = run_bench("--json")
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert {(r["rows"], r["mode"]) for r in report["live"]} == {
        (rows, mode) for rows in (100, 300) for mode in ("remote", "local")}
    for row in report["live"]:
        assert row["samples"] == 2, row  # one suppress and one unsuppress
        assert 0 < row["median_ms"] <= row["p95_ms"] <= row["max_ms"], row
    assert {(r["where"], r["mode"]) for r in report["magic"]} == {
        (where, mode) for where in ("magic in the kernel", "cell over the websocket")
        for mode in ("remote", "local")} | {("empty cell (baseline)", "-")}
    assert all(r["samples"] == 2 and r["median_ms"] > 0 for r in report["magic"])
    assert [(t["rows"], t["target_p95_ms"]) for t in report["targets"]] == [
        (100, 250.0), (300, 250.0)]


def test_text_run_prints_the_latency_and_magic_tables() -> None:
    proc = run_bench()
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "LiveFrame latency" in out and "Magic round trip" in out
    table = [line.split() for line in out.splitlines()]
    assert ["100", "remote"] in [row[:2] for row in table]
    assert ["300", "local"] in [row[:2] for row in table]
    assert any(line.startswith("magic in the kernel") and "remote" in line
               for line in out.splitlines())
    assert any(line.startswith("cell over the websocket") and "local" in line
               for line in out.splitlines())
