"""``{base_url}cloudg/api/oauth/clients``: OAuth clients the analyst registers ahead, for MCP
clients that cannot register dynamically (``cloudg-nb oauth-clients``).

GET lists them (with the assistants connected through each), POST registers one (JSON
``{"client_id", "name", "redirect_uris"}``; 201, or 400 / 409 saying what to change) and
DELETE ``…/clients/ID`` removes one and ends its grants, so it authorizes nothing more. The
analyst only (``OwnerAPIHandler``: Jupyter login with XSRF, or the server token).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tornado import web

from .owner_api import OwnerAPIHandler

if TYPE_CHECKING:
    from cloudg_nb.protocol.oauth_clients import PreregisteredClients

    from .endpoint import Endpoint
    from .identity import Identity
    from .oauth_server import JupyterOAuth

__all__ = ["OAuthClientsHandler"]

#: What a registration looks like (the message of a 400 for a body that is not one).
REGISTER_USAGE = ('Send JSON: {"client_id": ID, "name": NAME, "redirect_uris": [URI, ...]} '
                  "(name optional).")


class OAuthClientsHandler(OwnerAPIHandler):
    """List, register and remove the OAuth clients registered ahead (the analyst only)."""

    def initialize(self, endpoint: Endpoint, identity: Identity,  # type: ignore[override]
                   oauth: JupyterOAuth, **_: Any) -> None:
        super().initialize(endpoint, identity)
        self.oauth = oauth

    def _clients(self) -> PreregisteredClients:
        from cloudg_nb.protocol.oauth_clients import PreregisteredClients

        return PreregisteredClients(self.oauth.provider)

    @web.authenticated
    def get(self, client_id: str | None = None) -> None:
        self._refuse_assistants()
        found = self._clients().listing()
        if client_id is not None:
            found = [c for c in found if c["client_id"] == client_id]
            if not found:
                self._send(404, {"message": "No client registered ahead has that client_id."})
                return
        self._send(200, {"clients": found, "endpoint": self.endpoint.address.endpoint_url()})

    @web.authenticated
    def post(self, client_id: str | None = None) -> None:
        from cloudg_nb.protocol.oauth_clients import ClientRefused

        self._refuse_assistants()
        if client_id is not None:
            self._send(405, {"message": f"POST to the list of clients. {REGISTER_USAGE}"})
            return
        body = self._json_body(REGISTER_USAGE)
        if body is None:
            return
        try:
            client = self._clients().add(body.get("client_id"), body.get("name"),
                                         body.get("redirect_uris"))
        except ClientRefused as exc:
            self._send(exc.status, {"message": str(exc), "field": exc.field})
            return
        self.log.info("cloudg: %s registered the OAuth client %s", self._who(),
                      client["client_id"])
        self._send(201, {"client": client, "endpoint": self.endpoint.address.endpoint_url()})

    @web.authenticated
    def delete(self, client_id: str | None = None) -> None:
        from cloudg_nb.protocol.oauth_clients import ClientRefused

        self._refuse_assistants()
        if not client_id:
            self._send(400, {"message": "Name the client: DELETE .../oauth/clients/CLIENT_ID"})
            return
        try:
            removed = self._clients().remove(client_id)
        except ClientRefused as exc:
            self._send(exc.status, {"message": str(exc)})
            return
        self.log.info("cloudg: %s removed the OAuth client %s (%d grant(s) ended)",
                      self._who(), client_id, removed["grants_ended"])
        self._send(200, removed)
