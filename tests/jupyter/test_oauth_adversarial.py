"""Bad input to MCP authorization, on a real Jupyter server under a non-root base_url whose
origin root serves nothing (the path-appended discovery forms must suffice): wrong, replayed
or expired codes and tokens, wrong PKCE verifiers, unregistered redirect URIs, tokens for
another resource or server, revoked assistants, consent posts without XSRF or from an
assistant's credential. Each is refused with the error the RFCs name, and nothing is minted.
"""

from __future__ import annotations

import http.server
import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from tests.notebook.assistants import mint

from .oauth_client import (
    REDIRECT_URI,
    Analyst,
    MemoryStorage,
    form_consent,
    oauth_session,
    pkce,
    post_form,
    post_json,
    query_of,
    request,
)
from .server import JupyterServer, jupyter_server

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

BASE = "/lab/user/ana/"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("shared-data")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, data_dir: Path,
           ) -> Iterator[JupyterServer]:
    with jupyter_server(tmp_path_factory.mktemp("oauth-bad"), base_url=BASE,
                        other_extensions=False,
                        env={"JUPYTER_DATA_DIR": str(data_dir)},
                        extra_args=["--CloudGExtension.oauth_root_discovery=False"]) as s:
        yield s


@pytest.fixture(scope="module")
def analyst(server: JupyterServer) -> Analyst:
    return Analyst.login(server)


# -- the raw flow ------------------------------------------------------------------------------


def issuer(server: JupyterServer) -> str:
    return f"{server.url}cloudg/oauth"


def register(server: JupyterServer, redirect_uris: list[str] | None = None,
             ) -> tuple[int, dict[str, Any]]:
    return post_json(server, f"{issuer(server)}/register", {
        "client_name": "Raw Client", "redirect_uris": redirect_uris or [REDIRECT_URI],
        "grant_types": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_method": "none"})


def client_id(server: JupyterServer) -> str:
    status, body = register(server)
    assert status == 201, body
    return str(body["client_id"])


def authorize(server: JupyterServer, client: str, challenge: str, **params: str,
              ) -> tuple[int, dict[str, str], bytes]:
    query = {"response_type": "code", "client_id": client, "redirect_uri": REDIRECT_URI,
             "code_challenge": challenge, "code_challenge_method": "S256", "state": "st-1",
             "resource": server.endpoint, **params}
    return request(server, "GET", f"{issuer(server)}/authorize?{urlencode(query)}")


def consented_code(server: JupyterServer, analyst: Analyst, client: str, name: str,
                   ) -> tuple[str, str]:
    """The analyst allows a new assistant ``name``: (code, verifier)."""
    verifier, challenge = pkce()
    status, headers, _ = authorize(server, client, challenge)
    assert status == 302
    status, headers, body = analyst.post_form(headers["location"],
                                              {"decision": "allow", "name": name})
    assert status == 302, body[:300]
    landed = query_of(headers["location"])
    assert landed["state"] == "st-1"
    return landed["code"], verifier


def exchange(server: JupyterServer, client: str, code: str, verifier: str,
             **extra: str) -> tuple[int, dict[str, Any]]:
    return post_form(server, f"{issuer(server)}/token", {
        "grant_type": "authorization_code", "code": code, "code_verifier": verifier,
        "client_id": client, "redirect_uri": REDIRECT_URI, "resource": server.endpoint,
        **extra})


def refresh(server: JupyterServer, client: str, token: str) -> tuple[int, dict[str, Any]]:
    return post_form(server, f"{issuer(server)}/token", {
        "grant_type": "refresh_token", "refresh_token": token, "client_id": client})


def tokens(server: JupyterServer, analyst: Analyst, name: str) -> tuple[str, dict[str, Any]]:
    client = client_id(server)
    code, verifier = consented_code(server, analyst, client, name)
    status, body = exchange(server, client, code, verifier)
    assert status == 200, body
    return client, body


def use(server: JupyterServer, access: str) -> tuple[int, str]:
    """An MCP initialize with ``access``: (status, WWW-Authenticate)."""
    status, headers, _ = request(server, "POST", server.endpoint, json.dumps({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "1"}}}).encode(), {
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "Authorization": f"Bearer {access}"})
    return status, headers.get("www-authenticate", "")


def assistants(server: JupyterServer) -> set[str]:
    return {a["name"] for a in server.get_json(f"{server.url}cloudg/api/assistants")[1]
            ["assistants"]}


