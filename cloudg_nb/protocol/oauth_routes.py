"""The OAuth routes of an MCP endpoint, as one Starlette app: the `mcp` SDK's authorize /
token / register / revoke routes under the issuer path, and the metadata documents
(RFC 8414 / OpenID discovery, RFC 9728 protected resource) at the URLs clients try.

``OAuthPaths`` names them for an endpoint served under a path (a Jupyter ``base_url``): the
issuer is ``{base}cloudg/oauth``; its metadata is at ``{issuer}/.well-known/openid-configuration``
(the one discovery form that lives under the base) and ``{issuer}/.well-known/
oauth-authorization-server``; the resource's at ``{base}cloudg/.well-known/
oauth-protected-resource/mcp`` (the ``resource_metadata`` pointer of every 401). With
``root`` (the server owns its origin) the RFC 8414 / 9728 root forms are served too.
The ``openid-configuration`` forms carry what OpenID Connect Discovery requires besides RFC
8414's members (clients such as the TypeScript SDK's validate them as OpenID Provider metadata,
and under a ``base_url`` such a form is the only one they reach); ``jwks_uri`` is an empty key
set: no ID token is ever issued (``openid`` is no scope here), so no key is ever needed.
Revocation (RFC 7009) is ours: the SDK's handler requires a ``client_secret`` field, which the
public clients this server registers do not have.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp.server.auth.handlers.metadata import MetadataHandler, ProtectedResourceMetadataHandler
from mcp.server.auth.routes import build_metadata, cors_middleware, create_auth_routes
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata
from pydantic import AnyHttpUrl, Field
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from cloudg_nb.layer.wire import ENDPOINT_PATH, OAUTH_ISSUER_PATH, OAUTH_RESOURCE_METADATA_PATH

__all__ = ["OAuthPaths", "oauth_app"]

ISSUER_PATH = OAUTH_ISSUER_PATH
RESOURCE_METADATA_PATH = OAUTH_RESOURCE_METADATA_PATH
OAUTH_METADATA = "/.well-known/oauth-authorization-server"
OPENID_METADATA = "/.well-known/openid-configuration"
AS_METADATA = (OAUTH_METADATA, OPENID_METADATA)
#: The (empty) key set the OpenID form's ``jwks_uri`` names, under the issuer.
JWKS_PATH = "/jwks"


class OpenIDMetadata(OAuthMetadata):
    """RFC 8414 metadata plus the members OpenID Connect Discovery 1.0 §3 requires."""

    jwks_uri: AnyHttpUrl
    subject_types_supported: list[str] = Field(default_factory=lambda: ["public"])
    # Discovery requires RS256 listed; no ID token is issued, so none is ever signed.
    id_token_signing_alg_values_supported: list[str] = Field(default_factory=lambda: ["RS256"])


@dataclass(frozen=True)
class OAuthPaths:
    """Where the OAuth documents and routes are, for a server whose pages are at ``base``
    (a path ending in ``/``) and whose public address is ``public_base`` (ends in ``/``)."""

    base: str
    public_base: str
    endpoint_path: str = ENDPOINT_PATH

    @property
    def origin(self) -> str:
        scheme, _, rest = self.public_base.partition("://")
        return f"{scheme}://{rest.split('/', 1)[0]}"

    @property
    def public_path(self) -> str:
        """The public base's path (``/`` or ``/user/alice/``)."""
        return self.public_base[len(self.origin):] or "/"

    @property
    def issuer(self) -> str:
        return self.public_base + ISSUER_PATH

    @property
    def resource(self) -> str:
        return self.public_base + self.endpoint_path

    @property
    def resource_metadata_url(self) -> str:
        return self.public_base + RESOURCE_METADATA_PATH

    def local_paths(self, root: bool) -> list[str]:
        """Every path (under this server's own ``base``) the app answers."""
        issuer = self.base + ISSUER_PATH
        paths = [f"{issuer}/{name}" for name in ("authorize", "token", "register", "revoke")]
        paths += [issuer + form for form in AS_METADATA]
        paths.append(issuer + JWKS_PATH)
        paths.append(self.base + RESOURCE_METADATA_PATH)
        if root:
            paths += self.root_paths()
        return paths

    def root_paths(self) -> list[str]:
        issuer = (self.base + ISSUER_PATH).rstrip("/")
        return [*(form + issuer for form in AS_METADATA),
                "/.well-known/oauth-protected-resource" + self.base + self.endpoint_path]


