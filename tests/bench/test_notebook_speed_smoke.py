"""A smoke run of bench/notebook_speed.py at tiny sizes: it loads findings tables into a real
Jupyter server, opens LiveFrames over them next to pandas and the REST round trip, follows an
assistant's changes and times the first call in fresh kernels, reporting every row (no timing
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
SCRIPT = ROOT / "bench" / "notebook_speed.py"
ARGS = ["--load-rows", "500", "1200", "--change-rows", "100", "--rounds", "2", "--repeats", "1",
        "--kernels", "1", "--colds", "2", "--json"]


def test_json_run_reports_loads_changes_and_first_calls() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), *ARGS], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    loads = report["first_load"]
    assert [r["rows"] for r in loads] == [500, 1200]
    for row in loads:
        assert row["json_mb"] > 0 and row["ours_cold_s"] > 0 and row["ours_warm_s"] > 0, row
        assert 0 < row["rest_get_s"] <= row["rest_plus_pandas_s"] + 1, row
        assert row["pandas_from_json_s"] > 0, row
        assert len(row["cold_samples_s"]) == 2 and all(t > 0 for t in row["cold_samples_s"])
    live = [r for r in report["change"] if r["mode"] == "remote"]
    assert [(r["rows"], r["samples"]) for r in live] == [(100, 2)]
    assert live[0]["target_p95_ms"] is None  # targets are named for 1k and 50k only
    assert [r["mode"] for r in report["change"]][-1] == "REST GET api/status"
    firsts = report["first_call"]
    assert {(r["warmup"], r["pause_s"]) for r in firsts} == {
        (w, p) for w in ("on", "off") for p in (0.0, 1.0, 3.0)}
    assert all(r["first_call_ms"] > 0 and r["empty_cell_ms"] > 0 and r["load_ext_ms"] > 0
               for r in firsts)
