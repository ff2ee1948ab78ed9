"""Who may use the endpoint: Jupyter's own auth (token header, ``?token=``, a logged-in browser
session with XSRF), 401 with the OAuth metadata's address for a request with no credential,
403 (never a login redirect) for a wrong one, Jupyter's Origin rules,
role mapping for the Jupyter user, and a server under a non-root ``base_url``.
"""

from __future__ import annotations

import getpass
import http.client
import json
import re
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import pytest

from tests.protocol.harness import TIMEOUT, open_session

from .server import FIXTURE_REGISTRY, JupyterServer, jupyter_server

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "raw-test", "version": "1"}},
}
NOTEBOOKS = "https://notebooks.example.org"
MCP_HEADERS = {"Content-Type": "application/json",
               "Accept": "application/json, text/event-stream"}


def request(server: JupyterServer, method: str, path: str, body: Any = None,
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, list[str]], bytes]:
    """One raw HTTP request; response headers as lower-case name -> all values."""
    conn = http.client.HTTPConnection(server.host_port, timeout=TIMEOUT)
    try:
        payload = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        conn.request(method, path, body=payload, headers=headers or {})
        response = conn.getresponse()
        found: dict[str, list[str]] = {}
        for name, value in response.getheaders():
            found.setdefault(name.lower(), []).append(value)
        return response.status, found, response.read(8192)
    finally:
        conn.close()


def mcp(server: JupyterServer, method: str = "POST", query: str = "", **headers: str,
        ) -> tuple[int, dict[str, list[str]], bytes]:
    path = f"{server.base_url}cloudg/mcp{query}"
    sent = {**MCP_HEADERS, **{k.replace("_", "-"): v for k, v in headers.items()}}
    return request(server, method, path, INITIALIZE if method == "POST" else None, sent)


