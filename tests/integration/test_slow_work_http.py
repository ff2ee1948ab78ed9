"""Slow, abandoned and hostile work against a real server: ``build_http_app`` under uvicorn on
127.0.0.1, driven by the official MCP client over HTTP (both protocol eras).

Eight slow calls cancelled by the client free their workers (the handler's own counter says
its threads stopped) and a ``get_asset`` answers within a second; a 4 MB argument object with
300k keys is refused before it is parsed (a smaller one by the layer's input bounds), with
a small error, while a probe client's calls stay fast.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2
import pytest

from cloudg_nb.catalog import default_registry
from cloudg_nb.estate import demo
from cloudg_nb.layer import CloudGMCPLayer
from cloudg_nb.protocol import build_http_app
from tests.layer.slow_tools import SpinningWork
from tests.protocol.harness import TIMEOUT, open_session, serve_app_in_thread

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")

ASSET = "aws-acct-prod"


@pytest.fixture(scope="module")
def work() -> SpinningWork:
    return SpinningWork()


@pytest.fixture(scope="module")
def url(work: SpinningWork) -> Iterator[str]:
    reg = default_registry()
    reg.add(work.spec())
    layer = CloudGMCPLayer(registry=reg, policy="open")
    layer.workspace.add(demo(), "demo", activate=True)
    app = build_http_app(layer)
    with serve_app_in_thread(app) as url:
        yield url


@pytest.mark.parametrize("era", ["2025", "2026"])
def test_eight_cancelled_slow_calls_free_their_workers_and_get_asset_answers(
    url: str, work: SpinningWork, era: str
) -> None:
    before = work.status()

    async def scenario(client: Any) -> float:
        await client.call_tool("get_asset", {"ref": ASSET})  # warm: first lookups build indexes
        async with anyio.create_task_group() as group:
            for _ in range(8):
                group.start_soon(client.call_tool, "spin", {})
            while work.status()["running"] < 1:  # the anonymous caller holds its share
                await anyio.sleep(0.01)
            group.cancel_scope.cancel()
        started = time.monotonic()
        result = await client.call_tool("get_asset", {"ref": ASSET})
        assert not result.is_error, result.content
        return time.monotonic() - started

    with open_session(url, era) as session:
        answered_in = session.run(scenario)
        stopped_in = work.wait(lambda s: s["running"] == 0, timeout=5)
    assert answered_in < 1.0
    assert stopped_in < 1.0
    assert work.status()["started"] - before["started"] >= 1


def _probe(url: str, stop: threading.Event, latencies: list[float]) -> None:
    """Call get_asset in a loop on its own connection until ``stop``, timing each call."""
    with open_session(url, "2026") as probe:
        while not stop.is_set():
            started = time.monotonic()
            probe.call_tool("get_asset", {"ref": ASSET})
            latencies.append(time.monotonic() - started)


def _call_body(keys: int) -> bytes:
    arguments = {f"k{i:07d}": 0 for i in range(keys)}
    return json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                       "params": {"name": "find_assets", "arguments": arguments,
                                  "_meta": {
                                      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                      "io.modelcontextprotocol/clientCapabilities": {}}}},
                      separators=(",", ":")).encode()


def _post_while_probing(url: str, body: bytes) -> tuple[httpx2.Response, list[float]]:
    """POST ``body`` while a probe client calls get_asset; the probe latencies during it."""
    stop = threading.Event()
    latencies: list[float] = []
    prober = threading.Thread(target=_probe, args=(url, stop, latencies), daemon=True)
    prober.start()
    try:
        deadline = time.monotonic() + TIMEOUT
        while len(latencies) < 5 and time.monotonic() < deadline:
            time.sleep(0.01)
        baseline = len(latencies)
        response = httpx2.post(url, content=body, timeout=TIMEOUT, headers={
            "content-type": "application/json", "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call",
            "mcp-name": "find_assets"})
        time.sleep(0.2)
    finally:
        stop.set()
        prober.join(TIMEOUT)
    during = latencies[baseline:]
    assert during, "the probe made no call while the big request ran"
    return response, during


def test_a_4mb_argument_object_is_refused_before_parsing_with_a_small_error(url: str) -> None:
    body = _call_body(300_000)
    assert 3_800_000 < len(body) <= 4 * 1024 * 1024  # just under the SDK's body limit
    response, during = _post_while_probing(url, body)
    assert response.status_code == 413, response.text[:500]
    assert len(response.content) < 2048
    error = response.json()["error"]
    assert error["code"] == -32602 and "too many values" in error["message"]
    # The probe shares this process (and its GIL) with the server and the 4 MB upload; the
    # loop itself spends a few ms on the refusal (typically 10-20 ms probe latency; parsing
    # the body first stalled it for 0.5-1 s). A coarse bound for a loaded 2-core box.
    assert max(during) < 0.4, during


def test_an_argument_object_under_the_body_screen_is_refused_by_the_layer(url: str) -> None:
    response, during = _post_while_probing(url, _call_body(20_000))
    assert response.status_code == 200, response.text[:500]
    assert len(response.content) < 2048
    assert "argument count" in response.text
    assert max(during) < 1.0, during
