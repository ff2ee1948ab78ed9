"""Smoke run of bench/call_cost.py at tiny sizes: every tool row on both estates and both HTTP
eras for both servers are reported with positive figures (no timing asserts)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

#: What it starts (the benchmark starts MCP server processes): tests/lanes.py.
pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "call_cost.py"
TOOLS = {"get_asset", "get_finding", "neighbors", "list_findings", "find_assets"}


def test_quick_run_reports_every_tool_on_both_estates_and_both_http_eras() -> None:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--json", "--n", "300"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)

    rows = report["in_process"]
    assert {(r["estate"], r["tool"]) for r in rows} == {
        (estate, tool) for estate in ("demo", "scaled300") for tool in TOOLS}
    for row in rows:
        assert row["ours_us"] > 0 and row["fastmcp_us"] > 0 and row["ratio"] > 0, row
        assert isinstance(row["pass"], bool)

    http = report["http"]
    assert {(r["server"], r["era"]) for r in http} == {
        (server, era) for server in ("cloudg", "fastmcp") for era in ("2025-06-18", "2026-07-28")}
    assert all(r["rps"] > 0 for r in http), http
