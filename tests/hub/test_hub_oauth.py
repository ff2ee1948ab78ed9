"""MCP authorization (OAuth) under a real JupyterHub: a client given only alice's public endpoint
``{hub}/user/alice/cloudg/mcp`` discovers her server's OAuth metadata at the hub's public
address under ``/user/alice/`` (the origin's root is the hub's), the official MCP Python SDK
client goes on to a tool call after alice consents with her hub login (over HTTP, and once in
Chromium through the hub's login page), and its call shows under the assistant's name; so do
the TypeScript SDK client and mcp-remote, which reach only the OpenID form under the path.
bob's login or token cannot consent on alice's server, tokens of alice's server open nothing
else (bob's endpoint, her other routes, the hub), and revoking the assistant ends them at once.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import anyio
import pytest
import requests
from mcp import Client, MCPDeprecationWarning, StdioServerParameters
from mcp.shared.exceptions import MCPError

from tests.browser.loopback_callback import loopback_callback
from tests.jupyter.oauth_client import REDIRECT_URI, MemoryStorage, oauth_session, pkce, query_of
from tests.jupyter.server import ROOT, free_port
from tests.lanes import starts
from tests.protocol.harness import open_session

from .hub import DOC, Hub
from .test_hub_public_address import config_in_server, server_environment

pytestmark = [pytest.mark.hub, pytest.mark.server,
              pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

MCP_HEADERS = {"Content-Type": "application/json",
               "Accept": "application/json, text/event-stream"}
INITIALIZE: dict[str, Any] = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "hub-oauth-test", "version": "1"}}}
#: The official TypeScript SDK's OAuth client script (tests/clients).
NODE = ROOT / "tests" / "clients" / "node"
NODE_TIMEOUT = 120.0
#: The analyst's browser for mcp-remote ($BROWSER): answers the consent page, opens the callback.
BROWSER_SCRIPT = ROOT / "tests" / "clients" / "python" / "consenting_browser.py"
_XSRF_FIELD = re.compile(r'name="_xsrf" value="([^"]+)"')


def endpoint(hub: Hub, user: str) -> str:
    return f"{hub.server_url(user)}cloudg/mcp"


def issuer(hub: Hub, user: str) -> str:
    return f"{hub.server_url(user)}cloudg/oauth"


def resource_metadata_url(hub: Hub, user: str) -> str:
    return f"{hub.server_url(user)}cloudg/.well-known/oauth-protected-resource/mcp"


def token_header(token: str) -> dict[str, str]:
    return {"Authorization": f"token {token}"}


def initialize(hub: Hub, user: str, headers: dict[str, str]) -> requests.Response:
    """One raw MCP initialize on ``user``'s endpoint (no redirects followed)."""
    return requests.post(endpoint(hub, user), json=INITIALIZE,
                         headers={**MCP_HEADERS, **headers}, timeout=30, allow_redirects=False)


def fetch_json(url: str) -> dict[str, Any]:
    answered = requests.get(url, timeout=30, allow_redirects=False)
    assert answered.status_code == 200, (url, answered.status_code, answered.text[:200])
    return dict(answered.json())


def consent_page_of(authorization_url: str) -> str:
    """Follow the authorization URL as the client's browser does before any login: the
    consent page it is sent to."""
    answered = requests.get(authorization_url, timeout=30, allow_redirects=False)
    assert answered.status_code == 302, (answered.status_code, answered.text[:300])
    return answered.headers["Location"]


def post_consent(browser: requests.Session, page: str, fields: dict[str, str]
                 ) -> requests.Response:
    """Answer the consent ``page`` in ``browser``: its form, with the page's ``_xsrf``."""
    shown = browser.get(page, timeout=30, allow_redirects=False)
    assert shown.status_code == 200, (shown.status_code, shown.text[:300])
    xsrf = _XSRF_FIELD.search(shown.text)
    assert xsrf, "the consent page has no _xsrf field"
    return browser.post(page, data={**fields, "_xsrf": xsrf.group(1)}, timeout=30,
                        allow_redirects=False)


