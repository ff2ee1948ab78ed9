"""MCP authorization (OAuth) under a real JupyterHub: a client given only alice's public endpoint
``{hub}/user/alice/cloudg/mcp`` discovers her server's OAuth metadata at the hub's public
address under ``/user/alice/`` (the origin's root is the hub's), the official MCP Python SDK
client goes on to a tool call after alice consents with her hub login, and its call shows under
the assistant's name. bob's login cannot consent on alice's server, alice's server's tokens
open nothing of bob's, and revoking the assistant ends its tokens at once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
import requests

from tests.jupyter.oauth_client import MemoryStorage, oauth_session

from .hub import Hub

pytestmark = [pytest.mark.hub, pytest.mark.server,
              pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

MCP_HEADERS = {"Content-Type": "application/json",
               "Accept": "application/json, text/event-stream"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "hub-oauth-test", "version": "1"}}}
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


def test_the_issuer_metadata_under_user_alice_gives_hub_public_urls(hub: Hub) -> None:
    meta = fetch_json(f"{issuer(hub, 'alice')}/.well-known/openid-configuration")
    assert meta["issuer"] == issuer(hub, "alice")
    for key in ("authorization_endpoint", "token_endpoint", "registration_endpoint",
                "revocation_endpoint"):
        assert meta[key].startswith(f"{issuer(hub, 'alice')}/"), (key, meta[key])
    assert meta == fetch_json(f"{issuer(hub, 'alice')}/.well-known/oauth-authorization-server")


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
    print(json.dumps(seen))
