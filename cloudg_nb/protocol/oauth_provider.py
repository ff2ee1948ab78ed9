"""AssistantOAuthProvider: the `mcp` SDK's authorization-server provider over our assistants.

The SDK's routes (``mcp.server.auth``) parse and check the OAuth requests; this provider
decides. Clients register dynamically as public clients (PKCE S256 is their proof; redirect
URIs https, or http on a loopback host with any port, RFC 8252), or publish a Client ID
Metadata Document at an https ``client_id`` (``client_metadata``). An authorization request
waits (``pending``) for the owner's consent on a page of the server's own; ``approve`` creates
the assistant in the credential store and a single-use code bound to the resource (RFC 8707).
Tokens live and die with the assistant's credential: revoking it ends them at once.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    RefreshToken,
    RegistrationError,
    TokenError,
    construct_redirect_uri,
)
from mcp.shared.auth import InvalidRedirectUriError, OAuthClientInformationFull, OAuthToken
from pydantic import AnyUrl

from cloudg_nb.assistants.oauth_store import Grant, OAuthStore, new_grant_id, token_digest

if TYPE_CHECKING:
    from cloudg_nb.assistants import AssistantRecord

__all__ = ["ACCESS_LIFETIME", "AssistantDirectory", "AssistantOAuthProvider", "ConsentError",
           "OAuthRefused", "PendingConsent", "redirect_uri_allowed"]

logger = logging.getLogger("cloudg.oauth")

#: Seconds an access token works (``CloudGExtension.oauth_access_token_lifetime``).
ACCESS_LIFETIME = 3600.0
#: Seconds a refresh token works.
REFRESH_LIFETIME = 30 * 86400.0
#: Seconds a code works (RFC 6749 §4.1.2 recommends at most 10 minutes).
CODE_LIFETIME = 300.0
#: Seconds a consent request waits for the owner.
CONSENT_LIFETIME = 600.0
#: Consent requests waiting at once (more: the oldest goes).
MAX_PENDING = 32
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})

#: Why an access token was refused at the endpoint (``OAuthRefused.reason``).
UNKNOWN_TOKEN = "unknown"
EXPIRED_TOKEN = "expired"
REVOKED_TOKEN = "revoked"
OTHER_RESOURCE = "other_resource"


class AssistantDirectory(Protocol):
    """What the provider needs of the server's assistant credentials."""

    @property
    def server(self) -> str:
        """This server's ``server_identity``."""

    def live(self, name: str) -> AssistantRecord | None:
        """Assistant ``name``'s credential on this server, or None (revoked / never made)."""

    def create(self, name: str, client: str, profile: str | None) -> AssistantRecord:
        """A new assistant credential; ``AssistantStoreError`` for a bad name or profile."""


class OAuthRefused(Exception):
    """An access token the endpoint does not accept; ``reason`` says why (never the token)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class ConsentError(Exception):
    """The owner's answer cannot be used (the request expired, or a bad name / profile)."""


def _loopback(url: Any) -> bool:
    parts = urlsplit(str(url))
    return parts.scheme == "http" and (parts.hostname or "") in LOOPBACK_HOSTS


def redirect_uri_allowed(url: Any) -> bool:
    """https, or http on a loopback host (RFC 8252 §7.3); no fragment, no credentials."""
    parts = urlsplit(str(url))
    if parts.fragment or parts.username or parts.password or not parts.hostname:
        return False
    return parts.scheme == "https" or _loopback(url)


class _Client(OAuthClientInformationFull):
    """A registered client; a loopback redirect URI matches with any port (RFC 8252 §7.3),
    every other one exactly."""

    def validate_redirect_uri(self, redirect_uri: AnyUrl | None) -> AnyUrl:
        if redirect_uri is not None and _loopback(redirect_uri):
            asked = urlsplit(str(redirect_uri))
            for registered in self.redirect_uris or []:
                known = urlsplit(str(registered))
                if _loopback(registered) and (known.hostname, known.path, known.query) == (
                        asked.hostname, asked.path, asked.query):
                    return redirect_uri
            raise InvalidRedirectUriError("redirect_uri is not registered for this client")
        try:
            return super().validate_redirect_uri(redirect_uri)
        except InvalidRedirectUriError:
            raise InvalidRedirectUriError(
                "redirect_uri is not registered for this client") from None


class AssistantCode(AuthorizationCode):
    assistant: str
    credential: str