def hub_consent(browser: requests.Session, name: str, seen: list[str] | None = None
                ) -> Callable[[str], str]:
    """The consent step as alice does it in her browser (her hub login): Allow, naming the
    assistant ``name``; the consent page's URL goes to ``seen``."""

    def consent(authorization_url: str) -> str:
        page = consent_page_of(authorization_url)
        if seen is not None:
            seen.append(page)
        answered = post_consent(browser, page, {"decision": "allow", "name": name})
        assert answered.status_code == 302, (answered.status_code, answered.text[:500])
        return answered.headers["Location"]

    return consent


def request_authorization(hub: Hub, user: str, client_name: str, resource: str | None = None
                          ) -> requests.Response:
    """Register a public client on ``user``'s server and ask for authorization (PKCE S256)
    as the client's browser does: the answer (not followed)."""
    registered = requests.post(f"{issuer(hub, user)}/register", json={
        "client_name": client_name, "redirect_uris": [REDIRECT_URI],
        "token_endpoint_auth_method": "none"}, timeout=30)
    assert registered.status_code == 201, registered.text
    _verifier, challenge = pkce()
    query = {"response_type": "code", "client_id": registered.json()["client_id"],
             "redirect_uri": REDIRECT_URI, "code_challenge": challenge,
             "code_challenge_method": "S256", "state": "st",
             "resource": resource or endpoint(hub, user)}
    return requests.get(f"{issuer(hub, user)}/authorize?{urlencode(query)}", timeout=30,
                        allow_redirects=False)


def pending_request(hub: Hub, user: str, client_name: str) -> str:
    """A client's authorization request waiting on ``user``'s server: its consent page."""
    answered = request_authorization(hub, user, client_name)
    assert answered.status_code == 302, (answered.status_code, answered.text[:300])
    return answered.headers["Location"]


def waiting_requests(hub: Hub, user: str, token: str) -> list[dict[str, Any]]:
    listed = requests.get(f"{hub.server_url(user)}cloudg/api/oauth/requests",
                          headers=token_header(token), timeout=30)
    assert listed.status_code == 200, listed.text
    return list(listed.json()["requests"])


def assistants(hub: Hub, user: str, token: str) -> set[str]:
    listed = requests.get(f"{hub.server_url(user)}cloudg/api/assistants",
                          headers=token_header(token), timeout=30)
    assert listed.status_code == 200, listed.text
    return {a["name"] for a in listed.json()["assistants"]}


def connected(hub: Hub, browser: requests.Session, name: str) -> MemoryStorage:
    """Connect the SDK client to alice's endpoint as assistant ``name`` (alice consents);
    its tokens."""
    storage = MemoryStorage()
    with oauth_session(endpoint(hub, "alice"), hub_consent(browser, name),
                       storage=storage) as session:
        assert not session.call_tool("who_am_i", {}).is_error
    assert storage.tokens is not None
    return storage


def refresh(hub: Hub, user: str, storage: MemoryStorage) -> requests.Response:
    assert storage.tokens is not None and storage.client_info is not None
    return requests.post(f"{issuer(hub, user)}/token", data={
        "grant_type": "refresh_token", "refresh_token": storage.tokens.refresh_token or "",
        "client_id": storage.client_info.client_id}, timeout=30)


@pytest.fixture(scope="module")
def alice_token(hub: Hub) -> str:
    return hub.user_token("alice", ["access:servers!user=alice"])


@pytest.fixture(scope="module")
def alice_browser(hub: Hub) -> requests.Session:
    """A browser logged in to the hub as alice, with her server opened (the hub's OAuth round
    trip gives it her server's login cookie)."""
    browser = hub.login("alice")
    opened = hub.open_server(browser, "alice")
    assert opened.status_code == 200 and opened.url.startswith(hub.server_url("alice"))
    return browser


@pytest.fixture(scope="module")
def bob_browser(hub: Hub) -> requests.Session:
    browser = hub.login("bob")
    assert hub.open_server(browser, "bob").status_code == 200
    return browser


@pytest.fixture(scope="module")
def bob_token(hub: Hub) -> str:
    return hub.user_token("bob", ["access:servers!user=bob"])


# -- discovery at the hub's public address ------------------------------------------------------


