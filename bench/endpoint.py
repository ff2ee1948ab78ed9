"""MCP round trips per second through three HTTP endpoints, side by side, in one run.

(1) cloudg's endpoint inside Jupyter (``{base_url}cloudg/mcp``, the ``cloudg_jupyter``
extension), (2) the same layer served by ``cloudg-nb serve --transport http`` (uvicorn), and
(3) the peer ``jupyter-mcp-live``'s endpoint inside the same Jupyter server (``{base_url}mcp``,
FastMCP 4 behind an ASGI bridge; ``ping`` only). Every client speaks raw JSON-RPC over HTTP
(httpx2, one keep-alive connection and one MCP session each, protocol 2025-06-18), so all
three pay the same client cost. Run from the repository root:
``python bench/endpoint.py [--quick] [--json]`` (needs ``pip install -e '.[bench]'``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cloudg_nb.layer import Registry, ToolContext

ROOT = Path(__file__).resolve().parents[1]
#: The trivial tool both cloudg servers get (merged into the catalog inside Jupyter).
BENCH_REGISTRY = "bench.endpoint:registry"
PROTOCOL = "2025-06-18"
CONCURRENCY = (1, 8)
#: (rounds, seconds per measurement, warm-up seconds)
FULL_PLAN = (7, 1.5, 1.0)
QUICK_PLAN = (1, 0.4, 0.2)
TARGET_VS_UVICORN = 0.8
TARGET_VS_PEER = 1.0

registry = Registry()


@registry.tool
async def bench_add(ctx: ToolContext, a: int, b: int) -> dict[str, int]:
    """Add two numbers (the benchmark's trivial tool)."""
    return {"sum": a + b}


# -- a raw MCP client ---------------------------------------------------------------------


class RoundTripError(RuntimeError):
    """A request that did not come back with the expected result."""


@dataclass
class RawClient:
    """One MCP session over one keep-alive connection, JSON-RPC posted by hand."""

    http: Any
    url: str
    headers: dict[str, str]
    next_id: int = 0
    session_headers: dict[str, str] = field(default_factory=dict)

    async def post(self, message: dict[str, Any]) -> Any:
        response = await self.http.post(self.url, json=message,
                                        headers={**self.headers, **self.session_headers})
        if response.status_code == 202:
            return None
        if response.status_code != 200:
            raise RoundTripError(f"{message.get('method')}: HTTP {response.status_code}")
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            for line in response.text.splitlines():
                if line.startswith("data:"):
                    body = json.loads(line[5:])
                    if body.get("id") == message.get("id"):
                        return body
            raise RoundTripError(f"{message.get('method')}: no response in the event stream")
        return response.json()

    async def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        body = await self.post(message)
        if not body or "result" not in body:
            raise RoundTripError(f"{method}: {body.get('error') if body else 'no body'}")
        return body["result"]

    async def open(self) -> None:
        self.next_id += 1
        init = {"jsonrpc": "2.0", "id": self.next_id, "method": "initialize", "params": {
            "protocolVersion": PROTOCOL, "capabilities": {},
            "clientInfo": {"name": "cloudg-bench", "version": "1"}}}
        response = await self.http.post(self.url, json=init, headers=self.headers)
        if response.status_code != 200:
            raise RoundTripError(f"initialize: HTTP {response.status_code}")
        session = response.headers.get("mcp-session-id")
        self.session_headers = {"mcp-protocol-version": PROTOCOL}
        if session:
            self.session_headers["mcp-session-id"] = session
        await self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    async def close(self) -> None:
        if "mcp-session-id" in self.session_headers:
            with contextlib.suppress(Exception):
                await self.http.delete(self.url,
                                       headers={**self.headers, **self.session_headers})


async def _ping(client: RawClient) -> None:
    if await client.request("ping") != {}:
        raise RoundTripError("ping: unexpected result")


async def _call(client: RawClient) -> None:
    result = await client.request("tools/call",
                                  {"name": "bench_add", "arguments": {"a": 1, "b": 2}})
    if result.get("isError") or result.get("structuredContent") != {"sum": 3}:
        raise RoundTripError("tools/call: unexpected result")


OPERATIONS = {"ping": _ping, "tools/call": _call}


def cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU time of process ``pid`` so far (Linux /proc), else None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except (OSError, TypeError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _child_pid(marker: str) -> int | None:
    """The pid of this process's child whose command line contains ``marker``."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rpartition(")")[2].split()[1]) != os.getpid():
                continue
            if marker in (stat.parent / "cmdline").read_bytes().decode(errors="replace"):
                return int(stat.parent.name)
        except (OSError, ValueError, IndexError):
            continue
    return None


async def measure(url: str, headers: dict[str, str], operation: str, clients: int,
                  seconds: float, server_pid: int | None = None) -> tuple[float, float | None]:
    """Round trips per second of ``clients`` sessions looping ``operation`` for ``seconds``,
    and the server process's CPU microseconds per round trip (None where unknown)."""
    import httpx2

    op = OPERATIONS[operation]
    limits = httpx2.Limits(max_connections=1, max_keepalive_connections=1)
    https = [httpx2.AsyncClient(timeout=30, limits=limits) for _ in range(clients)]
    sessions = [RawClient(h, url, {"accept": "application/json, text/event-stream",
                                   **headers}) for h in https]
    try:
        await asyncio.gather(*(s.open() for s in sessions))
        for s in sessions:  # one untimed round trip each: connections are warm
            await op(s)
        done = [0] * clients
        deadline = time.perf_counter() + seconds

        async def loop(i: int) -> None:
            while time.perf_counter() < deadline:
                await op(sessions[i])
                done[i] += 1

        cpu_before = cpu_seconds(server_pid)
        started = time.perf_counter()
        await asyncio.gather(*(loop(i) for i in range(clients)))
        elapsed = time.perf_counter() - started
        cpu_after = cpu_seconds(server_pid)
        cpu_us = (None if cpu_before is None or cpu_after is None or not sum(done)
                  else 1e6 * (cpu_after - cpu_before) / sum(done))
        return sum(done) / elapsed, cpu_us
    finally:
        await asyncio.gather(*(s.close() for s in sessions))
        await asyncio.gather(*(h.aclose() for h in https))


# -- the servers ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    key: str
    label: str
    url: str
    headers: dict[str, str]
    operations: tuple[str, ...]
    pid: int | None


@contextlib.contextmanager
def servers(tmp: Path) -> Iterator[list[Target]]:
    """One Jupyter server with both extensions, and ``cloudg-nb serve`` with the same layer
    setup (standard policy, no datasets, no audit file, no concurrency cap)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.conformance.runner import http_server
    from tests.jupyter.server import jupyter_server

    cloudg_args = [f"--CloudGExtension.registry={BENCH_REGISTRY}", "--CloudGExtension.datasets=[]",
                   "--CloudGExtension.audit_log=", "--CloudGExtension.max_concurrency=0",
                   "--CloudGExtension.policy=standard"]
    with jupyter_server(tmp, extra_args=cloudg_args) as jupyter, \
            http_server(BENCH_REGISTRY, policy="standard") as uvicorn_url:
        auth = {"authorization": f"Bearer {jupyter.token}"}
        uvicorn_pid = _child_pid("cloudg_nb")
        yield [
            Target("jupyter", "(1) cloudg in Jupyter", jupyter.endpoint, auth,
                   ("ping", "tools/call"), jupyter.proc.pid),
            Target("uvicorn", "(2) cloudg-nb serve (uvicorn)", uvicorn_url, {},
                   ("ping", "tools/call"), uvicorn_pid),
            Target("peer", "(3) jupyter-mcp-live in Jupyter", f"{jupyter.url}mcp", auth,
                   ("ping",), jupyter.proc.pid),
        ]


# -- the run --------------------------------------------------------------------------------


def run(quick: bool) -> dict[str, Any]:
    rounds, seconds, warmup = QUICK_PLAN if quick else FULL_PLAN
    cells = [(op, c) for op in OPERATIONS for c in CONCURRENCY]
    figures: dict[tuple[str, str, int], list[float]] = {}
    cpu: dict[tuple[str, str, int], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-endpoint-") as tmp, \
            servers(Path(tmp)) as targets:
        for target in targets:
            for op in target.operations:
                asyncio.run(measure(target.url, target.headers, op, 8, warmup, target.pid))
        for _ in range(rounds):  # rounds interleave targets: drift hits each alike
            for op, clients in cells:
                for target in targets:
                    if op in target.operations:
                        rate, cpu_us = asyncio.run(measure(target.url, target.headers, op,
                                                           clients, seconds, target.pid))
                        figures.setdefault((target.key, op, clients), []).append(rate)
                        if cpu_us is not None:
                            cpu.setdefault((target.key, op, clients), []).append(cpu_us)
        labels = {t.key: t.label for t in targets}
    rows = [{"endpoint": key, "label": labels[key], "operation": op, "clients": c,
             "median_rps": statistics.median(values), "rounds_rps": values,
             "server_cpu_us": statistics.median(cpu[key, op, c]) if cpu.get((key, op, c))
             else None}
            for (key, op, c), values in figures.items()]
    by = {(r["endpoint"], r["operation"], r["clients"]): r for r in rows}
    ratios = []
    for op, c in cells:
        for other, target in (("uvicorn", TARGET_VS_UVICORN), ("peer", TARGET_VS_PEER)):
            if (other, op, c) in by:
                ours, theirs = by[("jupyter", op, c)], by[(other, op, c)]
                value = ours["median_rps"] / theirs["median_rps"]
                # CPU per round trip, theirs over ours: the rate ratio a server-bound run on
                # an otherwise idle machine would show; other load disturbs it far less.
                cpu = (theirs["server_cpu_us"] / ours["server_cpu_us"]
                       if ours["server_cpu_us"] and theirs["server_cpu_us"] else None)
                ratios.append({"name": f"(1) / ({'2' if other == 'uvicorn' else '3'})",
                               "operation": op, "clients": c, "value": value,
                               "cpu_value": cpu, "target": target, "pass": value >= target,
                               "cpu_pass": None if cpu is None else cpu >= target})
    return {
        "rows": rows, "ratios": ratios,
        "plan": {"rounds": rounds, "seconds": seconds, "warmup_seconds": warmup,
                 "protocol": PROTOCOL},
        "environment": {"python": platform.python_version(), "cpus": os.cpu_count(),
                        "machine": platform.machine()},
    }


def format_report(report: dict[str, Any]) -> str:
    cells = [(op, c) for op in OPERATIONS for c in CONCURRENCY]
    by = {(r["endpoint"], r["operation"], r["clients"]): r for r in report["rows"]}
    labels = {r["endpoint"]: r["label"] for r in report["rows"]}
    plan = report["plan"]
    heads = [f"{op} x{c}" for op, c in cells]
    lines = [
        f"MCP round trips per second (median of {plan['rounds']} rounds x {plan['seconds']} s;"
        f" higher is better; xN = N concurrent clients; protocol {plan['protocol']})",
        "",
        f"{'endpoint':<34}" + "".join(f"{h:>16}" for h in heads),
    ]
    for key in ("jupyter", "uvicorn", "peer"):
        row = f"{labels[key]:<34}"
        for op, c in cells:
            cell = by.get((key, op, c))
            row += f"{cell['median_rps']:>16,.0f}" if cell else f"{'-':>16}"
        lines.append(row)
    lines += ["", "server CPU per round trip, µs (median; lower is better; (1) and (3) share "
              "one process)", f"{'endpoint':<34}" + "".join(f"{h:>16}" for h in heads)]
    for key in ("jupyter", "uvicorn", "peer"):
        row = f"{labels[key]:<34}"
        for op, c in cells:
            cell = by.get((key, op, c))
            value = cell and cell["server_cpu_us"]
            row += f"{value:>16,.0f}" if value else f"{'-':>16}"
        lines.append(row)
    lines += ["", "ratios of (1) (targets: (1)/(2) >= 0.8, (1)/(3) >= 1.0)"]
    lines.append(f"  {'':<26}{'rate':>6}{'':<7}{'by CPU':>8}")
    for r in report["ratios"]:
        verdict = "ok" if r["pass"] else "MISS"
        cpu = r["cpu_value"]
        cpu_text = f"{cpu:>8.2f} {'ok' if r['cpu_pass'] else 'MISS':<4}" if cpu else f"{'-':>8}"
        lines.append(f"  {r['name']:<10}{r['operation'] + ' x' + str(r['clients']):<16}"
                     f"{r['value']:>6.2f} {verdict:<5}{cpu_text}  (target >= {r['target']})")
    lines += ["  (by CPU = their server CPU per round trip / ours: what the rate ratio would be "
              "with the server as the only bottleneck; trust it over the rates on a busy "
              "machine)"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one short round: rough figures")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    try:
        import jupyter_mcp_live  # noqa: F401
    except ImportError:
        print("bench/endpoint.py compares against the peer jupyter-mcp-live, which is not "
              "installed.\nInstall the bench extra from the repository root:  "
              "pip install -e '.[bench]'", file=sys.stderr)
        return 2
    report = run(args.quick)
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
