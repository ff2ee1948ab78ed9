"""OAuth clients the analyst registers ahead (issue 39 item 2: for clients that cannot register
dynamically), on a real Jupyter server under a non-root base_url: the official MCP Python SDK
client given the pre-registered client_id connects without registering; ``cloudg-nb
oauth-clients`` adds, lists and removes; only the analyst registers (not an assistant, not a
cross-site post); bad ids and redirect URIs, a taken id, a redirect URI not registered, and a
dynamic registration reaching for a registered id are refused; removing a client stops new
authorizations and ends the tokens issued through it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from mcp.shared.auth import OAuthClientInformationFull

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
from .oversight_client import BASE, api
from .server import JupyterServer, jupyter_server
from .test_assistants import bearer, mint
from .test_framing_adversarial import assert_not_frameable

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

#: Registered without a port: a loopback redirect URI matches on any (RFC 8252 §7.3).
LOOPBACK = "http://127.0.0.1/callback"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("oauth-clients-data")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, data_dir: Path,
           ) -> Iterator[JupyterServer]:
    with jupyter_server(tmp_path_factory.mktemp("oauth-clients"), base_url=BASE,
                        other_extensions=False,
                        env={"JUPYTER_DATA_DIR": str(data_dir)}) as s:
        yield s


@pytest.fixture(scope="module")
def analyst(server: JupyterServer) -> Analyst:
    return Analyst.login(server)


def add(server: JupyterServer, client_id: Any, redirect_uris: Any = None, name: Any = None,
        headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    """POST cloudg/api/oauth/clients (as the owner, with the server token, by default)."""
    body = {"client_id": client_id, "redirect_uris": redirect_uris or [LOOPBACK],
            **({"name": name} if name is not None else {})}
    status, _, answer = api(server, "POST", "oauth/clients", body, headers=headers)
    return status, answer


def listed(server: JupyterServer) -> dict[str, dict[str, Any]]:
    status, _, body = api(server, "GET", "oauth/clients")
    assert status == 200, body
    return {c["client_id"]: c for c in body["clients"]}


def issuer(server: JupyterServer) -> str:
    return f"{server.url}cloudg/oauth"


def authorize(server: JupyterServer, client_id: str, redirect_uri: str = REDIRECT_URI,
              ) -> tuple[int, dict[str, str], bytes]:
    _, challenge = pkce()
    query = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri,
             "code_challenge": challenge, "code_challenge_method": "S256", "state": "st",
             "resource": server.endpoint}
    return request(server, "GET", f"{issuer(server)}/authorize?{urlencode(query)}")


def waiting_requests(analyst: Analyst) -> int:
    status, _, body = analyst.get(f"{analyst.server.url}cloudg/api/oauth/requests")
    assert status == 200
    return len(json.loads(body)["requests"])


def preregistered(client_id: str, redirect_uri: str = REDIRECT_URI,
                  ) -> MemoryStorage:
    """A client's storage holding the pre-registered client (what its configuration says)."""
    return MemoryStorage(client_info=OAuthClientInformationFull(
        client_id=client_id, redirect_uris=[redirect_uri],  # type: ignore[list-item]
        token_endpoint_auth_method="none"))


def stored_clients(data_dir: Path) -> set[str]:
    return set(json.loads((data_dir / "cloudg" / "oauth.json").read_text())["clients"])


