"""The official MCP Python SDK client connecting with OAuth, for tests: ``oauth_session``.

The client starts from the bare endpoint URL (``OAuthClientProvider`` does discovery,
registration, PKCE, token exchange and refresh). Its browser step is ``consent``: a function
given the authorization URL that returns the URL the browser ended at (the client's redirect
URI with ``code`` and ``state``, or ``error``). ``form_consent`` plays the analyst over HTTP
with a logged-in Jupyter cookie and its XSRF token; the browser tests pass a Chromium one.
Also raw helpers for the adversarial tests: ``Analyst`` (cookie + XSRF), ``pkce``, ``form``.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import http.client
import json
import re
import secrets
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import anyio
import anyio.from_thread
import anyio.to_thread
import httpx2
from mcp import MCPDeprecationWarning
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

from tests.protocol.harness import TIMEOUT, ClientSession, make_client

from .server import JupyterServer

__all__ = ["Analyst", "MemoryStorage", "form_consent", "oauth_session", "pkce"]

REDIRECT_URI = "http://127.0.0.1:8765/callback"


@dataclass
class MemoryStorage(TokenStorage):
    """The client's tokens and registration, kept in memory (tests read them)."""

    tokens: OAuthToken | None = None
    client_info: OAuthClientInformationFull | None = None
    history: list[OAuthToken] = field(default_factory=list)

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens
        self.history.append(tokens)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


def request(server: JupyterServer, method: str, path: str, body: bytes | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """One raw request to ``server`` (path or absolute URL); headers lower-cased (last wins)."""
    parts = urlsplit(path)
    target = (parts.path + (f"?{parts.query}" if parts.query else "")) if parts.scheme else path
    conn = http.client.HTTPConnection(server.host_port, timeout=TIMEOUT)
    try:
        conn.request(method, target, body=body, headers=headers or {})
        response = conn.getresponse()
        return (response.status, {k.lower(): v for k, v in response.getheaders()},
                response.read())
    finally:
        conn.close()


def _cookies(headers: list[tuple[str, str]]) -> dict[str, str]:
    out = {}
    for name, value in headers:
        if name.lower() == "set-cookie":
            key, _, rest = value.partition("=")
            out[key.strip()] = rest.split(";", 1)[0]
    return out


@dataclass
class Analyst:
    """The analyst's browser session: the login cookie and ``_xsrf``."""

    server: JupyterServer
    cookies: dict[str, str]

    @classmethod
    def login(cls, server: JupyterServer) -> Analyst:
        conn = http.client.HTTPConnection(server.host_port, timeout=TIMEOUT)
        try:
            conn.request("GET", f"{server.base_url}login")
            response = conn.getresponse()
            page = response.read()
            cookies = _cookies(response.getheaders())
            xsrf = re.search(rb'name="_xsrf" value="([^"]+)"', page)
            assert xsrf, "login page has no _xsrf field"
            conn.request("POST", f"{server.base_url}login", body=urlencode(
                {"_xsrf": xsrf.group(1).decode(), "password": server.token}).encode(), headers={
                "Content-Type": "application/x-www-form-urlencoded",
                "Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())})
            response = conn.getresponse()
            response.read()
            assert response.status == 302, response.status
            cookies.update(_cookies(response.getheaders()))
        finally:
            conn.close()
        return cls(server, cookies)

    @property
    def jar(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.cookies.items())

    def get(self, url: str) -> tuple[int, dict[str, str], bytes]:
        return request(self.server, "GET", url, headers={"Cookie": self.jar})

    def post_form(self, url: str, fields: dict[str, str], *, xsrf: bool = True,
                  headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        body = {**fields, **({"_xsrf": self.cookies["_xsrf"]} if xsrf else {})}
        return request(self.server, "POST", url, urlencode(body).encode(), {
            "Cookie": self.jar, "Content-Type": "application/x-www-form-urlencoded",
            **(headers or {})})


def consent_page_of(server: JupyterServer, authorization_url: str) -> str:
    """Follow the authorization URL (as the client's browser does, without cookies): the
    consent page it redirects to."""
    status, headers, body = request(server, "GET", authorization_url)
    assert status == 302, (status, body[:300])
    return headers["location"]


def form_consent(analyst: Analyst, *, decision: str = "allow", name: str = "oauth-bot",
                 profile: str = "") -> Callable[[str], str]:
    """A consent step that answers the consent page over HTTP as the logged-in analyst."""

    def consent(authorization_url: str) -> str:
        page = consent_page_of(analyst.server, authorization_url)
        status, _, html = analyst.get(page)
        assert status == 200, (status, html[:300])
        fields = {"decision": decision, "name": name}
        if profile:
            fields["profile"] = profile
        status, headers, body = analyst.post_form(page, fields)
        assert status == 302, (status, body[:500])
        return headers["location"]

    return consent


def pkce() -> tuple[str, str]:
    """A PKCE pair: (verifier, S256 challenge)."""
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).decode().rstrip("=")


def query_of(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


def post_json(server: JupyterServer, path: str, body: dict[str, Any]
              ) -> tuple[int, dict[str, Any]]:
    status, _, raw = request(server, "POST", path, json.dumps(body).encode(),
                             {"Content-Type": "application/json"})
    return status, json.loads(raw or b"{}")


def post_form(server: JupyterServer, path: str, fields: dict[str, str]
              ) -> tuple[int, dict[str, Any]]:
    status, _, raw = request(server, "POST", path, urlencode(fields).encode(),
                             {"Content-Type": "application/x-www-form-urlencoded"})
    try:
        return status, json.loads(raw or b"{}")
    except ValueError:
        return status, {"raw": raw[:200].decode(errors="replace")}


@contextlib.contextmanager
def oauth_session(endpoint: str, consent: Callable[[str], str], *, era: str = "2025",
                  storage: MemoryStorage | None = None, client_name: str = "Test Assistant",
                  redirect_uri: str = REDIRECT_URI, **kwargs: Any) -> Iterator[ClientSession]:
    """An SDK client session on ``endpoint`` that authorizes with OAuth, ``consent`` doing
    the browser's part."""
    storage = storage if storage is not None else MemoryStorage()
    landed: list[str] = []

    async def redirect_handler(authorization_url: str) -> None:
        landed.append(await anyio.to_thread.run_sync(consent, authorization_url))

    async def callback_handler() -> AuthorizationCodeResult:
        query = query_of(landed.pop())
        if "error" in query:
            raise RuntimeError(f"authorization refused: {query['error']}")
        return AuthorizationCodeResult(code=query["code"], state=query.get("state"),
                                       iss=query.get("iss"))

    provider = OAuthClientProvider(
        endpoint, OAuthClientMetadata(client_name=client_name, redirect_uris=[redirect_uri]),
        storage, redirect_handler, callback_handler)
    with anyio.from_thread.start_blocking_portal() as portal, warnings.catch_warnings(), \
            contextlib.ExitStack() as stack:
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        http = stack.enter_context(portal.wrap_async_context_manager(
            httpx2.AsyncClient(auth=provider, timeout=httpx2.Timeout(30, read=300))))
        client = make_client(streamable_http_client(endpoint, http_client=http), era, **kwargs)
        with portal.wrap_async_context_manager(client):
            yield ClientSession(portal, client, [])
