"""MCP authorization on a real Jupyter server under a non-root base_url: the official Python
SDK client goes from the bare endpoint URL to a tool call (discovery, registration, the
analyst's consent, PKCE, tokens), acting as the assistant the analyst named; its tokens
refresh (rotating) and end when the analyst revokes the assistant.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from .event_stream import subscribe
from .oauth_client import (
    Analyst,
    MemoryStorage,
    consent_page_of,
    form_consent,
    oauth_session,
    post_form,
    request,
)
from .server import JupyterServer, jupyter_server

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

BASE = "/jp/"
#: Short, so a session outlives its first access token and the client must refresh.
LIFETIME = 4


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    with jupyter_server(tmp_path_factory.mktemp("oauth-flow"), base_url=BASE,
                        other_extensions=False, extra_args=[
                            f"--CloudGExtension.oauth_access_token_lifetime={LIFETIME}"]) as s:
        yield s


@pytest.fixture(scope="module")
def analyst(server: JupyterServer) -> Analyst:
    return Analyst.login(server)


def _json(server: JupyterServer, url: str) -> dict:
    status, _, body = request(server, "GET", url)
    assert status == 200, (status, body[:200])
    return json.loads(body)


def _assistants(server: JupyterServer) -> dict[str, dict]:
    status, body = server.get_json(f"{server.url}cloudg/api/assistants")
    assert status == 200
    return {a["name"]: a for a in body["assistants"]}


# -- discovery ------------------------------------------------------------------------------


def test_an_unauthenticated_request_points_at_the_resource_metadata(server: JupyterServer,
                                                                     ) -> None:
    status, headers, _ = request(server, "POST", server.endpoint, b"{}",
                                 {"Content-Type": "application/json"})
    assert status == 401
    assert headers["www-authenticate"] == (
        f'Bearer resource_metadata="{server.url}cloudg/.well-known/oauth-protected-resource/mcp"')


def test_the_resource_metadata_names_the_endpoint_and_its_issuer(server: JupyterServer) -> None:
    meta = _json(server, f"{server.url}cloudg/.well-known/oauth-protected-resource/mcp")
    assert meta["resource"] == server.endpoint
    assert meta["authorization_servers"] == [f"{server.url}cloudg/oauth"]


@pytest.mark.parametrize("form", ["{issuer}/.well-known/openid-configuration",
                                  "{issuer}/.well-known/oauth-authorization-server"])
def test_issuer_metadata_is_served_under_the_base_url(server: JupyterServer, form: str) -> None:
    issuer = f"{server.url}cloudg/oauth"
    meta = _json(server, form.format(issuer=issuer))
    assert meta["issuer"] == issuer
    assert meta["authorization_endpoint"] == f"{issuer}/authorize"
    assert meta["code_challenge_methods_supported"] == ["S256"]
    assert meta["registration_endpoint"] == f"{issuer}/register"


@pytest.mark.parametrize("path", [
    "/.well-known/oauth-authorization-server/jp/cloudg/oauth",
    "/.well-known/openid-configuration/jp/cloudg/oauth",
    "/.well-known/oauth-protected-resource/jp/cloudg/mcp",
])
def test_the_root_forms_are_served_when_the_server_owns_its_origin(server: JupyterServer,
                                                                    path: str) -> None:
    status, _, body = request(server, "GET", path)
    assert status == 200
    assert json.loads(body).get("issuer", json.loads(body).get("resource")).startswith(
        server.url)


# -- the whole flow ------------------------------------------------------------------------


@pytest.mark.parametrize("era", ["2025", "2026"])
def test_the_sdk_client_goes_from_the_bare_url_to_a_tool_call_as_the_named_assistant(
        server: JupyterServer, analyst: Analyst, era: str) -> None:
    name = f"flow-{era}"
    with oauth_session(server.endpoint, form_consent(analyst, name=name), era=era) as session:
        result = session.call_tool("count_assets", {"group_by": "provider"})
    assert result.structured_content["total"] == 60
    feed = server.get_json(f"{server.url}cloudg/api/activity")[1]["entries"]
    assert any(e["principal"] == f"assistant:{name}" and e["name"] == "count_assets"
               and e["outcome"] == "ok" for e in feed)


def test_allow_creates_an_assistant_in_the_credential_store(server: JupyterServer,
                                                            analyst: Analyst) -> None:
    with oauth_session(server.endpoint, form_consent(analyst, name="listed", profile="strict"),
                       client_name="Listed Client") as session:
        session.list_tools()
    listed = _assistants(server)["listed"]
    assert listed["principal"] == "assistant:listed"
    assert listed["profile"] == "strict"
    assert listed["client"] == "Listed Client"


def test_the_consent_page_shows_the_client_and_where_its_answer_goes(
        server: JupyterServer, analyst: Analyst) -> None:
    seen: dict[str, bytes] = {}

    def show_then_deny(authorization_url: str) -> str:
        page = consent_page_of(server, authorization_url)
        seen["page"] = analyst.get(page)[2]
        _, headers, _ = analyst.post_form(page, {"decision": "deny"})
        return headers["location"]

    with pytest.raises(ExceptionGroup), oauth_session(  # the client is told access_denied
            server.endpoint, show_then_deny, client_name="Shown <Client>"):
        pass
    assert b"Shown &lt;Client&gt;" in seen["page"]
    assert b"127.0.0.1 (this computer)" in seen["page"]
    assert b'id="cloudg-consent-allow"' in seen["page"]


def test_deny_answers_access_denied_and_creates_no_assistant(server: JupyterServer,
                                                             analyst: Analyst) -> None:
    landed: list[str] = []

    def deny(url: str) -> str:
        landed.append(form_consent(analyst, decision="deny", name="denied")(url))
        return landed[-1]

    with pytest.raises(ExceptionGroup), oauth_session(server.endpoint, deny):
        pass
    assert "error=access_denied" in landed[0]
    assert "code=" not in landed[0]
    assert "denied" not in _assistants(server)


def test_waiting_requests_are_listed_for_the_analyst(server: JupyterServer,
                                                     analyst: Analyst) -> None:
    listed: list[dict] = []

    def look(url: str) -> str:
        page = consent_page_of(server, url)
        listed.extend(json.loads(analyst.get(f"{server.url}cloudg/api/oauth/requests")[2])
                      ["requests"])
        _, headers, _ = analyst.post_form(page, {"decision": "allow", "name": "looked"})
        return headers["location"]

    with oauth_session(server.endpoint, look, client_name="Waiting Client") as session:
        session.list_tools()
    mine = [r for r in listed if r["client"] == "Waiting Client"]
    assert mine and mine[0]["page"].startswith(f"{server.url}cloudg/oauth/consent/")
    assert mine[0]["redirect_host"] == "127.0.0.1 (this computer)"


# -- refresh and revocation ----------------------------------------------------------------


def test_an_expired_access_token_is_refreshed_and_the_refresh_token_rotates(
        server: JupyterServer, analyst: Analyst) -> None:
    storage = MemoryStorage()
    with oauth_session(server.endpoint, form_consent(analyst, name="refresher"),
                       storage=storage) as session:
        session.call_tool("count_assets", {"group_by": "provider"})
        time.sleep(LIFETIME + 1.5)
        result = session.call_tool("count_assets", {"group_by": "provider"})
    assert result.structured_content["total"] == 60
    first, second = storage.history[0], storage.history[-1]
    assert len(storage.history) >= 2
    assert first.access_token != second.access_token
    assert first.refresh_token != second.refresh_token
    client_id = storage.client_info.client_id  # type: ignore[union-attr]
    status, body = post_form(server, f"{server.url}cloudg/oauth/token", {
        "grant_type": "refresh_token", "refresh_token": first.refresh_token or "",
        "client_id": client_id})
    assert (status, body["error"]) == (400, "invalid_grant")


def test_revoking_the_assistant_ends_its_access_and_refresh_tokens_at_once(
        server: JupyterServer, analyst: Analyst) -> None:
    storage = MemoryStorage()
    with oauth_session(server.endpoint, form_consent(analyst, name="revoked"),
                       storage=storage) as session:
        session.list_tools()
    tokens = storage.tokens
    assert tokens is not None
    status, _, _ = request(server, "DELETE", f"{server.url}cloudg/api/assistants/revoked",
                           headers={"Authorization": f"token {server.token}"})
    assert status == 200
    status, headers, _ = request(server, "POST", server.endpoint, b"{}", {
        "Content-Type": "application/json", "Authorization": f"Bearer {tokens.access_token}"})
    assert status == 401
    assert 'error="invalid_token"' in headers["www-authenticate"]
    status, body = post_form(server, f"{server.url}cloudg/oauth/token", {
        "grant_type": "refresh_token", "refresh_token": tokens.refresh_token or "",
        "client_id": storage.client_info.client_id})  # type: ignore[union-attr]
    assert (status, body["error"]) == (400, "invalid_grant")


# -- the analyst's front ends ----------------------------------------------------------------


def test_a_connection_request_and_its_answer_are_announced_on_the_event_bus(
        server: JupyterServer, analyst: Analyst) -> None:
    schema = "https://cloudg-nb.dev/events/connections/v1"
    with subscribe(server) as stream:
        storage = MemoryStorage()
        with oauth_session(server.endpoint, form_consent(analyst, name="announced"),
                           storage=storage, client_name="Announced Client") as session:
            session.list_tools()
        requested = stream.wait_for(lambda e: e.get("schema_id") == schema
                                    and e.get("action") == "requested"
                                    and e.get("client") == "Announced Client",
                                    what="the request announced")
        allowed = stream.wait_for(lambda e: e.get("schema_id") == schema
                                  and e.get("action") == "allowed"
                                  and e.get("id") == requested["id"], what="the answer")
    assert requested["redirect_host"] == "127.0.0.1 (this computer)"
    assert allowed["pending"] == 0
    tokens = storage.tokens
    assert tokens is not None
    assert not any(tokens.access_token in raw or (tokens.refresh_token or "-") in raw
                   for raw in stream.raw)
