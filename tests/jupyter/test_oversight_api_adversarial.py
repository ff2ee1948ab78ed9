"""Attacks on the analyst's decisions through the JupyterLab routes, on a real Jupyter server
with real MCP clients holding minted credentials: an assistant deciding (or reading) approvals
and activity with its own token, however presented, or listening to the event bus; a page of
another site posting a decision with the analyst's cookie but no XSRF header (as JSON or as a
"simple" request); oversized and malformed bodies; ids that are not ids. Every one is refused
and the waiting call still waits, undecided."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError
from tornado.httpclient import HTTPClientError

from tests.protocol.harness import open_session

from .event_stream import subscribe
from .oversight_client import BASE, Waiting, api
from .server import JupyterServer, jupyter_server
from .test_assistants import bearer
from .test_auth import browser_login

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    with jupyter_server(tmp_path_factory.mktemp("oversight-attacks"), base_url=BASE) as started:
        yield started


@pytest.fixture(scope="module")
def waiting(server: JupyterServer) -> Iterator[Waiting]:
    """One assistant's call that waits through the whole module (nobody may decide it)."""
    call = Waiting(server, "attacker")
    yield call
    api(server, "POST", f"approvals/{call.id}", {"decision": "deny", "reason": "end of test"})
    call.result()


def still_waiting(server: JupyterServer, call: Waiting) -> bool:
    _, _, listed = api(server, "GET", "approvals")
    return call.id in [a["id"] for a in listed["pending"]]


@pytest.mark.parametrize("method, path", [
    ("GET", "approvals"), ("POST", "approvals/{id}"), ("GET", "approvals/{id}"),
    ("GET", "activity"), ("GET", "activity?since=0"), ("GET", "assistants"),
    ("POST", "assistants"),
])
@pytest.mark.parametrize("how", ["bearer", "token", "query", "beside-the-server-token"])
def test_an_assistant_token_opens_no_oversight_route(
        server: JupyterServer, waiting: Waiting, method: str, path: str, how: str) -> None:
    target = path.format(id=waiting.id)
    token = waiting.token
    headers = {"bearer": {"Authorization": f"Bearer {token}"},
               "token": {"Authorization": f"token {token}"}, "query": {},
               "beside-the-server-token": {"Authorization": f"token {server.token}"}}[how]
    if how in ("query", "beside-the-server-token"):
        target += ("&" if "?" in target else "?") + f"token={token}"
    body = {"decision": "approve"} if "approvals/" in target else (
        {"name": "sneaky", "client": "cursor"} if method == "POST" else None)
    status, _, answer = api(server, method, target, body, headers)
    assert status == 403, answer
    assert "sneaky" not in str(api(server, "GET", "assistants")[2])
    assert still_waiting(server, waiting)


@pytest.mark.parametrize("how", ["header", "query"])
def test_an_assistant_cannot_listen_to_the_event_bus(server: JupyterServer, waiting: Waiting,
                                                     how: str) -> None:
    headers = {"Authorization": f"Bearer {waiting.token}"} if how == "header" else {}
    with pytest.raises(HTTPClientError) as refused:
        if how == "header":
            with subscribe(server, headers):
                pass
        else:
            from tornado.httpclient import HTTPRequest
            from tornado.ioloop import IOLoop
            from tornado.websocket import websocket_connect

            url = (server.url.replace("http://", "ws://")
                   + f"api/events/subscribe?token={waiting.token}")
            IOLoop(make_current=False).run_sync(
                lambda: websocket_connect(HTTPRequest(url)))
    assert refused.value.code == 403


def test_an_assistant_cannot_decide_through_the_mcp_tool_either(
        server: JupyterServer, waiting: Waiting) -> None:
    with open_session(server.endpoint, "2025", headers=bearer(waiting.token)) as bot:
        listed = [t.name for t in bot.list_tools().tools]
        with pytest.raises(MCPError, match="Unknown tool"):
            bot.call_tool("decide_approval", {"approval_id": waiting.id, "decision": "approve"})
    assert "decide_approval" not in listed
    assert still_waiting(server, waiting)


@pytest.mark.parametrize("content_type, body", [
    ("application/json", b'{"decision": "approve"}'),
    ("text/plain", b'{"decision": "approve"}'),
    ("application/x-www-form-urlencoded", b"decision=approve"),
], ids=["json", "simple-text", "form"])
@pytest.mark.parametrize("origin", [None, "https://evil.example"], ids=["no-origin", "evil"])
def test_another_sites_page_cannot_decide_with_the_analysts_cookie(
        server: JupyterServer, waiting: Waiting, content_type: str, body: bytes,
        origin: str | None) -> None:
    cookies = browser_login(server)
    cookie = "; ".join(f"{k}={v}" for k, v in cookies.items())
    headers = {"Cookie": cookie, "Content-Type": content_type}
    if origin:
        headers.update({"Origin": origin, "Referer": f"{origin}/page"})
    status, _, answer = api(server, "POST", f"approvals/{waiting.id}", body, headers)
    # Jupyter refuses: a foreign Origin as 404 (its origin check), else 403 (no XSRF header).
    assert status == (404 if origin else 403), answer
    assert "approval" not in str(answer)
    assert still_waiting(server, waiting)


def test_a_wrong_xsrf_header_is_refused(server: JupyterServer, waiting: Waiting) -> None:
    cookies = browser_login(server)
    cookie = "; ".join(f"{k}={v}" for k, v in cookies.items())
    status, _, _ = api(server, "POST", f"approvals/{waiting.id}", {"decision": "approve"},
                       {"Cookie": cookie, "X-XSRFToken": "2|00000000|" + "0" * 32 + "|1"})
    assert status == 403
    assert still_waiting(server, waiting)


@pytest.mark.parametrize("body", [
    b"{" * 5000, b'{"decision": "approve", "reason": "' + b"x" * 5000 + b'"}',
], ids=["deeply-nested", "huge-reason"])
def test_an_oversized_body_is_refused_without_deciding(server: JupyterServer, waiting: Waiting,
                                                       body: bytes) -> None:
    status, _, answer = api(server, "POST", f"approvals/{waiting.id}", body)
    assert status == 413 and "too large" in answer["message"]
    assert still_waiting(server, waiting)


@pytest.mark.parametrize("path", [
    "approvals/..%2Fassistants", "approvals/%00", "approvals/" + "a" * 65,
    "approvals/id%20with%20space", "approvals/a/b",
])
def test_what_is_not_an_approval_id_decides_nothing(server: JupyterServer, waiting: Waiting,
                                                    path: str) -> None:
    status, _, _ = api(server, "POST", path, {"decision": "approve"})
    assert status in (400, 404)
    assert still_waiting(server, waiting)


def test_a_reason_is_kept_as_text_and_answered_as_json(server: JupyterServer) -> None:
    call = Waiting(server, "markup")
    script = "<script>alert(1)</script>"
    status, headers, body = api(server, "POST", f"approvals/{call.id}",
                                {"decision": "deny", "reason": script})
    result: Any = call.result()
    assert status == 200 and body["approval"]["reason"] == script
    assert headers["content-type"][0].startswith("application/json")
    assert headers["x-content-type-options"] == ["nosniff"]
    assert "default-src 'none'" in headers["content-security-policy"][0]
    assert result.is_error and script in result.content[0].text
