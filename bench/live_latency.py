"""How fast a LiveFrame follows the shared workspace, and what a ``%cloudg`` magic costs remotely
next to the same call in-process, in one run.

(1) LiveFrame latency: a Jupyter server with the cloudg extension holds a scaled estate of N
assets (N = 1k and 50k); a remote ``Client`` (``cloudg_nb.connect``) keeps
``live("find_assets", dataset=...)`` — a table of N rows; a separate ``mcp.Client`` (standing
in for an assistant) suppresses, then unsuppresses, a finding on one of those assets. Latency
= from the start of that mutating call until ``lf.df`` shows the asset's new ``open_findings``.
A local row does the same on an in-process layer (the mutation by a second in-process caller).
(2) Magic round trip: ``%cloudg call find_assets internet_exposed=true -o df`` in a kernel the
server started, remote (the kernel's MCP session) next to local (``cloudg_nb.local()``), timed
in the kernel and as a whole cell over the kernel websocket (next to an empty cell, the
kernel's own round trip).
Run from the repository root: ``python bench/live_latency.py [--quick] [--json]``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: p95 targets in ms by table size (rows); sizes in between take the next larger target.
TARGETS_MS = {1_000: 250.0, 50_000: 1_000.0}
MAGIC_LINE = "call find_assets internet_exposed=true -o df"
#: How long one update may take before the bench gives up on it.
UPDATE_TIMEOUT = 180.0
#: Seconds of mutations per table size and mode; at least one suppress/unsuppress pair runs.
DEFAULT_BUDGET = 90.0
#: Pause between mutations, so each one's debounced refresh has settled.
SETTLE = 0.3


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100)."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def summary(values: list[float]) -> dict[str, float]:
    return {"samples": len(values), "median_ms": round(statistics.median(values) * 1000, 1),
            "p95_ms": round(percentile(values, 95) * 1000, 1),
            "max_ms": round(max(values) * 1000, 1)}


def target_for(rows: int) -> float:
    for size in sorted(TARGETS_MS):
        if rows <= size:
            return TARGETS_MS[size]
    return TARGETS_MS[max(TARGETS_MS)]


# -- LiveFrame latency ------------------------------------------------------------------------


def pick_findings(findings: list[dict[str, Any]], count: int) -> list[tuple[str, str]]:
    """(finding id, asset id) pairs: open findings on inventoried assets, one per asset."""
    picked: dict[str, str] = {}
    for item in findings:
        if item["in_inventory"] and not item["is_suppressed"] and \
                item["resource_id"] not in picked:
            picked[item["resource_id"]] = item["id"]
        if len(picked) == count:
            break
    return [(finding, asset) for asset, finding in picked.items()]


def open_findings(frame: Any, asset: str) -> int | None:
    rows = frame.loc[frame["id"] == asset, "open_findings"]
    return int(rows.iloc[0]) if len(rows) else None


def wait_for_frame(live: Any, asset: str, expected: int, started: float) -> float:
    """Poll ``live.df`` (a new frame object means a refresh landed) until ``asset`` shows
    ``expected`` open findings; returns the seconds since ``started``."""
    seen = None
    while True:
        frame = live.df
        if frame is not seen:
            seen = frame
            if open_findings(frame, asset) == expected:
                return time.perf_counter() - started
        if time.perf_counter() - started > UPDATE_TIMEOUT:
            raise RuntimeError(f"the LiveFrame did not show {asset} with {expected} open "
                               f"findings within {UPDATE_TIMEOUT:g} s")
        time.sleep(0.001)


def measure_live(live: Any, mutate: Callable[[str, str], Any], pairs: list[tuple[str, str]],
                 repeats: int, budget: float) -> list[float]:
    """Suppress then unsuppress findings ``repeats`` times each (fewer when ``budget``
    seconds run out first); each latency in seconds."""
    latencies: list[float] = []
    deadline = time.monotonic() + budget
    for i in range(repeats):
        if i and time.monotonic() > deadline:
            break
        finding, asset = pairs[i % len(pairs)]
        before = open_findings(live.df, asset)
        if before is None:
            raise RuntimeError(f"asset {asset} is not in the LiveFrame")
        for tool, expected in (("suppress_findings", before - 1),
                               ("unsuppress_findings", before)):
            started = time.perf_counter()
            mutate(tool, finding)
            latencies.append(wait_for_frame(live, asset, expected, started))
            time.sleep(SETTLE)
    return latencies


def wait_rows(live: Any, rows: int) -> None:
    deadline = time.monotonic() + UPDATE_TIMEOUT * 4
    while len(live.df) != rows:
        if time.monotonic() > deadline:
            raise RuntimeError(f"the LiveFrame holds {len(live.df)} rows, expected {rows}")
        time.sleep(0.05)


def live_row(client: Any, name: str, rows: int, mode: str, mutate: Callable[[str, str], Any],
             pairs: list[tuple[str, str]], repeats: int, budget: float) -> dict[str, Any]:
    """One report row: a LiveFrame of ``find_assets`` over the dataset ``name`` (``rows``
    assets), the time to its first full table, then its update latencies under ``mutate``."""
    started = time.perf_counter()
    live = client.live("find_assets", dataset=name, progress=False)
    try:
        wait_rows(live, rows)
        first = time.perf_counter() - started
        latencies = measure_live(live, mutate, pairs, repeats, budget)
    finally:
        live.close()
    return {"rows": rows, "mode": mode, "first_load_ms": round(first * 1000, 1),
            **summary(latencies), "target_p95_ms": target_for(rows)}


def remote_live_rows(server: Any, sizes: list[int], repeats: int,
                     budget: float) -> list[dict[str, Any]]:
    import cloudg_nb
    from tests.protocol.harness import open_session

    out = []
    client = cloudg_nb.connect(url=server.endpoint, token=server.token)
    try:
        with open_session(server.endpoint, "2025", headers=server.headers) as assistant:
            for rows in sizes:
                name = f"rows{rows}"
                loaded = assistant.call_tool("sample_estate", {
                    "name": "scaled", "n": rows, "dataset_name": name, "activate": False})
                assert not loaded.is_error, loaded.content
                found = assistant.call_tool("list_findings", {"dataset": name, "limit": 500})
                pairs = pick_findings(found.structured_content["items"], repeats)

                def mutate(tool: str, finding: str, name: str = name) -> None:
                    result = assistant.call_tool(tool, {"ids": [finding], "dataset": name})
                    assert not result.is_error, result.content

                out.append(live_row(client, name, rows, "remote", mutate, pairs, repeats,
                                    budget))
    finally:
        client.close()
    return out


def local_live_rows(sizes: list[int], repeats: int, budget: float) -> list[dict[str, Any]]:
    import cloudg_nb

    out = []
    client = cloudg_nb.local(sample=None)
    try:
        for rows in sizes:
            name = f"rows{rows}"
            loaded = client.call("sample_estate", name="scaled", n=rows, dataset_name=name,
                                 activate=False, progress=False)
            assert not loaded.is_error, loaded.text
            found = client.call("list_findings", dataset=name, limit=500, progress=False)
            pairs = pick_findings(found.data["items"], repeats)

            def mutate(tool: str, finding: str, name: str = name) -> None:
                result = client.call(tool, ids=[finding], dataset=name, progress=False)
                assert not result.is_error, result.text

            out.append(live_row(client, name, rows, "local", mutate, pairs, repeats, budget))
    finally:
        client.close()
    return out


# -- magic round trip -------------------------------------------------------------------------

_KERNEL_TIMER = """
import json as _bj, time as _bt
from IPython.utils.capture import capture_output as _bcapture
def _bench_magic(line, n):
    ip = get_ipython()
    times = []
    for _ in range(n):
        with _bcapture():
            started = _bt.perf_counter()
            ip.run_line_magic("cloudg", line)
            times.append(_bt.perf_counter() - started)
    print("@@times@@" + _bj.dumps(times))
