"""Principal resolution: bearer tokens kept as sha256 digests and mapped to principals, and the
resolution order (custom hook, fixed principal, token, local off-HTTP, anonymous on HTTP).
"""

from __future__ import annotations

import hashlib
import pickle
from types import SimpleNamespace

import pytest

from cloudg_nb.layer import Principal
from cloudg_nb.protocol import BearerTokens, PrincipalResolver, RequestInfo, parse_token_spec

TOKEN = "s3cret-token-value"
ALICE = Principal("alice", frozenset({"analyst", "default"}))


def test_tokens_are_stored_as_digests_only() -> None:
    tokens = BearerTokens({TOKEN: ALICE})
    dumped = pickle.dumps(tokens)
    assert TOKEN.encode() not in dumped
    assert hashlib.sha256(TOKEN.encode()).digest() in dumped


def test_lookup_maps_a_token_to_its_principal() -> None:
    tokens = BearerTokens({TOKEN: ALICE, "other-token": Principal("bob")})
    assert tokens.lookup(TOKEN) == ALICE
    assert tokens.lookup("other-token").id == "bob"


def test_unknown_or_near_miss_tokens_resolve_to_nobody() -> None:
    tokens = BearerTokens({TOKEN: ALICE})
    assert tokens.lookup(TOKEN[:-1]) is None
    assert tokens.lookup(TOKEN + "x") is None
    assert tokens.lookup("") is None


async def test_verify_token_carries_the_principal_but_not_the_token() -> None:
    access = await BearerTokens({TOKEN: ALICE}).verify_token(TOKEN)
    assert (access.client_id, access.scopes) == ("alice", ["analyst", "default"])
    assert access.token != TOKEN
    assert await BearerTokens({TOKEN: ALICE}).verify_token("wrong") is None


def test_token_spec_parses_roles_and_id() -> None:
    token, principal = parse_token_spec("abc:analyst,viewer:alice")
    assert token == "abc"
    assert principal == Principal("alice", frozenset({"analyst", "viewer"}))


def test_token_spec_without_roles_or_id_gets_defaults() -> None:
    _, principal = parse_token_spec("abc::")
    assert principal.roles == {"default"}
    assert principal.id.startswith("token-")


def test_malformed_token_spec_error_does_not_echo_the_token() -> None:
    with pytest.raises(ValueError) as caught:
        parse_token_spec("lonely-secret-token")
    assert "lonely-secret-token" not in str(caught.value)


def _http_info(**fields: object) -> RequestInfo:
    return RequestInfo(transport="http", **fields)  # type: ignore[arg-type]


def test_http_request_without_a_token_is_anonymous() -> None:
    assert PrincipalResolver().resolve(_http_info()) == Principal.anonymous()


def test_stdio_and_in_memory_requests_are_local() -> None:
    resolver = PrincipalResolver(transport="stdio")
    assert resolver(SimpleNamespace(request=None)) == Principal.local()
    assert PrincipalResolver()(SimpleNamespace(request=None)) == Principal.local()


async def test_token_principal_comes_from_the_access_token() -> None:
    access = await BearerTokens({TOKEN: ALICE}).verify_token(TOKEN)
    assert PrincipalResolver().resolve(_http_info(access_token=access)) == ALICE


async def test_fixed_principal_beats_the_token() -> None:
    access = await BearerTokens({TOKEN: ALICE}).verify_token(TOKEN)
    fixed = Principal("service")
    resolver = PrincipalResolver(principal=fixed)
    assert resolver.resolve(_http_info(access_token=access)) == fixed


def test_custom_resolver_wins_and_falls_back_when_it_declines_or_fails() -> None:
    carol = Principal("carol")

    def by_header(info: RequestInfo) -> Principal | None:
        if info.headers.get("x-fail"):
            raise RuntimeError("resolver bug")
        return carol if info.headers.get("x-user") == "carol" else None

    resolver = PrincipalResolver(custom=by_header)
    assert resolver.resolve(_http_info(headers={"x-user": "carol"})) == carol
    assert resolver.resolve(_http_info(headers={"x-user": "dave"})) == Principal.anonymous()
    assert resolver.resolve(_http_info(headers={"x-fail": "1"})) == Principal.anonymous()


def test_client_info_never_grants_roles() -> None:
    claims_admin = SimpleNamespace(
        request=SimpleNamespace(headers={}, scope={}),
        session=SimpleNamespace(client_params=SimpleNamespace(
            client_info=SimpleNamespace(name="admin", roles=["admin"]))),
    )
    assert PrincipalResolver()(claims_admin) == Principal.anonymous()
