"""What one catalog call costs, next to FastMCP 4 returning the same payload as a constant.

In-process: ``layer.call_tool`` under the ``standard`` policy for get_asset, get_finding,
neighbors (depth 1), list_findings and find_assets (20 rows) on the demo estate and a scaled
one, beside ``FastMCP.call_tool`` whose tool returns that call's result as a constant. Over HTTP:
calls/s and server CPU ms/call of get_asset with 8 clients, both protocol eras, ``cloudg-nb
serve`` vs a FastMCP server returning the same JSON. Run: ``python bench/call_cost.py [--quick]``.
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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cloudg_nb import CloudGMCPLayer
from cloudg_nb.estate import Dataset, demo, scaled
from cloudg_nb.workspace import Workspace

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ("get_asset", "get_finding", "neighbors", "list_findings", "find_assets")
PAGE_ROWS = 20
ERAS = ("2025-06-18", "2026-07-28")
HTTP_CLIENTS = 8
#: Targets: in-process ours/FastMCP-constant <= 1.5 per row; HTTP calls/s ours/FastMCP >= 0.8.
TARGET_IN_PROCESS = 1.5
TARGET_HTTP = 0.8
#: (in-process rounds, seconds per round, HTTP rounds, HTTP seconds per measurement)
FULL_PLAN = (7, 0.3, 3, 2.0)
QUICK_PLAN = (2, 0.05, 1, 0.3)


def _require_fastmcp() -> Any:
    try:
        import fastmcp
    except ImportError:
        print("bench/call_cost.py compares against the peer FastMCP 4, which is not installed.\n"
              "Install the bench extra from the repository root:  pip install -e '.[bench]'",
              file=sys.stderr)
        raise SystemExit(2) from None
    return fastmcp


# -- the calls ------------------------------------------------------------------------------


def _layer(ds: Dataset, tmp: Path) -> CloudGMCPLayer:
    ws = Workspace(allowed_roots=[tmp], output_dir=tmp)
    ws.add(ds, activate=True)
    return CloudGMCPLayer(workspace=ws, policy="standard")


def call_arguments(ds: Dataset) -> dict[str, dict[str, Any]]:
    """Arguments of each benchmarked call: the asset with the most findings (and edges) and
    its worst finding; first pages of 20 rows for the lists."""
    findings = ds.findings
    counts = findings["resource_id"].value_counts()
    asset_id = str(counts.index[0])
    finding_id = str(findings.loc[findings["resource_id"] == asset_id, "id"].iloc[0])
    return {
        "get_asset": {"ref": asset_id},
        "get_finding": {"finding_id": finding_id},
        "neighbors": {"ref": asset_id, "depth": 1, "limit": PAGE_ROWS},
        "list_findings": {"limit": PAGE_ROWS},
        "find_assets": {"limit": PAGE_ROWS},
    }


@dataclass
class Row:
    estate: str
    tool: str
    ours_us: list[float] = field(default_factory=list)
    peer_us: list[float] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        return statistics.median(self.ours_us) / statistics.median(self.peer_us)


async def _round(call: Callable[[], Any], seconds: float) -> float:
    """Back-to-back awaited calls for about ``seconds``; µs per call."""
    n, started = 0, time.perf_counter()
    while True:
        await call()
        n += 1
        elapsed = time.perf_counter() - started
        if elapsed >= seconds and n >= 3:
            return 1e6 * elapsed / n


async def _in_process(ds: Dataset, tmp: Path, rounds: int, seconds: float) -> list[Row]:
    fastmcp = _require_fastmcp()
    layer = _layer(ds, tmp)
    args = call_arguments(ds)
    rows = []
    pairs = []
    for tool in TOOLS:
        result = await layer.call_tool(tool, args[tool])
        if result.is_error:
            raise RuntimeError(f"{tool} failed on {ds.name}: {result.text}")
        payload = result.structured
        peer = fastmcp.FastMCP(f"bench-{tool}")

        def constant(payload: dict[str, Any] = payload) -> dict[str, Any]:
            return payload

        peer.tool(name=tool)(constant)
        peer_result = await peer.call_tool(tool, {})
        if peer_result.structured_content != payload:
            raise RuntimeError(f"FastMCP's {tool} does not return the same payload")
        rows.append(Row(ds.name, tool))
        pairs.append((
            lambda t=tool: layer.call_tool(t, args[t]),
            lambda t=tool, p=peer: p.call_tool(t, {}),
        ))
    for ours, theirs in pairs:  # warm-up
        await _round(ours, seconds / 2)
        await _round(theirs, seconds / 2)
    for _ in range(rounds):  # rounds interleave rows: drift hits each alike
        for row, (ours, theirs) in zip(rows, pairs, strict=True):
            row.ours_us.append(await _round(ours, seconds))
            row.peer_us.append(await _round(theirs, seconds))
    return rows


# -- HTTP -----------------------------------------------------------------------------------


def _peer_server_main(payload_path: str) -> None:
    """Child process: FastMCP 4 over streamable HTTP, get_asset returning a constant."""
    import uvicorn

    fastmcp = _require_fastmcp()
    payload = json.loads(Path(payload_path).read_text())
    mcp = fastmcp.FastMCP("bench-peer")

    def get_asset(ref: str) -> dict[str, Any]:
        return payload

    mcp.tool(name="get_asset")(get_asset)
    config = uvicorn.Config(mcp.http_app(path="/mcp"), host="127.0.0.1", port=0,
                            log_level="warning")
    server = uvicorn.Server(config)

    async def serve() -> None:
        task = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.05)
        port = server.servers[0].sockets[0].getsockname()[1]
        print(f"serving MCP at http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
        await task

    asyncio.run(serve())


@contextlib.contextmanager
def _process(argv: list[str]) -> Iterator[tuple[str, int]]:
    """A server subprocess; yields (URL it prints, pid)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.protocol.harness import ServerProcess

    with ServerProcess(argv=argv, timeout=120) as server:
        assert server.proc is not None
        yield server.url, server.proc.pid


