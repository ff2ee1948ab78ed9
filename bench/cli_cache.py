"""``cloudg-nb call --dataset`` run after run: the parse cache next to parsing afresh.

Generates a Prowler JSON-OCSF file of about ``--mb`` MB (``bench/loaders.py``'s realistic
records), then runs the real console script (a fresh process each time, as a user would):
``--no-cache`` runs (the parse every time), a first run that parses and stores the parse, and
cached runs. Prints the median wall time and peak RSS of each, side by side. The cache lives
in a temporary ``XDG_CACHE_HOME``. Run from the repository root:
``python bench/cli_cache.py [--mb 20] [--rounds 3] [--tool list_findings] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loaders import generate

#: Runs the console script and reports its own peak RSS (KB) as the last stderr line.
_CHILD = ("import resource, runpy, sys\n"
          "sys.argv = ['cloudg-nb', *sys.argv[1:]]\n"
          "try:\n"
          "    runpy.run_module('cloudg_nb', run_name='__main__')\n"
          "finally:\n"
          "    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
          "    print(f'peak-rss-kb {kb}', file=sys.stderr)\n")


def _once(args: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, str]:
    """(wall seconds, peak RSS MB, stderr) of one CLI run in a fresh process."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _CHILD, *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=900, check=False)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"the CLI failed ({proc.returncode}): {proc.stderr.strip()[:400]}")
    peak_kb = float(proc.stderr.rstrip().rsplit("peak-rss-kb ", 1)[1])
    return wall, peak_kb / 1024.0, proc.stderr


def run(mb: float, rounds: int, tool: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="cloudg-cli-cache-") as tmp:
        folder = Path(tmp)
        ocsf, _csv, records, _ = generate(folder, mb)
        env = {**os.environ, "XDG_CACHE_HOME": str(folder / "cache"),
               "CLOUDG_MCP_ALLOWED_ROOTS": str(folder)}
        base = ["call", "--dataset", f"scan={ocsf.name}", tool, "--args", '{"limit": 5}']
        fresh = [_once([*base, "--no-cache"], env, folder) for _ in range(rounds)]
        first = _once(base, env, folder)
        cached = [_once(base, env, folder) for _ in range(rounds)]
        hits = sum("(cached parse)" in err for _, _, err in cached)
        rows = [
            {"run": "--no-cache (parse every run)", "seconds":
             statistics.median(w for w, _, _ in fresh), "peak_mb": max(m for _, m, _ in fresh)},
            {"run": "first run (parse + store)", "seconds": first[0], "peak_mb": first[1]},
            {"run": "next runs (cached parse)", "seconds":
             statistics.median(w for w, _, _ in cached), "peak_mb": max(m for _, m, _ in cached)},
        ]
        return {"file_mb": round(ocsf.stat().st_size / 1e6, 1), "records": records,
                "tool": tool, "rounds": rounds, "cache_hits": hits, "rows": rows,
                "speedup": rows[0]["seconds"] / rows[2]["seconds"],
                "environment": {"python": platform.python_version(), "cpus": os.cpu_count()}}


def _table(report: dict[str, Any]) -> str:
    lines = [f"cloudg-nb call --dataset <{report['file_mb']} MB Prowler OCSF, "
             f"{report['records']:,} records> {report['tool']} (median of "
             f"{report['rounds']} runs, each a fresh process)",
             f"{'run':<32} {'wall s':>8} {'peak RSS MB':>12}"]
    for row in report["rows"]:
        lines.append(f"{row['run']:<32} {row['seconds']:>8.2f} {row['peak_mb']:>12.0f}")
    lines.append(f"cached runs {report['speedup']:.1f}x faster than parsing afresh "
                 f"({report['cache_hits']} of {report['rounds']} read the cache)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=20.0, help="file size in MB (default 20)")
    parser.add_argument("--rounds", type=int, default=3, help="runs per row (default 3)")
    parser.add_argument("--tool", default="list_findings", help="tool to call")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    report = run(args.mb, max(1, args.rounds), args.tool)
    print(json.dumps(report, indent=2) if args.json else _table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
