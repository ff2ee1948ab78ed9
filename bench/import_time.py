"""Import cost of the core, side by side with the MCP SDK's low-level server and FastMCP;
and of the kernel's MCP client, side by side with the SDK's client.

Each row runs one import statement in fresh interpreters (``--runs`` each) and reports the
median wall and CPU milliseconds around the import alone (not interpreter start-up), and how
many modules it loaded. ``cloudg_nb.layer`` loads its names on first use, so its row imports
every name. The target: the core under 150 ms with only the stdlib and pydantic. Run from the
repository root: ``python bench/import_time.py [--runs N] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from dataclasses import asdict, dataclass

TARGET_MS = 150.0
#: (label, module, import statement): ours, then what a peer costs to import.
ROWS = (
    ("cloudg_nb.layer (the core)", "cloudg_nb.layer", "from cloudg_nb.layer import *"),
    ("cloudg_nb (package root)", "cloudg_nb", "import cloudg_nb"),
    ("cloudg_nb.catalog (the tools)", "cloudg_nb.catalog", "import cloudg_nb.catalog"),
    ("peer: mcp.server.lowlevel", "mcp.server.lowlevel", "import mcp.server.lowlevel"),
    ("peer: fastmcp", "fastmcp", "import fastmcp"),
    ("kernel client: notebook.remote", "cloudg_nb.notebook.remote",
     "import cloudg_nb.notebook.remote, httpx2"),
    ("peer: mcp.Client (SDK client)", "mcp", "from mcp import Client"),
)
_PROBE = (
    "import sys, time, json; before = len(sys.modules); w = time.perf_counter(); "
    "c = time.process_time(); {statement}; "
    "print(json.dumps([time.perf_counter() - w, time.process_time() - c, "
    "len(sys.modules) - before]))"
)


@dataclass
class Row:
    label: str
    module: str
    wall_ms: float
    cpu_ms: float
    modules: int


def measure(label: str, module: str, statement: str, runs: int) -> Row | None:
    """Median figures over ``runs`` fresh interpreters; None when ``module`` is not installed."""
    samples = []
    for _ in range(runs):
        proc = subprocess.run([sys.executable, "-c", _PROBE.format(statement=statement)],
                              capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            return None
        samples.append(json.loads(proc.stdout))
    return Row(label, module, round(statistics.median(s[0] for s in samples) * 1000, 1),
               round(statistics.median(s[1] for s in samples) * 1000, 1),
               int(statistics.median(s[2] for s in samples)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh interpreters per row")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    rows = [row for label, module, statement in ROWS
            if (row := measure(label, module, statement, args.runs))]
    if args.json:
        print(json.dumps({"target_ms": TARGET_MS, "rows": [asdict(r) for r in rows]}))
        return 0
    print(f"import cost, median of {args.runs} fresh interpreters (target for the core: "
          f"< {TARGET_MS:g} ms)")
    print(f"{'module':<34} {'wall ms':>9} {'cpu ms':>8} {'modules':>8}")
    for row in rows:
        print(f"{row.label:<34} {row.wall_ms:>9.1f} {row.cpu_ms:>8.1f} {row.modules:>8}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