@pytest.fixture(scope="module")
def alice(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    """A server under /user/alice/ whose owner has the analyst role, accepting one origin."""
    config = {"CloudGExtension": {"roles": {getpass.getuser(): ["analyst", "default"]}}}
    with jupyter_server(tmp_path_factory.mktemp("alice"), base_url="/user/alice/",
                        extra_args=[FIXTURE_REGISTRY, f"--ServerApp.allow_origin={NOTEBOOKS}"],
                        config=config) as server:
        yield server


# -- tokens -------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["POST", "GET", "DELETE"])
def test_request_without_credentials_is_told_how_to_authorize(jupyter: JupyterServer,
                                                               method: str) -> None:
    # MCP authorization: 401 pointing at the protected-resource metadata, never a login page.
    status, headers, body = mcp(jupyter, method)
    assert status == 401
    assert "location" not in headers
    (challenge,) = headers["www-authenticate"]
    assert challenge == (f'Bearer resource_metadata="http://{jupyter.host_port}/cloudg/'
                         '.well-known/oauth-protected-resource/mcp"')
    assert "OAuth" in json.loads(body)["error"]["message"]


def test_wrong_token_is_forbidden_and_not_echoed(jupyter: JupyterServer) -> None:
    status, _, body = mcp(jupyter, Authorization="Bearer not-the-token-123")
    assert status == 403
    assert b"not-the-token-123" not in body


@pytest.mark.parametrize("scheme", ["Bearer", "token"])
def test_token_header_is_accepted(jupyter: JupyterServer, scheme: str) -> None:
    status, headers, _ = mcp(jupyter, Authorization=f"{scheme} {jupyter.token}")
    assert status == 200
    assert headers["mcp-session-id"]


def test_token_requests_get_no_browser_login_cookie(jupyter: JupyterServer) -> None:
    # API clients keep no cookie jar worth feeding: Jupyter's token path would sign and set a
    # fresh login cookie (for a new invented user) on every MCP call.
    status, headers, _ = mcp(jupyter, Authorization=f"Bearer {jupyter.token}")
    assert status == 200
    assert "set-cookie" not in headers


def test_token_query_parameter_is_accepted(jupyter: JupyterServer) -> None:
    status, headers, _ = mcp(jupyter, query=f"?token={jupyter.token}")
    assert status == 200
    assert headers["mcp-session-id"]


def test_event_stream_response_is_not_buffered_by_proxies(jupyter: JupyterServer) -> None:
    status, headers, body = mcp(jupyter, Authorization=f"Bearer {jupyter.token}")
    assert status == 200
    assert headers["content-type"][0].startswith("text/event-stream")
    assert headers["x-accel-buffering"] == ["no"]
    assert b'"protocolVersion"' in body


def test_cors_preflight_needs_no_credentials(jupyter: JupyterServer) -> None:
    status, headers, _ = request(jupyter, "OPTIONS", "/cloudg/mcp", headers={
        "Origin": f"http://{jupyter.host_port}", "Access-Control-Request-Method": "POST"})
    assert status == 204
    assert "mcp-session-id" in headers["access-control-allow-headers"][0]


# -- origin -------------------------------------------------------------------------------------


def test_foreign_origin_is_forbidden_even_with_the_token(jupyter: JupyterServer) -> None:
    status, _, body = mcp(jupyter, Authorization=f"Bearer {jupyter.token}",
                          Origin="http://evil.example.com")
    assert status == 403
    assert "origin" in json.loads(body)["error"]["message"]


def test_same_origin_is_accepted(jupyter: JupyterServer) -> None:
    status, _, _ = mcp(jupyter, Authorization=f"Bearer {jupyter.token}",
                       Origin=f"http://{jupyter.host_port}")
    assert status == 200


# -- browser sessions ---------------------------------------------------------------------------


def _cookies(headers: dict[str, list[str]]) -> dict[str, str]:
    out = {}
    for line in headers.get("set-cookie", []):
        name, _, rest = line.partition("=")
        out[name.strip()] = rest.split(";", 1)[0]
    return out


def browser_login(server: JupyterServer) -> dict[str, str]:
    """Log in through the server's /login page with the token, as a browser does: the
    cookies it ends up with (the login cookie and ``_xsrf``)."""
    status, headers, page = request(server, "GET", f"{server.base_url}login")
    assert status == 200
    cookies = _cookies(headers)
    xsrf = re.search(rb'name="_xsrf" value="([^"]+)"', page)
    assert xsrf, "login page has no _xsrf field"
    form = urlencode({"_xsrf": xsrf.group(1).decode(), "password": server.token}).encode()
    status, headers, _ = request(server, "POST", f"{server.base_url}login", form, {
        "Content-Type": "application/x-www-form-urlencoded",
        "Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items()),
    })
    assert status == 302
    cookies.update(_cookies(headers))
    return cookies


def test_browser_session_without_xsrf_is_forbidden(jupyter: JupyterServer) -> None:
    cookies = browser_login(jupyter)
    cookie_header = "; ".join(f"{k}={v}" for k, v in cookies.items())
    status, _, body = mcp(jupyter, Cookie=cookie_header)
    assert status == 403
    assert "X-XSRFToken" in json.loads(body)["error"]["message"]


def test_browser_session_with_xsrf_is_accepted(jupyter: JupyterServer) -> None:
    cookies = browser_login(jupyter)
    cookie_header = "; ".join(f"{k}={v}" for k, v in cookies.items())
    status, headers, _ = mcp(jupyter, Cookie=cookie_header, X_XSRFToken=cookies["_xsrf"])
    assert status == 200
    assert headers["mcp-session-id"]


# -- base_url and roles -------------------------------------------------------------------------


@pytest.mark.parametrize("era", ["2025", "2026"])
def test_non_root_base_url_works_end_to_end(alice: JupyterServer, era: str) -> None:
    assert alice.endpoint.endswith("/user/alice/cloudg/mcp")
    with open_session(alice.endpoint, era, headers=alice.headers) as session:
        result = session.call_tool("count_assets", {"group_by": "provider"})
        assert result.structured_content["total"] == 60


def test_endpoint_is_only_under_the_base_url(alice: JupyterServer) -> None:
    status, _, _ = request(alice, "POST", "/cloudg/mcp", INITIALIZE, {
        **MCP_HEADERS, "Authorization": f"Bearer {alice.token}"})
    assert status == 404


@pytest.mark.parametrize("era", ["2025", "2026"])
def test_jupyter_user_gets_the_configured_roles(alice: JupyterServer, era: str) -> None:
    with open_session(alice.endpoint, era, headers=alice.headers) as session:
        who = session.call_tool("who_am_i", {}).structured_content
    assert who == {"id": getpass.getuser(), "roles": ["analyst", "default"]}


def test_status_endpoint_needs_the_token(alice: JupyterServer) -> None:
    status, headers, _ = request(alice, "GET", f"{alice.base_url}cloudg/api/status")
    assert status == 403
    assert "location" not in headers



def test_unknown_host_is_forbidden_as_jupyter_forbids_it(jupyter: JupyterServer) -> None:
    status, _, _ = request(jupyter, "POST", "/cloudg/mcp", INITIALIZE, {
        **MCP_HEADERS, "Authorization": f"Bearer {jupyter.token}",
        "Host": f"rebind.example.com:{jupyter.port}"})
    assert status == 403


def test_origin_allowed_by_jupyter_settings_is_accepted(alice: JupyterServer) -> None:
    status, headers, _ = mcp(alice, Authorization=f"Bearer {alice.token}", Origin=NOTEBOOKS)
    assert status == 200
    assert headers["access-control-allow-origin"] == [NOTEBOOKS]
    assert "mcp-session-id" in headers["access-control-expose-headers"][0]


def test_credentials_never_reach_the_mcp_server(jupyter: JupyterServer) -> None:
    cookies = browser_login(jupyter)
    url = f"{jupyter.endpoint}?token={jupyter.token}&keep=1"
    headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())}
    with open_session(url, "2025", headers=headers) as session:
        seen = session.call_tool("request_seen", {}).structured_content
    assert "authorization" not in seen["headers"] and "cookie" not in seen["headers"]
    assert seen["query"] == "keep=1"


def test_mcp_use_counts_as_server_activity(jupyter: JupyterServer) -> None:
    """Idle culling (Binder, JupyterHub) must not stop a server an assistant is using."""
    def last_activity() -> str:
        return str(jupyter.get_json(f"{jupyter.url}api/status")[1]["last_activity"])

    before = last_activity()
    time.sleep(0.01)
    assert mcp(jupyter, Authorization=f"Bearer {jupyter.token}")[0] == 200
    assert last_activity() > before
