"""Smoke run of bench/assistant_auth.py: it starts a Jupyter server, mints an assistant
credential, and reports both token kinds, every step of the check and the ratios (no timing
asserts)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

#: What it starts (the benchmark starts Jupyter servers): tests/lanes.py.
pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "assistant_auth.py"


def test_quick_json_run_reports_both_tokens_every_step_and_the_ratios() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    calls = report["calls"].values()
    assert {(c["token"], c["clients"]) for c in calls} == {
        (token, clients) for token in ("server token (analyst)", "assistant token")
        for clients in (1, 8)}
    assert all(c["median_rps"] > 0 and c["server_cpu_us"] > 0 for c in calls)
    assert set(report["check_us"]) == {
        "route guard, analyst request", "route guard, assistant token off the endpoint",
        "read the token", "store.verify (stat, SHA-256, lookup)", "whole assistant check"}
    assert all(us > 0 for us in report["check_us"].values())
    assert [r["clients"] for r in report["ratios"]] == [1, 8]
    assert all(r["share"] > 0 and isinstance(r["pass"], bool) for r in report["ratios"])
