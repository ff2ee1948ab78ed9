"""No page can frame a cloudg response (issue 36, finding 3), on a real Jupyter server whose
operator allows a portal to frame Jupyter's own pages.

Every route under ``{base_url}cloudg/``, with every method and error path an attacker can
reach (no credentials, an assistant's minted token, a foreign Origin or Host, bad bodies,
unknown ids, unsupported methods, paths that match no route), and the approval page with a
call waiting, answers with headers under which a browser refuses to show it in a frame of a
hostile site, another local port, the operator's portal or even the server's own origin.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from tests.protocol.harness import TIMEOUT, open_session

from .browser_headers import framing_allowed, policies
from .server import FIXTURE_REGISTRY, JupyterServer, jupyter_server
from .test_assistants import _in_background, _pending, bearer, mint, owner
from .test_auth import INITIALIZE, MCP_HEADERS, browser_login, request

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

BASE = "/user/alice/"
PORTAL = "https://portal.example.org"
#: The operator's own headers for Jupyter's pages: a portal may frame them.
OPERATOR_HEADERS = {
    "Content-Security-Policy": f"frame-ancestors 'self' {PORTAL}; report-uri /csp-report",
    "X-Frame-Options": f"ALLOW-FROM {PORTAL}",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    config = {"ServerApp": {"tornado_settings": {"headers": OPERATOR_HEADERS}}}
    with jupyter_server(tmp_path_factory.mktemp("framing"), base_url=BASE, config=config,
                        extra_args=[FIXTURE_REGISTRY, "--CloudGExtension.approval_timeout=20"],
                        ) as started:
        yield started


@pytest.fixture(scope="module")
def attacker(server: JupyterServer) -> dict[str, Any]:
    """What the attacks use: an assistant's minted token and the analyst's browser cookies."""
    cookies = browser_login(server)
    return {"token": mint(server, "framer"), "cookies": cookies,
            "jar": "; ".join(f"{k}={v}" for k, v in cookies.items())}


def parents(server: JupyterServer) -> list[str]:
    """Origins a framing page could come from."""
    return ["https://evil.example", f"http://localhost:{server.port + 1}",
            f"http://127.0.0.1:{server.port + 1}", PORTAL, f"http://127.0.0.1:{server.port}"]


def assert_not_frameable(server: JupyterServer, headers: dict[str, list[str]],
                         path: str = "") -> None:
    page = f"http://127.0.0.1:{server.port}"
    for parent in parents(server):
        assert not framing_allowed(headers, parent, page), (parent, headers)
    (policy,) = policies(headers)
    assert "frame-ancestors 'none'" in policy and "default-src 'none'" in policy
    assert headers["x-frame-options"] == ["DENY"]
    assert headers["x-content-type-options"] == ["nosniff"]
    # The consent and approval pages' forms post back to them: under no-referrer a browser
    # sends "Origin: null", which Jupyter refuses; same-origin still tells no other site
    # anything.
    posts_back = path.startswith(("cloudg/oauth/consent/", "cloudg/approvals/"))
    allowed = ["no-referrer"] + (["same-origin"] if posts_back else [])
    (referrer_policy,) = headers["referrer-policy"]
    assert referrer_policy in allowed


def _cases(server: JupyterServer, attacker: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
    """name -> (method, path under BASE, body, headers, expected status)."""
    token, jar, xsrf = attacker["token"], attacker["jar"], attacker["cookies"]["_xsrf"]
    analyst, assistant = owner(server), bearer(token)
    json_type = {"Content-Type": "application/json"}
    form = {"Content-Type": "application/x-www-form-urlencoded", "Cookie": jar}
    return {
        "mcp initialize, analyst": ("POST", "cloudg/mcp", INITIALIZE,
                                    {**MCP_HEADERS, **analyst}, 200),
        "mcp initialize, assistant": ("POST", "cloudg/mcp", INITIALIZE,
                                      {**MCP_HEADERS, **assistant}, 200),
        "mcp, no credentials": ("POST", "cloudg/mcp", INITIALIZE, MCP_HEADERS, 401),
        "mcp, unknown oauth token": ("POST", "cloudg/mcp", INITIALIZE, {
            **MCP_HEADERS, **bearer("cgat_oa_" + "A" * 43)}, 401),
        "oauth issuer metadata": ("GET", "cloudg/oauth/.well-known/openid-configuration", None,
                                  {}, 200),
        "oauth resource metadata": ("GET", "cloudg/.well-known/oauth-protected-resource/mcp",
                                    None, {}, 200),
        "oauth authorize, unknown client": ("GET", "cloudg/oauth/authorize?client_id=nobody&"
                                            "response_type=code&code_challenge=x", None, {},
                                            400),
        "oauth token, unknown client": ("POST", "cloudg/oauth/token",
                                        b"grant_type=authorization_code&client_id=nobody",
                                        {"Content-Type": "application/x-www-form-urlencoded"},
                                        401),
        "oauth register, bad body": ("POST", "cloudg/oauth/register", b"[1,",
                                     {"Content-Type": "application/json"}, 400),
        "oauth consent, unknown request": ("GET", "cloudg/oauth/consent/nothing-waits", None,
                                           analyst, 404),
        "oauth consent, assistant token": ("GET", "cloudg/oauth/consent/nothing-waits", None,
                                           assistant, 403),
        "oauth requests, analyst": ("GET", "cloudg/api/oauth/requests", None, analyst, 200),
        "mcp, unknown assistant token": ("POST", "cloudg/mcp", INITIALIZE, {
            **MCP_HEADERS, **bearer("cgat_" + "A" * 43)}, 403),
        "mcp, assistant token in the query": ("POST", f"cloudg/mcp?token={token}", INITIALIZE,
                                              MCP_HEADERS, 200),
        "mcp, foreign origin": ("POST", "cloudg/mcp", INITIALIZE, {
            **MCP_HEADERS, **assistant, "Origin": "https://evil.example"}, 403),
        "mcp, foreign host": ("POST", "cloudg/mcp", INITIALIZE, {
            **MCP_HEADERS, **assistant, "Host": "evil.example"}, 403),
        "mcp, browser cookie without xsrf": ("POST", "cloudg/mcp", INITIALIZE, {
            **MCP_HEADERS, "Cookie": jar}, 403),
        "mcp, malformed JSON": ("POST", "cloudg/mcp", b"{", {**MCP_HEADERS, **assistant}, 400),
        "mcp, GET without a session": ("GET", "cloudg/mcp", None, {
            "Accept": "text/event-stream", **assistant}, 400),
        "mcp, DELETE without a session": ("DELETE", "cloudg/mcp", None, assistant, 400),
        "mcp, unknown session": ("POST", "cloudg/mcp", INITIALIZE, {
            **MCP_HEADERS, **assistant, "Mcp-Session-Id": "0" * 32}, 404),
        "mcp, PUT": ("PUT", "cloudg/mcp", b"{}", assistant, 405),
        "mcp, PROPFIND": ("PROPFIND", "cloudg/mcp", None, assistant, 405),
        "mcp, CORS preflight": ("OPTIONS", "cloudg/mcp", None, {
            "Origin": "https://evil.example", "Access-Control-Request-Method": "POST"}, 204),
        "status, analyst": ("GET", "cloudg/api/status", None, analyst, 200),
        "status, no credentials": ("GET", "cloudg/api/status", None, {}, 403),
        "status, assistant token": ("GET", "cloudg/api/status", None, assistant, 403),
        "status, POST": ("POST", "cloudg/api/status", b"", analyst, 405),
        "assistants, list": ("GET", "cloudg/api/assistants", None, analyst, 200),
        "assistants, no credentials": ("GET", "cloudg/api/assistants", None, {}, 403),
        "assistants, assistant token": ("GET", "cloudg/api/assistants", None, assistant, 403),
        "assistants, mint with bad JSON": ("POST", "cloudg/api/assistants", b"[1,",
                                           {**analyst, **json_type}, 400),
        "assistants, mint a bad name": ("POST", "cloudg/api/assistants", {"name": "Bad Name"},
                                        {**analyst, **json_type}, 400),
        "assistants, body too large": ("POST", "cloudg/api/assistants", b"x" * 5000,
                                       {**analyst, **json_type}, 413),
        "assistants, revoke nobody": ("DELETE", "cloudg/api/assistants/nobody", None,
                                      analyst, 404),
        "assistants, revoke without a name": ("DELETE", "cloudg/api/assistants", None,
                                              analyst, 400),
        "assistants, unknown name": ("GET", "cloudg/api/assistants/nobody", None, analyst, 404),
        "approval page, unknown id": ("GET", "cloudg/approvals/nosuchid", None,
                                      {"Cookie": jar}, 404),
        "approval page, not logged in": ("GET", "cloudg/approvals/nosuchid", None, {}, 302),
        "approval page, assistant token": ("GET", "cloudg/approvals/nosuchid", None,
                                           assistant, 403),
        "approval page, POST without xsrf": ("POST", "cloudg/approvals/nosuchid",
                                             b"decision=approve", form, 403),
        "approval page, bad decision": ("POST", "cloudg/approvals/nosuchid",
                                        f"decision=maybe&_xsrf={xsrf}".encode(), form, 400),
        "approval page, decision on an unknown id": (
            "POST", "cloudg/approvals/nosuchid", f"decision=approve&_xsrf={xsrf}".encode(),
            form, 404),
        "approval page, malformed id": ("GET", "cloudg/approvals/a!b", None,
                                        {"Cookie": jar}, 404),
        "approval page, PUT": ("PUT", "cloudg/approvals/nosuchid", b"", {"Cookie": jar}, 403),
        "approval page, PATCH with xsrf": ("PATCH", "cloudg/approvals/nosuchid", b"", {
            "Cookie": jar, "X-XSRFToken": xsrf}, 405),
        "unknown path under cloudg/": ("GET", "cloudg/nothing/here", None, analyst, 404),
        "cloudg/ itself": ("GET", "cloudg/", None, {}, 404),
        "cloudg without a slash": ("GET", "cloudg", None, {}, 404),
        "the endpoint with a trailing slash": ("POST", "cloudg/mcp/", INITIALIZE,
                                               {**MCP_HEADERS, **assistant}, 403),
        "unknown path, POST": ("POST", "cloudg/api/nothing", b"{}", analyst, 404),
    }


#: Every attack case, by name (the cases' headers need a server; their names do not).
CASE_IDS = list(_cases(SimpleNamespace(token="t", port=1),  # type: ignore[arg-type]
                       {"token": "cgat_x", "jar": "", "cookies": {"_xsrf": "x"}}))


@pytest.mark.parametrize("case", CASE_IDS)
def test_no_cloudg_response_can_be_framed(server: JupyterServer, attacker: dict[str, Any],
                                          case: str) -> None:
    method, path, body, headers, expected = _cases(server, attacker)[case]
    status, found, _ = request(server, method, f"{BASE}{path}", body, headers)
    assert status == expected  # the path under attack was the one reached
    assert_not_frameable(server, found, path)


def open_stream(server: JupyterServer, token: str) -> http.client.HTTPConnection:
    """An assistant's session (raw initialize) with its GET event stream open; the
    connection's ``last_response`` holds the stream's status and headers."""
    endpoint = f"{server.base_url}cloudg/mcp"
    status, found, _ = request(server, "POST", endpoint, INITIALIZE,
                               {**MCP_HEADERS, **bearer(token)})
    assert status == 200
    session = {"Mcp-Session-Id": found["mcp-session-id"][0],
               "Mcp-Protocol-Version": "2025-11-25"}
    status, _, _ = request(server, "POST", endpoint, {
        "jsonrpc": "2.0", "method": "notifications/initialized"},
        {**MCP_HEADERS, **bearer(token), **session})
    assert status == 202
    conn = http.client.HTTPConnection(server.host_port, timeout=TIMEOUT)
    conn.request("GET", endpoint, headers={
        **bearer(token), "Accept": "text/event-stream", **session})
    conn.last_response = conn.getresponse()  # type: ignore[attr-defined]
    return conn


def test_an_open_event_stream_cannot_be_framed(server: JupyterServer,
                                               attacker: dict[str, Any]) -> None:
    conn = open_stream(server, attacker["token"])
    try:
        response = conn.last_response  # type: ignore[attr-defined]
        found: dict[str, list[str]] = {}
        for name, value in response.getheaders():
            found.setdefault(name.lower(), []).append(value)
        assert response.status == 200
        assert found["content-type"][0].startswith("text/event-stream")
    finally:
        conn.close()
    assert_not_frameable(server, found)


def test_the_approval_page_with_a_waiting_call_cannot_be_framed(
        server: JupyterServer, attacker: dict[str, Any]) -> None:
    with open_session(server.endpoint, "2025", headers=bearer(attacker["token"])) as bot, \
            open_session(server.endpoint, "2025", headers=server.headers) as analyst:
        thread, out = _in_background(lambda: bot.call_tool(
            "suppress_findings", {"ids": ["f-001"], "reason": "framed"}))
        approval = _pending(analyst, "suppress_findings")
        page = f"{BASE}cloudg/approvals/{approval['id']}"
        status, found, html = request(server, "GET", page, headers={"Cookie": attacker["jar"]})
        assert status == 200 and b'id="cloudg-approve"' in html  # the page a click decides
        assert_not_frameable(server, found, page.removeprefix(BASE))
        (policy,) = policies(found)
        assert "form-action 'self'" in policy and "report-uri /csp-report" in policy
        assert found["cache-control"] == ["no-store"]
        status, found, html = request(server, "POST", page, (
            f"decision=deny&_xsrf={attacker['cookies']['_xsrf']}").encode(), {
            "Cookie": attacker["jar"], "Content-Type": "application/x-www-form-urlencoded"})
        assert status == 200 and b"denied" in html
        assert_not_frameable(server, found, page.removeprefix(BASE))
        thread.join(TIMEOUT)
    assert out["result"].is_error


def test_jupyters_own_pages_keep_the_operators_framing_rule(server: JupyterServer) -> None:
    status, found, _ = request(server, "GET", f"{BASE}api/status", headers=owner(server))
    assert status == 200
    assert framing_allowed(found, PORTAL, f"http://127.0.0.1:{server.port}")


def test_assistant_refusals_elsewhere_cannot_be_framed(server: JupyterServer,
                                                       attacker: dict[str, Any]) -> None:
    status, found, raw = request(server, "GET", f"{BASE}api/contents",
                                 headers=bearer(attacker["token"]))
    assert status == 403 and json.loads(raw)["reason"] == "assistant_token_out_of_scope"
    assert_not_frameable(server, found)

