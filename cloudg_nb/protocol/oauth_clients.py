"""Clients the owner registers ahead, for MCP clients that cannot register dynamically.

``PreregisteredClients`` checks a registration (a client id, a name, redirect URIs under the
rules dynamic registration follows: https matched exactly, or http on a loopback host with any
port), keeps it in the provider's ``OAuthStore`` bound to this server (public clients: PKCE,
no secret), lists it and removes it; removing ends the grants made through it. A refusal is a
``ClientRefused`` whose message says what was wrong and what to do, never the input itself.
"""

from __future__ import annotations

import re
import time
import unicodedata
from typing import TYPE_CHECKING, Any

from mcp.shared.auth import OAuthClientInformationFull

from .oauth_provider import redirect_uri_allowed

if TYPE_CHECKING:
    from .oauth_provider import AssistantOAuthProvider

__all__ = ["CLIENT_ID_PATTERN", "ClientRefused", "PreregisteredClients"]

#: A client id the owner may choose (no ``/``: an https URL is a Client ID Metadata Document,
#: which needs no registration; no spaces or quotes: it goes into clients' configurations).
CLIENT_ID_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._:~-]{0,127}"
MAX_REDIRECT_URIS = 10
MAX_URI_LENGTH = 2000
MAX_NAME_LENGTH = 80

_REDIRECT_RULE = ("redirect URIs must be https URLs (matched exactly), or http URLs on a "
                  "loopback host (127.0.0.1, localhost or [::1]; any port matches), without a "
                  "fragment or a user name")


class ClientRefused(ValueError):
    """A registration that cannot be made: ``status`` (400 bad input, 404 no such client,
    409 the id is taken or no room is left) and ``field`` (which part was wrong)."""

    def __init__(self, message: str, status: int = 400, field: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.field = field


def _client_id(value: Any) -> str:
    if not isinstance(value, str) or not re.fullmatch(CLIENT_ID_PATTERN, value):
        raise ClientRefused(
            "client_id must be 1-128 letters, digits, '.', '_', ':', '~' or '-', starting with "
            "a letter or digit (a client whose client_id is an https URL publishes a Client ID "
            "Metadata Document and needs no registration).", field="client_id")
    return value


def _name(value: Any, client_id: str) -> str:
    if value is None or value == "":
        return client_id
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME_LENGTH or any(
            unicodedata.category(c).startswith("C") for c in value):
        raise ClientRefused(f"name must be 1-{MAX_NAME_LENGTH} printable characters (what the "
                            "consent page calls the client).", field="name")
    return value.strip()


def _redirect_uris(value: Any) -> list[str]:
    if not isinstance(value, list) or not value or not all(isinstance(u, str) for u in value):
        raise ClientRefused("Give the client's redirect URIs (where its sign-in answer goes): "
                            f"one or more; {_REDIRECT_RULE}.", field="redirect_uris")
    uris = list(dict.fromkeys(value))
    if len(uris) > MAX_REDIRECT_URIS:
        raise ClientRefused(f"At most {MAX_REDIRECT_URIS} redirect URIs per client.",
                            field="redirect_uris")
    for number, uri in enumerate(uris, 1):
        if len(uri) > MAX_URI_LENGTH or not redirect_uri_allowed(uri):
            raise ClientRefused(f"Redirect URI {number} is not one this server accepts: "
                                f"{_REDIRECT_RULE}.", field="redirect_uris")
    return uris


class PreregisteredClients:
    """The clients the owner registered ahead on the server of ``provider``."""

    def __init__(self, provider: AssistantOAuthProvider) -> None:
        self.provider = provider

    @property
    def _server(self) -> str:
        return self.provider.assistants.server

    def add(self, client_id: Any, name: Any, redirect_uris: Any) -> dict[str, Any]:
        """Register a client (what ``listing`` shows of it); ``ClientRefused`` saying why
        not."""
        client_id = _client_id(client_id)
        name = _name(name, client_id)
        uris = _redirect_uris(redirect_uris)
        try:
            info = OAuthClientInformationFull(
                client_id=client_id, client_name=name, redirect_uris=uris,  # type: ignore[arg-type]
                token_endpoint_auth_method="none",
                grant_types=["authorization_code", "refresh_token"], response_types=["code"],
                client_id_issued_at=int(time.time()))
        except ValueError:
            raise ClientRefused(f"The redirect URIs are not valid URLs: {_REDIRECT_RULE}.",
                                field="redirect_uris") from None
        outcome = self.provider.store.preregister_client(
            client_id, self._server, info.model_dump(mode="json", exclude_none=True))
        if outcome == "taken":
            raise ClientRefused("A client with that client_id is registered already: choose "
                                "another id, or remove that client first.", status=409,
                                field="client_id")
        if outcome == "full":
            raise ClientRefused("No room for another registered client: remove one you no "
                                "longer use first.", status=409)
        return self._public(client_id, self.provider.store.preregistered(self._server)[client_id])

    def listing(self) -> list[dict[str, Any]]:
        """Every client registered ahead on this server, oldest first."""
        found = self.provider.store.preregistered(self._server)
        items = [self._public(k, v) for k, v in found.items()]
        return sorted(items, key=lambda c: (c["registered"] or 0, c["client_id"]))

    def remove(self, client_id: str) -> dict[str, Any]:
        """Remove a client and end its grants: what it was, with ``grants_ended``;
        ``ClientRefused`` (404) when no client registered ahead has that id."""
        info = self.provider.store.preregistered(self._server).get(client_id)
        before = self._public(client_id, info) if info is not None else None
        ended = self.provider.store.remove_client(client_id, self._server)
        if before is None or ended is None:
            raise ClientRefused("No client registered ahead has that client_id "
                                "(`cloudg-nb oauth-clients list` shows them).", status=404)
        return {**before, "grants_ended": ended}

    def _public(self, client_id: str, info: dict[str, Any]) -> dict[str, Any]:
        assistants = sorted({g.assistant for g in self.provider.store.grants(self._server)
                             if g.client_id == client_id})
        return {"client_id": client_id, "name": info.get("client_name") or client_id,
                "redirect_uris": list(info.get("redirect_uris") or []),
                "registered": info.get("client_id_issued_at"), "assistants": assistants}
