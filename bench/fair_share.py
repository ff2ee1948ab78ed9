"""Fair share: the analyst's trivial call while one assistant floods the server, beside idle.

One real Jupyter server with the cloudg extension at its defaults and a scaled estate of
``--assets`` assets (default 50k). The analyst (the server's token, one MCP session) calls
``list_datasets`` one call after another (``--gap`` apart), first with the server idle, then
while one assistant (a minted credential) keeps ``--connections`` connections (default 40)
looping a read-only graph call of ~1-3 s (betweenness ``centrality_top`` on the estate) and
retrying at once when refused. Prints the analyst's p50/p95/max idle and under flood side by
side, the flood's calls finished and refused, and the server's CPU. Target: under flood
p95 <= 250 ms and <= 5x idle. Run from the repository root:
``python bench/fair_share.py [--quick] [--json]``; exits 0 whether or not the target is met.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import warnings
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: The issue's targets: the analyst's p95 under flood, absolute and as a multiple of idle.
TARGET_MS = 250.0
TARGET_RATIO = 5.0
#: The flood's call: read-only, seconds of CPU-bound graph work on a large estate.
FLOOD_CALL = ("centrality_top", {"dataset": "big", "metric": "betweenness", "top": 10})
#: The analyst's trivial call.
ANALYST_CALL = ("list_datasets", {})
#: (assets, connections, seconds per phase, warm-up seconds of the flood) per plan.
FULL_PLAN = (50_000, 40, 20.0, 4.0)
QUICK_PLAN = (5_000, 10, 3.0, 1.0)


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux ``/proc``)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _mint(server_url: str, owner_token: str, name: str) -> str:
    """A new assistant credential (``POST cloudg/api/assistants``, as ``cloudg-nb config``
    does), under the default assistant profile."""
    request = urllib.request.Request(
        f"{server_url}cloudg/api/assistants", method="POST",
        data=json.dumps({"name": name, "client": "other"}).encode(),
        headers={"Authorization": f"token {owner_token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return str(json.loads(response.read())["token"])


async def _with_client(url: str, token: str, mode: str,
                       body: Callable[[Any], Awaitable[Any]]) -> Any:
    """Run ``body(client)`` with an official-SDK client holding ``token``."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with (httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"},
                                   timeout=httpx2.Timeout(60, read=300)) as http,
                Client(streamable_http_client(url, http_client=http), mode=mode) as client):
        return await body(client)


# -- the flood (a child process of its own, so its CPU is not the analyst's client's) -------


def flood(url: str, token: str, connections: int, pause: float) -> None:
    """``connections`` clients of one assistant loop ``FLOOD_CALL`` until stdin closes; a
    refused call is retried after ``pause`` seconds (0: at once, as an attacker would).
    Prints ``FLOODING`` once every connection is open, then a JSON tally on the last line."""
    tally: dict[str, Any] = {"done": 0, "busy": 0, "other_errors": 0, "exceptions": 0,
                             "done_ms": [], "busy_ms": [], "samples": []}

    async def loop(client: Any, stop: asyncio.Event, opened: list[int]) -> None:
        opened.append(1)
        if len(opened) == connections:
            print("FLOODING", flush=True)
        while not stop.is_set():
            started = time.perf_counter()
            try:
                result = await client.call_tool(*FLOOD_CALL)
            except Exception as exc:
                tally["exceptions"] += 1
                if len(tally["samples"]) < 5:
                    tally["samples"].append(f"{type(exc).__name__}: {exc}"[:200])
                await asyncio.sleep(0.2)
                continue
            ms = (time.perf_counter() - started) * 1000
            if not result.is_error:
                tally["done"] += 1
                tally["done_ms"].append(ms)
                continue
            text = result.content[0].text if result.content else ""
            if "busy" in text.lower():
                tally["busy"] += 1
                tally["busy_ms"].append(ms)
                if pause:
                    await asyncio.sleep(pause)
            else:
                tally["other_errors"] += 1
                if len(tally["samples"]) < 5:
                    tally["samples"].append(text[:200])

    async def main() -> None:
        import anyio

        stop = asyncio.Event()
        opened: list[int] = []
        loop_ = asyncio.get_running_loop()
        loop_.add_reader(sys.stdin.fileno(), stop.set)  # the parent closes stdin: stop
        async with anyio.create_task_group() as group:
            for i in range(connections):
                mode = "legacy" if i % 2 else "auto"  # both protocol eras
                group.start_soon(_with_client, url, token, mode,
                                 lambda client: loop(client, stop, opened))
            await stop.wait()
            group.cancel_scope.cancel()

    warnings.simplefilter("ignore")
    asyncio.run(main())
    done, busy = tally.pop("done_ms"), tally.pop("busy_ms")
    tally["done_median_ms"] = round(statistics.median(done)) if done else None
    tally["busy_median_ms"] = round(statistics.median(busy), 1) if busy else None
    print(json.dumps(tally), flush=True)


