"""Tornado handlers: the MCP endpoint ``{base_url}cloudg/mcp``, ``{base_url}cloudg/api/status``,
and the 404 of every other path under ``{base_url}cloudg/``.

The first two authenticate through the Jupyter server's identity provider (token header,
``?token=``, or a logged-in browser session with XSRF) and answer 403, never 401 or a login
redirect. Host and Origin follow Jupyter's own settings (``allow_remote_access``,
``allow_origin``); the Origin rule applies to token requests too. The MCP handler forwards
GET/POST/DELETE to the SDK session manager through the ASGI bridge, as the Jupyter user's
principal (``identity``) or the assistant's (``assistant_credentials``). Every response carries
``security_headers`` (framing denied), errors included.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
from datetime import UTC, datetime
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

from jupyter_server.auth.decorator import allow_unauthenticated
from jupyter_server.base.call_context import CallContext
from jupyter_server.base.handlers import APIHandler
from tornado import web

from cloudg_nb.assistants.oauth_store import ACCESS_PREFIX
from cloudg_nb.layer.wire import (
    ENDPOINT_PATH,
    INTERNAL_ERROR,
    INVALID_REQUEST,
    LAST_EVENT_ID_HEADER,
    MCP_METHOD_HEADER,
    MCP_NAME_HEADER,
    MCP_PROTOCOL_VERSION_HEADER,
    MCP_SESSION_ID_HEADER,
    error_response,
)

from .asgi import TornadoASGIBridge
from .assistant_auth import (
    OTHER_SERVER,
    UNBOUND,
    UNKNOWN,
    AssistantRefused,
    presented_assistant_token,
)
from .identity import shared_secret_auth
from .security_headers import SecurityHeaders
from .server_internals import InactiveAPIHandler, JupyterHandlerInternals

if TYPE_CHECKING:
    from .assistant_credentials import AssistantCredentials
    from .endpoint import Endpoint
    from .identity import Identity
    from .oauth_server import JupyterOAuth

__all__ = ["ACTIVITY_SETTING", "MCPHandler", "NotFoundHandler", "StatusHandler"]

logger = logging.getLogger("cloudg.jupyter")

#: The server's last-activity time counts every setting ending in ``_last_activity`` (the hook
#: jupyter_server offers extensions): MCP use keeps idle culling (Binder, JupyterHub) away.
ACTIVITY_SETTING = "cloudg_last_activity"
#: How long a request waits for the endpoint to finish starting.
READY_TIMEOUT = 30.0

_FORBIDDEN = (
    "Forbidden: this endpoint needs the Jupyter server's token, sent as 'Authorization: "
    "Bearer <token>' (or '?token=<token>'), or a logged-in browser session that sends the "
    "_xsrf cookie's value in an X-XSRFToken header."
)
_FOREIGN_ORIGIN = (
    "Forbidden: requests from that web origin are not accepted. Start Jupyter with "
    "--ServerApp.allow_origin=<origin> to accept it."
)
_NOT_ALLOWED = "Forbidden: this Jupyter user may not use the cloudg MCP endpoint."
#: CORS: the MCP headers a browser client on an allowed origin may send, and may read back.
_ALLOWED_HEADERS = ", ".join((
    "accept", "content-type", "authorization", "x-xsrftoken", MCP_SESSION_ID_HEADER,
    MCP_PROTOCOL_VERSION_HEADER, MCP_METHOD_HEADER, MCP_NAME_HEADER, LAST_EVENT_ID_HEADER))
_EXPOSED_HEADERS = ", ".join((MCP_SESSION_ID_HEADER, MCP_PROTOCOL_VERSION_HEADER))
_UNKNOWN_ASSISTANT = (
    "Forbidden: this assistant token is unknown or was revoked. Ask the analyst for a new "
    "one: cloudg-nb config --client CLIENT --jupyter --name NAME (cloudg-nb assistants "
    "list shows the live ones)."
)
_OTHER_SERVER = (
    "Forbidden: this assistant token was minted for another Jupyter server; a credential "
    "works only on the server that minted it. Ask the analyst to mint one on this server: "
    "cloudg-nb config --client CLIENT --jupyter --name NAME."
)
_UNBOUND = (
    "Forbidden: this assistant token was minted before credentials were bound to their "
    "Jupyter server, so no server accepts it. Ask the analyst to mint a new one on this "
    "server: cloudg-nb config --client CLIENT --jupyter --name NAME."
)
_OAUTH_NEEDED = (
    "Unauthorized: connect with MCP authorization (OAuth): this server's metadata is at the "
    "resource_metadata URL of the WWW-Authenticate header, and the analyst allows the "
    "connection on a Jupyter page. Or send a minted assistant token: cloudg-nb config "
    "--client CLIENT --jupyter --token-auth."
)
#: 401 messages (RFC 6750 ``invalid_token``) by ``OAuthRefused.reason``.
_OAUTH_REFUSED = {
    "unknown": "Unauthorized: this access token is unknown (it was revoked, replaced by a "
               "refresh, or never issued here); authorize again.",
    "expired": "Unauthorized: this access token expired; refresh it or authorize again.",
    "revoked": "Unauthorized: the analyst revoked this assistant; authorize again (the "
               "analyst decides whether to allow it).",
    "other_resource": "Unauthorized: this access token was issued for another server or "
                      "endpoint; authorize with this one.",
}
#: 403 messages (and the ``reason`` in the error's data) by the HTTPError reason.
_FORBIDDEN_BY_REASON = {
    "Forbidden origin": (_FOREIGN_ORIGIN, "foreign_origin"),
    "Not allowed": (_NOT_ALLOWED, "not_allowed"),
    UNKNOWN: (_UNKNOWN_ASSISTANT, "unknown_assistant_token"),
    OTHER_SERVER: (_OTHER_SERVER, "assistant_token_of_another_server"),
    UNBOUND: (_UNBOUND, "assistant_token_of_no_server"),
}


def _json_rpc_error(code: int, message: str, data: Any = None) -> str:
    return json.dumps(error_response(code, message, data))


class MCPHandler(SecurityHeaders, JupyterHandlerInternals):
    """``{base_url}cloudg/mcp``: Streamable HTTP, both protocol eras, behind Jupyter auth."""

    SUPPORTED_METHODS = ("GET", "POST", "DELETE", "OPTIONS")
    auth_resource = "cloudg"

    def initialize(self, endpoint: Endpoint, identity: Identity,
                   credentials: AssistantCredentials, oauth: JupyterOAuth | None = None) -> None:
        self.endpoint = endpoint
        self.identity = identity
        self.credentials = credentials
        self.oauth = oauth
        #: The ASGI bridge of the request being forwarded (it builds the scope the SDK sees).
        self.bridge: TornadoASGIBridge | None = None
        #: Scope entries of an assistant's request (None: a Jupyter user's).
        self.assistant_scope: dict[str, Any] | None = None

    def skip_check_origin(self) -> bool:
        """Check Origin for token requests too (the MCP transport rule), with Jupyter's
        ``allow_origin`` / ``allow_origin_pat`` settings."""
        return False

    def compute_etag(self) -> str | None:
        return None

    def set_default_headers(self) -> None:
        super().set_default_headers()
        # Browser clients on an allowed origin must be able to read the session headers.
        self.set_header("Access-Control-Expose-Headers", _EXPOSED_HEADERS)

    async def prepare(self) -> None:  # type: ignore[override]
        if self.request.method != "OPTIONS" and self.request.headers.get("Origin") \
                and not self.check_origin():
            raise web.HTTPError(403, reason="Forbidden origin")
        if self.request.method != "OPTIONS":
            token = presented_assistant_token(self.request)
            if token is not None:
                if self.oauth is not None and token.startswith(ACCESS_PREFIX):
                    self._accept_oauth(token)
                else:
                    self._accept_assistant(token)
                return
            self._accept_server_token()
            if self.oauth is not None and not self._presents_credentials() and getattr(
                    self.identity_provider, "auth_enabled", True):
                if not self.check_host():
                    raise web.HTTPError(403)
                raise web.HTTPError(401, reason="oauth")
        await self.prepare_without_login()
        if self.request.method == "OPTIONS":
            return
        if self.current_user is None:  # e.g. allow_unauthenticated_access servers
            raise web.HTTPError(403)
        if not self.authorizer.is_authorized(self, self.current_user, "execute",
                                             self.auth_resource):
            raise web.HTTPError(403, reason="Not allowed")

    def _accept_assistant(self, token: str) -> None:
        """An assistant's own token: checked against the credential store on every request
        (a revoked one fails at once), then the request acts as ``assistant:NAME``. Jupyter's
        identity provider and authorizer are not asked: the analyst authorised this token by
        minting it, and it opens this endpoint only."""
        from jupyter_server.auth.identity import User

        CallContext.set(CallContext.JUPYTER_HANDLER, self)
        if not self.check_host():
            raise web.HTTPError(403)
        try:
            record = self.credentials.authenticate_assistant(token)
        except AssistantRefused as exc:
            raise web.HTTPError(403, reason=exc.reason) from None
        self.authenticate_as(User(username=record.principal_id, name=record.name,
                                  display_name=f"assistant {record.name}"))
        self.set_cors_headers()
        self.assistant_scope = self.identity.assistant_scope(record)

    def _presents_credentials(self) -> bool:
        """Whether the request carries any credential (a header, a token in the query, a
        cookie): one that carries none is told how to authorize (401), others are refused."""
        request = self.request
        return bool(request.headers.get("Authorization") or request.headers.get("Cookie")
                    or "token=" in (request.query or ""))

    def _accept_oauth(self, token: str) -> None:
        """An OAuth access token (issued after the analyst's consent): the assistant it was
        issued to, while the token is unexpired, for this endpoint, and the assistant not
        revoked. Refused with 401 ``invalid_token`` (RFC 6750), so the client authorizes
        again."""
        from jupyter_server.auth.identity import User

        from cloudg_nb.protocol.oauth_provider import OAuthRefused

        CallContext.set(CallContext.JUPYTER_HANDLER, self)
        if not self.check_host():
            raise web.HTTPError(403)
        assert self.oauth is not None
        try:
            _grant, record = self.oauth.provider.verify(token)
        except OAuthRefused as exc:
            raise web.HTTPError(401, reason=exc.reason) from None
        self.credentials.note_use(record)
        self.authenticate_as(User(username=record.principal_id, name=record.name,
                                  display_name=f"assistant {record.name}"))
        self.set_cors_headers()
        self.assistant_scope = self.identity.assistant_scope(record)

    def _accept_server_token(self) -> None:
        """A request that carries the server's own token (built-in identity providers) is the
        server's owner: checked with the provider's own token parser, in constant time, but
        without the browser-cookie round trip Jupyter adds to token requests (decoding the
        login cookie twice, inventing a user and signing a new cookie on every call). Other
        requests, and other identity providers (JupyterHub's), take Jupyter's full path."""
        provider = self.identity_provider
        if not shared_secret_auth(provider):
            return
        expected = provider.token
        given = provider.get_token(self) if expected else None
        if given and hmac.compare_digest(given.encode(), expected.encode()):
            self.authenticate_as(self.identity.owner_user)

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """Errors as JSON-RPC error bodies (what MCP clients parse), never HTML or tracebacks."""
        exc = kwargs.get("exc_info", (None, None, None))[1]
        reason = getattr(exc, "reason", None) or ""
        data = None
        if status_code == 401 and self.oauth is not None:
            refused = _OAUTH_REFUSED.get(reason)
            challenge = f'Bearer resource_metadata="{self.oauth.resource_metadata_url()}"'
            if refused is not None:
                challenge = ('Bearer error="invalid_token", error_description="the access '
                             f'token is {reason.replace("_", " ")}", '
                             f'resource_metadata="{self.oauth.resource_metadata_url()}"')
            self.set_header("WWW-Authenticate", challenge)
            message = refused or _OAUTH_NEEDED
            data = {"reason": "invalid_token" if refused else "authorization_required"}
        elif status_code == 403:
            message, why = _FORBIDDEN_BY_REASON.get(reason, (_FORBIDDEN, "not_authenticated"))
            data = {"reason": why}
        else:
            message = reason or HTTPStatus(status_code).phrase
        self.set_header("Content-Type", "application/json")
        self.finish(_json_rpc_error(INVALID_REQUEST if status_code < 500 else INTERNAL_ERROR,
                                    message, data))

    @allow_unauthenticated
    def options(self, *args: Any, **kwargs: Any) -> None:
        """CORS preflight: no credentials needed (the real request is checked)."""
        self.set_header("Access-Control-Allow-Headers", _ALLOWED_HEADERS)
        self.set_header("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
        self.set_status(204)
        self.finish()

    async def get(self) -> None:
        await self._forward()

    async def post(self) -> None:
        await self._forward()

    async def delete(self) -> None:
        await self._forward()

    def on_connection_close(self) -> None:
        if self.bridge is not None:
            self.bridge.connection_closed()

    async def _forward(self) -> None:
        # MCP use is server activity: idle culling (Binder, JupyterHub) must not stop it.
        self.settings[ACTIVITY_SETTING] = datetime.now(UTC)
        endpoint = self.endpoint
        task = asyncio.current_task()
        endpoint.track_request(task)
        try:
            if await self._available():
                scope = self.assistant_scope or self.identity.request_scope(self.current_user)
                self.bridge = TornadoASGIBridge(self, scope)
                await self.bridge.run(endpoint.asgi_app)  # type: ignore[arg-type]
        except asyncio.CancelledError:
            if not endpoint.stopping:
                raise
        except Exception:
            logger.exception("cloudg: MCP request failed")
        finally:
            endpoint.untrack_request(task)

    async def _available(self) -> bool:
        """Whether the endpoint can serve now (waiting while it starts); else answer 503."""
        endpoint = self.endpoint
        if endpoint.stopping:
            return self._unavailable("The cloudg MCP endpoint is shutting down with the "
                                     "Jupyter server.")
        if endpoint.setup_problem is None and not endpoint.ready.is_set():
            try:
                await asyncio.wait_for(endpoint.ready.wait(), READY_TIMEOUT)
            except TimeoutError:
                return self._unavailable("The cloudg MCP endpoint is still starting; try again "
                                         "in a few seconds.")
        if endpoint.setup_problem is not None or endpoint.asgi_app is None:
            return self._unavailable(
                f"The cloudg MCP endpoint is unavailable: {endpoint.setup_problem}. Fix the "
                "configuration (the Jupyter server log names the setting) and restart the "
                "server.")
        return True

    def _unavailable(self, message: str) -> bool:
        self.set_status(503)
        self.set_header("Content-Type", "application/json")
        self.finish(_json_rpc_error(INTERNAL_ERROR, message))
        return False


class StatusHandler(SecurityHeaders, APIHandler):
    """``{base_url}cloudg/api/status``: what the endpoint serves, as JSON (authenticated)."""

    auth_resource = "cloudg"

    def initialize(self, endpoint: Endpoint, identity: Identity) -> None:
        self.endpoint = endpoint
        self.identity = identity

    @web.authenticated
    def get(self) -> None:
        principal = self.identity.principal_for(self.current_user)
        self.finish(json.dumps(self.endpoint.status(principal), default=str))


class NotFoundHandler(SecurityHeaders, InactiveAPIHandler):
    """Every other path under ``{base_url}cloudg/`` (register it after cloudg's routes): a JSON
    404 with cloudg's headers, so no response under ``cloudg/`` lacks them (a request to
    nothing is no sign of use: it leaves the server's last-activity time alone)."""

    def prepare(self) -> None:  # type: ignore[override]
        raise web.HTTPError(404)

    def check_xsrf_cookie(self) -> None:  # answered in prepare; nothing to check
        return None

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        self.set_header("Content-Type", "application/json")
        message = ("Nothing is served at this address. The cloudg MCP endpoint is "
                   f"{self.base_url}{ENDPOINT_PATH}." if status_code == 404
                   else HTTPStatus(status_code).phrase)
        self.finish(json.dumps({"message": message}))
