"""Smoke run of bench/drift.py: it runs on a small estate, reports every step, and ours and
networkx agree on the crown jewels left open (no timing asserts)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "drift.py"


def test_quick_json_run_reports_every_step_and_agrees_with_networkx() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--n", "3000", "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert [r["step"] for r in report["rows"]] == [
        "diff (field by field)", "drift report on top", "open paths to crown jewels"]
    assert report["rows"][2]["agree"] is True and report["rows"][2]["jewels_open"] > 0
    assert report["found"]["worse_lost_protections"] > 0
    assert report["headline"].startswith("Worse: ")
