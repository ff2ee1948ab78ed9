"""AssistantOAuthProvider over a real credential store and grant file (no server): consent
creates the assistant, codes work once, tokens are bound to the resource, the server and the
assistant's credential, refresh tokens rotate, and redirect URIs follow RFC 8252."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from mcp.server.auth.provider import AuthorizationParams, AuthorizeError, TokenError
from mcp.shared.auth import InvalidRedirectUriError, OAuthClientInformationFull
from pydantic import AnyUrl

from cloudg_nb.assistants import AssistantRecord, AssistantStore
from cloudg_nb.assistants.oauth_store import OAuthStore
from cloudg_nb.protocol.oauth_provider import (
    AssistantOAuthProvider,
    ConsentError,
    OAuthRefused,
    redirect_uri_allowed,
)

RESOURCE = "https://notebooks.example.org/user/ana/cloudg/mcp"
REDIRECT = "http://127.0.0.1:7777/callback"


class Directory:
    def __init__(self, store: AssistantStore, server: str) -> None:
        self.store, self.server = store, server

    def live(self, name: str) -> AssistantRecord | None:
        return self.store.get(name, self.server)

    def create(self, name: str, client: str, profile: str | None) -> AssistantRecord:
        return self.store.mint(name, client=client, profile=profile or "", server=self.server)[1]


def provider(tmp_path: Path, server: str = "/user/ana/ on /home/ana",
             resource: str = RESOURCE) -> AssistantOAuthProvider:
    return AssistantOAuthProvider(
        OAuthStore(tmp_path / "oauth.json"), Directory(AssistantStore(
            tmp_path / "assistants.json"), server),
        resource_url=lambda: resource, consent_url=lambda cid: f"https://consent/{cid}")


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def registered(p: AssistantOAuthProvider, uris: list[str] | None = None,
               ) -> OAuthClientInformationFull:
    info = OAuthClientInformationFull(client_id=f"c-{time.monotonic_ns()}",
                                      redirect_uris=[AnyUrl(u) for u in uris or [REDIRECT]],
                                      client_name="Unit Client",
                                      token_endpoint_auth_method="client_secret_post",
                                      client_secret="s3cret")
    run(p.register_client(info))
    client = run(p.get_client(info.client_id))
    assert client is not None
    return client


def consent(p: AssistantOAuthProvider, client: OAuthClientInformationFull,
            resource: str | None = RESOURCE) -> str:
    url = run(p.authorize(client, AuthorizationParams(
        state="s", scopes=None, code_challenge="c" * 43, redirect_uri=AnyUrl(REDIRECT),
        redirect_uri_provided_explicitly=True, resource=resource)))
    return url.rsplit("/", 1)[1]


def code_of(url: str) -> str:
    return url.split("code=", 1)[1].split("&", 1)[0]


def test_registration_makes_a_public_client_and_keeps_no_secret(tmp_path: Path) -> None:
    p = provider(tmp_path)
    client = registered(p)
    assert client.token_endpoint_auth_method == "none" and client.client_secret is None
    assert "s3cret" not in (tmp_path / "oauth.json").read_text()


@pytest.mark.parametrize(("uri", "ok"), [
    ("https://app.example.com/cb", True), ("http://127.0.0.1:5/cb", True),
    ("http://localhost/cb", True), ("http://[::1]:9/cb", True),
    ("http://app.example.com/cb", False), ("https://a.example.com/cb#x", False),
    ("javascript:alert(1)", False), ("https://u:p@a.example.com/", False),
])
def test_redirect_uris_are_https_or_loopback(uri: str, ok: bool) -> None:
    assert redirect_uri_allowed(uri) is ok


def test_a_loopback_redirect_uri_matches_any_port_but_nothing_else(tmp_path: Path) -> None:
    client = registered(provider(tmp_path))
    assert str(client.validate_redirect_uri(AnyUrl("http://127.0.0.1:9/callback"))).endswith(
        ":9/callback")
    for other in ("http://127.0.0.1:9/other", "http://localhost:7777/callback",
                  "http://127.0.0.1:7777/callback?x=1"):
        with pytest.raises(InvalidRedirectUriError):
            client.validate_redirect_uri(AnyUrl(other))


def test_an_https_redirect_uri_must_match_exactly(tmp_path: Path) -> None:
    client = registered(provider(tmp_path), ["https://app.example.com/cb"])
    with pytest.raises(InvalidRedirectUriError):
        client.validate_redirect_uri(AnyUrl("https://app.example.com:444/cb"))


def test_authorization_for_another_resource_is_invalid_target(tmp_path: Path) -> None:
    p = provider(tmp_path)
    with pytest.raises(AuthorizeError) as info:
        consent(p, registered(p), resource="https://elsewhere.example.com/mcp")
    assert info.value.error == "invalid_target"
    assert p.pending() == []


def test_allow_creates_the_assistant_and_a_single_use_code(tmp_path: Path) -> None:
    p = provider(tmp_path)
    client = registered(p)
    url = p.approve(consent(p, client), "unit-bot", None)
    assert url.startswith(REDIRECT + "?code=") and "state=s" in url
    assert p.assistants.live("unit-bot") is not None
    code = run(p.load_authorization_code(client, code_of(url)))
    assert code is not None and code.resource == RESOURCE
    assert run(p.load_authorization_code(client, code_of(url))) is None


def test_deny_answers_access_denied_and_creates_nothing(tmp_path: Path) -> None:
    p = provider(tmp_path)
    url = p.deny(consent(p, registered(p)))
    assert "error=access_denied" in url and "code=" not in url
    assert p.store.grants() == []


def test_a_consent_request_is_answered_once(tmp_path: Path) -> None:
    p = provider(tmp_path)
    cid = consent(p, registered(p))
    p.approve(cid, "first", None)
    with pytest.raises(ConsentError):
        p.approve(cid, "second", None)
    assert p.assistants.live("second") is None


def test_a_bad_name_leaves_the_request_waiting(tmp_path: Path) -> None:
    p = provider(tmp_path)
    cid = consent(p, registered(p))
    with pytest.raises(ConsentError):
        p.approve(cid, "Not A Name!", None)
    assert [c.id for c in p.pending()] == [cid]


def _tokens(p: AssistantOAuthProvider, name: str = "tok") -> tuple[Any, Any]:
    client = registered(p)
    url = p.approve(consent(p, client), name, None)
    code = run(p.load_authorization_code(client, code_of(url)))
    return client, run(p.exchange_authorization_code(client, code))


def test_an_access_token_acts_as_its_assistant(tmp_path: Path) -> None:
    p = provider(tmp_path)
    _client, tokens = _tokens(p)
    grant, record = p.verify(tokens.access_token)
    assert record.name == "tok" and grant.resource == RESOURCE
    assert tokens.expires_in == 3600


def test_revoking_the_assistant_ends_its_tokens(tmp_path: Path) -> None:
    p = provider(tmp_path)
    client, tokens = _tokens(p)
    p.assistants.store.revoke("tok")  # type: ignore[attr-defined]
    with pytest.raises(OAuthRefused) as info:
        p.verify(tokens.access_token)
    assert info.value.reason == "revoked"
    assert run(p.load_refresh_token(client, tokens.refresh_token)) is None


def test_reminting_the_assistant_ends_its_tokens(tmp_path: Path) -> None:
    p = provider(tmp_path)
    _client, tokens = _tokens(p)
    p.assistants.create("tok", "other", None)
    with pytest.raises(OAuthRefused):
        p.verify(tokens.access_token)


def test_a_token_is_refused_by_another_server_sharing_the_file(tmp_path: Path) -> None:
    _client, tokens = _tokens(provider(tmp_path))
    with pytest.raises(OAuthRefused) as info:
        provider(tmp_path, server="/user/bob/ on /home/bob").verify(tokens.access_token)
    assert info.value.reason == "other_resource"


def test_a_token_is_refused_when_the_endpoint_moved(tmp_path: Path) -> None:
    _client, tokens = _tokens(provider(tmp_path))
    with pytest.raises(OAuthRefused) as info:
        provider(tmp_path, resource="https://new.example.org/cloudg/mcp").verify(
            tokens.access_token)
    assert info.value.reason == "other_resource"


def test_refreshing_rotates_both_tokens_and_a_replay_ends_the_grant(tmp_path: Path) -> None:
    p = provider(tmp_path)
    client, tokens = _tokens(p)
    loaded = run(p.load_refresh_token(client, tokens.refresh_token))
    renewed = run(p.exchange_refresh_token(client, loaded, []))
    assert renewed.refresh_token != tokens.refresh_token
    with pytest.raises(OAuthRefused):
        p.verify(tokens.access_token)
    assert run(p.load_refresh_token(client, tokens.refresh_token)) is None  # the replay
    with pytest.raises(OAuthRefused):
        p.verify(renewed.access_token)


def test_exchange_after_the_assistant_was_revoked_is_invalid_grant(tmp_path: Path) -> None:
    p = provider(tmp_path)
    client = registered(p)
    url = p.approve(consent(p, client), "gone", None)
    p.assistants.store.revoke("gone")  # type: ignore[attr-defined]
    code = run(p.load_authorization_code(client, code_of(url)))
    with pytest.raises(TokenError) as info:
        run(p.exchange_authorization_code(client, code))
    assert info.value.error == "invalid_grant"
