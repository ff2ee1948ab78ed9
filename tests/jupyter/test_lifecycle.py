"""The extension inside a running server's life: Jupyter keeps answering while a CPU-bound
tool runs, and stopping the server (SIGTERM, SIGINT) with a call in flight and an open GET
stream exits promptly and quietly.
"""

from __future__ import annotations

import http.client
import json
import re
import signal
import statistics
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.protocol.harness import MODERN, TIMEOUT, open_session

from .server import FIXTURE_REGISTRY, JupyterServer, jupyter_server

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

#: Lines a clean stop never logs.
NOISE = ("Task was destroyed", "cancel scope", "Exception in callback", "Traceback",
         "gave up: transport write blocked")


def _probe_status(server: JupyterServer) -> float:
    """Seconds one ``GET {base_url}api/status`` takes (new connection each time)."""
    started = time.perf_counter()
    conn = http.client.HTTPConnection(server.host_port, timeout=TIMEOUT)
    try:
        conn.request("GET", f"{server.base_url}api/status",
                     headers={"Authorization": f"token {server.token}"})
        response = conn.getresponse()
        response.read()
        assert response.status == 200
    finally:
        conn.close()
    return time.perf_counter() - started


def test_jupyter_answers_quickly_while_a_cpu_bound_tool_runs(jupyter: JupyterServer) -> None:
    running = threading.Event()
    finished: list[float] = []

    def call() -> None:
        with open_session(jupyter.endpoint, "2025", headers=jupyter.headers) as session:
            running.set()
            started = time.monotonic()
            session.call_tool("burn_cpu", {"seconds": 2.0})
            finished.append(time.monotonic() - started)

    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    assert running.wait(TIMEOUT)
    time.sleep(0.3)  # the call is under way
    probes = []
    while worker.is_alive() and len(probes) < 9:
        probes.append(_probe_status(jupyter))
        time.sleep(0.1)
    worker.join(TIMEOUT)
    assert finished and finished[0] >= 2.0, "the tool did not run for its 2 s"
    assert len(probes) >= 5
    assert statistics.median(probes) < 0.1, probes


# -- stopping -----------------------------------------------------------------------------------


class RawMCP:
    """A handshake-era session over raw HTTP, to hold requests open while the server stops."""

    def __init__(self, server: JupyterServer) -> None:
        self.server = server
        self.session_id = ""
        self.open: list[http.client.HTTPConnection] = []

    def _send(self, method: str, body: dict | None, **headers: str) -> http.client.HTTPResponse:
        conn = http.client.HTTPConnection(self.server.host_port, timeout=TIMEOUT)
        sent = {"Accept": "application/json, text/event-stream",
                "Content-Type": "application/json",
                "Authorization": f"Bearer {self.server.token}"}
        if self.session_id:
            sent.update({"Mcp-Session-Id": self.session_id,
                         "Mcp-Protocol-Version": "2025-11-25"})
        sent.update(headers)
        conn.request(method, f"{self.server.base_url}cloudg/mcp",
                     body=json.dumps(body).encode() if body is not None else None, headers=sent)
        self.open.append(conn)
        return conn.getresponse()

    def initialize(self) -> None:
        response = self._send("POST", {
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "stop-test", "version": "1"}}})
        assert response.status == 200
        self.session_id = response.getheader("mcp-session-id") or ""
        response.read()
        note = self._send("POST", {"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert note.status == 202
        note.read()

    def open_get_stream(self) -> None:
        response = self._send("GET", None)
        assert response.status == 200
        assert response.getheader("content-type", "").startswith("text/event-stream")

    def open_listen_stream(self) -> None:
        """A 2026-07-28 ``subscriptions/listen`` stream (stateless era: no session)."""
        conn = http.client.HTTPConnection(self.server.host_port, timeout=TIMEOUT)
        body = {"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen", "params": {
            "notifications": {"toolsListChanged": True, "resourcesListChanged": True},
            "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN,
                      "io.modelcontextprotocol/clientCapabilities": {}}}}
        conn.request("POST", f"{self.server.base_url}cloudg/mcp", body=json.dumps(body).encode(),
                     headers={"Accept": "application/json, text/event-stream",
                              "Content-Type": "application/json",
                              "Authorization": f"Bearer {self.server.token}",
                              "Mcp-Protocol-Version": MODERN,
                              "Mcp-Method": "subscriptions/listen"})
        self.open.append(conn)
        response = conn.getresponse()
        assert response.status == 200
        assert response.getheader("content-type", "").startswith("text/event-stream")

    def start_call(self, request_id: int, tool: str, arguments: dict) -> None:
        response = self._send("POST", {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                                       "params": {"name": tool, "arguments": arguments}})
        assert response.status == 200  # SSE headers sent; the result is still to come

    def close(self) -> None:
        for conn in self.open:
            conn.close()


@pytest.fixture
def busy_server(tmp_path: Path,
                sigint_default: None) -> Iterator[tuple[JupyterServer, RawMCP]]:
    """A fresh server with an open GET stream, a listen stream and calls in flight (async,
    sync sleeping, sync checking for cancellation: it writes ``tmp_path/marker`` once
    cancelled).
    Other installed server extensions are off: their own shutdown noise is not ours."""
    with jupyter_server(tmp_path, extra_args=[FIXTURE_REGISTRY], other_extensions=False) \
            as server:
        raw = RawMCP(server)
        try:
            raw.initialize()
            raw.open_get_stream()
            raw.open_listen_stream()
            raw.start_call(2, "sleep_async", {"seconds": 60})
            raw.start_call(3, "progress_then_sleep", {"seconds": 60})
            started = tmp_path / "started"
            raw.start_call(4, "work_until_cancelled", {"marker": str(tmp_path / "marker"),
                                                       "started": str(started)})
            deadline = time.monotonic() + 20  # wait until the sync work runs, however busy
            while not started.exists() and time.monotonic() < deadline:
                time.sleep(0.02)
            assert started.exists(), "the sync call never started in its worker"
            time.sleep(0.1)  # let the async calls reach their sleeps too
            yield server, raw
        finally:
            raw.close()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_stop_with_work_in_flight_is_prompt_and_quiet(
    busy_server: tuple[JupyterServer, RawMCP], sig: int,
) -> None:
    server, _ = busy_server
    server.stop(sig, timeout=20)
    assert server.exit_seconds is not None and server.exit_seconds < 5.0
    log = server.log()
    assert [line for line in log.splitlines() if any(n in line for n in NOISE)] == [], log
    assert re.search(r"Shutting down \d+ extensions", log), log  # Jupyter's cleanup ran


def test_stop_cancels_sync_calls_in_flight(busy_server: tuple[JupyterServer, RawMCP]) -> None:
    server, _ = busy_server
    server.stop(signal.SIGTERM, timeout=20)
    marker = server.root_dir.parent / "marker"
    assert marker.read_text(encoding="utf-8") == "cancelled"