"""


def kernel_times(kernel: Any, line: str, repeats: int) -> list[float]:
    result = kernel.execute(f"_bench_magic({line!r}, {repeats})", timeout=600)
    if not result.ok:
        raise RuntimeError(f"timing {line!r} in the kernel failed: {result.text}")
    marker = [ln for ln in result.stdout.splitlines() if ln.startswith("@@times@@")][-1]
    return [float(t) for t in json.loads(marker.removeprefix("@@times@@"))]


def cell_times(kernel: Any, code: str, repeats: int) -> list[float]:
    out = []
    for _ in range(repeats):
        result = kernel.execute(code)
        if not result.ok:
            raise RuntimeError(f"{code} failed: {result.text}")
        out.append(result.seconds)
    return out


def magic_rows(server: Any, repeats: int) -> list[dict[str, Any]]:
    from tests.notebook.kernel import server_kernel

    out = []
    with server_kernel(server) as kernel:
        for code in ("%load_ext cloudg_nb", _KERNEL_TIMER):
            if not (result := kernel.execute(code)).ok:
                raise RuntimeError(f"kernel setup failed: {result.text}")
        for mode, switch in (
                ("remote", "from cloudg_nb.notebook.client import default_client\n"
                           "assert default_client().mode == 'remote'"),
                ("local", "import cloudg_nb\nfrom cloudg_nb.notebook.client import "
                          "set_default_client\nset_default_client(cloudg_nb.local())")):
            if not (result := kernel.execute(switch)).ok:
                raise RuntimeError(f"switching to {mode} failed: {result.text}")
            cell_times(kernel, f"%cloudg {MAGIC_LINE}", 2)  # warm-up: connection, imports
            out.append({"where": "magic in the kernel", "mode": mode,
                        **summary(kernel_times(kernel, MAGIC_LINE, repeats))})
            out.append({"where": "cell over the websocket", "mode": mode,
                        **summary(cell_times(kernel, f"%cloudg {MAGIC_LINE}", repeats))})
        out.append({"where": "empty cell (baseline)", "mode": "-",
                    **summary(cell_times(kernel, "pass", repeats))})
    return out


# -- report -----------------------------------------------------------------------------------


@contextlib.contextmanager
def bench_server() -> Iterator[Any]:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.notebook.kernel import notebook_server

    with tempfile.TemporaryDirectory(prefix="cloudg-live-bench-") as tmp, \
            notebook_server(Path(tmp), extra_args=()) as server:
        yield server


def run(sizes: list[int], repeats: int, magic_repeats: int, budget: float) -> dict[str, Any]:
    with bench_server() as server:
        live = remote_live_rows(server, sizes, repeats, budget)
        magic = magic_rows(server, magic_repeats)
    live += local_live_rows(sizes, repeats, budget)
    targets = [{"rows": r["rows"], "p95_ms": r["p95_ms"], "target_p95_ms": r["target_p95_ms"],
                "pass": r["p95_ms"] <= r["target_p95_ms"]} for r in live if r["mode"] == "remote"]
    return {"live": live, "magic": magic, "targets": targets, "magic_line": MAGIC_LINE,
            "environment": {"python": platform.python_version(), "cpus": os.cpu_count(),
                            "machine": platform.machine()}}


def format_report(report: dict[str, Any]) -> str:
    lines = ["LiveFrame latency: mutating call by an external client -> lf.df holds the new "
             "data (suppress + unsuppress_findings)",
             f"{'rows':>7}  {'mode':<7}{'samples':>8}{'median ms':>11}{'p95 ms':>9}"
             f"{'max ms':>9}{'first load ms':>15}{'target p95':>12}"]
    for row in report["live"]:
        target = f"≤ {row['target_p95_ms']:g}" if row["mode"] == "remote" else "-"
        lines.append(f"{row['rows']:>7}  {row['mode']:<7}{row['samples']:>8}"
                     f"{row['median_ms']:>11.1f}{row['p95_ms']:>9.1f}{row['max_ms']:>9.1f}"
                     f"{row['first_load_ms']:>15.1f}{target:>12}")
    lines += ["", f"Magic round trip: %cloudg {report['magic_line']}",
              f"{'where':<26}{'mode':<8}{'samples':>8}{'median ms':>11}{'p95 ms':>9}"
              f"{'max ms':>9}"]
    for row in report["magic"]:
        lines.append(f"{row['where']:<26}{row['mode']:<8}{row['samples']:>8}"
                     f"{row['median_ms']:>11.1f}{row['p95_ms']:>9.1f}{row['max_ms']:>9.1f}")
    lines += ["", "Targets (remote LiveFrame p95):"]
    for target in report["targets"]:
        verdict = "ok" if target["pass"] else "MISS"
        lines.append(f"  {target['rows']:>7} rows: p95 {target['p95_ms']:.1f} ms "
                     f"(target ≤ {target['target_p95_ms']:g} ms) {verdict}")
    env = report["environment"]
    lines.append(f"\npython {env['python']}, {env['cpus']} CPUs, {env['machine']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000, 50_000],
                        help="LiveFrame table sizes (assets of a scaled estate, ≥ 10)")
    parser.add_argument("--repeats", type=int, default=20,
                        help="suppress/unsuppress pairs per table size")
    parser.add_argument("--magic-repeats", type=int, default=30, help="magic calls per mode")
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET,
                        help="seconds of mutations per table size and mode (after the first "
                             "pair); slow refreshes give fewer samples")
    parser.add_argument("--quick", action="store_true",
                        help="5 pairs per size, 10 magic calls per mode: rough figures")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    repeats, magic_repeats = (5, 10) if args.quick else (args.repeats, args.magic_repeats)
    report = run(args.rows, repeats, magic_repeats, args.budget)
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