def test_a_bare_request_is_pointed_at_the_resource_metadata_at_the_hub_address(hub: Hub) -> None:
    answered = initialize(hub, "alice", {})
    assert answered.status_code == 401
    assert answered.headers["WWW-Authenticate"] == (
        f'Bearer resource_metadata="{resource_metadata_url(hub, "alice")}"')
    assert "mcp-session-id" not in answered.headers


def test_the_resource_metadata_names_the_public_endpoint_and_issuer(hub: Hub) -> None:
    meta = fetch_json(resource_metadata_url(hub, "alice"))
    assert meta["resource"] == endpoint(hub, "alice")
    assert meta["authorization_servers"] == [issuer(hub, "alice")]


@pytest.mark.parametrize("form", ["openid-configuration", "oauth-authorization-server"])
def test_the_issuer_metadata_under_user_alice_gives_hub_public_urls(hub: Hub, form: str) -> None:
    meta = fetch_json(f"{issuer(hub, 'alice')}/.well-known/{form}")
    assert meta["issuer"] == issuer(hub, "alice")
    keys = ["authorization_endpoint", "token_endpoint", "registration_endpoint",
            "revocation_endpoint", *(["jwks_uri"] if form == "openid-configuration" else [])]
    for key in keys:
        assert meta[key].startswith(f"{issuer(hub, 'alice')}/"), (key, meta[key])
    internal = server_environment(hub, "alice")["JUPYTERHUB_SERVICE_URL"]
    assert internal.rstrip("/").rsplit("/", 2)[0] + "/" not in str(meta)  # no loopback origin


def test_the_openid_form_under_user_alice_is_valid_openid_provider_metadata(hub: Hub) -> None:
    # The one form under /user/alice/ that clients which try root forms first (the TypeScript
    # SDK: Claude Code, VS Code, mcp-remote) reach: they check it as OpenID Provider metadata.
    meta = fetch_json(f"{issuer(hub, 'alice')}/.well-known/openid-configuration")
    for key in ("jwks_uri", "response_types_supported", "subject_types_supported",
                "id_token_signing_alg_values_supported"):
        assert key in meta, key
    assert fetch_json(meta["jwks_uri"]) == {"keys": []}


# -- the whole flow, with alice's hub login ------------------------------------------------------


@pytest.mark.parametrize("era", ["2025", "2026"])
def test_the_sdk_client_goes_from_the_hub_url_to_a_tool_call_as_alice_assistant(
        hub: Hub, alice_browser: requests.Session, alice_token: str, era: str) -> None:
    name = f"hub-flow-{era}"
    seen: list[str] = []
    before = requests.get(f"{hub.server_url('alice')}cloudg/api/activity?since=0&limit=2000",
                          headers=token_header(alice_token), timeout=30).json()["seq"]
    with oauth_session(endpoint(hub, "alice"), hub_consent(alice_browser, name, seen),
                       era=era) as session:
        who = session.call_tool("who_am_i", {}).structured_content
        counted = session.call_tool("count_assets", {"group_by": "provider"})
    assert who == {"id": f"assistant:{name}", "roles": ["assistant"]}
    assert not counted.is_error
    assert seen[0].startswith(f"{hub.server_url('alice')}cloudg/oauth/consent/")
    feed = requests.get(f"{hub.server_url('alice')}cloudg/api/activity?since={before}",
                        headers=token_header(alice_token), timeout=30)
    assert feed.status_code == 200
    assert any(e["principal"] == f"assistant:{name}" and e["name"] == "count_assets"
               and e["outcome"] == "ok" for e in feed.json()["entries"]), feed.text[:1000]


def test_the_consent_page_is_at_the_hub_address_of_alice_server(hub: Hub) -> None:
    page = pending_request(hub, "alice", "Address Client")
    assert re.fullmatch(re.escape(f"{hub.server_url('alice')}cloudg/oauth/consent/") + r"[\w-]+",
                        page), page


