"""MCP authorization for ``cloudg-nb serve --transport http --oauth``: the same provider and
routes as the Jupyter endpoint, with a consent page of its own.

There is no Jupyter login here: the owner is whoever holds one of the server's ``--auth-token``
tokens. The consent page asks for that token in its form (a password field), so a forged
cross-site post has nothing to send, and no cookie exists to ride on; the token is compared
by digest, never stored or echoed. Allow creates an assistant in the credential store, bound
to this server (``serve URL``), whose OAuth tokens act as ``assistant:NAME`` (role
``assistant``). ``ServeOAuth.verifier`` accepts the static tokens and the OAuth ones.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mcp.server.auth.provider import AccessToken
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from ..assistants import ASSISTANT_ROLE, AssistantRecord, AssistantStore
from ..assistants.oauth_store import ACCESS_PREFIX, OAuthStore
from .oauth_provider import (
    AssistantOAuthProvider,
    ConsentError,
    OAuthRefused,
    PendingConsent,
)
from .oauth_routes import OAuthPaths, oauth_app
from .principal import BearerTokens

__all__ = ["CONSENT_PATH", "ServeOAuth"]

#: The consent page, ``{CONSENT_PATH}/{id}`` (the server owns its origin: no base path).
CONSENT_PATH = "/oauth/consent"
_HEADERS = {"Cache-Control": "no-store", "X-Frame-Options": "DENY",
            "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin"}

_PAGE = """<!doctype html><html><head><meta charset="utf-8">
<title>cloudg-nb: connect an assistant?</title></head><body>
<h1>Connect an assistant to this server?</h1>
<p><b id="cloudg-consent-client">{client}</b> asks to use this cloudg-nb server as an
assistant. Its answer goes to <b id="cloudg-consent-host">{host}</b>.</p>
<p id="cloudg-consent-note">{note}</p>
<form method="post">
<label>This server's owner token: <input type="password" name="owner_token" required></label>
<label>Assistant name: <input name="name" value="{name}" maxlength="48" required></label>
<button type="submit" name="decision" value="allow" id="cloudg-consent-allow">Allow</button>
<button type="submit" name="decision" value="deny" id="cloudg-consent-deny">Deny</button>
</form></body></html>"""


class _StoreDirectory:
    """The credential store, for the assistants of this server."""

    def __init__(self, store: AssistantStore, server: str) -> None:
        self.store = store
        self.server = server

    def live(self, name: str) -> AssistantRecord | None:
        return self.store.get(name, self.server)

    def create(self, name: str, client: str, profile: str | None) -> AssistantRecord:
        return self.store.mint(name, client=client, profile=profile or "",
                               server=self.server)[1]


class ServeOAuth:
    """OAuth for one ``serve`` endpoint at ``origin`` + ``path``, its owner holding one of
    ``owners``' tokens."""

    def __init__(self, origin: str, path: str, owners: BearerTokens,
                 store_path: Path | None = None) -> None:
        self.paths = OAuthPaths(base="/", public_base=origin.rstrip("/") + "/",
                                endpoint_path=path.lstrip("/"))
        self.owners = owners
        store = AssistantStore(store_path)
        self.directory = _StoreDirectory(store, f"serve {self.paths.resource}")
        self.provider = AssistantOAuthProvider(
            OAuthStore(store.path.parent / "oauth.json"), self.directory,
            resource_url=lambda: self.paths.resource,
            consent_url=lambda cid: f"{origin.rstrip('/')}{CONSENT_PATH}/{cid}")

    def routes(self) -> list[Any]:
        """The OAuth routes and the consent page (mount before the endpoint's route)."""
        return [Route(CONSENT_PATH + "/{consent_id}", self._consent, methods=["GET", "POST"]),
                *oauth_app(self.provider, self.paths, root=True).routes]

    async def verify_token(self, token: str) -> AccessToken | None:
        """The SDK's ``TokenVerifier``: the owners' static tokens, then OAuth access tokens."""
        found = await self.owners.verify_token(token)
        if found is not None or not token.startswith(ACCESS_PREFIX):
            return found
        try:
            grant, record = self.provider.verify(token)
        except OAuthRefused:
            return None
        return AccessToken(token=grant.access, client_id=record.principal_id,
                           scopes=[ASSISTANT_ROLE], subject=record.principal_id,
                           expires_at=int(grant.access_expires), resource=grant.resource)

    async def _consent(self, request: Request) -> Response:
        consent_id = request.path_params["consent_id"]
        found = self.provider.pending(consent_id)
        if not found:
            return HTMLResponse("<p>No connection request waits under that id (answered, or "
                                "expired).</p>", status_code=404, headers=_HEADERS)
        consent = found[0]
        if request.method == "GET":
            return self._page(consent, "", consent.client_name)
        form = await request.form()
        owner, name = form.get("owner_token"), str(form.get("name") or "")
        principal = self.owners.lookup(owner) if isinstance(owner, str) and owner else None
        if principal is None or principal.has_role(ASSISTANT_ROLE):
            return self._page(consent, "That is not this server's owner token.", name, 403)
        try:
            if form.get("decision") == "deny":
                target = self.provider.deny(consent_id)
            else:
                target = self.provider.approve(consent_id, name, None)
        except ConsentError as exc:
            return self._page(consent, str(exc), name, 400)
        return RedirectResponse(target, status_code=302, headers=_HEADERS)

    def _page(self, consent: PendingConsent, note: str, name: str,
              status: int = 200) -> HTMLResponse:
        slug = "".join(c if c.isalnum() or c in "._-" else "-" for c in name.lower())[:40]
        parts = urlsplit(consent.redirect_uri)
        csp = (f"default-src 'none'; form-action 'self' {parts.scheme}://{parts.netloc}; "
               "frame-ancestors 'none'; base-uri 'none'")
        return HTMLResponse(_PAGE.format(
            client=html.escape(consent.client_name), host=html.escape(consent.redirect_host),
            note=html.escape(note), name=html.escape(slug.strip("-._") or "assistant")),
            status_code=status, headers={**_HEADERS, "Content-Security-Policy": csp})