def store_file(data_dir: Path) -> Path:
    return data_dir / "cloudg" / "oauth.json"


# -- discovery without the origin's root -------------------------------------------------------


def test_the_sdk_client_connects_when_only_the_base_url_is_ours(server: JupyterServer,
                                                                analyst: Analyst) -> None:
    assert request(server, "GET", "/.well-known/oauth-protected-resource" + BASE
                   + "cloudg/mcp")[0] == 404
    with oauth_session(server.endpoint, form_consent(analyst, name="pathonly")) as session:
        assert session.call_tool("count_assets", {"group_by": "provider"}
                                 ).structured_content["total"] == 60


# -- codes -------------------------------------------------------------------------------------


def test_a_wrong_code_is_refused(server: JupyterServer) -> None:
    client = client_id(server)
    verifier, _ = pkce()
    status, body = exchange(server, client, "not-a-code-" + "x" * 30, verifier)
    assert (status, body["error"]) == (400, "invalid_grant")
    assert "access_token" not in body


def test_a_replayed_code_is_refused_and_ends_what_it_was_exchanged_for(
        server: JupyterServer, analyst: Analyst) -> None:
    client = client_id(server)
    code, verifier = consented_code(server, analyst, client, "replayed")
    status, first = exchange(server, client, code, verifier)
    assert status == 200 and use(server, first["access_token"])[0] == 200
    status, body = exchange(server, client, code, verifier)
    assert (status, body["error"]) == (400, "invalid_grant")
    assert "access_token" not in body
    assert use(server, first["access_token"])[0] == 401
    assert refresh(server, client, first["refresh_token"])[1]["error"] == "invalid_grant"


def test_a_wrong_pkce_verifier_is_refused_and_spends_the_code(server: JupyterServer,
                                                              analyst: Analyst) -> None:
    client = client_id(server)
    code, verifier = consented_code(server, analyst, client, "pkce")
    status, body = exchange(server, client, code, pkce()[0])
    assert (status, body["error"]) == (400, "invalid_grant")
    assert "access_token" not in body
    status, body = exchange(server, client, code, verifier)  # the right one, too late
    assert (status, body["error"]) == (400, "invalid_grant")


def test_a_code_of_another_client_is_refused(server: JupyterServer, analyst: Analyst) -> None:
    client = client_id(server)
    code, verifier = consented_code(server, analyst, client, "stolen")
    status, body = exchange(server, client_id(server), code, verifier)
    assert (status, body["error"]) == (400, "invalid_grant")


def test_a_plain_pkce_challenge_is_refused(server: JupyterServer) -> None:
    verifier, _ = pkce()
    status, headers, _ = authorize(server, client_id(server), verifier,
                                   code_challenge_method="plain")
    assert status == 302
    assert query_of(headers["location"])["error"] == "invalid_request"


def test_a_code_must_be_exchanged_with_its_redirect_uri(server: JupyterServer,
                                                        analyst: Analyst) -> None:
    client = client_id(server)
    code, verifier = consented_code(server, analyst, client, "moved")
    status, body = exchange(server, client, code, verifier,
                            redirect_uri="http://127.0.0.1:9/elsewhere")
    assert (status, body["error"]) == (400, "invalid_request")
    assert "access_token" not in body


# -- redirect URIs -----------------------------------------------------------------------------


@pytest.mark.parametrize("uri", ["http://evil.example.com/cb", "javascript:alert(1)",
                                 "file:///etc/passwd", "https://ok.example.com/cb#frag",
                                 "http://user:pw@127.0.0.1/cb"])
def test_registration_refuses_redirect_uris_that_are_not_https_or_loopback(
        server: JupyterServer, uri: str) -> None:
    status, body = register(server, [uri])
    assert status == 400
    assert body["error"] in ("invalid_redirect_uri", "invalid_client_metadata")
    assert "client_id" not in body


def test_an_unregistered_redirect_uri_is_refused_without_redirecting(
        server: JupyterServer, analyst: Analyst) -> None:
    before = json.loads(analyst.get(f"{server.url}cloudg/api/oauth/requests")[2])["requests"]
    _, challenge = pkce()
    status, headers, body = authorize(server, client_id(server), challenge,
                                      redirect_uri="http://127.0.0.1:8765/other")
    assert status == 400 and "location" not in headers
    assert json.loads(body)["error"] == "invalid_request"
    after = json.loads(analyst.get(f"{server.url}cloudg/api/oauth/requests")[2])["requests"]
    assert len(after) == len(before)


