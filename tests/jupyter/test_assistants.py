"""Assistants with their own credentials, on a real Jupyter server under a non-root base_url:
the token opens the MCP endpoint and nothing else, a revoked one fails at once (also on an open
session), calls are attributed to ``assistant:NAME`` in the audit log and the activity feed,
and an assistant's sensitive calls wait for the analyst's decision."""

from __future__ import annotations

import getpass
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.protocol.harness import TIMEOUT, open_session

from .fixture_registry import PLANTED_DSN
from .server import FIXTURE_REGISTRY, JupyterServer, jupyter_server
from .test_auth import INITIALIZE, MCP_HEADERS, browser_login, request

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

BASE = "/user/alice/"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    tmp = tmp_path_factory.mktemp("assistants")
    with jupyter_server(tmp, base_url=BASE, extra_args=[
            FIXTURE_REGISTRY, "--CloudGExtension.approval_timeout=8",
            f"--CloudGExtension.audit_log={tmp / 'audit.jsonl'}"]) as started:
        (started.root_dir / "estate-secrets.txt").write_text("aws_secret=PLANTEDFILESECRET\n")
        yield started


def owner(server: JupyterServer) -> dict[str, str]:
    return {"Authorization": f"token {server.token}"}


def mint(server: JupyterServer, name: str, **body: Any) -> str:
    status, _, raw = request(server, "POST", f"{BASE}cloudg/api/assistants",
                             {"name": name, "client": "other", **body},
                             {**owner(server), "Content-Type": "application/json"})
    assert status == 201, raw
    token = json.loads(raw)["token"]
    assert token.startswith("cgat_")
    return token


def revoke(server: JupyterServer, name: str) -> dict[str, Any]:
    status, _, raw = request(server, "DELETE", f"{BASE}cloudg/api/assistants/{name}",
                             headers=owner(server))
    assert status == 200, raw
    return json.loads(raw)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def kernel_ids(server: JupyterServer) -> list[str]:
    status, body = server.get_json(f"{server.url}api/kernels")
    assert status == 200
    return [k["id"] for k in body]  # type: ignore[union-attr]


# -- the token opens the MCP endpoint -----------------------------------------------------------


@pytest.mark.parametrize("era", ["2025", "2026"])
def test_minted_token_initialises_and_calls_tools(server: JupyterServer, era: str) -> None:
    token = mint(server, f"claude-{era}")
    with open_session(server.endpoint, era, headers=bearer(token)) as session:
        who = session.call_tool("who_am_i", {}).structured_content
        counted = session.call_tool("count_assets", {"group_by": "provider"})
    assert who == {"id": f"assistant:claude-{era}", "roles": ["assistant"]}
    assert counted.structured_content["total"] == 60


def test_an_assistant_runs_under_the_assistant_profile(server: JupyterServer) -> None:
    with open_session(server.endpoint, "2025", headers=bearer(mint(server, "prof"))) as s:
        status = s.call_tool("privacy_status", {}).structured_content
        refused = s.call_tool("export_dataset", {})
    assert status["policy"] == "assistant"
    assert "reveal" in status["denied_capabilities"]
    assert refused.is_error and "write_fs" in refused.content[0].text


def test_tools_carry_hints_that_match_what_they_do(server: JupyterServer) -> None:
    with open_session(server.endpoint, "2025", headers=bearer(mint(server, "hints"))) as s:
        tools = {t.name: t.annotations for t in s.list_tools().tools}
    assert tools["find_assets"].read_only_hint is True
    assert tools["find_assets"].idempotent_hint is True
    assert tools["unload_dataset"].destructive_hint is True
    assert tools["suppress_findings"].read_only_hint is False
    assert tools["suppress_findings"].idempotent_hint is True
    assert tools["suppress_findings"].destructive_hint is False


# -- and nothing else ---------------------------------------------------------------------------


@pytest.mark.parametrize("method,path", [
    ("GET", "api/contents"), ("GET", "api/contents/estate-secrets.txt"),
    ("GET", "api/kernels"), ("POST", "api/kernels"), ("GET", "api/sessions"),
    ("POST", "api/sessions"), ("GET", "api/terminals"), ("POST", "api/terminals"),
    ("GET", "lab"), ("GET", "tree"), ("GET", "files/estate-secrets.txt"),
    ("GET", "api/status"), ("GET", "cloudg/api/status"), ("GET", "cloudg/api/assistants"),
    ("POST", "cloudg/api/assistants"), ("GET", "cloudg/approvals/abc"),
])
@pytest.mark.parametrize("how", ["header", "query"])
def test_the_token_is_refused_on_every_other_route(server: JupyterServer, method: str,
                                                   path: str, how: str) -> None:
    token = mint(server, "scoped")
    before = kernel_ids(server)
    url, headers = f"{BASE}{path}", bearer(token)
    if how == "query":
        url, headers = f"{url}?token={token}", {}
    body = b'{"name": "python3", "path": "x.ipynb", "type": "notebook", "kernel": {}}' \
        if method == "POST" else None
    status, found, raw = request(server, method, url, body,
                                 {**headers, "Content-Type": "application/json"})
    assert status in (401, 403)
    assert "location" not in found
    assert b"PLANTEDFILESECRET" not in raw and token.encode() not in raw
    assert kernel_ids(server) == before


