"""OAuthPaths: where the OAuth documents are for an endpoint under a base URL, and the
metadata the app serves there (in process, through Starlette's test client)."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from cloudg_nb.assistants.oauth_store import OAuthStore
from cloudg_nb.protocol.oauth_provider import AssistantOAuthProvider
from cloudg_nb.protocol.oauth_routes import OAuthPaths, oauth_app

PATHS = OAuthPaths(base="/user/ana/", public_base="https://hub.example.org/user/ana/")


class _Directory:
    server = "s"

    def live(self, name: str) -> None:
        return None

    def create(self, name: str, client: str, profile: str | None) -> None:
        raise AssertionError


def _client(tmp_path: Path, root: bool) -> TestClient:
    provider = AssistantOAuthProvider(OAuthStore(tmp_path / "o.json"), _Directory(),
                                      resource_url=lambda: PATHS.resource,
                                      consent_url=lambda cid: cid)
    return TestClient(oauth_app(provider, PATHS, root=root))


def test_the_issuer_and_resource_live_under_the_base_url() -> None:
    assert PATHS.issuer == "https://hub.example.org/user/ana/cloudg/oauth"
    assert PATHS.resource == "https://hub.example.org/user/ana/cloudg/mcp"
    assert PATHS.resource_metadata_url == (
        "https://hub.example.org/user/ana/cloudg/.well-known/oauth-protected-resource/mcp")


def test_the_openid_form_under_the_issuer_path_serves_the_metadata(tmp_path: Path) -> None:
    client = _client(tmp_path, root=False)
    meta = client.get("/user/ana/cloudg/oauth/.well-known/openid-configuration").json()
    assert meta["issuer"] == PATHS.issuer
    assert meta["token_endpoint"] == PATHS.issuer + "/token"
    assert meta["token_endpoint_auth_methods_supported"] == ["none"]


def test_root_forms_only_when_asked(tmp_path: Path) -> None:
    path = "/.well-known/oauth-authorization-server/user/ana/cloudg/oauth"
    assert _client(tmp_path, root=False).get(path).status_code == 404
    assert _client(tmp_path, root=True).get(path).json()["issuer"] == PATHS.issuer


#: What OpenID Connect Discovery 1.0 §3 requires of a provider's metadata (the TypeScript SDK
#: refuses an openid-configuration document without them).
OPENID_REQUIRED = ("issuer", "authorization_endpoint", "token_endpoint", "jwks_uri",
                   "response_types_supported", "subject_types_supported",
                   "id_token_signing_alg_values_supported")


def test_the_openid_form_under_the_issuer_is_valid_openid_provider_metadata(
        tmp_path: Path) -> None:
    # Under a base_url (JupyterHub) it is the only discovery form a client reaches.
    meta = _client(tmp_path, root=False).get(
        "/user/ana/cloudg/oauth/.well-known/openid-configuration").json()
    missing = [key for key in OPENID_REQUIRED if key not in meta]
    assert not missing
    assert "RS256" in meta["id_token_signing_alg_values_supported"]
    assert meta["jwks_uri"] == PATHS.issuer + "/jwks"
    assert "openid" not in (meta.get("scopes_supported") or [])  # no ID token is issued


def test_the_openid_root_form_is_valid_openid_provider_metadata_too(tmp_path: Path) -> None:
    meta = _client(tmp_path, root=True).get(
        "/.well-known/openid-configuration/user/ana/cloudg/oauth").json()
    assert not [key for key in OPENID_REQUIRED if key not in meta]


def test_the_jwks_uri_serves_an_empty_key_set(tmp_path: Path) -> None:
    answered = _client(tmp_path, root=False).get("/user/ana/cloudg/oauth/jwks")
    assert answered.status_code == 200 and answered.json() == {"keys": []}


def test_the_rfc8414_form_keeps_to_rfc8414_members(tmp_path: Path) -> None:
    meta = _client(tmp_path, root=False).get(
        "/user/ana/cloudg/oauth/.well-known/oauth-authorization-server").json()
    assert meta["issuer"] == PATHS.issuer
    assert "subject_types_supported" not in meta


def test_the_jwks_path_is_one_the_jupyter_routes_forward() -> None:
    assert "/user/ana/cloudg/oauth/jwks" in PATHS.local_paths(root=False)
