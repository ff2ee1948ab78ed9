"""Smoke runs of bench/endpoint.py: it starts the servers, reports every row and ratio (no
timing asserts), and says how to install the peer when it is missing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bench.script_runs import run_without

#: What it starts (the benchmark starts Jupyter servers): tests/lanes.py.
pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "endpoint.py"

EXPECTED_ROWS = {
    (endpoint, op, clients)
    for endpoint, ops in (("jupyter", ("ping", "tools/call")), ("uvicorn", ("ping", "tools/call")),
                          ("peer", ("ping",)))
    for op in ops for clients in (1, 8)
}


def test_quick_json_run_reports_every_endpoint_and_ratio() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    rows = report["rows"]
    assert {(r["endpoint"], r["operation"], r["clients"]) for r in rows} == EXPECTED_ROWS
    assert all(r["median_rps"] > 0 and r["rounds_rps"] for r in rows)
    ratios = {(r["name"], r["operation"], r["clients"]) for r in report["ratios"]}
    assert ratios == {("(1) / (2)", op, c) for op in ("ping", "tools/call") for c in (1, 8)} \
        | {("(1) / (3)", "ping", c) for c in (1, 8)}
    assert all(r["value"] > 0 and isinstance(r["pass"], bool) for r in report["ratios"])
    assert all(r["cpu_value"] > 0 and isinstance(r["cpu_pass"], bool) for r in report["ratios"])


def test_missing_peer_exits_2_with_install_hint() -> None:
    proc = run_without(SCRIPT, "jupyter_mcp_live")
    assert proc.returncode == 2
    assert "pip install -e '.[bench]'" in proc.stderr