class GrantRefreshToken(RefreshToken):
    grant: str


class GrantAccessToken(AccessToken):
    grant: str


@dataclass(frozen=True)
class PendingConsent:
    """An authorization request waiting for the owner: what the consent page shows."""

    id: str
    client_id: str
    client_name: str
    redirect_uri: str
    redirect_explicit: bool
    state: str | None
    code_challenge: str
    scopes: tuple[str, ...]
    resource: str
    expires: float

    @property
    def redirect_host(self) -> str:
        parts = urlsplit(self.redirect_uri)
        return parts.netloc if parts.scheme == "https" else f"{parts.hostname} (this computer)"

    def public(self) -> dict[str, Any]:
        return {"id": self.id, "client": self.client_name, "redirect_host": self.redirect_host,
                "expires_in": max(0, round(self.expires - time.time()))}


class AssistantOAuthProvider:
    """OAuth for assistants of one server. ``resource_url()`` is the MCP endpoint's public
    URL (the audience of every token); ``consent_url(id)`` the owner's consent page."""

    def __init__(self, store: OAuthStore, assistants: AssistantDirectory, *,
                 resource_url: Callable[[], str], consent_url: Callable[[str], str],
                 access_lifetime: float = ACCESS_LIFETIME,
                 refresh_lifetime: float = REFRESH_LIFETIME) -> None:
        self.store = store
        self.assistants = assistants
        self.resource_url = resource_url
        self.consent_url = consent_url
        self.access_lifetime = access_lifetime
        self.refresh_lifetime = refresh_lifetime
        self._pending: dict[str, PendingConsent] = {}
        self._codes: dict[str, AssistantCode] = {}
        self._used_codes: dict[str, tuple[float, str]] = {}
        self._watchers: list[Callable[[str, PendingConsent], None]] = []

    # -- watchers (the owner's front ends) -------------------------------------------------

    def watch(self, watcher: Callable[[str, PendingConsent], None]) -> Callable[[], None]:
        """Call ``watcher(action, consent)`` (``requested`` / ``allowed`` / ``denied`` /
        ``expired``) from now on; returns the function that stops."""
        self._watchers.append(watcher)
        return lambda: self._watchers.remove(watcher) if watcher in self._watchers else None

    def _tell(self, action: str, consent: PendingConsent) -> None:
        for watcher in list(self._watchers):
            try:
                watcher(action, consent)
            except Exception:
                logger.warning("cloudg: a consent watcher failed", exc_info=True)

    def _same_resource(self, resource: str | None) -> bool:
        return resource is not None and resource.rstrip("/") == self.resource_url().rstrip("/")

    # -- clients -----------------------------------------------------------------------------

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        from .client_metadata import ClientMetadataError, fetch_client_metadata, is_metadata_url

        if is_metadata_url(client_id):  # a Client ID Metadata Document
            try:
                document = await fetch_client_metadata(client_id, redirect_uri_allowed)
            except ClientMetadataError as exc:
                logger.info("cloudg: refused the client %s: %s", client_id[:200], exc)
                return None
            try:
                return _Client.model_validate({
                    "client_id": client_id, "redirect_uris": document["redirect_uris"],
                    "client_name": str(document.get("client_name") or client_id)[:80],
                    "token_endpoint_auth_method": "none"})
            except ValueError:
                return None
        info = self.store.client(client_id, self.assistants.server)
        if info is None:
            return None
        try:
            return _Client.model_validate(info)
        except ValueError:
            return None

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        uris = client_info.redirect_uris or []
        if not uris or not all(redirect_uri_allowed(u) for u in uris):
            raise RegistrationError(
                "invalid_redirect_uri",
                "redirect_uris must be https URLs, or http URLs on a loopback host "
                "(127.0.0.1, localhost or [::1]) without a fragment.")
        # Public clients only (RFC 7591 §3.2.1 lets the server replace requested values):
        # PKCE proves the code's holder, and no client secret is kept anywhere.
        client_info.token_endpoint_auth_method = "none"
        client_info.client_secret = None
        client_info.client_secret_expires_at = None
        client_info.client_name = (client_info.client_name or "an MCP client")[:80]
        self.store.add_client(client_info.client_id, self.assistants.server,
                              client_info.model_dump(mode="json", exclude_none=True))

    # -- authorization -----------------------------------------------------------------------

    async def authorize(self, client: OAuthClientInformationFull,
                        params: AuthorizationParams) -> str:
        if params.resource is not None and not self._same_resource(params.resource):
            raise AuthorizeError("invalid_target",
                                 "resource must be this server's MCP endpoint "
                                 f"({self.resource_url()}).")
        now = time.time()
        self._expire(now)
        while len(self._pending) >= MAX_PENDING:
            self._pending.pop(next(iter(self._pending)))
        consent = PendingConsent(
            id=secrets.token_urlsafe(18), client_id=client.client_id,
            client_name=client.client_name or "an MCP client",
            redirect_uri=str(params.redirect_uri),
            redirect_explicit=params.redirect_uri_provided_explicitly, state=params.state,
            code_challenge=params.code_challenge, scopes=tuple(params.scopes or ()),
            resource=self.resource_url(), expires=now + CONSENT_LIFETIME)
        self._pending[consent.id] = consent
        self._tell("requested", consent)
        return self.consent_url(consent.id)

    def _expire(self, now: float) -> None:
        for key, consent in list(self._pending.items()):
            if consent.expires < now and self._pending.pop(key, None) is not None:
                self._tell("expired", consent)
        for key, code in list(self._codes.items()):
            if code.expires_at < now:
                self._codes.pop(key, None)
        for key, (when, _grant) in list(self._used_codes.items()):
            if when + CODE_LIFETIME < now:
                self._used_codes.pop(key, None)

    def pending(self, consent_id: str | None = None) -> list[PendingConsent]:
        """The consent requests waiting (or the one of ``consent_id``)."""
        self._expire(time.time())
        if consent_id is not None:
            found = self._pending.get(consent_id)
            return [found] if found is not None else []
        return list(self._pending.values())

    def approve(self, consent_id: str, name: str, profile: str | None) -> str:
        """The owner allowed: create assistant ``name`` and answer the client with a code
        (the URL to redirect to). ConsentError when the request is gone or the name/profile
        is bad (the request then still waits)."""
        from cloudg_nb.assistants import AssistantStoreError

        consent = self._take(consent_id)
        if self.assistants.live(name) is not None:
            self._pending[consent.id] = consent
            raise ConsentError(f"An assistant named {name!r} exists already: choose another "
                               "name (or revoke that one first).")
        try:
            record = self.assistants.create(name, consent.client_name, profile)
        except AssistantStoreError as exc:
            self._pending[consent.id] = consent
            raise ConsentError(str(exc)) from None
        code = secrets.token_urlsafe(32)
        self._codes[token_digest(code)] = AssistantCode(
            code=token_digest(code), scopes=list(consent.scopes),
            expires_at=time.time() + CODE_LIFETIME, client_id=consent.client_id,
            code_challenge=consent.code_challenge, redirect_uri=AnyUrl(consent.redirect_uri),
            redirect_uri_provided_explicitly=consent.redirect_explicit,
            resource=consent.resource, subject=record.principal_id,
            assistant=record.name, credential=record.token_sha256)
        self._tell("allowed", consent)
        return construct_redirect_uri(consent.redirect_uri, code=code, state=consent.state)

    def deny(self, consent_id: str) -> str:
        """The owner denied: the URL that tells the client ``access_denied``."""
        consent = self._take(consent_id)
        self._tell("denied", consent)
        return construct_redirect_uri(
            consent.redirect_uri, error="access_denied",
            error_description="The analyst denied this assistant access.", state=consent.state)

    def _take(self, consent_id: str) -> PendingConsent:
        self._expire(time.time())
        consent = self._pending.pop(consent_id, None)
        if consent is None:
            raise ConsentError("This connection request is no longer waiting (it was "
                               "answered, or expired): start connecting from the assistant "
                               "again.")
        return consent

    # -- codes and tokens --------------------------------------------------------------------

    async def load_authorization_code(self, client: OAuthClientInformationFull,
                                      authorization_code: str) -> AssistantCode | None:
        """A code works once: taken here, whatever the rest of the request holds. A code
        presented again ends what it was exchanged for (RFC 6749 §4.1.2)."""
        digest = token_digest(authorization_code)
        self._expire(time.time())
        code = self._codes.pop(digest, None)
        if code is None:
            used = self._used_codes.pop(digest, None)
            if used is not None:
                self.store.end([used[1]])
                logger.warning("cloudg: an authorization code was presented twice; the "
                               "tokens issued for it are revoked")
            return None
        self._used_codes[digest] = (time.time(), "")
        return code

    async def exchange_authorization_code(self, client: OAuthClientInformationFull,
                                          authorization_code: AssistantCode) -> OAuthToken:
        code = authorization_code
        if not self._same_resource(code.resource):
            raise TokenError("invalid_target", "the code was issued for another resource")
        record = self.assistants.live(code.assistant)
        if record is None or record.token_sha256 != code.credential:
            raise TokenError("invalid_grant", "the assistant was revoked")
        grant = Grant(id=new_grant_id(), server=self.assistants.server, assistant=code.assistant,
                      credential=code.credential, client_id=code.client_id,
                      resource=str(code.resource), scopes=tuple(code.scopes))
        self._used_codes[code.code] = (time.time(), grant.id)  # code.code: its digest
        return self._tokens(grant)

    def _tokens(self, grant: Grant) -> OAuthToken:
        issued, access, refresh = self.store.issue(grant, self.access_lifetime,
                                                   self.refresh_lifetime)
        return OAuthToken(access_token=access, token_type="Bearer",
                          expires_in=int(self.access_lifetime), refresh_token=refresh,
                          scope=" ".join(issued.scopes) or None)

    def _live_grant(self, grant: Grant | None) -> Grant | None:
        """``grant`` if it is this server's and its assistant's credential still lives."""
        if grant is None or grant.server != self.assistants.server:
            return None
        record = self.assistants.live(grant.assistant)
        if record is None or record.token_sha256 != grant.credential:
            self.store.end([grant.id])
            return None
        return grant

    async def load_refresh_token(self, client: OAuthClientInformationFull,
                                 refresh_token: str) -> GrantRefreshToken | None:
        grant = self.store.by_refresh(refresh_token)
        if grant is None:
            replayed = self.store.spent_refresh(refresh_token)
            if replayed is not None:  # OAuth 2.1 §4.3.1: a rotated token came back
                self.store.end([replayed.id])
                logger.warning("cloudg: a spent refresh token of assistant %s was presented "
                               "again; its tokens are revoked", replayed.assistant)
            return None
        grant = self._live_grant(grant)
        if grant is None or grant.client_id != client.client_id:
            return None
        return GrantRefreshToken(token=refresh_token, client_id=grant.client_id,
                                 scopes=list(grant.scopes),
                                 expires_at=int(grant.refresh_expires) or None,
                                 resource=grant.resource, subject=grant.assistant,
                                 grant=grant.id)

    async def exchange_refresh_token(self, client: OAuthClientInformationFull,
                                     refresh_token: GrantRefreshToken,
                                     scopes: list[str]) -> OAuthToken:
        grant = self._live_grant(self.store.by_refresh(refresh_token.token))
        if grant is None:
            raise TokenError("invalid_grant", "refresh token does not exist")
        return self._tokens(replace(grant, scopes=tuple(scopes)))

    async def load_access_token(self, token: str) -> GrantAccessToken | None:
        try:
            grant, _record = self.verify(token)
        except OAuthRefused:
            return None
        return GrantAccessToken(token=token, client_id=grant.client_id,
                                scopes=list(grant.scopes), expires_at=int(grant.access_expires),
                                resource=grant.resource, subject=grant.assistant,
                                grant=grant.id)

    async def revoke_token(self, token: GrantAccessToken | GrantRefreshToken) -> None:
        self.store.end([token.grant])

    # -- the resource side ---------------------------------------------------------------

    def verify(self, token: str) -> tuple[Grant, AssistantRecord]:
        """The grant and assistant an access token acts for; OAuthRefused saying why not."""
        grant = self.store.by_access(token)
        if grant is None:
            raise OAuthRefused(UNKNOWN_TOKEN)
        if grant.server != self.assistants.server or not self._same_resource(grant.resource):
            raise OAuthRefused(OTHER_RESOURCE)
        if grant.access_expires < time.time():
            raise OAuthRefused(EXPIRED_TOKEN)
        record = self.assistants.live(grant.assistant)
        if record is None or record.token_sha256 != grant.credential:
            self.store.end([grant.id])
            raise OAuthRefused(REVOKED_TOKEN)
        return grant, record

    def end_assistant(self, name: str) -> int:
        """End every grant of assistant ``name`` on this server; how many."""
        server = self.assistants.server
        return self.store.end([g.id for g in self.store.grants(server) if g.assistant == name])