def test_a_loopback_redirect_uri_matches_on_any_port(server: JupyterServer) -> None:
    _, challenge = pkce()
    status, headers, _ = authorize(server, client_id(server), challenge,
                                   redirect_uri="http://127.0.0.1:40123/callback")
    assert status == 302
    assert "/cloudg/oauth/consent/" in headers["location"]


def test_a_registered_client_is_made_public_and_gets_no_secret(server: JupyterServer) -> None:
    status, body = post_json(server, f"{issuer(server)}/register", {
        "client_name": "Wants a secret", "redirect_uris": [REDIRECT_URI],
        "token_endpoint_auth_method": "client_secret_post"})
    assert status == 201
    assert body["token_endpoint_auth_method"] == "none"
    assert "client_secret" not in body


# -- resources and servers ---------------------------------------------------------------------


def test_authorization_for_another_resource_is_refused(server: JupyterServer) -> None:
    _, challenge = pkce()
    status, headers, _ = authorize(server, client_id(server), challenge,
                                   resource="https://elsewhere.example.com/mcp")
    assert status == 302
    landed = query_of(headers["location"])
    assert landed["error"] == "invalid_target" and "code" not in landed


def test_a_token_of_another_server_is_refused(server: JupyterServer, analyst: Analyst,
                                              data_dir: Path,
                                              tmp_path_factory: pytest.TempPathFactory) -> None:
    # Two servers sharing one Jupyter data dir share the grant file: a token names its server.
    _client, body = tokens(server, analyst, "onlyhere")
    with jupyter_server(tmp_path_factory.mktemp("other"), base_url=BASE,
                        other_extensions=False,
                        env={"JUPYTER_DATA_DIR": str(data_dir)}) as other:
        status, challenge = use(other, body["access_token"])
    assert status == 401 and 'error="invalid_token"' in challenge
    assert use(server, body["access_token"])[0] == 200


# -- tokens ------------------------------------------------------------------------------------


def _edit_grants(data_dir: Path, change: Any) -> None:
    path = store_file(data_dir)
    data = json.loads(path.read_text())
    for grant in data["grants"]:
        change(grant)
    path.write_text(json.dumps(data))


def test_an_expired_access_token_is_refused_and_the_refresh_token_renews_it(
        server: JupyterServer, analyst: Analyst, data_dir: Path) -> None:
    client, body = tokens(server, analyst, "expiring")
    _edit_grants(data_dir, lambda g: g.update(access_expires=1.0)
                 if g["assistant"] == "expiring" else None)
    status, challenge = use(server, body["access_token"])
    assert status == 401
    assert 'error="invalid_token"' in challenge and "expired" in challenge
    status, renewed = refresh(server, client, body["refresh_token"])
    assert status == 200 and use(server, renewed["access_token"])[0] == 200


def test_an_unknown_access_token_is_refused_with_invalid_token(server: JupyterServer) -> None:
    status, challenge = use(server, "cgat_oa_" + "A" * 43)
    assert status == 401
    assert 'error="invalid_token"' in challenge and "resource_metadata=" in challenge


def test_a_spent_refresh_token_is_refused_and_ends_the_grant(server: JupyterServer,
                                                             analyst: Analyst) -> None:
    client, body = tokens(server, analyst, "rotated")
    status, renewed = refresh(server, client, body["refresh_token"])
    assert status == 200 and renewed["refresh_token"] != body["refresh_token"]
    status, replay = refresh(server, client, body["refresh_token"])
    assert (status, replay["error"]) == (400, "invalid_grant")
    # A stolen refresh token was used by someone: neither holder keeps access.
    assert use(server, renewed["access_token"])[0] == 401
    assert refresh(server, client, renewed["refresh_token"])[1]["error"] == "invalid_grant"


def test_a_refresh_token_of_another_client_is_refused(server: JupyterServer,
                                                      analyst: Analyst) -> None:
    _client, body = tokens(server, analyst, "otherclient")
    status, replay = refresh(server, client_id(server), body["refresh_token"])
    assert (status, replay["error"]) == (400, "invalid_grant")


