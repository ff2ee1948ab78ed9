"""The base of the analyst's JSON API under ``{base_url}cloudg/api/``.

Jupyter's own login decides who is asking (its cookie with the ``X-XSRFToken`` header, or the
server token; ``APIHandler`` checks both); an assistant credential (``cgat_…``) is refused
with 403 here too, besides the route guard of ``assistant_auth``. Answers are JSON with
``Cache-Control: no-store`` and cloudg's security headers; an error is ``{"message": ...}``
saying what was wrong and what to do.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from jupyter_server.base.handlers import APIHandler
from tornado import web

from cloudg_nb.assistants import is_assistant

from .assistant_auth import presented_assistant_token
from .security_headers import SecurityHeaders

if TYPE_CHECKING:
    from .endpoint import Endpoint
    from .identity import Identity

__all__ = ["MAX_BODY", "OwnerAPIHandler", "OwnerOnly"]

#: Longest JSON body the API reads.
MAX_BODY = 4096


class OwnerOnly:
    """The analyst's pages refuse assistant tokens themselves too (the route guard already
    does: this holds if another extension reorders the routes)."""

    identity: Identity

    def _refuse_assistants(self: Any) -> None:
        if presented_assistant_token(self.request) is not None or is_assistant(
                self.identity.principal_for(self.current_user)):
            raise web.HTTPError(403, reason="Not allowed")

    def _who(self: Any) -> str:
        """The principal id of the analyst asking (who a decision is recorded as)."""
        return str(self.identity.principal_for(self.current_user).id)


class OwnerAPIHandler(SecurityHeaders, OwnerOnly, APIHandler):
    """A JSON route of the analyst's API, over ``endpoint``."""

    auth_resource = "cloudg"

    def initialize(self, endpoint: Endpoint, identity: Identity, **_: Any) -> None:
        self.endpoint = endpoint
        self.identity = identity

    def _send(self, status: int, body: dict[str, Any]) -> None:
        self.set_status(status)
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps(body, default=str))

    def _json_body(self, usage: str) -> dict[str, Any] | None:
        """The request's JSON object (``{}`` for no body); None after answering 413 (too
        large) or 400 with ``usage`` (not a JSON object)."""
        if len(self.request.body) > MAX_BODY:
            self._send(413, {"message": f"The request body is too large (at most {MAX_BODY} "
                                        "bytes)."})
            return None
        try:
            body = json.loads(self.request.body or b"{}")
        except ValueError:
            body = None
        if not isinstance(body, dict):
            self._send(400, {"message": usage})
            return None
        return body
