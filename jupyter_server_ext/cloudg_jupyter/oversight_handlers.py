"""The analyst's pages: assistant credentials (``cloudg/api/assistants``) and approvals.

``{base_url}cloudg/api/assistants`` (GET: the credentials, the clients and profiles one may be
minted for; POST: mint, answering the client's configuration with the new token, never the
server's) and ``…/assistants/NAME`` (DELETE revoke) are JSON for ``cloudg-nb config
--jupyter``, ``cloudg-nb assistants`` and JupyterLab's cloudg sidebar. The
approval page ``{base_url}cloudg/approvals/ID`` is what a URL-mode elicitation opens: it
needs the analyst's Jupyter login (a browser session, whose form posts carry ``_xsrf``), and
an assistant token never reaches it (``assistant_auth``). Both answer with cloudg's
``security_headers`` (no framing, no referrer), error pages included.
"""

from __future__ import annotations

import html
import json
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, ClassVar

from jupyter_server.base.handlers import JupyterHandler
from tornado import web

from cloudg_nb.assistants import AssistantStoreError
from cloudg_nb.effect_text import effect_lines

from .owner_api import OwnerAPIHandler, OwnerOnly
from .security_headers import SecurityHeaders

if TYPE_CHECKING:
    from .assistant_credentials import AssistantCredentials
    from .endpoint import Endpoint
    from .identity import Identity

__all__ = ["ApprovalPageHandler", "AssistantsHandler"]

#: What a mint request looks like (the message of a 400).
MINT_USAGE = ('Send JSON: {"name": NAME, "client": CLIENT, "profile": PROFILE} (client and '
              'profile optional; GET cloudg/api/assistants lists the clients and profiles).')
#: The name the minted configurations register the server under in the client.
SERVER_NAME = "cloudg"


def client_choices() -> list[dict[str, str]]:
    """The clients a configuration can be minted for (``cloudg-nb config --client``)."""
    from cloudg_nb.client_config import ALL_CLIENTS, CLIENT_LABELS

    return [{"id": c, "label": CLIENT_LABELS.get(c, c)}
            for c in sorted(ALL_CLIENTS, key=list(CLIENT_LABELS).index)]


def profile_choices(default: str) -> list[str]:
    """The policy profiles an assistant may get: the built-in ones (the assistant profiles
    first), with the server's default for assistants first when it is a file of its own."""
    from cloudg_nb.policy.document import profile_names

    names = sorted(profile_names(), key=lambda n: (not n.startswith("assistant"), n))
    return names if default in names else [default, *names]


class AssistantsHandler(OwnerAPIHandler):
    """List, mint and revoke assistant credentials (the analyst only)."""

    def initialize(self, endpoint: Endpoint, identity: Identity,  # type: ignore[override]
                   credentials: AssistantCredentials, **_: Any) -> None:
        super().initialize(endpoint, identity)
        self.credentials = credentials

    @web.authenticated
    def get(self, name: str | None = None) -> None:
        self._refuse_assistants()
        found = self.credentials.describe_assistants()
        if name is not None:
            found = [a for a in found if a["name"] == name]
            if not found:
                self._send(404, {"message": "No assistant has that name."})
                return
        self._send(200, {"assistants": found,
                         "endpoint": self.endpoint.address.endpoint_url(),
                         "clients": client_choices(),
                         "profiles": profile_choices(self.credentials.default_profile),
                         "default_profile": self.credentials.default_profile})

    @web.authenticated
    def post(self, name: str | None = None) -> None:
        self._refuse_assistants()
        body = self._json_body(MINT_USAGE)
        if body is None:
            return
        if not isinstance(body.get("name", name), str) or not isinstance(
                body.get("client") or "", str) or not isinstance(body.get("profile") or "", str):
            self._send(400, {"message": MINT_USAGE})
            return
        client = str(body.get("client") or "other")
        try:
            token, record, replaced = self.credentials.mint_assistant(
                str(body.get("name", name)), client=client, profile=body.get("profile"))
        except AssistantStoreError as exc:
            self._send(400, {"message": str(exc)})
            return
        url = self.endpoint.address.endpoint_url()
        config, config_path = self._config(client, url, token)
        self._send(201, {"token": token, "assistant": record.public(), "replaced": replaced,
                         "endpoint": url, "config": config, "config_path": config_path})

    def _config(self, client: str, url: str, token: str) -> tuple[str | None, str | None]:
        """What ``cloudg-nb config --client CLIENT --jupyter`` prints for this credential,
        and where that client keeps it (None, None: a client it knows nothing of)."""
        from cloudg_nb.client_config import ALL_CLIENTS, CONFIG_PATHS, client_config

        if client not in ALL_CLIENTS:
            return None, None
        where = CONFIG_PATHS.get(client)
        if client == "jupyter-ai" and where is not None:
            where = str(self.endpoint.settings.root_dir / where)
        return client_config(client, url=url, token=token, name=SERVER_NAME).text, where

    @web.authenticated
    async def delete(self, name: str | None = None) -> None:
        self._refuse_assistants()
        if not name:
            self._send(400, {"message": "Name the assistant: DELETE .../assistants/NAME"})
            return
        revoked = await self.credentials.revoke_assistant(name, self._who())
        if revoked is None:
            self._send(404, {"message": "No assistant has that name."})
            return
        self._send(200, revoked)