def _cpu_seconds(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class _Session:
    """One client over one keep-alive connection, JSON-RPC posted by hand, either era."""

    def __init__(self, http: Any, url: str, era: str) -> None:
        self.http, self.url, self.era = http, url, era
        self.headers = {"accept": "application/json, text/event-stream",
                        "mcp-protocol-version": era}
        self.next_id = 0

    async def _post(self, body: dict[str, Any], headers: dict[str, str]) -> Any:
        response = await self.http.post(self.url, json=body, headers=headers)
        if response.status_code == 202:
            return None
        if response.status_code != 200:
            raise RuntimeError(f"{body.get('method')}: HTTP {response.status_code} "
                               f"{response.text[:300]}")
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            for line in response.text.splitlines():
                if line.startswith("data:"):
                    message = json.loads(line[5:])
                    if message.get("id") == body.get("id"):
                        return message
            raise RuntimeError("no response in the event stream")
        return response.json()

    async def open(self) -> None:
        if self.era >= "2026":
            return
        init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": self.era, "capabilities": {},
            "clientInfo": {"name": "cloudg-bench", "version": "1"}}}
        response = await self.http.post(self.url, json=init, headers={
            "accept": "application/json, text/event-stream"})
        if sid := response.headers.get("mcp-session-id"):
            self.headers["mcp-session-id"] = sid
        await self._post({"jsonrpc": "2.0", "method": "notifications/initialized"},
                         self.headers)

    async def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        params: dict[str, Any] = {"name": name, "arguments": arguments}
        headers = self.headers
        if self.era >= "2026":
            params["_meta"] = {"io.modelcontextprotocol/protocolVersion": self.era,
                               "io.modelcontextprotocol/clientCapabilities": {}}
            headers = {**headers, "mcp-method": "tools/call", "mcp-name": name}
        message = await self._post({"jsonrpc": "2.0", "id": self.next_id,
                                    "method": "tools/call", "params": params}, headers)
        result = (message or {}).get("result")
        if not result or result.get("isError"):
            raise RuntimeError(f"tools/call {name}: {message}")
        return result

    async def close(self) -> None:
        if "mcp-session-id" in self.headers:
            with contextlib.suppress(Exception):
                await self.http.delete(self.url, headers=self.headers)