# -- the analyst ----------------------------------------------------------------------------


async def _phase(client: Any, seconds: float, gap: float) -> dict[str, Any]:
    """The analyst's ``ANALYST_CALL`` one after another (``gap`` apart) for ``seconds``, at
    least once; every call is timed, however long it takes."""
    ms: list[float] = []
    errors: list[str] = []
    deadline = time.monotonic() + seconds
    while not ms or time.monotonic() < deadline:
        started = time.perf_counter()
        result = await client.call_tool(*ANALYST_CALL)
        ms.append((time.perf_counter() - started) * 1000)
        if result.is_error:
            errors.append(result.content[0].text[:200] if result.content else "error")
        await asyncio.sleep(gap)
    return {"calls": len(ms), "p50_ms": round(_pct(ms, 0.5), 1),
            "p95_ms": round(_pct(ms, 0.95), 1), "max_ms": round(max(ms), 1),
            "errors": len(errors), "error_samples": errors[:3]}


def _start_flood(url: str, token: str, connections: int, pause: float
                 ) -> subprocess.Popen[str]:
    argv = [sys.executable, __file__, "--flood", url, token, str(connections), str(pause)]
    child = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert child.stdout is not None
    for line in child.stdout:  # until every connection is open
        if line.startswith("FLOODING"):
            break
    return child


def _stop_flood(child: subprocess.Popen[str]) -> dict[str, Any]:
    try:
        out, err = child.communicate(input="", timeout=120)
    except subprocess.TimeoutExpired:
        child.kill()
        out, err = child.communicate()
    lines = out.strip().splitlines()
    try:
        return dict(json.loads(lines[-1]))
    except (IndexError, ValueError):
        return {"failed": (err or out)[-1000:]}


async def _analyst(url: str, token: str, assistant: str, plan: dict[str, Any],
                   pid: int) -> dict[str, Any]:
    """One analyst session: warm, the idle phase, then the flood phase (the flood started
    and stopped around it)."""
    async def body(client: Any) -> dict[str, Any]:
        for _ in range(5):  # first-use costs stay out of the figures
            await client.call_tool(*ANALYST_CALL)
        out: dict[str, Any] = {}
        cpu, began = cpu_seconds(pid), time.monotonic()
        out["idle"] = await _phase(client, plan["seconds"], plan["gap_seconds"])
        out["idle"]["server_cpu"] = round((cpu_seconds(pid) - cpu)
                                          / (time.monotonic() - began), 2)
        child = await asyncio.to_thread(_start_flood, url, assistant, plan["connections"],
                                        plan["retry_pause"])
        try:
            await asyncio.sleep(plan["warmup_seconds"])  # every connection looping
            cpu, began = cpu_seconds(pid), time.monotonic()
            out["flood"] = await _phase(client, plan["seconds"], plan["gap_seconds"])
            out["flood"]["server_cpu"] = round((cpu_seconds(pid) - cpu)
                                               / (time.monotonic() - began), 2)
        finally:
            out["assistant"] = await asyncio.to_thread(_stop_flood, child)
        return out

    return dict(await _with_client(url, token, "legacy", body))


def _prepare(url: str, token: str, assets: int) -> float:
    """Load the scaled estate as ``big`` and run the flood's call once (its indexes built);
    returns that call's seconds."""
    async def body(client: Any) -> float:
        loaded = await client.call_tool("sample_estate", {
            "name": "scaled", "n": assets, "dataset_name": "big", "activate": False})
        if loaded.is_error:
            raise RuntimeError(loaded.content[0].text)
        started = time.perf_counter()
        result = await client.call_tool(*FLOOD_CALL)
        if result.is_error:
            raise RuntimeError(result.content[0].text)
        return time.perf_counter() - started

    return float(asyncio.run(_with_client(url, token, "legacy", body)))


