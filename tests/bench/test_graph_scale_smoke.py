"""Smoke run of bench/graph_scale.py: it runs and reports every row (no timing asserts)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.bench.script_runs import run_without

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "graph_scale.py"

ROWS = ["load (generate + build)", "find_assets", "neighbors_d2", "blast_radius",
        "blast_radius_typical", "attack_paths", "find_paths"]


def test_quick_json_run_reports_every_row_and_the_answers_agree() -> None:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--n", "5000", "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert [r["query"] for r in report["rows"]] == ROWS
    assert all(r["ours_s"] > 0 and r["networkx_s"] > 0 for r in report["rows"])
    assert all(r["agree"] for r in report["rows"][1:])
    assert report["rss"]["ours_mb"] > 0 and report["n_assets"] == 5000


def test_table_output_has_a_line_per_row() -> None:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--n", "2000"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    for row in [*ROWS, "peak RSS (ours)"]:
        assert row in proc.stdout


def test_missing_networkx_exits_2_with_install_hint() -> None:
    proc = run_without(SCRIPT, "networkx")
    assert proc.returncode == 2
    assert "pip install -e '.[bench]'" in proc.stderr
