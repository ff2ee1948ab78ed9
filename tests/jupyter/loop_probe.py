"""A probe of the serving loop in a process of its own: trivial MCP calls, back to back.

``LoopProbe(endpoint, headers)`` runs ``python -m tests.jupyter.loop_probe`` (another process,
so a test that builds huge requests cannot slow the probe with its own GIL), which calls
``list_datasets`` (2026 era, raw JSON-RPC on one keep-alive connection) every ``gap`` seconds
and reports each call's start and duration on the monotonic clock (shared by the processes of
one machine), so ``latencies(start, end)`` picks the calls in flight while something else
happened. A call that failed counts as taking forever.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODERN = "2026-07-28"
#: Seconds between two probe calls.
GAP = 0.003
_META = {"io.modelcontextprotocol/protocolVersion": MODERN,
         "io.modelcontextprotocol/clientCapabilities": {}}


class LoopProbe:
    """The probe process for ``endpoint`` with ``headers`` (a token); a context manager."""

    def __init__(self, endpoint: str, headers: dict[str, str], gap: float = GAP) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "tests.jupyter.loop_probe", endpoint, json.dumps(headers),
             str(gap)], cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True)
        self.calls: list[tuple[float, float]] = []
        self._started = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        if not self._started.wait(60):
            self.stop()
            raise RuntimeError("the loop probe made no successful call within 60 s")

    def __enter__(self) -> LoopProbe:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            begun, took = map(float, line.split())
            self.calls.append((begun, took))
            if took != float("inf"):
                self._started.set()

    def stop(self) -> list[tuple[float, float]]:
        """End the probe; every call as (start, seconds)."""
        if self._proc.poll() is None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            self._proc.wait(60)
        self._reader.join(10)
        return self.calls

    def latencies(self, start: float, end: float, timeout: float = 60.0) -> list[float]:
        """Durations of the calls in flight at some moment of [start, end], and of the first
        call begun after it (so a window shorter than the gap between calls has one too)."""
        deadline = time.monotonic() + timeout
        while not any(begun > end for begun, _ in self.calls[-50:]):
            if time.monotonic() > deadline or self._proc.poll() is not None:
                break
            time.sleep(0.005)
        calls = list(self.calls)
        during = [took for begun, took in calls if begun <= end and begun + took >= start]
        after = next((took for begun, took in calls if begun > end), None)
        return during + ([after] if after is not None else [])

    def worst(self, start: float, end: float) -> float:
        """The slowest of ``latencies(start, end)`` (inf when the probe made no call)."""
        return max(self.latencies(start, end), default=float("inf"))


def _run(endpoint: str, headers: dict[str, str], gap: float) -> None:
    import httpx2

    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    sent = {"content-type": "application/json", "accept": "application/json, text/event-stream",
            "mcp-protocol-version": MODERN, "mcp-method": "tools/call",
            "mcp-name": "list_datasets", **headers}
    with httpx2.Client(timeout=60) as http:
        ident = 0
        while not stop.is_set():
            ident += 1
            body = json.dumps({"jsonrpc": "2.0", "id": ident, "method": "tools/call",
                               "params": {"name": "list_datasets", "arguments": {},
                                          "_meta": _META}})
            started = time.monotonic()
            try:
                ok = http.post(endpoint, content=body, headers=sent).status_code == 200
            except Exception:
                ok = False
            took = time.monotonic() - started if ok else float("inf")
            print(f"{started!r} {took!r}", flush=True)
            time.sleep(gap)


if __name__ == "__main__":
    _run(sys.argv[1], json.loads(sys.argv[2]), float(sys.argv[3]))
