"""MCP authorization (OAuth 2.1) on the Jupyter endpoint: the provider over this server's
assistant credentials, and the tornado route that forwards OAuth requests to the SDK's routes.

``JupyterOAuth`` owns the ``AssistantOAuthProvider`` (grants in ``oauth.json`` beside the
assistant store) and the Starlette app of ``oauth_routes``, rebuilt when the public address
changes. ``OAuthRoutesHandler`` serves those paths without a Jupyter login (they carry no
ambient credential: PKCE and the owner's consent guard them); ``install`` adds the routes,
and the RFC 8414 / 9728 root forms when the server owns its origin.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jupyter_server.auth.decorator import allow_unauthenticated
from jupyter_server.base.handlers import JupyterHandler
from tornado import web
from tornado.routing import PathMatches, Rule

from cloudg_nb.layer.wire import OAUTH_CONSENT_PATH

from .asgi import TornadoASGIBridge
from .security_headers import SecurityHeaders
from .server_internals import put_rule_first

if TYPE_CHECKING:
    from cloudg_nb.assistants import AssistantRecord
    from cloudg_nb.protocol.oauth_provider import AssistantOAuthProvider
    from cloudg_nb.protocol.oauth_routes import OAuthPaths

    from .assistant_credentials import AssistantCredentials
    from .public_address import PublicAddress

__all__ = ["CredentialDirectory", "JupyterOAuth", "OAuthRoutesHandler"]

logger = logging.getLogger("cloudg.jupyter")


class CredentialDirectory:
    """This server's assistant credentials, as the OAuth provider sees them."""

    def __init__(self, credentials: AssistantCredentials) -> None:
        self.credentials = credentials

    @property
    def server(self) -> str:
        return self.credentials.server_identity

    def live(self, name: str) -> AssistantRecord | None:
        store = self.credentials.store
        record = store.get(name, self.server) if store is not None else None
        return record if record is not None and record.bound_to(self.server) else None

    def create(self, name: str, client: str, profile: str | None) -> AssistantRecord:
        # The credential's own token is never handed out: the assistant holds OAuth tokens,
        # which live as long as this record does.
        _token, record, _replaced = self.credentials.mint_assistant(
            name, client=client, profile=profile)
        return record


class JupyterOAuth:
    """OAuth for the endpoint of one Jupyter server (``base_url``, ``address``)."""

    def __init__(self, credentials: AssistantCredentials, address: PublicAddress,
                 base_url: str, *, access_lifetime: float, root_discovery: bool) -> None:
        from cloudg_nb.assistants.oauth_store import OAuthStore
        from cloudg_nb.protocol.oauth_provider import AssistantOAuthProvider

        assert credentials.store is not None
        self.address = address
        self.base_url = base_url if base_url.endswith("/") else base_url + "/"
        self.root_discovery = root_discovery
        self.store = OAuthStore(Path(credentials.store.path).parent / "oauth.json")
        self.provider: AssistantOAuthProvider = AssistantOAuthProvider(
            self.store, CredentialDirectory(credentials),
            resource_url=lambda: self.paths().resource,
            consent_url=lambda consent_id: self.address.base() + f"{OAUTH_CONSENT_PATH}/"
            + consent_id,
            access_lifetime=access_lifetime)
        credentials.watch(self._credential_changed)
        self._app: tuple[str, Any] | None = None

    def _credential_changed(self, action: str, name: str) -> None:
        if action == "revoked":
            self.provider.end_assistant(name)

    def paths(self) -> OAuthPaths:
        from cloudg_nb.protocol.oauth_routes import OAuthPaths

        return OAuthPaths(base=self.base_url, public_base=self.address.base())

    def app(self) -> Any:
        """The Starlette app for the current public address (built once per address)."""
        from cloudg_nb.protocol.oauth_routes import oauth_app

        public = self.address.base()
        if self._app is None or self._app[0] != public:
            self._app = (public, oauth_app(self.provider, self.paths(),
                                           root=self.root_discovery))
        return self._app[1]

    def resource_metadata_url(self) -> str:
        return self.paths().resource_metadata_url

    def install(self, handlers: list[Any], web_app: web.Application | None) -> None:
        """Add the OAuth routes (paths under ``base_url``) to ``handlers``; the root forms go
        straight into ``web_app``'s router (outside ``base_url``)."""
        paths = self.paths()
        kwargs = {"oauth": self}
        for path in paths.local_paths(root=False):
            handlers.append((path[len(self.base_url):], OAuthRoutesHandler, kwargs))
        if self.root_discovery and web_app is not None:
            for path in paths.root_paths():
                put_rule_first(web_app, Rule(PathMatches(path), OAuthRoutesHandler, kwargs))


class OAuthRoutesHandler(SecurityHeaders, JupyterHandler):
    """Forwards an OAuth request (authorize, token, register, revoke, metadata) to the SDK's
    routes; no Jupyter login is asked or used (the bridge passes no cookie or header
    credential on)."""

    SUPPORTED_METHODS = ("GET", "POST", "OPTIONS")

    def initialize(self, oauth: JupyterOAuth) -> None:
        self.oauth = oauth

    def check_xsrf_cookie(self) -> None:
        """OAuth requests carry no ambient credential for a forged request to use."""
        return None

    def set_default_headers(self) -> None:
        super().set_default_headers()
        self.set_header("Cache-Control", "no-store")

    async def prepare(self) -> None:  # type: ignore[override]
        if not self.check_host():
            raise web.HTTPError(403)

    def compute_etag(self) -> str | None:
        return None

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        self.set_header("Content-Type", "application/json")
        self.finish({"error": "invalid_request" if status_code < 500 else "server_error"})

    async def _forward(self) -> None:
        await TornadoASGIBridge(self, {}).run(self.oauth.app())

    @allow_unauthenticated
    async def get(self, *args: Any) -> None:
        await self._forward()

    @allow_unauthenticated
    async def post(self, *args: Any) -> None:
        await self._forward()

    @allow_unauthenticated
    async def options(self, *args: Any) -> None:
        await self._forward()