_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>cloudg: approve an assistant's call</title>
<style>
body{{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}}
pre{{background:#f4f4f4;padding:.75rem;overflow:auto;max-height:24rem}}
button{{font-size:1rem;padding:.4rem 1.2rem;margin-right:.6rem}}
.state{{font-weight:bold}}
</style></head><body>
<h1>An assistant's call waits for you</h1>
<p><b>{principal}</b> wants to run <b>{tool}</b>.</p>
<p id="cloudg-approval-summary">{summary}</p>
<p>What it will do (<b>!</b> marks a change to data that is not the assistant's own):</p>
<pre id="cloudg-approval-effects">{effects}</pre>
<p>Every argument, as its policy shows them:</p>
<pre id="cloudg-approval-arguments">{arguments}</pre>
<p class="state" id="cloudg-approval-state">{state}</p>
{form}
</body></html>
"""

_FORM = """<form method="post">{xsrf}
<label>Reason (told to the assistant if you deny): <input name="reason" maxlength="300">
</label><p>
<button type="submit" name="decision" value="approve" id="cloudg-approve">Approve</button>
<button type="submit" name="decision" value="deny" id="cloudg-deny">Deny</button></p>
</form>"""


class ApprovalPageHandler(SecurityHeaders, OwnerOnly, JupyterHandler):
    """One waiting call: what it is, and Approve / Deny (browser login with XSRF)."""

    auth_resource = "cloudg"
    #: The page's own content: inline styles and a form posting back here; nothing else.
    page_csp: ClassVar[dict[str, str]] = {
        "default-src": "'none'", "style-src": "'unsafe-inline'", "form-action": "'self'",
        "base-uri": "'none'"}

    def initialize(self, endpoint: Endpoint, identity: Identity) -> None:
        self.endpoint = endpoint
        self.identity = identity

    def set_default_headers(self) -> None:
        super().set_default_headers()
        self.set_header("Cache-Control", "no-store")
        # Approve / Deny post back here: under no-referrer a browser sends "Origin: null",
        # which Jupyter's origin check refuses (the click did nothing). same-origin still
        # gives other sites nothing.
        self.set_header("Referrer-Policy", "same-origin")

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """A small page of its own (Jupyter's error template loads scripts and styles this
        page's policy does not allow); the reason is one of ours, never request input."""
        exc = kwargs.get("exc_info", (None, None, None))[1]
        reason = getattr(exc, "reason", None) or HTTPStatus(status_code).phrase
        self.set_header("Content-Type", "text/html; charset=UTF-8")
        self.finish(f"<!doctype html><title>cloudg: {status_code}</title><p>{status_code}: "
                    f"{html.escape(reason)}</p>")

    def _page(self, approval_id: str, note: str | None = None) -> None:
        desk = self.endpoint.desk
        approval = desk.get(approval_id) if desk is not None else None
        if approval is None:
            self.set_status(404)
            self.finish("<!doctype html><p>No call waits for approval under that id (it may "
                        "have been decided or timed out).</p>")
            return
        waiting = approval.state == "pending"
        ended = ("expired: nobody decided it in time" if approval.state == "expired"
                 else f"was {approval.state}")
        state = note or (f"Waiting for your decision (for {approval.public()['expires_in']:g} "
                         "s more)." if waiting else f"This call {ended}"
                         + (f" by {approval.decided_by}." if approval.decided_by else "."))
        public = approval.public()
        self.finish(_PAGE.format(
            principal=html.escape(approval.principal), tool=html.escape(approval.tool),
            summary=html.escape(str(public.get("summary") or "")),
            effects=html.escape("\n".join(effect_lines(public.get("effects")))
                                or "(reads only)"),
            arguments=html.escape(json.dumps(approval.arguments, indent=2, default=str,
                                             ensure_ascii=False)),
            state=html.escape(state),
            form=_FORM.format(xsrf=self.xsrf_form_html()) if waiting else ""))

    @web.authenticated
    def get(self, approval_id: str) -> None:
        self._refuse_assistants()
        self._page(approval_id)

    @web.authenticated
    def post(self, approval_id: str) -> None:
        self._refuse_assistants()
        decision = self.get_body_argument("decision", "")
        if decision not in ("approve", "deny"):
            raise web.HTTPError(400, reason="decision must be approve or deny")
        desk = self.endpoint.desk
        if desk is None:
            raise web.HTTPError(503, reason="approvals are not available")
        from cloudg_nb.layer.errors import NotFoundError

        who = self._who()
        try:
            approval = desk.decide(approval_id, decision == "approve", who,
                                   self.get_body_argument("reason", "") or None)
        except NotFoundError as exc:
            self._page(approval_id, note=exc.message)
            return
        self._page(approval_id, note=f"You {approval.state} this call.")
