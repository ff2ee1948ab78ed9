"""Raw HTTP against a test server, for what an SDK client never sends: bare initializes,
held-open GET streams, odd ids, bodies cut short, and floods of sessions.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
from typing import Any

from .harness import TIMEOUT, ServerProcess

LEGACY_VERSION = "2025-11-25"
INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": LEGACY_VERSION, "capabilities": {},
               "clientInfo": {"name": "raw-test", "version": "1"}},
}
ACCEPT = "application/json, text/event-stream"


def post(server: ServerProcess, body: Any, **headers: str) -> tuple[int, dict[str, str], bytes]:
    """POST ``body`` (JSON) to the endpoint; header names use ``_`` for ``-``."""
    conn = http.client.HTTPConnection(server.host_port, timeout=TIMEOUT)
    try:
        payload = json.dumps(body).encode()
        sent = {"Content-Type": "application/json", "Accept": ACCEPT,
                "Content-Length": str(len(payload))}
        sent.update({k.replace("_", "-"): v for k, v in headers.items()})
        conn.request("POST", "/mcp", body=payload, headers=sent)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, \
            response.read()
    finally:
        conn.close()


def sse_json(body: bytes) -> list[dict[str, Any]]:
    """The JSON messages in an SSE (or plain JSON) response body."""
    text = body.decode()
    if text.lstrip().startswith("{"):
        return [json.loads(text)]
    return [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")
            and line[5:].strip()]


def initialize(server: ServerProcess, **headers: str) -> str:
    """A handshake-era session (initialize + initialized); its id."""
    status, got, _ = post(server, INITIALIZE, **headers)
    assert status == 200, status
    session_id = got["mcp-session-id"]
    status, _, _ = post(server, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                        mcp_session_id=session_id, mcp_protocol_version=LEGACY_VERSION,
                        **headers)
    assert status == 202, status
    return session_id


def session_headers(session_id: str) -> dict[str, str]:
    return {"mcp_session_id": session_id, "mcp_protocol_version": LEGACY_VERSION}


def ping(server: ServerProcess, session_id: str) -> int:
    """The HTTP status of a ping on the session (200 alive, 404 gone)."""
    status, _, _ = post(server, {"jsonrpc": "2.0", "id": 7, "method": "ping"},
                        **session_headers(session_id))
    return status


def open_get_stream(server: ServerProcess, session_id: str, **headers: str) -> socket.socket:
    """Open the session's GET (server-to-client) stream and keep it open; read its head."""
    host, port = server.host_port.rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=TIMEOUT)
    extra = "".join(f"{k.replace('_', '-')}: {v}\r\n" for k, v in headers.items())
    sock.sendall(
        f"GET /mcp HTTP/1.1\r\nHost: {server.host_port}\r\nAccept: text/event-stream\r\n"
        f"Mcp-Session-Id: {session_id}\r\nMcp-Protocol-Version: {LEGACY_VERSION}\r\n"
        f"{extra}\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        assert chunk, "the GET stream closed before its headers"
        head += chunk
    assert head.startswith(b"HTTP/1.1 200"), head[:200]
    return sock


async def flood_initialize(server: ServerProcess, count: int, connections: int = 16) -> dict:
    """Send ``count`` initialize-only requests over ``connections`` keep-alive connections;
    the HTTP status codes seen, with their counts. A minimal client, so the server (not the
    client) is what the test measures."""
    host, port = server.host_port.rsplit(":", 1)
    payload = json.dumps(INITIALIZE).encode()
    request = (f"POST /mcp HTTP/1.1\r\nHost: {server.host_port}\r\nAccept: {ACCEPT}\r\n"
               f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
               ).encode() + payload
    codes: dict[int, int] = {}
    left = [count]

    async def connection() -> None:
        reader, writer = await asyncio.open_connection(host, int(port))
        try:
            while left[0] > 0:
                left[0] -= 1
                writer.write(request)
                status = int((await reader.readline()).split()[1])
                codes[status] = codes.get(status, 0) + 1
                length = None
                while (line := await reader.readline()) not in (b"\r\n", b""):
                    name, _, value = line.decode().partition(":")
                    if name.lower() == "content-length":
                        length = int(value)
                if length is not None:
                    await reader.readexactly(length)
                    continue
                while size := int((await reader.readline()).strip(), 16):  # chunked
                    await reader.readexactly(size + 2)
                await reader.readexactly(2)
        finally:
            writer.close()

    await asyncio.gather(*(connection() for _ in range(connections)))
    return codes
