"""JupyterLab's REST API of oversight on a real Jupyter server under a non-root base_url, with
real MCP clients holding minted credentials: the assistants listing offers clients and
profiles and a mint answers the client's configuration (which works, with the assistant's own
token); approvals are listed with what they will do and decided at once by a POST (Approve
lets the call run, Deny tells the assistant the reason, a second decision is 409, an unknown
id 404, a bad body 400); the activity feed is read after a seq with the calls waiting now."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.protocol.harness import open_session

from .oversight_client import BASE, FINDING, OWNER, Waiting, api, unsuppress
from .server import JupyterServer, jupyter_server
from .test_assistants import bearer, mint
from .test_auth import browser_login

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    with jupyter_server(tmp_path_factory.mktemp("oversight-api"), base_url=BASE) as started:
        yield started


# -- assistants --------------------------------------------------------------------------------


def test_the_assistants_listing_offers_the_clients_and_profiles_to_connect(
        server: JupyterServer) -> None:
    status, headers, body = api(server, "GET", "assistants")
    assert status == 200 and headers["cache-control"] == ["no-store"]
    ids = [c["id"] for c in body["clients"]]
    assert {"claude-code", "cursor", "vscode", "claude-desktop", "jupyter-ai"} <= set(ids)
    assert {"id": "vscode", "label": "VS Code"} in body["clients"]
    assert body["default_profile"] == "assistant"
    assert {"assistant", "assistant-compact", "strict"} <= set(body["profiles"])
    assert body["endpoint"].endswith(f"{BASE}cloudg/mcp")


@pytest.mark.parametrize("client, path", [
    ("cursor", "~/.cursor/mcp.json"), ("vscode", ".vscode/mcp.json")])
def test_a_minted_config_holds_the_assistants_own_token_and_works_with_the_mcp_client(
        server: JupyterServer, client: str, path: str) -> None:
    status, _, body = api(server, "POST", "assistants", {"name": f"cfg-{client}",
                                                         "client": client})
    assert status == 201
    assert body["config_path"] == path
    assert server.token not in body["config"] and body["token"] in body["config"]
    entries = json.loads(body["config"])["mcpServers" if client == "cursor" else "servers"]
    entry = entries["cloudg"]
    with open_session(entry["url"], "2026", headers=entry["headers"]) as session:
        status_data = session.call_tool("privacy_status", {}).structured_content
    assert status_data["policy"] == "assistant"
    _, _, feed = api(server, "GET", "activity?since=0&limit=2000")
    assert feed["entries"][-1]["principal"] == f"assistant:cfg-{client}"


def test_claude_codes_config_is_the_command_that_adds_the_server(server: JupyterServer) -> None:
    status, _, body = api(server, "POST", "assistants", {"name": "cc", "client": "claude-code"})
    assert status == 201 and body["config_path"] is None
    assert body["config"].startswith("claude mcp add --transport http cloudg ")
    assert f"Authorization: Bearer {body['token']}" in body["config"]
    assert server.token not in body["config"]


def test_a_client_it_does_not_know_gets_the_token_and_no_config(server: JupyterServer) -> None:
    status, _, body = api(server, "POST", "assistants", {"name": "mine", "client": "other"})
    assert status == 201 and body["token"].startswith("cgat_")
    assert (body["config"], body["config_path"]) == (None, None)


def test_a_mint_with_a_profile_that_does_not_load_says_so(server: JupyterServer) -> None:
    status, _, body = api(server, "POST", "assistants", {"name": "odd", "client": "cursor",
                                                         "profile": "no-such-profile"})
    assert status == 400 and "no-such-profile" in body["message"]


# -- approvals ---------------------------------------------------------------------------------


def test_a_waiting_call_is_listed_with_what_it_will_do(server: JupyterServer) -> None:
    call = Waiting(server, "lister")
    try:
        status, headers, body = api(server, "GET", "approvals")
        assert status == 200 and headers["cache-control"] == ["no-store"]
        (shown,) = [a for a in body["pending"] if a["id"] == call.id]
        assert (shown["principal"], shown["tool"], shown["state"]) == (
            "assistant:lister", "suppress_findings", "pending")
        assert shown["decided_at"] is None and 0 < shown["expires_in"] <= 120
        assert "SUPPRESSES 1 finding(s) in dataset demo" in shown["effects"][0]["text"]
        assert shown["arguments"]["ids"] == [FINDING]
    finally:
        api(server, "POST", f"approvals/{call.id}", {"decision": "deny"})
        call.result()


def test_approve_lets_the_call_run_and_moves_it_to_the_recent_decisions(
        server: JupyterServer) -> None:
    call = Waiting(server, "approved")
    try:
        status, _, body = api(server, "POST", f"approvals/{call.id}", {"decision": "approve"})
        assert status == 200
        decided = body["approval"]
        assert (decided["state"], decided["decided_by"]) == ("approved", OWNER)
        assert decided["decided_at"] and decided["expires_in"] == 0
        result = call.result()
        assert not result.is_error, result.content
        _, _, listed = api(server, "GET", "approvals")
        assert call.id not in [a["id"] for a in listed["pending"]]
        assert listed["recent"][0]["id"] == call.id  # newest first
    finally:
        unsuppress(server)


def test_deny_tells_the_assistant_the_reason(server: JupyterServer) -> None:
    call = Waiting(server, "denied")
    status, _, body = api(server, "POST", f"approvals/{call.id}",
                          {"decision": "deny", "reason": "not on the demo estate"})
    assert status == 200 and body["approval"]["reason"] == "not on the demo estate"
    result = call.result()
    assert result.is_error and "not on the demo estate" in result.content[0].text


def test_a_second_decision_is_a_conflict_that_says_how_the_call_ended(
        server: JupyterServer) -> None:
    call = Waiting(server, "twice")
    api(server, "POST", f"approvals/{call.id}", {"decision": "deny", "reason": "no"})
    call.result()
    status, _, body = api(server, "POST", f"approvals/{call.id}", {"decision": "approve"})
    assert status == 409
    assert "no longer waiting" in body["message"] and f"denied by {OWNER}" in body["message"]
    assert body["approval"]["state"] == "denied"


def test_an_unknown_id_is_not_found(server: JupyterServer) -> None:
    status, _, body = api(server, "POST", "approvals/abcdef0123456789ab", {"decision": "approve"})
    assert status == 404 and "approvals lists the waiting ones" in body["message"]


@pytest.mark.parametrize("body", [
    {"decision": "yes"}, {}, {"decision": "deny", "reason": "x" * 301},
    {"decision": "deny", "reason": 7}, ["approve"], b"not json",
], ids=["bad-decision", "no-decision", "long-reason", "reason-not-text", "a-list", "not-json"])
def test_a_bad_decision_body_is_refused_and_decides_nothing(server: JupyterServer,
                                                            body: Any) -> None:
    call = Waiting(server, "bad-body")
    try:
        status, _, answer = api(server, "POST", f"approvals/{call.id}", body)
        assert status == 400 and '"decision": "approve" or "deny"' in answer["message"]
        _, _, listed = api(server, "GET", "approvals")
        assert call.id in [a["id"] for a in listed["pending"]]
    finally:
        api(server, "POST", f"approvals/{call.id}", {"decision": "deny"})
        call.result()


def test_a_browser_session_decides_with_the_xsrf_header(server: JupyterServer) -> None:
    call = Waiting(server, "browser")
    cookies = browser_login(server)
    cookie = "; ".join(f"{k}={v}" for k, v in cookies.items())
    refused, _, _ = api(server, "POST", f"approvals/{call.id}", {"decision": "deny"},
                        {"Cookie": cookie})
    status, _, body = api(server, "POST", f"approvals/{call.id}", {"decision": "deny"},
                          {"Cookie": cookie, "X-XSRFToken": cookies["_xsrf"]})
    assert refused == 403
    assert status == 200 and body["approval"]["state"] == "denied"
    assert call.result().is_error


# -- activity ----------------------------------------------------------------------------------


def test_the_activity_feed_lists_calls_after_a_seq_and_the_calls_waiting_now(
        server: JupyterServer) -> None:
    _, _, before = api(server, "GET", "activity?since=0&limit=2000")
    with open_session(server.endpoint, "2025", headers=server.headers) as analyst:
        analyst.call_tool("count_assets", {"group_by": "provider"})
    call = Waiting(server, "watched")
    try:
        status, headers, body = api(server, "GET", f"activity?since={before['seq']}")
        assert status == 200 and headers["cache-control"] == ["no-store"]
        names = [e["name"] for e in body["entries"]]
        assert "count_assets" in names and body["seq"] == body["entries"][-1]["seq"]
        assert all(e["seq"] > before["seq"] for e in body["entries"])
        (waiting,) = [w for w in body["waiting"] if w["approval_id"] == call.id]
        assert (waiting["outcome"], waiting["name"], waiting["principal"]) == (
            "waiting", "suppress_findings", "assistant:watched")
        assert waiting["assistant"] is True and waiting["seq"] is None
    finally:
        api(server, "POST", f"approvals/{call.id}", {"decision": "deny"})
        call.result()
    _, _, after = api(server, "GET", f"activity?since={body['seq']}")
    assert call.id not in [w["approval_id"] for w in after["waiting"]]
    (ended,) = [e for e in after["entries"] if e["name"] == "suppress_findings"]
    assert (ended["outcome"], ended["approval"]) == ("denied", "denied")


def test_activity_pages_are_the_oldest_after_since_and_limit_is_capped(
        server: JupyterServer) -> None:
    with open_session(server.endpoint, "2025", headers=server.headers) as analyst:
        for _ in range(3):
            analyst.call_tool("count_assets", {"group_by": "provider"})
    _, _, everything = api(server, "GET", "activity?since=0&limit=2000")
    _, _, page = api(server, "GET", "activity?since=0&limit=2")
    assert [e["seq"] for e in page["entries"]] == [e["seq"] for e in everything["entries"][:2]]
    assert page["seq"] == everything["seq"]
    _, _, capped = api(server, "GET", "activity?limit=999999")
    assert len(capped["entries"]) == len(everything["entries"])


@pytest.mark.parametrize("query", ["since=last", "limit=many", "since=1.5"])
def test_activity_parameters_that_are_not_whole_numbers_are_refused(
        server: JupyterServer, query: str) -> None:
    status, _, body = api(server, "GET", f"activity?{query}")
    assert status == 400 and "whole numbers" in body["message"]


def test_the_activity_resource_shows_the_waiting_calls_too(server: JupyterServer) -> None:
    call = Waiting(server, "resource")
    try:
        with open_session(server.endpoint, "2025", headers=server.headers) as analyst:
            feed = json.loads(analyst.read_resource("cloudg://activity").contents[0].text)
        assert call.id in [w["approval_id"] for w in feed["waiting"]]
        with open_session(server.endpoint, "2025", headers=bearer(mint(server, "peer"))) as bot:
            theirs = json.loads(bot.read_resource("cloudg://activity").contents[0].text)
        assert theirs["waiting"] == []  # an assistant sees its own calls only
    finally:
        api(server, "POST", f"approvals/{call.id}", {"decision": "deny"})
        call.result()
