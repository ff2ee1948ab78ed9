"""The kernel's own MCP client (``cloudg_nb.notebook.mcp_http``) against the real endpoint of a
real Jupyter server: the handshake, progress, errors as the server sent them, an ended session,
a refused connection, a cancelled request, notifications on the GET stream, and the SSE parser
on hand-made streams. Plus the reason it exists: the kernel never imports the ``mcp`` SDK."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

from cloudg_nb.layer.wire import (
    CONNECTION_CLOSED,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    NOT_FOUND_CODES,
)
from cloudg_nb.notebook.mcp_http import HANDSHAKE_VERSION, HttpSession, RpcError, _events
from tests.jupyter.server import JupyterServer, free_port

ROOT = Path(__file__).resolve().parents[2]


def _session(url: str, token: str | None, **hooks: Any) -> HttpSession:
    return HttpSession(
        url, headers={"Authorization": f"token {token}"} if token else {},
        client_name="mcp-http-test", client_version="0",
        on_notification=hooks.get("on_notification", lambda method, params: None),
        on_lost=hooks.get("on_lost", lambda reason: None),
        max_event_bytes=hooks.get("max_event_bytes", 64 << 20),
        timeout=httpx2.Timeout(30, read=120))


def _clients(server: JupyterServer) -> list[dict[str, Any]]:
    _, status = server.get_json(server.status_url)
    return [c for c in status["clients"] if c["client"] == "mcp-http-test"]


def test_the_offered_protocol_version_is_the_sdks_newest_handshake_version() -> None:
    # fails on an SDK upgrade that adds a revision: look at what changed, then move up
    assert HANDSHAKE_VERSION in HANDSHAKE_PROTOCOL_VERSIONS
    assert HANDSHAKE_VERSION == LATEST_HANDSHAKE_VERSION


async def test_handshake_call_and_close_end_the_session_on_the_server(
    server: JupyterServer,
) -> None:
    session = _session(server.endpoint, server.token)
    await session.open()
    try:
        assert session.protocol_version == HANDSHAKE_VERSION
        assert session.server_info.get("name")
        assert session.session_id
        ours = await asyncio.to_thread(_clients, server)
        assert [c["session"] for c in ours] == [session.session_id[:8]]
        result = await session.request("tools/call", {
            "name": "find_assets", "arguments": {"internet_exposed": True}})
        assert not result.get("isError")
        assert result["structuredContent"]["total"] > 0
    finally:
        await session.close()
    assert await asyncio.to_thread(_clients, server) == []


async def test_progress_reaches_the_callback_before_the_answer(server: JupyterServer) -> None:
    seen: list[tuple[float, float | None]] = []
    session = _session(server.endpoint, server.token)
    await session.open()
    try:
        result = await session.request(
            "tools/call", {"name": "progress_steps", "arguments": {"steps": 3, "interval": 0.05}},
            progress=lambda done, total, message: seen.append((done, total)))
    finally:
        await session.close()
    assert result["structuredContent"] == {"steps": 3}
    assert [done for done, _ in seen][-3:] == [1, 2, 3]
    assert all(total == 3 for _, total in seen[-3:])


async def test_a_json_rpc_error_keeps_the_servers_code_message_and_data(
    server: JupyterServer,
) -> None:
    session = _session(server.endpoint, server.token)
    await session.open()
    try:
        with pytest.raises(RpcError) as caught:
            await session.request("resources/read", {"uri": "cloudg://no-such-thing"})
        with pytest.raises(RpcError) as unknown:
            await session.request("no/such/method")
    finally:
        await session.close()
    assert caught.value.code in NOT_FOUND_CODES
    assert "cloudg://no-such-thing" in caught.value.message or caught.value.data
    assert caught.value.sent
    assert unknown.value.code == METHOD_NOT_FOUND


async def test_a_request_on_an_ended_session_says_session_not_found_and_was_not_sent(
    server: JupyterServer,
) -> None:
    first = _session(server.endpoint, server.token)
    await first.open()
    ended = first.session_id
    await first.close()
    stale = _session(server.endpoint, server.token)
    stale.session_id, stale.protocol_version = ended, HANDSHAKE_VERSION
    try:
        with pytest.raises(RpcError) as caught:
            await stale.request("tools/list")
    finally:
        await stale.close()
    assert caught.value.code == INVALID_REQUEST
    assert caught.value.message == "Session not found"
    assert caught.value.sent is False


async def test_a_wrong_token_is_refused_without_leaking_it(server: JupyterServer) -> None:
    session = _session(server.endpoint, "not-the-token-" + "x" * 20)
    with pytest.raises(RpcError) as caught:
        await session.open()
    assert caught.value.code == INVALID_REQUEST
    assert caught.value.message.startswith("Forbidden")
    assert caught.value.sent is False
    assert "not-the-token" not in caught.value.message
    assert session.closed


async def test_a_refused_connection_is_connection_closed_and_not_sent() -> None:
    session = _session(f"http://127.0.0.1:{free_port()}/cloudg/mcp", "t")
    with pytest.raises(RpcError) as caught:
        await session.open()
    assert caught.value.code == CONNECTION_CLOSED
    assert caught.value.sent is False
    assert "connect" in caught.value.message.lower()


async def test_cancelling_a_request_cancels_the_call_on_the_server(
    server: JupyterServer, tmp_path: Path,
) -> None:
    marker = tmp_path / "cancelled"
    session = _session(server.endpoint, server.token)
    await session.open()
    try:
        started = tmp_path / "started"
        call = asyncio.ensure_future(session.request("tools/call", {
            "name": "work_until_cancelled",
            "arguments": {"marker": str(marker), "started": str(started)}}))
        deadline = time.monotonic() + 20
        while not started.exists():
            assert time.monotonic() < deadline, "the call never started"
            await asyncio.sleep(0.02)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        while not marker.exists():
            assert time.monotonic() < deadline, "the server never saw the cancellation"
            await asyncio.sleep(0.02)
        # the session still answers after a cancelled request
        assert "tools" in await session.request("tools/list")
    finally:
        await session.close()


async def test_resource_updates_arrive_on_the_get_stream(server: JupyterServer) -> None:
    heard: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue()
    listener = _session(server.endpoint, server.token,
                        on_notification=lambda method, params: heard.put_nowait((method, params)))
    actor = _session(server.endpoint, server.token)
    await listener.open()
    await actor.open()
    finding = ""
    try:
        await listener.request("resources/subscribe", {"uri": "cloudg://workspace"})
        page = await actor.request("tools/call", {"name": "list_findings",
                                                  "arguments": {"limit": 1}})
        finding = page["structuredContent"]["items"][0]["id"]
        await actor.request("tools/call", {"name": "suppress_findings",
                                           "arguments": {"ids": [finding]}})
        while True:
            method, params = await asyncio.wait_for(heard.get(), 10)
            if method == "notifications/resources/updated":
                break
        assert params["uri"] == "cloudg://workspace"
    finally:
        if finding:
            await actor.request("tools/call", {"name": "unsuppress_findings",
                                               "arguments": {"ids": [finding]}})
        await actor.close()
        await listener.close()


# -- the SSE parser on hand-made streams --------------------------------------------------------


class _Chunks(httpx2.AsyncByteStream):
    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            yield chunk


async def _parse(chunks: list[bytes], limit: int = 1 << 20) -> list[Any]:
    response = httpx2.Response(200, stream=_Chunks(chunks),
                               headers={"content-type": "text/event-stream"})
    return [message async for message in _events(response, limit)]


async def test_sse_events_split_anywhere_across_chunks_parse_the_same() -> None:
    one = {"jsonrpc": "2.0", "id": 1, "result": {"text": "é ✓ line\nbreak"}}
    two = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}}
    stream = (f"event: message\r\nid: 7\r\ndata: {json.dumps(one)}\r\n\r\n"
              f": keep-alive comment\r\n\r\n"
              f"data:{json.dumps(two)}\n\n").encode()
    whole = await _parse([stream])
    assert whole == [one, two]
    for cut in range(1, len(stream)):
        assert await _parse([stream[:cut], stream[cut:]]) == whole
    assert await _parse([bytes([b]) for b in stream]) == whole


async def test_sse_multi_line_data_joins_with_newlines_and_other_events_are_skipped() -> None:
    stream = (b'data: {"a":\ndata: 1}\n\n'
              b'event: endpoint\ndata: {"skip": true}\n\n'
              b'data: not json\n\n'
              b'data: {"b": 2}\n\n')
    assert await _parse([stream]) == [{"a": 1}, {"b": 2}]


async def test_an_sse_event_over_the_limit_is_a_clear_error() -> None:
    big = b"data: " + b'"' + b"x" * 5000 + b'"' + b"\n\n"
    with pytest.raises(RpcError) as whole:
        await _parse([big], limit=1000)
    with pytest.raises(RpcError) as split:
        await _parse([big[i:i + 100] for i in range(0, len(big), 100)], limit=1000)
    for caught in (whole, split):
        assert "larger than 1000 bytes" in caught.value.message
        assert caught.value.data == {"limit": 1000}


# -- why it exists ------------------------------------------------------------------------------


def test_a_kernels_remote_calls_never_import_the_mcp_sdk(server: JupyterServer) -> None:
    script = textwrap.dedent(f"""
        import sys
        from cloudg_nb.notebook.client import connect
        client = connect({server.url!r}, {server.token!r})
        res = client.call("find_assets", internet_exposed=True, progress=False)
        assert not res.is_error and len(res.df) > 0, res
        assert client.frame("list_findings", progress=False) is not None
        assert client.read("cloudg://workspace")
        assert client.complete("ref", "cust", tool="get_asset")
        client.close()
        print(sorted(m for m in sys.modules if m == "mcp" or m.startswith("mcp.")))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, env={**os.environ, "CLOUDG_WARMUP": "0"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"