def test_a_request_for_the_server_internal_address_as_resource_is_refused(hub: Hub) -> None:
    # Tokens are for the endpoint at the hub's address; the server's loopback one is no
    # audience (a client that read it somewhere must not get a token for it).
    internal = server_environment(hub, "alice")["JUPYTERHUB_SERVICE_URL"]
    answered = request_authorization(hub, "alice", "Internal Client",
                                     resource=f"{internal.rstrip('/')}/cloudg/mcp")
    assert answered.status_code == 302
    assert query_of(answered.headers["Location"])["error"] == "invalid_target"


def test_alice_server_serves_no_metadata_at_the_origin_root(hub: Hub) -> None:
    # The origin's root is the hub's: alice's server, asked directly at its own port, keeps
    # off it (oauth_root_discovery defaults to off under JupyterHub).
    internal = server_environment(hub, "alice")["JUPYTERHUB_SERVICE_URL"]
    origin = internal[:internal.index("/", len("http://"))]
    for path in ("/.well-known/oauth-authorization-server/user/alice/cloudg/oauth",
                 "/.well-known/openid-configuration/user/alice/cloudg/oauth",
                 "/.well-known/oauth-protected-resource/user/alice/cloudg/mcp"):
        answered = requests.get(origin + path, timeout=30, allow_redirects=False)
        assert answered.status_code == 404, (path, answered.status_code)


def test_a_browser_with_no_login_reaches_the_consent_page_through_the_hub_login(
        hub: Hub) -> None:
    # The client opens alice's browser at the authorization URL; logged in nowhere yet, she
    # goes through the hub's login and its OAuth round trip and lands on the consent page.
    page = pending_request(hub, "alice", "Client Before Login")
    browser = requests.Session()
    login = browser.get(page, timeout=60)
    assert login.url.startswith(f"{hub.url}hub/login"), login.url
    xsrf = _XSRF_FIELD.search(login.text)
    shown = browser.post(login.url, data={"username": "alice", "password": "any",
                                          **({"_xsrf": xsrf.group(1)} if xsrf else {})},
                         timeout=60)
    assert (shown.status_code, shown.url) == (200, page)
    assert "Client Before Login" in shown.text
    answered = post_consent(browser, page, {"decision": "deny"})
    assert answered.status_code == 302
    assert query_of(answered.headers["Location"])["error"] == "access_denied"


# -- only alice consents on her server ------------------------------------------------------------


def test_bob_hub_login_cannot_open_alice_consent_page(hub: Hub, bob_browser: requests.Session,
                                                      alice_token: str) -> None:
    page = pending_request(hub, "alice", "Client For Bob")
    shown = bob_browser.get(page, timeout=30, allow_redirects=False)
    assert shown.status_code in (302, 403), shown.status_code
    assert "Client For Bob" not in shown.text
    assert page.rsplit("/", 1)[1] in {r["id"] for r in waiting_requests(
        hub, "alice", alice_token)}


def test_bob_hub_login_cannot_answer_alice_consent_page(hub: Hub, bob_browser: requests.Session,
                                                        alice_token: str) -> None:
    page = pending_request(hub, "alice", "Client Bob Allows")
    for xsrf in (bob_browser.cookies.get("_xsrf", path="/user/bob/"), "forged"):
        answered = bob_browser.post(page, data={
            "decision": "allow", "name": "bobs-pick", "_xsrf": xsrf or "none"},
            headers={"X-XSRFToken": xsrf or "none"}, timeout=30, allow_redirects=False)
        assert answered.status_code in (302, 403), answered.status_code
        assert "code=" not in answered.headers.get("Location", "")
    assert "bobs-pick" not in assistants(hub, "alice", alice_token)
    assert page.rsplit("/", 1)[1] in {r["id"] for r in waiting_requests(
        hub, "alice", alice_token)}


@pytest.mark.parametrize("who", ["bob's hub token", "no login"])
def test_no_other_credential_answers_alice_consent_page(hub: Hub, bob_token: str,
                                                        alice_token: str, who: str) -> None:
    page = pending_request(hub, "alice", "Client Others Allow")
    headers = token_header(bob_token) if who == "bob's hub token" else {}
    shown = requests.get(page, headers=headers, timeout=30, allow_redirects=False)
    assert shown.status_code in (302, 403) and "Client Others Allow" not in shown.text
    answered = requests.post(page, data={"decision": "allow", "name": "others-pick"},
                             headers=headers, timeout=30, allow_redirects=False)
    assert answered.status_code in (302, 403)
    assert "code=" not in answered.headers.get("Location", "")
    assert "others-pick" not in assistants(hub, "alice", alice_token)


