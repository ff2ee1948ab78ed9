"""Smoke run of bench/cli_cache.py on a tiny file: it runs the real CLI, the cached runs read
the cache, and it reports every row (no timing asserts)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_cli_cache_bench_reports_fresh_first_and_cached_runs() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "cli_cache.py"), "--mb", "0.1",
                           "--rounds", "1", "--json"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert [r["run"] for r in report["rows"]] == [
        "--no-cache (parse every run)", "first run (parse + store)", "next runs (cached parse)"]
    assert report["cache_hits"] == 1
    assert all(r["seconds"] > 0 and r["peak_mb"] > 0 for r in report["rows"])
