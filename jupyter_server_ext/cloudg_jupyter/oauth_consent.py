"""The analyst's consent to an assistant connecting with OAuth (``cloudg/oauth/consent/ID``).

A Jupyter page that needs the analyst's Jupyter login (a browser session; its form posts carry
``_xsrf``); an assistant credential (``cgat_…`` token or OAuth access token) never reaches it.
It shows the client's name and where the answer goes, and lets the analyst name the assistant
and pick its policy profile: Allow creates the assistant (``AssistantOAuthProvider.approve``)
and sends the browser back to the client with a code; Deny with ``error=access_denied``.
``{base_url}cloudg/api/oauth/requests`` lists the requests waiting (JSON, for the sidebar).
"""

from __future__ import annotations

import html
import re
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlsplit

from jupyter_server.base.handlers import JupyterHandler
from tornado import web

from cloudg_nb.layer.wire import OAUTH_CONSENT_PATH

from .oversight_handlers import profile_choices
from .owner_api import OwnerAPIHandler, OwnerOnly
from .security_headers import SecurityHeaders

if TYPE_CHECKING:
    from cloudg_nb.protocol.oauth_provider import PendingConsent

    from .endpoint import Endpoint
    from .identity import Identity
    from .oauth_server import JupyterOAuth

__all__ = ["ConsentPageHandler", "ConsentRequestsHandler", "suggested_name"]

_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>cloudg: connect an assistant?</title>
<style>
body{{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}}
label{{display:block;margin:.6rem 0}} input,select{{font-size:1rem}}
button{{font-size:1rem;padding:.4rem 1.2rem;margin-right:.6rem}}
.note{{color:#a00}}
</style></head><body>
<h1>Connect an assistant to this server?</h1>
<p><b id="cloudg-consent-client">{client}</b> asks to use this server's cloudg MCP endpoint
as an assistant of yours. Its answer goes to <b id="cloudg-consent-host">{host}</b>.</p>
<p>It will act under its own name, with the policy profile you choose; you see its calls in
the activity feed, approve its changes to your data, and can revoke it at any time.</p>
<p class="note" id="cloudg-consent-note">{note}</p>
<form method="post">{xsrf}
<label>Assistant name: <input name="name" id="cloudg-consent-name" value="{name}"
 maxlength="48" pattern="[a-z0-9][a-z0-9._\\-]{{0,47}}" required></label>
<label>Policy profile: <select name="profile" id="cloudg-consent-profile">{profiles}</select>
</label><p>
<button type="submit" name="decision" value="allow" id="cloudg-consent-allow">Allow</button>
<button type="submit" name="decision" value="deny" id="cloudg-consent-deny">Deny</button></p>
</form></body></html>
"""


def suggested_name(client_name: str, taken: Any) -> str:
    """A valid assistant name from the client's name, not in use (``taken(name)``)."""
    base = re.sub(r"[^a-z0-9._-]+", "-", client_name.lower()).strip("-._")[:40] or "assistant"
    if not base[0].isalnum():
        base = "a" + base
    name, n = base, 2
    while taken(name):
        name, n = f"{base}-{n}", n + 1
    return name


class ConsentPageHandler(SecurityHeaders, OwnerOnly, JupyterHandler):
    """One waiting connection request: who asks, and Allow / Deny (browser login + XSRF)."""

    auth_resource = "cloudg"
    page_csp: ClassVar[dict[str, str]] = {
        "default-src": "'none'", "style-src": "'unsafe-inline'", "form-action": "'self'",
        "base-uri": "'none'"}

    def initialize(self, endpoint: Endpoint, identity: Identity, oauth: JupyterOAuth) -> None:
        self.endpoint = endpoint
        self.identity = identity
        self.oauth = oauth

    def set_default_headers(self) -> None:
        super().set_default_headers()
        self.set_header("Cache-Control", "no-store")
        # The form posts back here: with no-referrer a browser sends "Origin: null", which
        # Jupyter's origin check refuses. same-origin still gives other sites nothing.
        self.set_header("Referrer-Policy", "same-origin")

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        exc = kwargs.get("exc_info", (None, None, None))[1]
        reason = getattr(exc, "reason", None) or HTTPStatus(status_code).phrase
        self.set_header("Content-Type", "text/html; charset=UTF-8")
        self.finish(f"<!doctype html><title>cloudg: {status_code}</title><p>{status_code}: "
                    f"{html.escape(reason)}</p>")

    def _consent(self, consent_id: str) -> PendingConsent | None:
        found = self.oauth.provider.pending(consent_id)
        if not found:
            self.set_status(404)
            self.finish("<!doctype html><p>No connection request waits under that id (it was "
                        "answered, or expired). Start connecting from the assistant again.</p>")
            return None
        consent = found[0]
        parts = urlsplit(consent.redirect_uri)
        # The form's answer is a redirect to the client: the policy must let it go there.
        self.page_csp = {**self.page_csp,  # type: ignore[misc]
                         "form-action": f"'self' {parts.scheme}://{parts.netloc}"}
        self.set_default_headers()
        return consent

    def _page(self, consent: PendingConsent, note: str = "", name: str | None = None) -> None:
        directory = self.oauth.provider.assistants
        default = self.endpoint.credentials.default_profile
        profiles = "".join(
            f'<option value="{html.escape(p)}"{" selected" if p == default else ""}>'
            f"{html.escape(p)}</option>" for p in profile_choices(default))
        name = name or suggested_name(consent.client_name,
                                      lambda n: directory.live(n) is not None)
        self.finish(_PAGE.format(
            client=html.escape(consent.client_name), host=html.escape(consent.redirect_host),
            note=html.escape(note), xsrf=self.xsrf_form_html(), name=html.escape(name),
            profiles=profiles))

    @web.authenticated
    def get(self, consent_id: str) -> None:
        self._refuse_assistants()
        consent = self._consent(consent_id)
        if consent is not None:
            self._page(consent)

    @web.authenticated
    def post(self, consent_id: str) -> None:
        from cloudg_nb.protocol.oauth_provider import ConsentError

        self._refuse_assistants()
        decision = self.get_body_argument("decision", "")
        if decision not in ("allow", "deny"):
            raise web.HTTPError(400, reason="decision must be allow or deny")
        consent = self._consent(consent_id)
        if consent is None:
            return
        provider = self.oauth.provider
        if decision == "deny":
            self.redirect(provider.deny(consent_id))
            return
        name = self.get_body_argument("name", "").strip()
        profile = self.get_body_argument("profile", "") or None
        try:
            target = provider.approve(consent_id, name, profile)
        except ConsentError as exc:
            self.set_status(400)
            self._page(consent, note=str(exc), name=name if len(name) <= 48 else None)
            return
        self.log.info("cloudg: %s allowed %s to connect as assistant %s", self._who(),
                      consent.client_name, name)
        self.redirect(target)


class ConsentRequestsHandler(OwnerAPIHandler):
    """``GET {base_url}cloudg/api/oauth/requests``: the connection requests waiting for the
    analyst, each with the page that answers it."""

    def initialize(self, endpoint: Endpoint, identity: Identity,  # type: ignore[override]
                   oauth: JupyterOAuth, **_: Any) -> None:
        super().initialize(endpoint, identity)
        self.oauth = oauth

    @web.authenticated
    def get(self) -> None:
        self._refuse_assistants()
        base = self.oauth.address.base()
        self._send(200, {"requests": [
            {**c.public(), "page": f"{base}{OAUTH_CONSENT_PATH}/{c.id}"}
            for c in self.oauth.provider.pending()]})
