"""Smoke run of bench/import_time.py: it reports the core and the kernel's client next to the
MCP SDK peers (no timing asserts)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "import_time.py"


def test_json_report_lists_the_core_and_the_sdk_peer_with_positive_figures() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--runs", "1", "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    rows = {row["module"]: row for row in json.loads(proc.stdout)["rows"]}
    assert {"cloudg_nb.layer", "mcp.server.lowlevel"} <= set(rows)
    for row in rows.values():
        assert row["wall_ms"] > 0 and row["cpu_ms"] > 0 and row["modules"] > 0, row
    assert rows["cloudg_nb.layer"]["modules"] < rows["cloudg_nb.catalog"]["modules"]
    # the kernel's client loads fewer modules than the SDK's client it replaced
    assert rows["cloudg_nb.notebook.remote"]["modules"] < rows["mcp"]["modules"]
