"""A smoke run of bench/hub_memory.py: it starts a real JupyterHub and a plain JupyterLab
server, runs the quickstart notebook in a kernel of each and reports server and kernel memory
for both rows (no size asserts: the figures are the bench's job)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

#: What it starts (a hub with a single-user server, a Jupyter server, their kernels).
pytestmark = [pytest.mark.hub, pytest.mark.server, pytest.mark.kernel]

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "hub_memory.py"


def test_json_run_reports_server_and_kernel_memory_beside_plain_jupyterlab() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--rounds", "1", "--rows", "hub",
                           "plain", "--json"], cwd=ROOT, capture_output=True, text=True,
                          timeout=900, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = {row["kind"]: row for row in json.loads(proc.stdout)["rows"]}
    assert sorted(rows) == ["hub", "plain"]
    for row in rows.values():
        assert row["rounds"] == 1
        assert row["server_rss_mib"] > 0 and row["kernel_rss_mib"] > 0, row
        assert row["total_rss_mib"] == pytest.approx(
            row["server_rss_mib"] + row["kernel_rss_mib"], abs=0.2)
    # The hub's kernel talks to its server's cloudg; the plain server's runs cloudg itself.
    assert (rows["hub"]["kernel_backend"], rows["plain"]["kernel_backend"]) == (
        "remote", "local")
