"""PreregisteredClients over a real grant file (no server): a client the owner registers ahead
is one the provider knows (public, PKCE, loopback redirect URIs on any port, https exactly);
bad ids, names and redirect URIs are refused saying what to change without repeating them;
an id is registered once; removing the client makes the provider forget it and ends its
grants."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp.shared.auth import InvalidRedirectUriError
from pydantic import AnyUrl

from cloudg_nb.protocol.oauth_clients import ClientRefused, PreregisteredClients

from .test_oauth_provider import REDIRECT, code_of, consent, provider, run


def clients(tmp_path: Path) -> PreregisteredClients:
    return PreregisteredClients(provider(tmp_path))


def refusal(registry: PreregisteredClients, client_id: Any = "tool-x", name: Any = None,
            uris: Any = None) -> ClientRefused:
    with pytest.raises(ClientRefused) as caught:
        registry.add(client_id, name, [REDIRECT] if uris is None else uris)
    return caught.value


def test_a_client_registered_ahead_is_a_public_client_the_provider_knows(
        tmp_path: Path) -> None:
    registry = clients(tmp_path)
    shown = registry.add("tool-x", "Tool X", ["http://127.0.0.1/callback",
                                              "https://tool.example.com/cb"])
    assert shown["client_id"] == "tool-x" and shown["name"] == "Tool X"
    client = run(registry.provider.get_client("tool-x"))
    assert client is not None and client.client_name == "Tool X"
    assert client.token_endpoint_auth_method == "none" and client.client_secret is None
    assert client.validate_redirect_uri(AnyUrl("http://127.0.0.1:51234/callback"))
    assert client.validate_redirect_uri(AnyUrl("https://tool.example.com/cb"))
    with pytest.raises(InvalidRedirectUriError):
        client.validate_redirect_uri(AnyUrl("https://tool.example.com/other"))
    assert registry.listing() == [shown]


def test_the_name_defaults_to_the_client_id(tmp_path: Path) -> None:
    assert clients(tmp_path).add("tool-y", None, [REDIRECT])["name"] == "tool-y"


@pytest.mark.parametrize("client_id", [
    "", " tool", "tool x", "https://tool.example.com/client.json", "-tool", "t" * 129,
    "tool\n", "tööl", 7, None, ["tool"]])
def test_a_client_id_outside_the_allowed_characters_is_refused(
        tmp_path: Path, client_id: Any) -> None:
    refused = refusal(clients(tmp_path), client_id=client_id)
    assert refused.status == 400 and refused.field == "client_id"
    assert "letters, digits" in str(refused)


@pytest.mark.parametrize("uri", [
    "http://tool.example.com/callback", "http://10.0.0.5:8080/cb", "https://tool.example.com/cb#x",
    "https://user:pw@tool.example.com/cb", "ftp://127.0.0.1/cb", "javascript:alert(1)",
    "not a url", "https:///cb", "https://" + "a" * 2000 + ".example.com/"])
def test_a_redirect_uri_that_is_not_https_or_loopback_is_refused_without_repeating_it(
        tmp_path: Path, uri: str) -> None:
    registry = clients(tmp_path)
    refused = refusal(registry, uris=[REDIRECT, uri])
    assert refused.status == 400 and refused.field == "redirect_uris"
    assert "Redirect URI 2 " in str(refused) and "loopback" in str(refused)
    assert uri not in str(refused)
    assert registry.listing() == [] and run(registry.provider.get_client("tool-x")) is None


@pytest.mark.parametrize("uris", [[], "http://127.0.0.1/cb", [7], None, [REDIRECT, None],
                                  [f"http://127.0.0.1/cb{n}" for n in range(11)]])
def test_redirect_uris_must_be_a_short_list_of_urls(tmp_path: Path, uris: Any) -> None:
    registry = clients(tmp_path)
    with pytest.raises(ClientRefused) as caught:
        registry.add("tool-x", None, uris)
    assert caught.value.field == "redirect_uris"


@pytest.mark.parametrize("name", ["x" * 81, "bad\x00name", "line\nbreak", "   ", 7])
def test_a_name_that_is_not_short_printable_text_is_refused(tmp_path: Path, name: Any) -> None:
    refused = refusal(clients(tmp_path), name=name)
    assert refused.field == "name"


def test_an_id_is_registered_once(tmp_path: Path) -> None:
    registry = clients(tmp_path)
    registry.add("tool-x", "First", [REDIRECT])
    refused = refusal(registry, name="Second")
    assert refused.status == 409 and "registered already" in str(refused)
    assert [c["name"] for c in registry.listing()] == ["First"]


def test_removing_a_client_forgets_it_and_ends_the_sign_ins_made_through_it(
        tmp_path: Path) -> None:
    registry = clients(tmp_path)
    registry.add("tool-x", "Tool X", [REDIRECT])
    p = registry.provider
    client = run(p.get_client("tool-x"))
    assert client is not None
    code = run(p.load_authorization_code(client, code_of(p.approve(
        consent(p, client), "tool-bot", None))))
    tokens = run(p.exchange_authorization_code(client, code))
    assert registry.listing()[0]["assistants"] == ["tool-bot"]
    removed = registry.remove("tool-x")
    assert removed["grants_ended"] == 1 and removed["assistants"] == ["tool-bot"]
    assert run(p.get_client("tool-x")) is None
    assert run(p.load_access_token(tokens.access_token)) is None
    assert registry.listing() == []


def test_removing_an_unknown_or_dynamically_registered_client_is_not_found(
        tmp_path: Path) -> None:
    registry = clients(tmp_path)
    registry.provider.store.add_client("dcr-1", registry.provider.assistants.server,
                                       {"client_id": "dcr-1", "redirect_uris": [REDIRECT]})
    for client_id in ("nobody", "dcr-1"):
        with pytest.raises(ClientRefused) as caught:
            registry.remove(client_id)
        assert caught.value.status == 404
    assert registry.provider.store.client("dcr-1", registry.provider.assistants.server)