def test_the_revocation_endpoint_ends_access_and_refresh_tokens(server: JupyterServer,
                                                                analyst: Analyst) -> None:
    client, body = tokens(server, analyst, "selfrevoke")
    status, _ = post_form(server, f"{issuer(server)}/revoke",
                          {"token": body["refresh_token"], "client_id": client})
    assert status == 200
    assert use(server, body["access_token"])[0] == 401
    assert refresh(server, client, body["refresh_token"])[1]["error"] == "invalid_grant"


def test_an_access_token_opens_no_other_jupyter_route(server: JupyterServer,
                                                      analyst: Analyst) -> None:
    _client, body = tokens(server, analyst, "scoped")
    for path in ("api/contents", "api/kernels", "cloudg/api/assistants", "cloudg/api/activity"):
        status, _, _ = request(server, "GET", f"{server.url}{path}",
                               headers={"Authorization": f"Bearer {body['access_token']}"})
        assert status == 403, path


def test_tokens_are_stored_as_digests_and_never_logged(server: JupyterServer,
                                                       analyst: Analyst, data_dir: Path) -> None:
    client, body = tokens(server, analyst, "secretive")
    _, renewed = refresh(server, client, body["refresh_token"])
    stored = store_file(data_dir).read_text()
    log = server.log()
    for secret in (body["access_token"], body["refresh_token"], renewed["access_token"],
                   renewed["refresh_token"]):
        assert secret not in stored and secret not in log
        assert secret[8:20] not in stored
    assert oct(store_file(data_dir).stat().st_mode & 0o777) == "0o600"


# -- the consent page --------------------------------------------------------------------------


def _waiting_consent(server: JupyterServer) -> str:
    _, challenge = pkce()
    status, headers, _ = authorize(server, client_id(server), challenge)
    assert status == 302
    return headers["location"]


def test_a_consent_post_without_xsrf_is_refused_and_creates_nothing(
        server: JupyterServer, analyst: Analyst) -> None:
    page = _waiting_consent(server)
    status, headers, _ = analyst.post_form(page, {"decision": "allow", "name": "noxsrf"},
                                           xsrf=False)
    assert status == 403 and "location" not in headers
    assert "noxsrf" not in assistants(server)
    assert analyst.get(page)[0] == 200  # still waiting for a real answer


@pytest.mark.parametrize("kind", ["minted", "oauth"])
def test_consent_from_an_assistant_credential_is_refused(server: JupyterServer,
                                                         analyst: Analyst, kind: str) -> None:
    credential = (mint(server, f"consenter-{kind}") if kind == "minted"
                  else tokens(server, analyst, f"consenter-{kind}")[1]["access_token"])
    page = _waiting_consent(server)
    bearer = {"Authorization": f"Bearer {credential}"}
    assert request(server, "GET", page, headers=bearer)[0] == 403
    status, headers, _ = request(server, "POST", page, urlencode(
        {"decision": "allow", "name": f"via-{kind}"}).encode(),
        {**bearer, "Content-Type": "application/x-www-form-urlencoded"})
    assert status == 403 and "location" not in headers
    # with the analyst's cookie beside it, the assistant credential still decides nothing
    status, _, _ = analyst.post_form(page, {"decision": "allow", "name": f"via2-{kind}"},
                                     headers=bearer)
    assert status == 403
    assert not {f"via-{kind}", f"via2-{kind}"} & assistants(server)


def test_the_consent_page_needs_the_analysts_login(server: JupyterServer) -> None:
    page = _waiting_consent(server)
    status, headers, _ = request(server, "GET", page)
    assert status in (302, 403)
    assert "consent" not in headers.get("location", "").split("?")[0]


def test_the_consent_page_cannot_be_framed_and_only_posts_to_itself_or_the_client(
        server: JupyterServer, analyst: Analyst) -> None:
    page = _waiting_consent(server)
    status, headers, _ = analyst.get(page)
    assert status == 200
    csp = headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp
    assert re.search(r"form-action 'self' http://127\.0\.0\.1:8765(;|$)", csp)


def test_a_taken_name_is_refused_and_the_request_keeps_waiting(server: JupyterServer,
                                                               analyst: Analyst) -> None:
    mint(server, "taken")
    page = _waiting_consent(server)
    status, headers, html = analyst.post_form(page, {"decision": "allow", "name": "taken"})
    assert status == 400 and "location" not in headers
    assert b"exists already" in html
    status, headers, _ = analyst.post_form(page, {"decision": "allow", "name": "nottaken"})
    assert status == 302 and "code" in query_of(headers["location"])