def run(assets: int, connections: int, seconds: float, warmup: float, gap: float,
        pause: float, extra_args: list[str]) -> dict[str, Any]:
    from tests.jupyter.server import jupyter_server

    plan = {"assets": assets, "connections": connections, "seconds": seconds,
            "warmup_seconds": warmup, "gap_seconds": gap, "retry_pause": pause,
            "flood_call": FLOOD_CALL[0], "server_args": extra_args}
    with tempfile.TemporaryDirectory(prefix="bench-fair-share-") as tmp, \
            jupyter_server(Path(tmp), extra_args=extra_args) as jupyter:
        plan["flood_call_alone_s"] = round(_prepare(jupyter.endpoint, jupyter.token, assets), 2)
        assistant = _mint(jupyter.url, jupyter.token, "flood-bot")
        report = asyncio.run(_analyst(jupyter.endpoint, jupyter.token, assistant, plan,
                                      jupyter.proc.pid))
    idle, flooded = report["idle"], report["flood"]
    ratio = flooded["p95_ms"] / idle["p95_ms"] if idle["p95_ms"] else None
    report["target"] = {"p95_ms": TARGET_MS, "ratio": TARGET_RATIO,
                        "flood_p95_ms": flooded["p95_ms"], "flood_over_idle": ratio,
                        "pass": bool(ratio is not None and flooded["p95_ms"] <= TARGET_MS
                                     and ratio <= TARGET_RATIO)}
    report["plan"] = plan
    report["environment"] = {"python": platform.python_version(), "cpus": os.cpu_count(),
                             "machine": platform.machine()}
    return report


def format_report(report: dict[str, Any]) -> str:
    plan, target, tally = report["plan"], report["target"], report["assistant"]
    pause = plan["retry_pause"]
    retry = f"after {pause:g} s" if pause else "at once"
    lines = [
        f"the analyst's {ANALYST_CALL[0]} over MCP in one Jupyter server, scaled("
        f"{plan['assets']:,}); flood: one assistant, {plan['connections']} connections "
        f"looping {plan['flood_call']} (betweenness; {plan['flood_call_alone_s']} s alone), "
        f"retrying {retry} when refused", "",
        f"{'server':<8}{'calls':>7}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}{'errors':>8}"
        f"{'server CPU':>12}"]
    for name in ("idle", "flood"):
        row = report[name]
        lines.append(f"{name:<8}{row['calls']:>7}{row['p50_ms']:>9}{row['p95_ms']:>9}"
                     f"{row['max_ms']:>9}{row['errors']:>8}{row['server_cpu']:>12}")
        lines += [f"        error: {sample}" for sample in row["error_samples"]]
    if "failed" in tally:
        lines.append(f"\nthe flood failed: {tally['failed']}")
    else:
        lines.append(
            f"\nthe assistant's flood: {tally['done']} calls finished (median "
            f"{tally['done_median_ms']} ms), {tally['busy']} refused busy (median "
            f"{tally['busy_median_ms']} ms), {tally['other_errors']} other errors, "
            f"{tally['exceptions']} exceptions")
        lines += [f"        sample: {sample}" for sample in tally["samples"]]
    ratio = target["flood_over_idle"]
    shown = "-" if ratio is None else f"{ratio:.1f}x"
    lines += ["", f"target: flood p95 <= {target['p95_ms']:g} ms and <= "
              f"{target['ratio']:g}x idle: {target['flood_p95_ms']} ms, {shown}  "
              f"{'ok' if target['pass'] else 'MISS'}"]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="5k assets, 10 connections, 3 s phases: a smoke run")
    parser.add_argument("--assets", type=int)
    parser.add_argument("--connections", type=int)
    parser.add_argument("--seconds", type=float, help="seconds the analyst calls per phase")
    parser.add_argument("--gap", type=float, default=0.05,
                        help="seconds between two of the analyst's calls (default 0.05)")
    parser.add_argument("--retry-pause", type=float, default=0.0,
                        help="seconds the flood waits after a refusal (default 0: at once)")
    parser.add_argument("--server-arg", action="append", default=[],
                        help="an extra Jupyter server argument (repeatable), e.g. "
                             "--server-arg=--CloudGExtension.max_concurrency=8")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--flood", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.flood:
        url, token, connections, pause = args.flood
        flood(url, token, int(connections), float(pause))
        return 0
    assets, connections, seconds, warmup = QUICK_PLAN if args.quick else FULL_PLAN
    warnings.simplefilter("ignore")
    report = run(args.assets or assets, args.connections or connections,
                 args.seconds or seconds, warmup, args.gap, args.retry_pause, args.server_arg)
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
