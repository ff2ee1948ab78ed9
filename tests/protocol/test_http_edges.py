"""HTTP requests at the edges: an id that is not a string or an integer is an invalid request,
a body cut short leaves no traceback, and error data never shows a remote caller the server's
absolute paths (a local stdio caller still sees them).

A real ``cloudg-nb serve --transport http`` process on 127.0.0.1, driven with raw HTTP.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import MCPError

from cloudg_nb.protocol.request import hide_server_paths
from tests.lanes import starts

from .harness import ClientSession, ServerProcess, open_session
from .raw_http import initialize, post, session_headers, sse_json

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")

BAD_LINES = ("Traceback", "ERROR", "Exception in ASGI")


@pytest.fixture(scope="module")
@starts("server")
def server() -> Iterator[ServerProcess]:
    with ServerProcess() as started:
        yield started


@pytest.fixture(scope="module")
def session_id(server: ServerProcess) -> str:
    return initialize(server)


@pytest.mark.parametrize("ident", [{"a": 1}, [1, 2], None, True, 1.5],
                         ids=["object", "array", "null", "boolean", "fraction"])
def test_request_with_an_odd_id_is_an_invalid_request(server: ServerProcess, session_id: str,
                                                      ident: Any) -> None:
    status, _, body = post(server, {"jsonrpc": "2.0", "id": ident, "method": "tools/list"},
                           **session_headers(session_id))
    assert status == 400
    error = json.loads(body)["error"]
    assert error["code"] == -32600
    assert "string or an integer" in error["message"]


def test_request_with_an_odd_id_is_refused_without_a_session_too(server: ServerProcess) -> None:
    status, _, body = post(server, {"jsonrpc": "2.0", "id": {"x": 1}, "method": "initialize"})
    assert status == 400
    assert json.loads(body)["error"]["code"] == -32600


def test_odd_id_inside_arguments_is_just_an_argument(server: ServerProcess,
                                                     session_id: str) -> None:
    call = {"jsonrpc": "2.0", "id": 9, "method": "tools/call",
            "params": {"name": "add_numbers", "arguments": {"a": 1, "b": 2, "id": {"x": None}}}}
    status, _, body = post(server, call, **session_headers(session_id))
    assert status == 200
    assert sse_json(body)[-1]["id"] == 9


@pytest.mark.parametrize("headers", [
    "", "Mcp-Protocol-Version: 2026-07-28\r\n", "Mcp-Session-Id: {sid}\r\n"
    "Mcp-Protocol-Version: 2025-11-25\r\n",
], ids=["new-session", "modern", "in-session"])
def test_body_cut_short_logs_no_traceback(server: ServerProcess, session_id: str,
                                          headers: str) -> None:
    host, port = server.host_port.rsplit(":", 1)
    before = len(server.stderr_lines)
    with socket.create_connection((host, int(port))) as sock:
        sock.sendall(
            f"POST /mcp HTTP/1.1\r\nHost: {server.host_port}\r\n"
            "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
            f"{headers.format(sid=session_id)}Content-Length: 1000\r\n\r\n".encode()
            + b'{"jsonrpc": "2.0", "id": 5, "meth')
        time.sleep(0.3)
    time.sleep(0.5)
    assert post(server, {"jsonrpc": "2.0", "id": 6, "method": "ping"},
                **session_headers(session_id))[0] == 200  # still serving
    logged = "".join(server.stderr_lines[before:])
    assert not any(bad in logged for bad in BAD_LINES), logged


# -- server paths in errors ---------------------------------------------------------------


def _error_text(client: ClientSession) -> str:
    result = client.call_tool("refuse_with_server_paths", {})
    assert result.is_error
    return json.dumps([result.content[0].text, result.meta])


@pytest.mark.parametrize("era", ["2025", "2026"])
def test_remote_access_error_shows_no_absolute_server_paths(server: ServerProcess,
                                                            era: str) -> None:
    with open_session(server.url, era) as client:
        shown = _error_text(client)
    assert os.getcwd() not in shown and "/srv/estates" not in shown
    assert "./data" in shown and "<server>/estates" in shown


def test_remote_resource_error_shows_no_absolute_server_paths(server: ServerProcess) -> None:
    with open_session(server.url, "2025") as client, pytest.raises(MCPError) as raised:
        client.read_resource("fixture://refused")
    assert raised.value.error.code == -31001
    shown = json.dumps([raised.value.error.message, raised.value.error.data])
    assert os.getcwd() not in shown and "/srv/estates" not in shown
    assert raised.value.error.data["roots"] == ["./data", "<server>/estates"]


@pytest.mark.server
def test_local_stdio_caller_sees_the_paths_as_they_are() -> None:
    with open_session("stdio", "2025") as client:
        shown = _error_text(client)
    assert "/srv/estates" in shown


def test_hide_server_paths_keeps_uris_and_relative_paths() -> None:
    kept = ["cloudg://datasets/prod/summary", "data/estates/prod.json", "and/or", "/mcp"]
    assert hide_server_paths(kept) == kept


def test_abandoned_handshake_era_calls_log_no_asgi_errors(server: ServerProcess) -> None:
    before = len(server.stderr_lines)
    with open_session(server.url, "2025") as client:
        for tool in ("wait_to_be_cancelled", "spin_cpu") * 3:
            with pytest.raises((MCPError, TimeoutError)):
                client.call_tool(tool, {"seconds": 30}, read_timeout_seconds=0.5)
        assert client.call_tool("add_numbers", {"a": 1, "b": 1}).structured_content == {"sum": 2}
        assert client.wait_for(
            lambda: client.call_tool("spinning", {}).structured_content["spinning"] == 0)
    time.sleep(0.3)
    logged = "".join(server.stderr_lines[before:])
    assert "Unexpected ASGI message" not in logged
    assert not any(bad in logged for bad in BAD_LINES), logged