async def _http_rate(url: str, pid: int, era: str, arguments: dict[str, Any], seconds: float,
                     expected: dict[str, Any]) -> tuple[float, float | None]:
    """(calls/s, server CPU ms per call) of HTTP_CLIENTS sessions looping get_asset."""
    import httpx2

    limits = httpx2.Limits(max_connections=1, max_keepalive_connections=1)
    https = [httpx2.AsyncClient(timeout=60, limits=limits) for _ in range(HTTP_CLIENTS)]
    sessions = [_Session(h, url, era) for h in https]
    try:
        await asyncio.gather(*(s.open() for s in sessions))
        for s in sessions:
            got = await s.call("get_asset", arguments)
            if got.get("structuredContent") != expected:
                raise RuntimeError(f"{url}: get_asset does not answer the expected payload")
        done = [0] * HTTP_CLIENTS
        deadline = time.perf_counter() + seconds

        async def loop(i: int) -> None:
            while time.perf_counter() < deadline:
                await sessions[i].call("get_asset", arguments)
                done[i] += 1

        cpu_before, started = _cpu_seconds(pid), time.perf_counter()
        await asyncio.gather(*(loop(i) for i in range(HTTP_CLIENTS)))
        elapsed, cpu_after = time.perf_counter() - started, _cpu_seconds(pid)
        cpu_ms = (None if cpu_before is None or cpu_after is None or not sum(done)
                  else 1e3 * (cpu_after - cpu_before) / sum(done))
        return sum(done) / elapsed, cpu_ms
    finally:
        await asyncio.gather(*(s.close() for s in sessions))
        await asyncio.gather(*(h.aclose() for h in https))


def _http(tmp: Path, rounds: int, seconds: float) -> list[dict[str, Any]]:
    """get_asset on the demo estate: cloudg-nb serve (standard) vs FastMCP constant."""
    ds = demo()
    arguments = call_arguments(ds)["get_asset"]
    # Over HTTP the caller is remote, not local: the peer returns what the server answers.
    ours_argv = [sys.executable, "-m", "cloudg_nb", "--policy", "standard", "serve",
                 "--transport", "http", "--port", "0", "--sample", "demo"]
    rows: dict[tuple[str, str], dict[str, list[float]]] = {}
    with _process(ours_argv) as (ours_url, ours_pid):
        async def first() -> dict[str, Any]:
            import httpx2
            async with httpx2.AsyncClient(timeout=60) as http:
                s = _Session(http, ours_url, ERAS[0])
                await s.open()
                try:
                    return (await s.call("get_asset", arguments))["structuredContent"]
                finally:
                    await s.close()

        payload = asyncio.run(first())
        payload_file = tmp / "payload.json"
        payload_file.write_text(json.dumps(payload))
        peer_argv = [sys.executable, str(Path(__file__).resolve()), "--peer-server",
                     str(payload_file)]
        with _process(peer_argv) as (peer_url, peer_pid):
            targets = (("cloudg", ours_url, ours_pid), ("fastmcp", peer_url, peer_pid))
            for _, url, pid in targets:
                for era in ERAS:
                    asyncio.run(_http_rate(url, pid, era, arguments, seconds / 2, payload))
            for _ in range(rounds):
                for era in ERAS:
                    for key, url, pid in targets:
                        rate, cpu = asyncio.run(_http_rate(url, pid, era, arguments, seconds,
                                                           payload))
                        cell = rows.setdefault((key, era), {"rps": [], "cpu_ms": []})
                        cell["rps"].append(rate)
                        if cpu is not None:
                            cell["cpu_ms"].append(cpu)
    return [{"server": key, "era": era, "rps": statistics.median(v["rps"]),
             "cpu_ms": statistics.median(v["cpu_ms"]) if v["cpu_ms"] else None}
            for (key, era), v in rows.items()]


