"""How soon a revoked assistant's open event stream ends: revoked through the server, and by
editing the credential store file, side by side.

One real Jupyter server with the cloudg extension. Each round mints an assistant, opens its
session's GET event stream (raw HTTP, as an MCP client keeps it open for notifications) and
revokes the credential, alternately (a) through the owner API (``DELETE
cloudg/api/assistants/NAME``, what ``cloudg-nb assistants revoke`` does when a server runs) and
(b) by rewriting the store file without its entry, as a hand edit does; it times from the
revocation to the end of the stream as the client sees it. Then, in-process, the cost of the
server's look at the file (a ``stat``, 20 assistants in the store). Target: (b) <= 250 ms.
Run from the repository root: ``python bench/revocation.py [--quick] [--json]``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: (rounds per way of revoking, in-process repeats)
FULL_PLAN = (20, 100_000)
QUICK_PLAN = (2, 2_000)
TARGET_MS = 250.0
STORE_SIZE = 20
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "bench-revocation", "version": "1"}}}
MCP_HEADERS = {"Content-Type": "application/json",
               "Accept": "application/json, text/event-stream"}


def _call(host: str, method: str, path: str, body: Any = None,
          headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection(host, timeout=30)
    try:
        payload = None if body is None else json.dumps(body).encode()
        conn.request(method, path, body=payload, headers=headers or {})
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, \
            response.read()
    finally:
        conn.close()


class Stream:
    """An assistant's MCP session with its GET event stream open; ``ended`` is set (with the
    monotonic time in ``ended_at``) when the server ends it."""

    def __init__(self, host: str, base_url: str, token: str) -> None:
        endpoint = f"{base_url}cloudg/mcp"
        auth = {"Authorization": f"Bearer {token}"}
        status, found, raw = _call(host, "POST", endpoint, INITIALIZE, {**MCP_HEADERS, **auth})
        assert status == 200, raw
        session = {"Mcp-Session-Id": found["mcp-session-id"],
                   "Mcp-Protocol-Version": "2025-11-25"}
        _call(host, "POST", endpoint, {"jsonrpc": "2.0", "method": "notifications/initialized"},
              {**MCP_HEADERS, **auth, **session})
        self.conn = http.client.HTTPConnection(host, timeout=60)
        self.conn.request("GET", endpoint, headers={**auth, "Accept": "text/event-stream",
                                                    **session})
        response = self.conn.getresponse()
        assert response.status == 200
        self.ended = threading.Event()
        self.ended_at = 0.0
        threading.Thread(target=self._read, args=(response,), daemon=True).start()

    def _read(self, response: http.client.HTTPResponse) -> None:
        try:
            while response.read1(65536):
                pass
        except Exception:  # a reset connection ends the stream too
            pass
        self.ended_at = time.monotonic()
        self.ended.set()

    def close(self) -> None:
        self.conn.close()


def end_to_end(tmp: Path, rounds: int) -> dict[str, list[float]]:
    """Milliseconds from the revocation to the stream's end, per way of revoking."""
    from tests.jupyter.server import jupyter_server

    with jupyter_server(tmp, other_extensions=False) as server:
        owner = {"Authorization": f"token {server.token}"}
        store = Path(server.env["JUPYTER_DATA_DIR"]) / "cloudg" / "assistants.json"
        out: dict[str, list[float]] = {"api": [], "file": []}
        for index in range(2 * rounds):
            how = "api" if index % 2 == 0 else "file"
            name = f"bench-{index}"
            status, _, raw = _call(server.host_port, "POST", "/cloudg/api/assistants",
                                   {"name": name}, {**owner, "Content-Type": "application/json"})
            assert status == 201, raw
            stream = Stream(server.host_port, "/", json.loads(raw)["token"])
            time.sleep(0.15)  # the stream is open; the watcher is between two looks
            try:
                started = time.monotonic()
                if how == "api":
                    status, _, _ = _call(server.host_port, "DELETE",
                                         f"/cloudg/api/assistants/{name}", headers=owner)
                    assert status == 200
                else:
                    data = json.loads(store.read_text())
                    data["assistants"] = [e for e in data["assistants"] if e["name"] != name]
                    store.write_text(json.dumps(data, indent=1) + "\n")
                if not stream.ended.wait(10):
                    raise RuntimeError(f"the stream did not end after revoking ({how})")
                out[how].append(1000 * (stream.ended_at - started))
            finally:
                stream.close()
        return out


def look_cost(tmp: Path, repeats: int) -> float:
    """µs of one look at an unchanged store file (what the server's watcher does)."""
    from cloudg_nb.assistants import AssistantStore, server_identity

    store = AssistantStore(tmp / "look" / "assistants.json")
    for i in range(STORE_SIZE):
        store.mint(f"bot-{i}", server=server_identity(tmp, "/"))
    store.generation()
    means = []
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(repeats):
            store.generation()
        means.append(1e6 * (time.perf_counter() - started) / repeats)
    return statistics.median(means)


def _summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"median_ms": statistics.median(ordered), "p95_ms": p95, "max_ms": ordered[-1],
            "min_ms": ordered[0]}


def run(quick: bool) -> dict[str, Any]:
    from cloudg_jupyter.assistant_credentials import STORE_POLL

    rounds, repeats = QUICK_PLAN if quick else FULL_PLAN
    with tempfile.TemporaryDirectory(prefix="bench-revocation-") as tmp:
        samples = end_to_end(Path(tmp), rounds)
        look_us = look_cost(Path(tmp), repeats)
    rows = {how: {**_summary(values), "samples_ms": values} for how, values in samples.items()}
    worst = rows["file"]["max_ms"]
    return {"rows": rows, "look_us": look_us, "poll_seconds": STORE_POLL,
            "watch_cpu_us_per_second": look_us / STORE_POLL,
            "target_ms": TARGET_MS, "pass": worst <= TARGET_MS,
            "plan": {"rounds": rounds, "repeats": repeats, "store_size": STORE_SIZE},
            "environment": {"python": platform.python_version(), "cpus": os.cpu_count(),
                            "machine": platform.machine()}}


def format_report(report: dict[str, Any]) -> str:
    plan = report["plan"]
    names = {"api": "(a) through the server (DELETE)", "file": "(b) store file edited by hand"}
    lines = [f"revocation -> the assistant's open event stream ends, as its client sees it "
             f"({plan['rounds']} rounds each, interleaved; ms)", "",
             f"{'revoked':<36}{'median':>9}{'p95':>9}{'max':>9}{'min':>9}"]
    for how, row in report["rows"].items():
        lines.append(f"{names[how]:<36}{row['median_ms']:>9.1f}{row['p95_ms']:>9.1f}"
                     f"{row['max_ms']:>9.1f}{row['min_ms']:>9.1f}")
    verdict = "ok" if report["pass"] else "MISS"
    lines += ["", f"(b) worst {report['rows']['file']['max_ms']:.0f} ms, target <= "
              f"{report['target_ms']:.0f} ms: {verdict}",
              f"the watcher: one look every {report['poll_seconds']:g} s costs "
              f"{report['look_us']:.2f} µs (store of {plan['store_size']} assistants, "
              f"in-process), {report['watch_cpu_us_per_second']:.0f} µs of CPU per second"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two rounds: rough figures")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    report = run(args.quick)
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