def oauth_app(provider: Any, paths: OAuthPaths, *, root: bool,
              resource_name: str = "cloudg-nb") -> Starlette:
    """The Starlette app answering ``paths.local_paths(root)``."""
    issuer = AnyHttpUrl(paths.issuer)
    registration = ClientRegistrationOptions(enabled=True)
    revocation = RevocationOptions(enabled=True)
    metadata = build_metadata(issuer, None, registration, revocation)
    # Clients register as public clients (the provider makes them so); PKCE S256 only.
    metadata.token_endpoint_auth_methods_supported = ["none"]
    metadata.revocation_endpoint_auth_methods_supported = ["none"]
    metadata.client_id_metadata_document_supported = True
    as_handler = cors_middleware(MetadataHandler(metadata).handle, ["GET", "OPTIONS"])
    openid = OpenIDMetadata(**metadata.model_dump(),
                            jwks_uri=AnyHttpUrl(paths.issuer + JWKS_PATH))
    openid_handler = cors_middleware(MetadataHandler(openid).handle, ["GET", "OPTIONS"])
    handlers = {OAUTH_METADATA: as_handler, OPENID_METADATA: openid_handler}
    resource = ProtectedResourceMetadata(
        resource=AnyHttpUrl(paths.resource), authorization_servers=[issuer],
        resource_name=resource_name)
    pr_handler = cors_middleware(ProtectedResourceMetadataHandler(resource).handle,
                                 ["GET", "OPTIONS"])
    sdk_routes: list[Any] = [
        route for route in create_auth_routes(provider, issuer, None, registration, revocation)
        if not route.path.startswith("/.well-known") and route.path != "/revoke"]
    sdk_routes.append(Route("/revoke", _revocation(provider), methods=["POST"]))
    issuer_local = (paths.base + ISSUER_PATH).rstrip("/")
    routes: list[Any] = [Route(issuer_local + form, handlers[form], methods=["GET", "OPTIONS"])
                         for form in AS_METADATA]
    routes.append(Route(issuer_local + JWKS_PATH, cors_middleware(_empty_key_set,
                                                                 ["GET", "OPTIONS"]),
                        methods=["GET", "OPTIONS"]))
    routes.append(Route(paths.base + RESOURCE_METADATA_PATH, pr_handler,
                        methods=["GET", "OPTIONS"]))
    if root:
        for path in paths.root_paths():
            handler = pr_handler if "protected-resource" in path else handlers[
                OPENID_METADATA if path.startswith(OPENID_METADATA) else OAUTH_METADATA]
            routes.append(Route(path, handler, methods=["GET", "OPTIONS"]))
    routes.append(Mount(issuer_local, routes=sdk_routes))
    return Starlette(routes=routes)


async def _empty_key_set(request: Request) -> Response:
    return JSONResponse({"keys": []}, headers={"Cache-Control": "public, max-age=3600"})


def _revocation(provider: Any) -> Any:
    """RFC 7009 token revocation for public clients: the token's grant ends (its access and
    refresh tokens both) when it belongs to the client asking; 200 whatever the token was."""
    no_store = {"Cache-Control": "no-store", "Pragma": "no-cache"}

    async def revoke(request: Request) -> Response:
        form = await request.form()
        token, client_id = form.get("token"), form.get("client_id")
        if not isinstance(token, str) or not token or not isinstance(client_id, str):
            return JSONResponse({"error": "invalid_request",
                                 "error_description": "send token and client_id"},
                                status_code=400, headers=no_store)
        client = await provider.get_client(client_id)
        if client is None:
            return JSONResponse({"error": "invalid_client"}, status_code=401, headers=no_store)
        found = await provider.load_access_token(token) or await provider.load_refresh_token(
            client, token)
        if found is not None and found.client_id == client.client_id:
            await provider.revoke_token(found)
        return Response(status_code=200, headers=no_store)

    return revoke