# -- the run --------------------------------------------------------------------------------


def run(quick: bool, scaled_n: int, http: bool = True) -> dict[str, Any]:
    fastmcp = _require_fastmcp()
    rounds, seconds, http_rounds, http_seconds = QUICK_PLAN if quick else FULL_PLAN
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="bench-call-cost-") as tmp:
        for ds in (demo(), scaled(scaled_n, name=f"scaled{scaled_n}")):
            rows += asyncio.run(_in_process(ds, Path(tmp), rounds, seconds))
        http_rows = _http(Path(tmp), http_rounds, http_seconds) if http else []
    return {
        "in_process": [{"estate": r.estate, "tool": r.tool,
                        "ours_us": statistics.median(r.ours_us),
                        "fastmcp_us": statistics.median(r.peer_us), "ratio": r.ratio,
                        "pass": r.ratio <= TARGET_IN_PROCESS} for r in rows],
        "http": http_rows,
        "environment": {"python": platform.python_version(), "cpus": os.cpu_count(),
                        "fastmcp": fastmcp.__version__, "scaled_n": scaled_n,
                        "plan": QUICK_PLAN if quick else FULL_PLAN},
    }


def format_report(report: dict[str, Any]) -> str:
    env = report["environment"]
    lines = [f"Per-call cost, cloudg layer (policy standard) vs FastMCP {env['fastmcp']} "
             f"returning the same payload as a constant — Python {env['python']}, "
             f"{env['cpus']} CPUs", "",
             f"in-process, µs per call (median of rounds; target ours/FastMCP <= "
             f"{TARGET_IN_PROCESS})",
             f"{'estate':<16}{'tool':<16}{'cloudg':>10}{'FastMCP':>10}{'ratio':>8}"]
    for r in report["in_process"]:
        lines.append(f"{r['estate']:<16}{r['tool']:<16}{r['ours_us']:>10,.0f}"
                     f"{r['fastmcp_us']:>10,.0f}{r['ratio']:>8.2f} "
                     f"{'ok' if r['pass'] else 'MISS'}")
    if report["http"]:
        by = {(r["server"], r["era"]): r for r in report["http"]}
        lines += ["", f"HTTP get_asset on demo, {HTTP_CLIENTS} clients (target cloudg/FastMCP "
                  f"calls/s >= {TARGET_HTTP})",
                  f"{'era':<12}{'cloudg /s':>11}{'FastMCP /s':>12}{'ratio':>8}"
                  f"{'cloudg CPU ms':>15}{'FastMCP CPU ms':>16}"]
        for era in ERAS:
            ours, peer = by[("cloudg", era)], by[("fastmcp", era)]
            ratio = ours["rps"] / peer["rps"]

            def ms(v: float | None) -> str:
                return f"{v:.2f}" if v is not None else "-"

            lines.append(f"{era:<12}{ours['rps']:>11,.0f}{peer['rps']:>12,.0f}{ratio:>8.2f}"
                         f"{ms(ours['cpu_ms']):>15}{ms(peer['cpu_ms']):>16} "
                         f"{'ok' if ratio >= TARGET_HTTP else 'MISS'}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short rounds: rough figures")
    parser.add_argument("--n", type=int, default=100_000, help="assets of the scaled estate")
    parser.add_argument("--no-http", action="store_true", help="in-process rows only")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--peer-server", metavar="PAYLOAD", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.peer_server:
        _peer_server_main(args.peer_server)
        return 0
    _require_fastmcp()
    report = run(args.quick, args.n, http=not args.no_http)
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
