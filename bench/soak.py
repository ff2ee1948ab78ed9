"""Soak: N concurrent MCP clients over real HTTP against ``build_http_app`` under uvicorn.

The server runs in its own process on 127.0.0.1 with ``scaled(200_000)`` (dataset ``big``)
and the demo estate. For each N (default 1, 8, 32) every client issues cheap calls back to
back (get_asset, count_assets, list_datasets, a resource read) while min(N, 8) slow graph
calls on ``big`` stay in flight, a third of them cancelled by the client part-way. Prints
calls/s, p50/p95/max of cheap calls, errors and the server's RSS, beside the targets.

Run from the repository root:  ``python bench/soak.py [--seconds 20] [--n 1 8 32] [--json]``
Figures, never a timed test; the script exits 0 whether or not a target is met.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SLOW_IN_FLIGHT = 8
CANCEL_SHARE = 1 / 3
#: The issue's targets: cheap-call p95 at N=8 with 8 slow calls running, RSS growth, errors.
TARGET_P95_MS = 100.0
TARGET_RSS_GROWTH = 0.10


# -- the server (a child process) --------------------------------------------------------


def serve(assets: int, switch_interval: float | None, heavy_workers: int) -> None:
    """Build the layer with ``big`` and ``demo``, warm its indexes and caches (one run of each
    slow call), serve, print the URL."""
    import uvicorn

    from cloudg_nb.estate import demo, scaled
    from cloudg_nb.layer import CloudGMCPLayer
    from cloudg_nb.protocol import build_http_app
    from cloudg_nb.protocol.http import bind_socket

    layer = CloudGMCPLayer(policy="open", heavy_workers=heavy_workers)
    big = scaled(assets, name="big")
    layer.workspace.add(demo(), "demo", activate=True)
    layer.workspace.add(big, "big")
    big = layer.workspace.get("big")
    big.index  # noqa: B018  (warm: reference lookups, graph views, finding index)
    for view in ("both", "flow", "out", "in", "identity", "identity_in"):
        big.view(view)
    big.finding_index()
    for name, arguments in SLOW_CALLS:
        if name != "centrality_top":  # sampled betweenness caches nothing; seconds per run
            asyncio.run(layer.call_tool(name, arguments))
    if switch_interval:
        sys.setswitchinterval(switch_interval)
    sock = bind_socket("127.0.0.1", 0)
    app = build_http_app(layer)
    print(f"SOAK-URL http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on")).run(sockets=[sock])


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> int:
    text = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+)", text).group(1))  # type: ignore[union-attr]


# -- the clients --------------------------------------------------------------------------


@dataclass
class Tally:
    cheap_ms: list[float] = field(default_factory=list)
    slow_ms: list[float] = field(default_factory=list)
    cancelled: int = 0
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)

    def error(self, what: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(what[:200])


async def _ids(client: Any) -> tuple[list[str], str]:
    page = await client.call_tool("find_assets", {"dataset": "big", "limit": 200})
    items = page.structured_content["items"]
    found = await client.call_tool("list_findings", {"dataset": "big", "limit": 1})
    return [i["id"] for i in items], found.structured_content["items"][0]["id"]


def _cheap_call(rng: random.Random, ids: list[str], finding: str) -> tuple[str, Any]:
    pick = rng.random()
    if pick < 0.4:
        return "tool", ("get_asset", {"dataset": "big", "ref": rng.choice(ids)})
    if pick < 0.6:
        return "tool", ("count_assets", {"dataset": "demo", "group_by": "provider"})
    if pick < 0.75:
        return "tool", ("list_datasets", {})
    if pick < 0.9:
        return "tool", ("get_finding", {"dataset": "big", "finding_id": finding})
    return "resource", "cloudg://workspace"


SLOW_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("internet_exposure", {"dataset": "big"}),
    ("centrality_top", {"dataset": "big", "metric": "betweenness", "top": 10}),
    ("attack_paths", {"dataset": "big"}),
    ("graph_stats", {"dataset": "big"}),
]


async def _cheap_loop(url: str, deadline: float, tally: Tally, seed: int,
                      ids: list[str], finding: str) -> None:
    from mcp import Client

    rng = random.Random(seed)
    async with Client(url, mode="auto") as client:
        while time.monotonic() < deadline:
            kind, what = _cheap_call(rng, ids, finding)
            started = time.perf_counter()
            try:
                if kind == "tool":
                    result = await client.call_tool(*what)
                    if result.is_error:
                        tally.error(f"{what[0]}: {result.content[0].text}")
                        continue
                else:
                    await client.read_resource(what)
            except Exception as exc:
                tally.error(f"{kind} {what}: {type(exc).__name__}: {exc}")
                continue
            tally.cheap_ms.append((time.perf_counter() - started) * 1000)


async def _slow_loop(url: str, deadline: float, tally: Tally, seed: int) -> None:
    import anyio
    from mcp import Client

    rng = random.Random(seed)
    async with Client(url, mode="auto") as client:
        while time.monotonic() < deadline:
            name, args = rng.choice(SLOW_CALLS)
            cancel = rng.random() < CANCEL_SHARE
            started = time.perf_counter()
            budget = rng.uniform(0.3, 1.5) if cancel else max(0.1, deadline - time.monotonic())
            try:
                with anyio.move_on_after(budget) as scope:
                    result = await client.call_tool(name, args)
                if scope.cancelled_caught:
                    tally.cancelled += 1
                    continue
                if result.is_error:
                    tally.error(f"{name}: {result.content[0].text}")
                    continue
            except Exception as exc:
                tally.error(f"{name}: {type(exc).__name__}: {exc}")
                continue
            tally.slow_ms.append((time.perf_counter() - started) * 1000)


async def _warm(url: str) -> tuple[list[str], str]:
    """One connection before any round (imports and first-use costs stay out of the figures)
    that fetches the asset and finding ids the cheap calls use."""
    from mcp import Client

    async with Client(url, mode="auto") as client:
        return await _ids(client)


async def _round(url: str, n: int, seconds: float, slow: int,
                 refs: tuple[list[str], str]) -> Tally:
    import anyio

    tally = Tally()
    deadline = time.monotonic() + seconds
    async with anyio.create_task_group() as group:
        for i in range(n):
            group.start_soon(_cheap_loop, url, deadline, tally, 1000 + i, *refs)
        for i in range(min(n, slow)):
            group.start_soon(_slow_loop, url, deadline, tally, 2000 + i)
    return tally


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="per N (default 20)")
    parser.add_argument("--n", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--assets", type=int, default=200_000)
    parser.add_argument("--slow", type=int, default=SLOW_IN_FLIGHT,
                        help=f"slow calls in flight at most (default {SLOW_IN_FLIGHT})")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--switch-interval", type=float, default=None,
                        help="the server's sys.setswitchinterval (default: Python's 0.005)")
    parser.add_argument("--heavy-workers", type=int, default=2,
                        help="the layer's heavy lane size (default 2; one caller gets half)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.assets, args.switch_interval, args.heavy_workers)
        return 0

    warnings.simplefilter("ignore")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, __file__, "--serve", "--assets", str(args.assets),
            "--heavy-workers", str(args.heavy_workers)]
    if args.switch_interval:
        argv += ["--switch-interval", str(args.switch_interval)]
    server = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert server.stdout is not None
        url = ""
        for line in server.stdout:
            if line.startswith("SOAK-URL "):
                url = line.split()[1]
                break
        if not url:
            print("the soak server did not start", file=sys.stderr)
            return 1
        refs = asyncio.run(_warm(url))
        rows = []
        for n in args.n:
            rss_start = rss_kib(server.pid)
            cpu_server, cpu_clients = cpu_seconds(server.pid), cpu_seconds(os.getpid())
            started = time.monotonic()
            tally = asyncio.run(_round(url, n, args.seconds, args.slow, refs))
            elapsed = time.monotonic() - started
            rss_end = rss_kib(server.pid)
            cpu_server = cpu_seconds(server.pid) - cpu_server
            cpu_clients = cpu_seconds(os.getpid()) - cpu_clients
            calls = len(tally.cheap_ms) + len(tally.slow_ms) + tally.cancelled
            rows.append({
                "n": n, "seconds": round(elapsed, 1), "calls": calls,
                "calls_per_s": round(calls / elapsed, 1),
                "cheap_calls": len(tally.cheap_ms),
                "cheap_p50_ms": round(_pct(tally.cheap_ms, 0.5), 1),
                "cheap_p95_ms": round(_pct(tally.cheap_ms, 0.95), 1),
                "cheap_max_ms": round(max(tally.cheap_ms, default=float("nan")), 1),
                "slow_done": len(tally.slow_ms),
                "slow_median_ms": round(statistics.median(tally.slow_ms), 0)
                if tally.slow_ms else None,
                "slow_cancelled": tally.cancelled, "errors": tally.errors,
                "error_samples": tally.error_samples,
                "rss_start_mib": round(rss_start / 1024, 1),
                "rss_end_mib": round(rss_end / 1024, 1),
                "rss_growth": round(rss_end / rss_start - 1, 3),
                "server_cpu": round(cpu_server / elapsed, 2),
                "clients_cpu": round(cpu_clients / elapsed, 2),
            })
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
    first = rows[0]["rss_start_mib"] * 1024
    overall = round(rows[-1]["rss_end_mib"] * 1024 / first - 1, 3)
    eight = next((r for r in rows if r["n"] == 8), None)
    targets = {
        "cheap_p95_ms_at_8": {"target": TARGET_P95_MS,
                              "value": eight["cheap_p95_ms"] if eight else None},
        "rss_growth_overall": {"target": TARGET_RSS_GROWTH, "value": overall},
        "errors": {"target": 0, "value": sum(r["errors"] for r in rows)},
    }
    for t in targets.values():
        t["pass"] = t["value"] is not None and t["value"] <= t["target"]
    if args.json:
        print(json.dumps({"rows": rows, "targets": targets, "assets": args.assets,
                          "slow_in_flight": args.slow}, indent=2))
        return 0
    print(f"soak: scaled({args.assets:,}), {args.seconds:g} s per N, min(N, {args.slow}) "
          f"slow graph calls in flight ({CANCEL_SHARE:.0%} cancelled part-way)\n")
    head = (f"{'N':>3} {'calls/s':>8} {'cheap':>6} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7} "
            f"{'slow ok':>7} {'cancel':>6} {'errors':>6} {'RSS MiB start→end':>19} "
            f"{'CPU srv/cli':>11}")
    print(head)
    for r in rows:
        print(f"{r['n']:>3} {r['calls_per_s']:>8} {r['cheap_calls']:>6} {r['cheap_p50_ms']:>7} "
              f"{r['cheap_p95_ms']:>7} {r['cheap_max_ms']:>7} {r['slow_done']:>7} "
              f"{r['slow_cancelled']:>6} {r['errors']:>6} "
              f"{r['rss_start_mib']:>8}→{r['rss_end_mib']:<8} "
              f"{r['server_cpu']:>5}/{r['clients_cpu']:<5}")
        for sample in r["error_samples"]:
            print(f"      error: {sample}")
    print("\ntargets        value    target   ")
    for name, t in targets.items():
        print(f"{name:<20} {t['value']!s:>8} {t['target']!s:>8}  {'ok' if t['pass'] else 'MISS'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