def test_an_answered_request_cannot_be_answered_again(server: JupyterServer,
                                                      analyst: Analyst) -> None:
    page = _waiting_consent(server)
    assert analyst.post_form(page, {"decision": "allow", "name": "once"})[0] == 302
    status, headers, _ = analyst.post_form(page, {"decision": "allow", "name": "twice"})
    assert status == 404 and "location" not in headers
    assert "twice" not in assistants(server)


def test_oauth_off_keeps_the_old_answer(tmp_path_factory: pytest.TempPathFactory) -> None:
    with jupyter_server(tmp_path_factory.mktemp("nooauth"), base_url=BASE,
                        other_extensions=False,
                        extra_args=["--CloudGExtension.oauth=False"]) as plain:
        status, headers, _ = request(plain, "POST", plain.endpoint, b"{}",
                                     {"Content-Type": "application/json"})
        assert status == 403 and "www-authenticate" not in headers
        assert request(plain, "GET", f"{plain.url}cloudg/oauth/.well-known/"
                       "openid-configuration")[0] == 404


def test_storage_of_a_connected_client_holds_only_its_own_tokens(server: JupyterServer,
                                                                 analyst: Analyst) -> None:
    storage = MemoryStorage()
    with oauth_session(server.endpoint, form_consent(analyst, name="stored"),
                       storage=storage) as session:
        session.list_tools()
    assert storage.tokens is not None and storage.tokens.access_token.startswith("cgat_oa_")
    assert storage.tokens.expires_in == 3600


# -- Client ID Metadata Documents --------------------------------------------------------------


@pytest.fixture(scope="module")
def documents() -> Iterator[tuple[str, dict[str, bytes]]]:
    """A loopback web server publishing client metadata documents: (base URL, path -> body)."""
    served: dict[str, bytes] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = served.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body or b"{}")

        def log_message(self, *args: object) -> None:
            return None

    httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}", served
    finally:
        httpd.shutdown()
        httpd.server_close()


def publish(documents: tuple[str, dict[str, bytes]], path: str, **fields: Any) -> str:
    base, served = documents
    url = base + path
    served[path] = json.dumps({"client_id": url, "client_name": "Doc Client",
                               "redirect_uris": [REDIRECT_URI], **fields}).encode()
    return url


def test_a_client_id_metadata_document_stands_in_for_registration(
        server: JupyterServer, analyst: Analyst,
        documents: tuple[str, dict[str, bytes]]) -> None:
    meta = json.loads(request(server, "GET", f"{issuer(server)}/.well-known/"
                              "openid-configuration")[2])
    assert meta["client_id_metadata_document_supported"] is True
    client = publish(documents, "/good/client.json")
    verifier, challenge = pkce()
    status, headers, _ = authorize(server, client, challenge)
    assert status == 302
    page = headers["location"]
    assert b"Doc Client" in analyst.get(page)[2]
    status, headers, _ = analyst.post_form(page, {"decision": "allow", "name": "documented"})
    assert status == 302
    status, body = exchange(server, client, query_of(headers["location"])["code"], verifier)
    assert status == 200 and use(server, body["access_token"])[0] == 200


@pytest.mark.parametrize(("path", "fields"), [
    ("/other/client.json", {"client_id": "https://someone-else.example.com/client.json"}),
    ("/foreign/client.json", {"redirect_uris": ["http://evil.example.com/cb"]}),
    ("/big/client.json", {"padding": "x" * 40_000}),
])
def test_a_metadata_document_that_does_not_hold_up_is_refused(
        server: JupyterServer, analyst: Analyst, documents: tuple[str, dict[str, bytes]],
        path: str, fields: dict[str, Any]) -> None:
    before = len(json.loads(analyst.get(f"{server.url}cloudg/api/oauth/requests")[2])
                 ["requests"])
    client = publish(documents, path, **fields)
    _, challenge = pkce()
    status, headers, _ = authorize(server, client, challenge)
    assert status == 400 and "location" not in headers
    assert len(json.loads(analyst.get(f"{server.url}cloudg/api/oauth/requests")[2])
               ["requests"]) == before


def test_a_missing_metadata_document_is_refused(server: JupyterServer,
                                                documents: tuple[str, dict[str, bytes]]) -> None:
    _, challenge = pkce()
    status, _, _ = authorize(server, documents[0] + "/nothing/here.json", challenge)
    assert status == 400
