"""``cloudg-nb serve --transport http --oauth``: the official SDK client goes from the bare URL
to a tool call after the owner allows it on the server's own consent page (which needs the
owner's --auth-token, typed into the form); without the owner's token, or with an assistant's,
nothing is allowed."""

from __future__ import annotations

import http.client
import json
import os
from collections.abc import Callable, Iterator
from urllib.parse import urlencode, urlsplit

import pytest

from tests.jupyter.oauth_client import MemoryStorage, oauth_session

from .harness import TIMEOUT, ServerProcess

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

OWNER = "owner-secret-token-1234"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    data = tmp_path_factory.mktemp("serve-oauth-data")
    saved = os.environ.get("JUPYTER_DATA_DIR")
    os.environ["JUPYTER_DATA_DIR"] = str(data)
    try:
        with ServerProcess("--oauth", "--auth-token", f"{OWNER}:analyst:owner") as server:
            yield server
    finally:
        if saved is None:
            os.environ.pop("JUPYTER_DATA_DIR", None)
        else:
            os.environ["JUPYTER_DATA_DIR"] = saved


def call(server: ServerProcess, method: str, url: str, body: bytes | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(server.host_port, timeout=TIMEOUT)
    try:
        conn.request(method, parts.path + (f"?{parts.query}" if parts.query else ""),
                     body=body, headers=headers or {})
        response = conn.getresponse()
        return (response.status, {k.lower(): v for k, v in response.getheaders()},
                response.read())
    finally:
        conn.close()


def owner_consent(server: ServerProcess, token: str = OWNER, name: str = "serve-bot",
                  outcome: list[tuple[int, bytes]] | None = None) -> Callable[[str], str]:
    def consent(authorization_url: str) -> str:
        status, headers, _ = call(server, "GET", authorization_url)
        assert status == 302
        page = headers["location"]
        status, _, html = call(server, "GET", page)
        assert status == 200 and b"owner token" in html
        status, headers, body = call(server, "POST", page, urlencode({
            "owner_token": token, "name": name, "decision": "allow"}).encode(),
            {"Content-Type": "application/x-www-form-urlencoded"})
        if outcome is not None:
            outcome.append((status, body))
        if status != 302:
            return "http://127.0.0.1:8765/callback?error=access_denied"
        return headers["location"]

    return consent


def test_an_unauthenticated_request_points_at_the_resource_metadata(
        served: ServerProcess) -> None:
    status, headers, _ = call(served, "POST", served.url, b"{}",
                              {"Content-Type": "application/json"})
    assert status == 401
    assert 'resource_metadata="' in headers["www-authenticate"]
    origin = served.url.rsplit("/", 1)[0]
    meta = json.loads(call(served, "GET", f"{origin}/.well-known/oauth-protected-resource/mcp")
                      [2])
    assert meta["resource"] == served.url


def test_the_sdk_client_connects_after_the_owner_allows_it(served: ServerProcess) -> None:
    storage = MemoryStorage()
    with oauth_session(served.url, owner_consent(served), storage=storage) as session:
        result = session.call_tool("add_numbers", {"a": 2, "b": 3})
    assert not result.is_error
    assert storage.tokens is not None and storage.tokens.access_token.startswith("cgat_oa_")


@pytest.mark.parametrize("token", ["not-the-owner", "cgat_oa_" + "B" * 43])
def test_consent_without_the_owners_token_allows_nothing(served: ServerProcess,
                                                         token: str) -> None:
    outcome: list[tuple[int, bytes]] = []
    with pytest.raises(ExceptionGroup), oauth_session(
            served.url, owner_consent(served, token=token, name="intruder", outcome=outcome)):
        pass
    assert outcome[0][0] == 403 and b"owner token" in outcome[0][1]
    assert token.encode() not in outcome[0][1]


def test_the_owner_token_still_works_as_a_bearer(served: ServerProcess) -> None:
    status, _, _ = call(served, "POST", served.url, json.dumps({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "1"}}}).encode(), {
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "Authorization": f"Bearer {OWNER}"})
    assert status == 200


def test_oauth_needs_an_owner_token() -> None:
    from cloudg_nb.cli import main

    assert main(["serve", "--transport", "http", "--oauth"]) != 0