def cli(server: JupyterServer, *args: str, named: bool = True,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``cloudg-nb ARGS --url URL --token TOKEN`` as the analyst runs it (``named=False``:
    without them, the server found by discovery)."""
    where = ["--url", server.url, "--token", server.token] if named else []
    return subprocess.run(
        [sys.executable, "-m", "cloudg_nb", *args, *where], cwd=server.root_dir,
        env=env or server.env, capture_output=True, text=True, timeout=120)


# -- the flow ----------------------------------------------------------------------------------


def test_the_sdk_client_connects_with_a_client_registered_ahead_and_registers_nothing(
        server: JupyterServer, analyst: Analyst, data_dir: Path) -> None:
    status, body = add(server, "desk-tool", name="Desk Tool")
    assert status == 201, body
    known = stored_clients(data_dir)
    assert body["client"]["redirect_uris"] == [LOOPBACK]
    assert body["endpoint"] == server.endpoint
    storage = preregistered("desk-tool")
    seen: list[str] = []

    def consent(authorization_url: str) -> str:
        seen.append(authorization_url)
        return form_consent(analyst, name="desk-bot")(authorization_url)

    with oauth_session(server.endpoint, consent, storage=storage) as session:
        result = session.call_tool("count_assets", {"group_by": "provider"})
    assert result.structured_content["total"] == 60
    assert query_of(seen[0])["client_id"] == "desk-tool"
    assert storage.client_info is not None and storage.client_info.client_id == "desk-tool"
    assert stored_clients(data_dir) == known  # no dynamic registration happened
    assert listed(server)["desk-tool"]["assistants"] == ["desk-bot"]
    feed = server.get_json(f"{server.url}cloudg/api/activity")[1]["entries"]
    assert any(e["principal"] == "assistant:desk-bot" and e["name"] == "count_assets"
               for e in feed)


def test_a_client_registered_ahead_renews_its_tokens_with_its_refresh_token(
        server: JupyterServer, analyst: Analyst) -> None:
    assert add(server, "renew-tool")[0] == 201
    storage = preregistered("renew-tool")
    with oauth_session(server.endpoint, form_consent(analyst, name="renew-bot"),
                       storage=storage) as session:
        session.list_tools()
    assert storage.tokens is not None and storage.tokens.refresh_token
    status, renewed = post_form(server, f"{issuer(server)}/token", {
        "grant_type": "refresh_token", "refresh_token": storage.tokens.refresh_token,
        "client_id": "renew-tool"})
    assert status == 200 and renewed["access_token"] != storage.tokens.access_token
    used = request(server, "POST", server.endpoint, b"{}", {
        "Content-Type": "application/json", **bearer(storage.tokens.access_token)})
    assert used[0] == 401  # the old access token ended with the rotation
    status, other = post_form(server, f"{issuer(server)}/token", {
        "grant_type": "refresh_token", "refresh_token": renewed["refresh_token"],
        "client_id": "desk-tool"})
    assert status in (400, 401) and "access_token" not in other  # not another client's


def test_the_consent_page_names_the_client_as_registered(server: JupyterServer,
                                                         analyst: Analyst) -> None:
    assert add(server, "named-tool", name="Named Tool <b>")[0] == 201
    status, headers, _ = authorize(server, "named-tool")
    assert status == 302
    page = analyst.get(headers["location"])[2].decode()
    assert "Named Tool &lt;b&gt;" in page and "<b>Named Tool" not in page


# -- the command -------------------------------------------------------------------------------


def test_the_cli_adds_lists_and_removes_a_client(server: JupyterServer) -> None:
    added = cli(server, "oauth-clients", "add", "cli-tool", "--name", "CLI Tool",
                "--redirect-uri", LOOPBACK, "--redirect-uri", "https://cli.example.com/cb")
    assert added.returncode == 0, added.stderr
    assert "registered OAuth client cli-tool (CLI Tool)" in added.stdout
    assert server.endpoint in added.stdout and server.token not in added.stdout
    shown = json.loads(cli(server, "oauth-clients", "list", "--json").stdout)
    (entry,) = [c for c in shown["clients"] if c["client_id"] == "cli-tool"]
    assert entry["redirect_uris"] == [LOOPBACK, "https://cli.example.com/cb"]
    table = cli(server, "oauth-clients", "list").stdout
    assert "cli-tool  (CLI Tool; registered " in table and "redirect: " + LOOPBACK in table
    removed = cli(server, "oauth-clients", "remove", "cli-tool")
    assert removed.returncode == 0, removed.stderr
    assert "removed OAuth client cli-tool" in removed.stdout
    assert "cli-tool" not in listed(server)


def test_the_cli_says_what_is_wrong_with_a_refused_client(server: JupyterServer) -> None:
    bad = cli(server, "oauth-clients", "add", "cli-bad", "--redirect-uri",
              "http://cli.example.com/cb")
    assert bad.returncode == 2
    assert "loopback" in bad.stderr and "http://cli.example.com/cb" not in bad.stderr
    assert cli(server, "oauth-clients", "add", "cli-twice", "--redirect-uri",
               LOOPBACK).returncode == 0
    twice = cli(server, "oauth-clients", "add", "cli-twice", "--redirect-uri", LOOPBACK)
    assert twice.returncode == 2 and "registered already" in twice.stderr
    gone = cli(server, "oauth-clients", "remove", "cli-nobody")
    assert gone.returncode == 2 and "oauth-clients list" in gone.stderr


def test_the_cli_finds_the_running_server_without_url_or_token(server: JupyterServer) -> None:
    env = {k: v for k, v in server.env.items()
           if not k.startswith(("CLOUDG_MCP_", "JUPYTERHUB_")) and k != "JUPYTER_TOKEN"}
    added = cli(server, "oauth-clients", "add", "found-tool", "--redirect-uri", LOOPBACK,
                named=False, env=env)
    assert added.returncode == 0, added.stderr
    assert "found-tool" in listed(server)


def test_the_cli_says_when_no_server_runs(server: JupyterServer, tmp_path: Path) -> None:
    env = {k: v for k, v in server.env.items()
           if not k.startswith(("CLOUDG_MCP_", "JUPYTERHUB_")) and k != "JUPYTER_TOKEN"}
    env["JUPYTER_RUNTIME_DIR"] = str(tmp_path)  # no server files
    ran = cli(server, "oauth-clients", "list", named=False, env=env)
    assert ran.returncode == 2 and "--url" in ran.stderr


def test_the_cli_says_when_the_server_has_oauth_off(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    with jupyter_server(tmp_path_factory.mktemp("no-oauth"), base_url=BASE,
                        other_extensions=False,
                        extra_args=["--CloudGExtension.oauth=False"]) as plain:
        ran = cli(plain, "oauth-clients", "add", "off-tool", "--redirect-uri", LOOPBACK)
    assert ran.returncode == 2
    assert "OAuth is off there (CloudGExtension.oauth = False)" in ran.stderr


# -- bad registrations -------------------------------------------------------------------------


@pytest.mark.parametrize("uri", [
    "http://tool.example.com/callback", "http://192.168.1.20:8080/cb",
    "https://tool.example.com/cb#frag", "https://me:pw@tool.example.com/cb", "file:///tmp/cb"])
def test_a_redirect_uri_that_is_not_https_or_loopback_is_refused(server: JupyterServer,
                                                                 uri: str) -> None:
    status, body = add(server, "odd-redirect", [uri])
    assert status == 400 and body["field"] == "redirect_uris"
    assert "loopback" in body["message"] and uri not in body["message"]
    assert "odd-redirect" not in listed(server)


@pytest.mark.parametrize("client_id", ["https://tool.example.com/client.json", "two words",
                                       "", "../assistants", "x" * 200])
def test_a_client_id_that_is_not_a_plain_id_is_refused(server: JupyterServer,
                                                       client_id: str) -> None:
    status, body = add(server, client_id)
    assert status == 400 and body["field"] == "client_id"
    assert client_id not in listed(server)


def test_a_taken_client_id_is_refused_and_the_first_client_stays(server: JupyterServer) -> None:
    assert add(server, "taken-tool", name="First")[0] == 201
    status, body = add(server, "taken-tool", ["https://second.example.com/cb"], name="Second")
    assert status == 409 and "registered already" in body["message"]
    assert listed(server)["taken-tool"]["name"] == "First"


def test_the_id_of_a_dynamically_registered_client_cannot_be_registered_ahead(
        server: JupyterServer) -> None:
    status, registered = post_json(server, f"{issuer(server)}/register", {
        "client_name": "Dynamic", "redirect_uris": [REDIRECT_URI],
        "token_endpoint_auth_method": "none"})
    assert status == 201
    status, body = add(server, registered["client_id"], ["https://hijack.example.com/cb"])
    assert status == 409 and "registered already" in body["message"]
    assert registered["client_id"] not in listed(server)


def test_dynamic_registration_cannot_take_over_a_client_registered_ahead(
        server: JupyterServer, analyst: Analyst) -> None:
    assert add(server, "kept-tool", name="Kept Tool")[0] == 201
    status, body = post_json(server, f"{issuer(server)}/register", {
        "client_id": "kept-tool", "client_name": "Impostor",
        "redirect_uris": ["https://impostor.example.com/cb"],
        "token_endpoint_auth_method": "none"})
    assert status == 201 and body["client_id"] != "kept-tool"
    assert listed(server)["kept-tool"]["name"] == "Kept Tool"
    status, _, _ = authorize(server, "kept-tool", "https://impostor.example.com/cb")
    assert status == 400


def test_a_redirect_uri_not_registered_for_the_client_is_refused_without_redirecting(
        server: JupyterServer, analyst: Analyst) -> None:
    assert add(server, "strict-tool", [LOOPBACK, "https://strict.example.com/cb"])[0] == 201
    before = waiting_requests(analyst)
    for uri in ("http://127.0.0.1:8765/other", "https://strict.example.com/cb2",
                "https://strict.example.com:8443/cb", "http://localhost:8765/callback"):
        status, headers, body = authorize(server, "strict-tool", uri)
        assert status == 400 and "location" not in headers, uri
        assert json.loads(body)["error"] == "invalid_request"
    assert waiting_requests(analyst) == before
    assert authorize(server, "strict-tool", "http://127.0.0.1:40123/callback")[0] == 302
    assert authorize(server, "strict-tool", "https://strict.example.com/cb")[0] == 302


# -- only the analyst --------------------------------------------------------------------------


def test_an_assistant_credential_cannot_register_list_or_remove_clients(
        server: JupyterServer) -> None:
    assert add(server, "victim-tool")[0] == 201
    token = bearer(mint(server, "client-snoop"))
    assert add(server, "snoop-tool", headers=token)[0] == 403
    assert api(server, "GET", "oauth/clients", headers=token)[0] == 403
    assert api(server, "DELETE", "oauth/clients/victim-tool", headers=token)[0] == 403
    assert "snoop-tool" not in listed(server) and "victim-tool" in listed(server)


def test_an_oauth_access_token_cannot_register_clients(server: JupyterServer,
                                                       analyst: Analyst) -> None:
    storage = MemoryStorage()
    with oauth_session(server.endpoint, form_consent(analyst, name="oauth-snoop"),
                       storage=storage) as session:
        session.list_tools()
    assert storage.tokens is not None
    token = bearer(storage.tokens.access_token)
    assert add(server, "oauth-snoop-tool", headers=token)[0] == 403
    assert "oauth-snoop-tool" not in listed(server)


def test_a_cookie_post_without_xsrf_is_refused(server: JupyterServer,
                                               analyst: Analyst) -> None:
    cookie = {"Cookie": analyst.jar}
    assert add(server, "csrf-tool", headers=cookie)[0] == 403
    assert add(server, "csrf-tool", headers={**cookie, "X-XSRFToken": "forged"})[0] == 403
    assert "csrf-tool" not in listed(server)
    with_xsrf = {**cookie, "X-XSRFToken": analyst.cookies["_xsrf"]}
    assert add(server, "csrf-tool", headers=with_xsrf)[0] == 201


def test_no_credentials_register_nothing(server: JupyterServer) -> None:
    assert add(server, "anon-tool", headers={})[0] in (401, 403)
    assert "anon-tool" not in listed(server)


# -- removing ----------------------------------------------------------------------------------


def test_removing_a_client_stops_new_authorizations_and_ends_its_tokens(
        server: JupyterServer, analyst: Analyst) -> None:
    assert add(server, "gone-tool")[0] == 201
    storage = preregistered("gone-tool")
    with oauth_session(server.endpoint, form_consent(analyst, name="gone-bot"),
                       storage=storage) as session:
        session.list_tools()
    assert storage.tokens is not None
    status, _, body = api(server, "DELETE", "oauth/clients/gone-tool")
    assert status == 200 and body["grants_ended"] == 1 and body["assistants"] == ["gone-bot"]
    before = waiting_requests(analyst)
    status, headers, answer = authorize(server, "gone-tool")
    assert status == 400 and "location" not in headers
    assert json.loads(answer)["error"] == "invalid_request"
    assert waiting_requests(analyst) == before
    used = request(server, "POST", server.endpoint, b"{}", {
        "Content-Type": "application/json", **bearer(storage.tokens.access_token)})
    assert used[0] == 401
    status, refreshed = post_form(server, f"{issuer(server)}/token", {
        "grant_type": "refresh_token", "refresh_token": storage.tokens.refresh_token or "",
        "client_id": "gone-tool"})
    assert status in (400, 401) and "access_token" not in refreshed
    assert api(server, "DELETE", "oauth/clients/gone-tool")[0] == 404


# -- every answer of the route -----------------------------------------------------------------


@pytest.mark.parametrize(("method", "path", "body", "who", "expected"), [
    ("GET", "oauth/clients", None, "analyst", 200),
    ("POST", "oauth/clients", {"client_id": "hdr-tool", "redirect_uris": [LOOPBACK]},
     "analyst", 201),
    ("POST", "oauth/clients", {"client_id": "hdr-tool", "redirect_uris": [LOOPBACK]},
     "analyst", 409),
    ("POST", "oauth/clients", {"client_id": "hdr-bad", "redirect_uris": ["http://x.example/"]},
     "analyst", 400),
    ("POST", "oauth/clients", b"[1,", "analyst", 400),
    ("POST", "oauth/clients", b"x" * 5000, "analyst", 413),
    ("POST", "oauth/clients/hdr-tool", {}, "analyst", 405),
    ("GET", "oauth/clients/nobody", None, "analyst", 404),
    ("DELETE", "oauth/clients/nobody", None, "analyst", 404),
    ("DELETE", "oauth/clients", None, "analyst", 400),
    ("GET", "oauth/clients", None, "assistant", 403),
    ("GET", "oauth/clients", None, "nobody", 403),
])
def test_every_answer_of_the_clients_api_is_json_that_no_page_can_frame(
        server: JupyterServer, method: str, path: str, body: Any, who: str,
        expected: int) -> None:
    headers = {"analyst": None, "assistant": bearer(mint(server, "hdr-bot")),
               "nobody": {}}[who]
    status, found, answer = api(server, method, path, body, headers=headers)
    assert status == expected, answer
    assert_not_frameable(server, found, f"cloudg/api/{path}")
    if who == "analyst":
        assert found["cache-control"] == ["no-store"] and isinstance(answer, dict)
        assert status < 400 or answer["message"]
