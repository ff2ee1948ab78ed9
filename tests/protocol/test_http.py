"""HTTP serving: bearer auth (401), the Host/Origin guard (421/403), token principals, and
change notifications reaching only the sessions that asked for them.

A real ``cloudg-nb serve --transport http`` process on 127.0.0.1 answers raw HTTP requests
(status codes) and official-SDK clients (principals, notifications).
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any

import pytest
from mcp.types import ResourceUpdatedNotification

from .harness import TIMEOUT, ServerProcess, open_session

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

ALICE = "alice-token-0123"
BOB = "bob-token-4567"
COUNTER = "fixture://counter"
HELLO = "fixture://hello"
INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "raw-test", "version": "1"}},
}


@pytest.fixture(scope="module")
def secured() -> Iterator[ServerProcess]:
    with ServerProcess(
        "--auth-token", f"{ALICE}:analyst,default:alice",
        "--auth-token", f"{BOB}:viewer:bob",
        "--allowed-host", "mcp.internal",
        "--allowed-origin", "https://notebooks.example.org",
    ) as server:
        yield server


def post(server: ServerProcess, body: dict[str, Any], *, host: str | None = None,
         **headers: str) -> tuple[int, dict[str, str], bytes]:
    """POST ``body`` to the endpoint with ``headers`` (underscores become dashes)."""
    address = server.host_port
    conn = http.client.HTTPConnection(address, timeout=TIMEOUT)
    try:
        conn.putrequest("POST", "/mcp", skip_host=True)
        conn.putheader("Host", host or address)
        sent = {"Content-Type": "application/json",
                "Accept": "application/json, text/event-stream"}
        sent.update({k.replace("_", "-"): v for k, v in headers.items()})
        payload = json.dumps(body).encode()
        sent["Content-Length"] = str(len(payload))
        for key, value in sent.items():
            conn.putheader(key, value)
        conn.endheaders(payload)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, \
            response.read(4096)
    finally:
        conn.close()


# -- bearer auth --------------------------------------------------------------------------


def test_request_without_a_token_gets_401(secured: ServerProcess) -> None:
    status, headers, _ = post(secured, INITIALIZE)
    assert status == 401
    assert headers["www-authenticate"].startswith("Bearer")


def test_request_with_a_wrong_token_gets_401_without_echoing_it(secured: ServerProcess) -> None:
    status, _, body = post(secured, INITIALIZE, Authorization="Bearer not-a-valid-token")
    assert status == 401
    assert b"not-a-valid-token" not in body


def test_valid_token_is_accepted(secured: ServerProcess) -> None:
    status, headers, _ = post(secured, INITIALIZE, Authorization=f"Bearer {ALICE}")
    assert status == 200
    assert headers.get("mcp-session-id")


@pytest.mark.parametrize("era", ["2025", "2026"])
def test_token_maps_to_its_principal_and_roles(secured: ServerProcess, era: str) -> None:
    with open_session(secured.url, era, headers={"Authorization": f"Bearer {ALICE}"}) as s:
        who = s.call_tool("who_am_i", {}).structured_content
    assert who == {"id": "alice", "roles": ["analyst", "default"]}


def test_session_cannot_be_used_with_another_token(secured: ServerProcess) -> None:
    _, headers, _ = post(secured, INITIALIZE, Authorization=f"Bearer {ALICE}")
    session_id = headers["mcp-session-id"]
    status, _, _ = post(secured, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                        Authorization=f"Bearer {BOB}", Mcp_Session_Id=session_id,
                        Mcp_Protocol_Version="2025-11-25")
    assert status == 404


# -- Host / Origin guard --------------------------------------------------------------------


def test_unknown_host_gets_421(secured: ServerProcess) -> None:
    status, _, _ = post(secured, INITIALIZE, host="evil.example.com",
                        Authorization=f"Bearer {ALICE}")
    assert status == 421


def test_foreign_origin_gets_403(secured: ServerProcess) -> None:
    status, _, _ = post(secured, INITIALIZE, Origin="http://evil.example.com",
                        Authorization=f"Bearer {ALICE}")
    assert status == 403


def test_guard_answers_before_auth(secured: ServerProcess) -> None:
    assert post(secured, INITIALIZE, host="evil.example.com")[0] == 421
    assert post(secured, INITIALIZE, Origin="http://evil.example.com")[0] == 403


def test_loopback_origin_is_accepted(secured: ServerProcess) -> None:
    origin = f"http://{secured.host_port}"
    assert post(secured, INITIALIZE, Origin=origin, Authorization=f"Bearer {ALICE}")[0] == 200


def test_allowed_host_flag_accepts_that_host(secured: ServerProcess) -> None:
    port = secured.host_port.rsplit(":", 1)[1]
    status, _, _ = post(secured, INITIALIZE, host=f"mcp.internal:{port}",
                        Authorization=f"Bearer {ALICE}")
    assert status == 200


def test_same_origin_request_is_accepted_on_an_allowed_host(secured: ServerProcess) -> None:
    host = f"mcp.internal:{secured.host_port.rsplit(':', 1)[1]}"
    status, _, _ = post(secured, INITIALIZE, host=host, Origin=f"http://{host}",
                        Authorization=f"Bearer {ALICE}")
    assert status == 200


def test_allowed_origin_flag_accepts_that_origin(secured: ServerProcess) -> None:
    status, _, _ = post(secured, INITIALIZE, Origin="https://notebooks.example.org",
                        Authorization=f"Bearer {ALICE}")
    assert status == 200


def test_custom_path_serves_the_endpoint_there() -> None:
    with ServerProcess("--path", "/tools/mcp") as server:
        assert server.url.endswith("/tools/mcp")
        with open_session(server.url, "2025") as session:
            assert session.call_tool("add_numbers", {"a": 1, "b": 2}).structured_content == {
                "sum": 3}
        conn = http.client.HTTPConnection(server.host_port, timeout=TIMEOUT)
        conn.request("POST", "/mcp", body=json.dumps(INITIALIZE),
                      headers={"Content-Type": "application/json"})
        assert conn.getresponse().status == 404
        conn.close()


# -- notifications only where asked ----------------------------------------------------------


def _updates(session: Any, uri: str) -> list[Any]:
    return [n for n in session.notifications(ResourceUpdatedNotification) if n.params.uri == uri]


def test_resource_updated_reaches_subscribers_only(http_server: ServerProcess) -> None:
    with open_session(http_server.url, "2025") as subscriber, \
            open_session(http_server.url, "2025") as bystander, \
            open_session(http_server.url, "2025") as mutator:
        subscriber.subscribe_resource(COUNTER)
        bystander.subscribe_resource(HELLO)
        mutator.call_tool("bump_counter", {})
        mutator.call_tool("touch_resource", {"uri": HELLO})  # delivered after the bump
        subscriber.wait_for(lambda: _updates(subscriber, COUNTER))
        bystander.wait_for(lambda: _updates(bystander, HELLO))
        assert _updates(bystander, COUNTER) == []
        assert mutator.notifications(ResourceUpdatedNotification) == []


def test_unsubscribed_session_stops_receiving_updates(http_server: ServerProcess) -> None:
    with open_session(http_server.url, "2025") as subscriber, \
            open_session(http_server.url, "2025") as mutator:
        subscriber.subscribe_resource(COUNTER)
        mutator.call_tool("bump_counter", {})
        subscriber.wait_for(lambda: _updates(subscriber, COUNTER))
        subscriber.unsubscribe_resource(COUNTER)
        subscriber.subscribe_resource(HELLO)
        mutator.call_tool("bump_counter", {})
        mutator.call_tool("touch_resource", {"uri": HELLO})  # delivered after the bump
        subscriber.wait_for(lambda: _updates(subscriber, HELLO))
        assert len(_updates(subscriber, COUNTER)) == 1