def test_a_file_cannot_be_written_with_the_token(server: JupyterServer) -> None:
    token = mint(server, "writer")
    status, _, _ = request(server, "PUT", f"{BASE}api/contents/planted.txt",
                           {"type": "file", "format": "text", "content": "x"},
                           {**bearer(token), "Content-Type": "application/json"})
    assert status == 403
    assert not (server.root_dir / "planted.txt").exists()


@pytest.mark.kernel
def test_the_kernel_websocket_refuses_the_token(server: JupyterServer) -> None:
    status, _, raw = request(server, "POST", f"{BASE}api/kernels", {"name": "python3"},
                             {**owner(server), "Content-Type": "application/json"})
    assert status == 201
    kernel = json.loads(raw)["id"]
    try:
        token = mint(server, "socket")
        status, _, _ = request(server, "GET", f"{BASE}api/kernels/{kernel}/channels", None, {
            **bearer(token), "Connection": "Upgrade", "Upgrade": "websocket",
            "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
        assert status == 403
        status, _, _ = request(server, "GET", f"{BASE}api/kernels/{kernel}/channels", None, {
            **owner(server), "Connection": "Upgrade", "Upgrade": "websocket",
            "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
        assert status == 101  # the analyst's token still opens it
    finally:
        request(server, "DELETE", f"{BASE}api/kernels/{kernel}", headers=owner(server))


def test_a_stolen_store_file_does_not_authenticate(server: JupyterServer) -> None:
    mint(server, "stolen")
    store = Path(server.env["JUPYTER_DATA_DIR"]) / "cloudg" / "assistants.json"
    entry = next(e for e in json.loads(store.read_text())["assistants"]
                 if e["name"] == "stolen")
    for guess in (entry["token_sha256"], f"cgat_{entry['token_sha256']}", entry["hint"]):
        status, _, raw = request(server, "POST", f"{BASE}cloudg/mcp", INITIALIZE,
                                 {**MCP_HEADERS, **bearer(guess)})
        assert status == 403
    assert "revoked" in json.loads(raw)["error"]["message"]


# -- revocation ---------------------------------------------------------------------------------


@pytest.mark.parametrize("era", ["2025", "2026"])
def test_revocation_takes_effect_on_an_open_session(server: JupyterServer, era: str) -> None:
    name = f"revoked-{era}"
    token = mint(server, name)
    with open_session(server.endpoint, era, headers=bearer(token)) as session:
        assert not session.call_tool("list_datasets", {}).is_error
        ended = revoke(server, name)
        assert ended["revoked"] == name
        with pytest.raises(Exception):  # noqa: B017 - 403 (or the ended session) either way
            session.call_tool("list_datasets", {})
    status, _, _ = request(server, "POST", f"{BASE}cloudg/mcp", INITIALIZE,
                           {**MCP_HEADERS, **bearer(token)})
    assert status == 403


def test_revoking_ends_the_assistants_open_sessions(server: JupyterServer) -> None:
    token = mint(server, "streams")
    with open_session(server.endpoint, "2025", headers=bearer(token)) as session:
        session.call_tool("list_datasets", {})
        assert revoke(server, "streams")["sessions_ended"] >= 1


def test_revoking_through_the_store_file_is_seen_on_the_next_request(
        server: JupyterServer) -> None:
    from cloudg_nb.assistants import AssistantStore

    token = mint(server, "offline")
    store = AssistantStore(Path(server.env["JUPYTER_DATA_DIR"]) / "cloudg" / "assistants.json")
    assert [r.name for r in store.revoke("offline")] == ["offline"]
    status, _, _ = request(server, "POST", f"{BASE}cloudg/mcp", INITIALIZE,
                           {**MCP_HEADERS, **bearer(token)})
    assert status == 403


def test_credentials_and_revocations_survive_a_server_restart(tmp_path: Path) -> None:
    with jupyter_server(tmp_path, base_url=BASE, extra_args=[FIXTURE_REGISTRY]) as first:
        kept, dropped = mint(first, "kept"), mint(first, "dropped")
        revoke(first, "dropped")
    with jupyter_server(tmp_path, base_url=BASE, extra_args=[FIXTURE_REGISTRY]) as second:
        with open_session(second.endpoint, "2025", headers=bearer(kept)) as session:
            who = session.call_tool("who_am_i", {}).structured_content
        assert who["id"] == "assistant:kept"
        status, _, _ = request(second, "POST", f"{BASE}cloudg/mcp", INITIALIZE,
                               {**MCP_HEADERS, **bearer(dropped)})
        assert status == 403


def test_credentials_are_listed_without_tokens(server: JupyterServer) -> None:
    token = mint(server, "listed", profile="strict")
    status, _, raw = request(server, "GET", f"{BASE}cloudg/api/assistants",
                             headers=owner(server))
    assert status == 200 and token.encode() not in raw
    listed = {a["name"]: a for a in json.loads(raw)["assistants"]}
    assert listed["listed"]["profile"] == "strict"
    assert listed["listed"]["principal"] == "assistant:listed"


@pytest.mark.parametrize("body,needle", [
    ({"name": "Bad Name"}, "lower-case"), ({"name": "ok", "profile": "no-such-profile"},
                                           "profile"), ({}, "name")])
def test_minting_with_bad_input_says_what_is_wrong(server: JupyterServer, body: dict,
                                                   needle: str) -> None:
    status, _, raw = request(server, "POST", f"{BASE}cloudg/api/assistants", body,
                             {**owner(server), "Content-Type": "application/json"})
    assert status == 400
    assert needle in json.loads(raw)["message"]


# -- attribution --------------------------------------------------------------------------------


def _audit_lines(tmp_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (tmp_dir / "audit.jsonl").read_text().splitlines()]


def test_audit_and_activity_tell_two_assistants_and_the_analyst_apart(
        server: JupyterServer) -> None:
    first, second = mint(server, "first"), mint(server, "second")
    for token in (first, second):
        with open_session(server.endpoint, "2025", headers=bearer(token)) as session:
            leaked = session.call_tool("read_app_config", {})
            assert "Pl4ntedS3cret" not in json.dumps(leaked.structured_content)
    with open_session(server.endpoint, "2025", headers=server.headers) as analyst:
        analyst.call_tool("read_app_config", {})
        feed = json.loads(analyst.read_resource("cloudg://activity").contents[0].text)
    mine = [e for e in feed["entries"] if e["name"] == "read_app_config"]
    assert [e["principal"] for e in mine[-3:]] == [
        "assistant:first", "assistant:second", getpass.getuser()]
    assert [e["assistant"] for e in mine[-3:]] == [True, True, False]
    assert all(e["redacted"] >= 1 for e in mine[-3:])
    assert "Pl4ntedS3cret" not in json.dumps(feed)
    audit_dir = Path(str(server.log_path.parent))
    lines = [line for line in _audit_lines(audit_dir) if line.get("name") == "read_app_config"]
    assert {line["principal"]["id"] for line in lines} >= {
        "assistant:first", "assistant:second", getpass.getuser()}
    assert PLANTED_DSN not in (audit_dir / "audit.jsonl").read_text()


def test_an_assistant_reads_only_its_own_activity(server: JupyterServer) -> None:
    with open_session(server.endpoint, "2025", headers=bearer(mint(server, "nosy"))) as s:
        s.call_tool("list_datasets", {})
        feed = json.loads(s.read_resource("cloudg://activity").contents[0].text)
        tools = {t.name for t in s.list_tools().tools}
    assert feed["scope"] == "own"
    assert {e["principal"] for e in feed["entries"]} == {"assistant:nosy"}
    assert not {"decide_approval", "list_assistants", "revoke_assistant"} & tools


# -- approvals ----------------------------------------------------------------------------------


def _in_background(fn: Any, *args: Any) -> tuple[threading.Thread, dict[str, Any]]:
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["result"] = fn(*args)
        except BaseException as exc:  # reported by the test
            out["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def _pending(analyst: Any, tool: str) -> dict[str, Any]:
    def find() -> dict[str, Any] | None:
        data = json.loads(analyst.read_resource("cloudg://approvals").contents[0].text)
        return next((a for a in data["pending"] if a["tool"] == tool), None)

    return analyst.wait_for(find, timeout=TIMEOUT)


def _suppress(session: Any) -> Any:
    return session.call_tool("suppress_findings", {"ids": ["f-001"], "reason": "accepted risk"})


def test_a_sensitive_call_waits_for_approval_while_other_calls_flow(
        server: JupyterServer) -> None:
    token = mint(server, "waiter")
    with open_session(server.endpoint, "2025", headers=bearer(token)) as bot, \
            open_session(server.endpoint, "2026", headers=bearer(mint(server, "busy"))) as other, \
            open_session(server.endpoint, "2025", headers=server.headers) as analyst:
        thread, out = _in_background(_suppress, bot)
        approval = _pending(analyst, "suppress_findings")
        assert approval["principal"] == "assistant:waiter"
        assert approval["url"].startswith(f"http://127.0.0.1:{server.port}{BASE}cloudg/approvals/")
        for _ in range(5):  # no lane blocked: other clients' calls go through meanwhile
            assert not other.call_tool("count_assets", {"group_by": "provider"}).is_error
            assert not analyst.call_tool("list_datasets", {}).is_error
        assert thread.is_alive()
        decided = analyst.call_tool("decide_approval", {"approval_id": approval["id"],
                                                        "decision": "approve"})
        assert decided.structured_content["state"] == "approved"
        thread.join(TIMEOUT)
    assert "error" not in out
    assert not out["result"].is_error  # it ran
    done = out["result"].structured_content
    assert [*done["suppressed"], *done["already"]] == ["f-001"]
    decisions = [line for line in _audit_lines(Path(str(server.log_path.parent)))
                 if line.get("event") == "approval.decision"]
    assert decisions[-1]["decision"] == "approved"
    assert decisions[-1]["principal"] == "assistant:waiter"


def test_denied_and_timed_out_calls_are_error_results(server: JupyterServer) -> None:
    with open_session(server.endpoint, "2025", headers=bearer(mint(server, "denied"))) as bot, \
            open_session(server.endpoint, "2025", headers=server.headers) as analyst:
        thread, out = _in_background(_suppress, bot)
        approval = _pending(analyst, "suppress_findings")
        analyst.call_tool("decide_approval", {"approval_id": approval["id"],
                                              "decision": "deny", "reason": "not now"})
        thread.join(TIMEOUT)
        assert out["result"].is_error and "not now" in out["result"].content[0].text
        started = time.monotonic()
        timed_out = _suppress(bot)  # nobody decides: the server's approval_timeout (8 s)
        assert timed_out.is_error and "within 8 s" in timed_out.content[0].text
        assert time.monotonic() - started >= 7


def test_progress_says_the_call_waits_for_the_analyst(server: JupyterServer) -> None:
    seen: list[str] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(message or "")

    with open_session(server.endpoint, "2025", headers=bearer(mint(server, "prog"))) as bot, \
            open_session(server.endpoint, "2025", headers=server.headers) as analyst:
        thread, out = _in_background(lambda: bot.call_tool(
            "suppress_findings", {"ids": ["f-001"], "reason": "r"},
            progress_callback=on_progress))
        approval = _pending(analyst, "suppress_findings")
        analyst.wait_for(lambda: seen)
        analyst.call_tool("decide_approval", {"approval_id": approval["id"],
                                              "decision": "deny"})
        thread.join(TIMEOUT)
    assert "waiting for analyst approval" in seen[0]
    assert out["result"].is_error  # denied


def test_the_approval_page_needs_the_analysts_login_with_xsrf(server: JupyterServer) -> None:
    token = mint(server, "paged")
    with open_session(server.endpoint, "2025", headers=bearer(token)) as bot, \
            open_session(server.endpoint, "2025", headers=server.headers) as analyst:
        thread, out = _in_background(_suppress, bot)
        approval = _pending(analyst, "suppress_findings")
        page = f"{BASE}cloudg/approvals/{approval['id']}"
        assert request(server, "GET", page, headers=bearer(token))[0] == 403
        assert request(server, "GET", page)[0] in (302, 403)  # not logged in: login page
        cookies = browser_login(server)
        jar = "; ".join(f"{k}={v}" for k, v in cookies.items())
        status, _, html = request(server, "GET", page, headers={"Cookie": jar})
        assert status == 200 and b"suppress_findings" in html and b"assistant:paged" in html
        form = b"decision=approve"
        status, _, _ = request(server, "POST", page, form, {
            "Cookie": jar, "Content-Type": "application/x-www-form-urlencoded"})
        assert status == 403  # a cookie without the XSRF token decides nothing
        status, _, html = request(server, "POST", page, form + b"&_xsrf=" +
                                  cookies["_xsrf"].encode(), {
            "Cookie": jar, "Content-Type": "application/x-www-form-urlencoded"})
        assert status == 200 and b"approved" in html
        thread.join(TIMEOUT)
    assert "error" not in out and not out["result"].is_error