def test_alice_login_without_the_xsrf_token_cannot_answer(hub: Hub,
                                                          alice_browser: requests.Session,
                                                          alice_token: str) -> None:
    page = pending_request(hub, "alice", "Client Forged Post")
    answered = alice_browser.post(page, data={"decision": "allow", "name": "forged"},
                                  timeout=30, allow_redirects=False)
    assert answered.status_code == 403
    assert "forged" not in assistants(hub, "alice", alice_token)


# -- alice's tokens are for alice's endpoint only -------------------------------------------------


@pytest.mark.parametrize("scheme", ["Bearer", "token"])
def test_an_access_token_of_alice_server_is_refused_on_bob_endpoint(
        hub: Hub, alice_browser: requests.Session, scheme: str) -> None:
    storage = connected(hub, alice_browser, f"roaming-{scheme.lower()}")
    assert storage.tokens is not None
    refused = initialize(hub, "bob", {"Authorization": f"{scheme} {storage.tokens.access_token}"})
    assert refused.status_code in (401, 403), refused.status_code
    assert "mcp-session-id" not in refused.headers
    assert storage.tokens.access_token not in refused.text
    assert initialize(hub, "alice", {"Authorization": f"{scheme} "
                                     f"{storage.tokens.access_token}"}).status_code == 200


def test_a_refresh_token_of_alice_server_gets_nothing_from_bob_server(
        hub: Hub, alice_browser: requests.Session) -> None:
    storage = connected(hub, alice_browser, "refresh-roamer")
    answered = refresh(hub, "bob", storage)
    assert answered.status_code in (400, 401), answered.status_code
    assert "access_token" not in answered.text


def test_an_access_token_of_alice_opens_no_other_route_of_her_server_or_the_hub(
        hub: Hub, alice_browser: requests.Session) -> None:
    storage = connected(hub, alice_browser, "oauth-wanderer")
    assert storage.tokens is not None
    bearer = {"Authorization": f"Bearer {storage.tokens.access_token}"}
    for url in (f"{hub.server_url('alice')}api/contents", f"{hub.server_url('alice')}api/kernels",
                f"{hub.server_url('alice')}cloudg/api/approvals",
                f"{hub.server_url('alice')}cloudg/api/assistants",
                f"{hub.server_url('alice')}cloudg/api/oauth/requests",
                f"{hub.api}user", f"{hub.api}users/alice"):
        answered = requests.get(url, headers=bearer, timeout=30, allow_redirects=False)
        assert answered.status_code in (302, 401, 403), (url, answered.status_code)


def test_revoking_the_assistant_in_alice_server_ends_its_tokens_at_once(
        hub: Hub, alice_browser: requests.Session, alice_token: str) -> None:
    storage = connected(hub, alice_browser, "hub-revoked")
    assert storage.tokens is not None
    bearer = {"Authorization": f"Bearer {storage.tokens.access_token}"}
    assert initialize(hub, "alice", bearer).status_code == 200
    revoked = requests.delete(f"{hub.server_url('alice')}cloudg/api/assistants/hub-revoked",
                              headers=token_header(alice_token), timeout=30)
    assert revoked.status_code == 200, revoked.text
    refused = initialize(hub, "alice", bearer)
    assert refused.status_code == 401
    assert 'error="invalid_token"' in refused.headers["WWW-Authenticate"]
    assert resource_metadata_url(hub, "alice") in refused.headers["WWW-Authenticate"]
    answered = refresh(hub, "alice", storage)
    assert (answered.status_code, answered.json()["error"]) == (400, "invalid_grant")


def send_line(proc: subprocess.Popen[str], value: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(value) + "\n")
    proc.stdin.flush()


def receive_line(proc: subprocess.Popen[str]) -> dict[str, Any]:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        proc.wait(timeout=NODE_TIMEOUT)
        raise AssertionError(f"the client ended: {proc.stderr.read() if proc.stderr else ''}")
    return dict(json.loads(line))



def test_revoking_the_assistant_ends_its_open_session_at_the_next_call(
        hub: Hub, alice_browser: requests.Session, alice_token: str) -> None:
    storage = connected(hub, alice_browser, "hub-cut")
    assert storage.tokens is not None
    bearer = {"Authorization": f"Bearer {storage.tokens.access_token}"}
    with open_session(endpoint(hub, "alice"), "2025", headers=bearer) as session:
        assert session.call_tool("who_am_i", {}).structured_content["id"] == "assistant:hub-cut"
        revoked = requests.delete(f"{hub.server_url('alice')}cloudg/api/assistants/hub-cut",
                                  headers=token_header(alice_token), timeout=30)
        assert revoked.status_code == 200, revoked.text
        with pytest.raises(MCPError, match="authorize again") as ended:
            session.call_tool("count_assets", {"group_by": "provider"})
    assert "hub-cut" not in assistants(hub, "alice", alice_token)
    assert "invalid_token" in repr(ended.value)
    assert storage.tokens.access_token not in repr(ended.value)


@pytest.mark.clients
def test_the_typescript_sdk_goes_from_the_hub_url_to_a_tool_call_as_alice_assistant(
        hub: Hub, alice_browser: requests.Session, alice_token: str) -> None:
    # The TypeScript SDK (Claude Code's, VS Code's, mcp-remote's) tries the root discovery
    # forms first: at the hub's origin the hub answers those, and the client goes on to the
    # form under /user/alice/.
    script = NODE / "ts_sdk_oauth_client.mjs"
    assert (NODE / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir(), (
        "tests/clients/node/node_modules is missing: run `make client-deps`")
    proc = subprocess.Popen(["node", str(script)], cwd=NODE, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        send_line(proc, {"url": endpoint(hub, "alice"), "redirect_uri": REDIRECT_URI,
                         "tool": "count_assets", "arguments": {"group_by": "provider"}})
        asked = receive_line(proc)
        landed = hub_consent(alice_browser, "ts-sdk-hub")(asked["authorize"])
        send_line(proc, {"code": query_of(landed)["code"]})
        report = receive_line(proc)
        proc.wait(timeout=NODE_TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=NODE_TIMEOUT)
    assert asked["authorize"].startswith(f"{issuer(hub, 'alice')}/authorize?")
    assert report["result"]["is_error"] is False, json.dumps(report)[:500]
    assert report["tokens"] == {"access_prefix": "cgat_oa_", "has_refresh": True}
    feed = requests.get(f"{hub.server_url('alice')}cloudg/api/activity?since=0&limit=2000",
                        headers=token_header(alice_token), timeout=30).json()["entries"]
    assert any(e["principal"] == "assistant:ts-sdk-hub" and e["name"] == "count_assets"
               for e in feed)


@pytest.mark.clients
def test_mcp_remote_goes_from_the_hub_url_to_a_tool_call_as_alice_assistant(
        hub: Hub, alice_browser: requests.Session, alice_token: str, tmp_path: Path) -> None:
    # Claude Desktop's way in: mcp-remote, its browser step played by a script holding
    # alice's server cookies (from her hub login) and XSRF token.
    bridge = NODE / "node_modules" / ".bin" / "mcp-remote"
    assert bridge.exists(), "tests/clients/node/node_modules is missing: run `make client-deps`"
    cookies = [c for c in alice_browser.cookies if (c.path or "/").startswith(
        ("/user/alice/", "/hub/")) or c.path == "/"]
    browser = tmp_path / "browser"
    browser.write_text(f"#!/bin/sh\nexec {sys.executable} {BROWSER_SCRIPT} \"$@\"\n")
    browser.chmod(0o755)
    env = {**os.environ, "BROWSER": str(browser), "MCP_REMOTE_CONFIG_DIR": str(tmp_path / "cfg"),
           "CLOUDG_TEST_COOKIE": "; ".join(f"{c.name}={c.value}" for c in cookies),
           "CLOUDG_TEST_XSRF": str(alice_browser.cookies.get("_xsrf", path="/user/alice/")),
           "CLOUDG_TEST_NAME": "bridged-hub", "DISPLAY": "", "WAYLAND_DISPLAY": ""}
    params = StdioServerParameters(command=str(bridge), args=[
        endpoint(hub, "alice"), str(free_port()), "--allow-http"], env=env)

    async def run() -> Any:
        async with Client(params, mode="legacy") as client:
            return await client.call_tool("count_assets", {"group_by": "provider"})

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        result = anyio.run(run)
    assert not result.is_error
    feed = requests.get(f"{hub.server_url('alice')}cloudg/api/activity?since=0&limit=2000",
                        headers=token_header(alice_token), timeout=30).json()["entries"]
    assert any(e["principal"] == "assistant:bridged-hub" and e["name"] == "count_assets"
               for e in feed)


# -- in Chromium, as alice does it ---------------------------------------------------------------


@pytest.fixture
def callback() -> Iterator[tuple[str, list[str]]]:
    with loopback_callback() as found:
        yield found


@pytest.fixture(scope="module")
@starts("browser")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from tests.browser.chrome import headless_chromium

    with headless_chromium(tmp_path_factory.mktemp("chromium")) as driver:
        yield driver


@pytest.mark.browser
def test_alice_allows_in_chromium_through_the_hub_login_and_the_sdk_client_calls_a_tool(
        hub: Hub, chromium: Any, callback: tuple[str, list[str]], alice_token: str) -> None:
    from selenium.webdriver.common.by import By

    from tests.browser.chrome import wait_for

    redirect_uri, landed = callback
    seen: dict[str, str] = {}

    def consent_in_chromium(authorization_url: str) -> str:
        chromium.get(authorization_url)  # not logged in: the hub's login page comes first
        wait_for(lambda: chromium.find_element(By.ID, "username_input"), "the hub's login")
        seen["login"] = chromium.current_url
        chromium.find_element(By.ID, "username_input").send_keys("alice")
        chromium.find_element(By.ID, "password_input").send_keys("any")
        chromium.find_element(By.ID, "login_submit").click()
        name = wait_for(lambda: chromium.find_element(By.ID, "cloudg-consent-name"),
                        "the consent page, after the hub's login")
        seen["page"] = chromium.current_url
        seen["client"] = chromium.find_element(By.ID, "cloudg-consent-client").text
        name.clear()
        name.send_keys("chromium-hub-bot")
        chromium.find_element(By.ID, "cloudg-consent-allow").click()
        wait_for(lambda: landed, "the browser to reach the client's callback")
        return redirect_uri.rsplit("/", 1)[0] + landed[-1]

    with oauth_session(endpoint(hub, "alice"), consent_in_chromium, redirect_uri=redirect_uri,
                       client_name="Chromium Hub Client") as session:
        result = session.call_tool("count_assets", {"group_by": "provider"})
    assert not result.is_error
    assert seen["login"].startswith(f"{hub.url}hub/login")
    assert seen["page"].startswith(f"{hub.server_url('alice')}cloudg/oauth/consent/")
    assert seen["client"] == "Chromium Hub Client"
    assert "code=" in landed[-1] and "error=" not in landed[-1]
    feed = requests.get(f"{hub.server_url('alice')}cloudg/api/activity?since=0&limit=2000",
                        headers=token_header(alice_token), timeout=30).json()["entries"]
    assert any(e["principal"] == "assistant:chromium-hub-bot" and e["name"] == "count_assets"
               for e in feed)


# -- the page that tells analysts how to connect -----------------------------------------------


def test_the_documented_oauth_command_is_what_config_prints_in_alice_server(hub: Hub) -> None:
    documented = re.search(r"^claude mcp add --transport http cloudg \S+$",
                           DOC.read_text(encoding="utf-8"), re.M)
    assert documented, "docs/jupyterhub.md gives no `claude mcp add` command"
    done = config_in_server(hub, "alice", "--client", "claude-code")
    assert done.returncode == 0, done.stderr
    expected = documented.group(0).replace("https://HUB/", hub.url).replace("/YOU/", "/alice/")
    assert expected in done.stdout, done.stdout
