"""Under a real JupyterHub, each analyst's server is theirs: alice's server serves cloudg at
``/user/alice/cloudg/mcp`` through the hub's proxy, the hub user is the owner principal
(``alice`` in activity and audit), alice's hub token and login open her server and not bob's,
and assistant credentials minted in her server work only on her endpoint."""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.protocol.harness import open_session

from .hub import Hub

pytestmark = [pytest.mark.hub, pytest.mark.server,
              pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

MCP_HEADERS = {"Content-Type": "application/json",
               "Accept": "application/json, text/event-stream"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "hub-test", "version": "1"}}}
#: The team dataset's findings assistants' calls would suppress (each waits for alice), one
#: per call: f-004, f-005, ...
FINDINGS = (f"f-{n:03d}" for n in itertools.count(4))


def endpoint(hub: Hub, user: str) -> str:
    return f"{hub.server_url(user)}cloudg/mcp"


def token_header(token: str) -> dict[str, str]:
    return {"Authorization": f"token {token}"}


def initialize(hub: Hub, user: str, headers: dict[str, str],
               session: requests.Session | None = None) -> requests.Response:
    """One raw MCP initialize on ``user``'s endpoint (no redirects followed)."""
    sender: Any = session or requests
    return sender.post(endpoint(hub, user), json=INITIALIZE, headers={**MCP_HEADERS, **headers},
                       timeout=30, allow_redirects=False)


def api(hub: Hub, user: str, method: str, path: str, headers: dict[str, str] | None = None,
        session: requests.Session | None = None, **kwargs: Any) -> requests.Response:
    """A request to ``user``'s ``cloudg/api/{path}`` (no redirects followed)."""
    sender: Any = session or requests
    return sender.request(method, f"{hub.server_url(user)}cloudg/api/{path}",
                          headers=headers or {}, timeout=30, allow_redirects=False, **kwargs)


def mint(hub: Hub, user: str, token: str, name: str) -> str:
    minted = api(hub, user, "POST", "assistants", token_header(token),
                 json={"name": name, "client": "other"})
    assert minted.status_code == 201, minted.text
    return str(minted.json()["token"])


@pytest.fixture(scope="module")
def alice_token(hub: Hub) -> str:
    """alice's hub API token, scoped to her servers only."""
    return hub.user_token("alice", ["access:servers!user=alice"])


@pytest.fixture(scope="module")
def bob_token(hub: Hub) -> str:
    return hub.user_token("bob", ["access:servers!user=bob"])


@pytest.fixture(scope="module")
def alice_browser(hub: Hub) -> requests.Session:
    """A browser logged in to the hub as alice, with her server opened (its login cookie)."""
    browser = hub.login("alice")
    opened = hub.open_server(browser, "alice")
    assert opened.status_code == 200 and opened.url.startswith(hub.server_url("alice")), \
        (opened.status_code, opened.url)
    return browser


@pytest.fixture(scope="module")
def bob_browser(hub: Hub) -> requests.Session:
    browser = hub.login("bob")
    assert hub.open_server(browser, "bob").status_code == 200
    return browser


class WaitingCall:
    """An assistant's suppression of the team's finding in ``user``'s server, waiting for the
    owner's decision (a real MCP client with a minted credential, in a thread)."""

    def __init__(self, hub: Hub, user: str, owner_token: str, name: str) -> None:
        self.hub, self.user, self.owner_token = hub, user, owner_token
        self.token = mint(hub, user, owner_token, name)
        self.principal = f"assistant:{name}"
        self.finding = next(FINDINGS)
        self.out: dict[str, Any] = {}
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        self.approval = self._pending()

    def _run(self) -> None:
        try:
            with open_session(endpoint(self.hub, self.user), "2025",
                              headers={"Authorization": f"Bearer {self.token}"}) as bot:
                self.out["result"] = bot.call_tool("suppress_findings", {
                    "ids": [self.finding], "reason": "hub test"})
        except BaseException as exc:
            self.out["error"] = exc

    def _pending(self) -> dict[str, Any]:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert "error" not in self.out, self.out["error"]
            listed = api(self.hub, self.user, "GET", "approvals", token_header(self.owner_token))
            mine = [a for a in listed.json()["pending"] if a["principal"] == self.principal]
            if mine:
                return dict(mine[0])
            time.sleep(0.2)
        raise AssertionError(f"no approval appeared: {self.out}")

    def finish(self) -> Any:
        self.thread.join(60)
        assert "error" not in self.out, self.out["error"]
        return self.out["result"]


@pytest.fixture
def waiting(hub: Hub, alice_token: str, request: pytest.FixtureRequest) -> Iterator[WaitingCall]:
    """An assistant's call in alice's server waiting for her; denied afterwards if undecided."""
    call = WaitingCall(hub, "alice", alice_token, f"waiter-{request.node.name[-20:]}"
                       .replace("_", "-").replace("[", "-").replace("]", "").lower())
    try:
        yield call
    finally:
        api(hub, "alice", "POST", f"approvals/{call.approval['id']}", token_header(alice_token),
            json={"decision": "deny"})
        call.finish()


# -- alice's server serves cloudg behind the hub ----------------------------------------------


@pytest.mark.parametrize("era", ["2025", "2026"])
def test_alice_server_serves_mcp_at_user_alice_cloudg_mcp_through_the_hub(
        hub: Hub, alice_token: str, era: str) -> None:
    assert endpoint(hub, "alice").startswith(hub.url)  # the proxy's port, not the server's
    with open_session(endpoint(hub, "alice"), era, headers=token_header(alice_token)) as mcp:
        counted = mcp.call_tool("count_assets", {"group_by": "provider"})
        datasets = mcp.call_tool("list_datasets", {}).structured_content
    assert not counted.is_error and counted.structured_content
    assert "team" in json.dumps(datasets)


def test_the_hub_user_is_the_owner_principal_on_her_endpoint(hub: Hub, alice_token: str) -> None:
    with open_session(endpoint(hub, "alice"), "2026", headers=token_header(alice_token)) as mcp:
        who = mcp.call_tool("who_am_i", {}).structured_content
    assert who is not None and who["id"] == "alice"


def test_the_activity_feed_names_the_hub_user_as_the_analyst(hub: Hub, alice_token: str) -> None:
    before = api(hub, "alice", "GET", "activity?since=0&limit=2000",
                 token_header(alice_token)).json()["seq"]
    with open_session(endpoint(hub, "alice"), "2025", headers=token_header(alice_token)) as mcp:
        mcp.call_tool("count_assets", {"group_by": "kind"})
    feed = api(hub, "alice", "GET", f"activity?since={before}", token_header(alice_token))
    assert feed.status_code == 200
    (entry,) = [e for e in feed.json()["entries"] if e["name"] == "count_assets"]
    assert (entry["principal"], entry["assistant"]) == ("alice", False)


def test_the_audit_log_names_the_hub_user(hub: Hub, alice_token: str) -> None:
    with open_session(endpoint(hub, "alice"), "2025", headers=token_header(alice_token)) as mcp:
        mcp.call_tool("list_datasets", {})
    audit = hub.folder / "home" / "alice" / "audit.jsonl"  # her server's folder
    deadline = time.monotonic() + 10
    while True:
        records = [json.loads(line) for line in audit.read_text().splitlines()] \
            if audit.exists() else []
        calls = [r for r in records if r.get("tool") == "list_datasets"
                 or r.get("name") == "list_datasets"]
        if calls or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert calls, records[-3:]
    assert {r["principal"]["id"] for r in calls} == {"alice"}


# -- hub tokens ----------------------------------------------------------------------------------


def test_a_token_scoped_to_alice_servers_is_refused_on_bob_endpoint(
        hub: Hub, alice_token: str) -> None:
    assert initialize(hub, "alice", token_header(alice_token)).status_code == 200
    refused = initialize(hub, "bob", token_header(alice_token))
    assert refused.status_code == 403
    assert "mcp-session-id" not in refused.headers


def test_bob_token_is_refused_on_alice_endpoint_and_api(hub: Hub, bob_token: str) -> None:
    assert initialize(hub, "bob", token_header(bob_token)).status_code == 200
    assert initialize(hub, "alice", token_header(bob_token)).status_code == 403
    assert api(hub, "alice", "GET", "activity", token_header(bob_token)).status_code == 403
    assert api(hub, "alice", "POST", "assistants", token_header(bob_token),
               json={"name": "intruder", "client": "other"}).status_code == 403


def test_alice_token_without_server_access_opens_nothing(hub: Hub) -> None:
    identity_only = hub.user_token("alice", ["read:users:name!user=alice"])
    assert initialize(hub, "alice", token_header(identity_only)).status_code == 403
    assert api(hub, "alice", "GET", "approvals", token_header(identity_only)).status_code == 403


def test_the_hub_admin_service_token_is_not_an_owner_of_alice_server(hub: Hub) -> None:
    # admin:users and admin:servers manage servers; they do not open them.
    assert initialize(hub, "alice", token_header(hub.token)).status_code == 403


@pytest.mark.parametrize("scheme", ["token", "Bearer"])
def test_alice_token_opens_her_endpoint_with_either_scheme(
        hub: Hub, alice_token: str, scheme: str) -> None:
    opened = initialize(hub, "alice", {"Authorization": f"{scheme} {alice_token}"})
    assert opened.status_code == 200 and opened.headers["mcp-session-id"]


def test_a_hub_token_in_the_url_is_refused(hub: Hub, alice_token: str) -> None:
    response = requests.post(f"{endpoint(hub, 'alice')}?token={alice_token}", json=INITIALIZE,
                             headers=MCP_HEADERS, timeout=30, allow_redirects=False)
    assert response.status_code in (302, 403)
    assert "mcp-session-id" not in response.headers


# -- assistants minted in alice's server ---------------------------------------------------------


@pytest.mark.parametrize("era", ["2025", "2026"])
def test_an_assistant_minted_in_alice_server_acts_as_itself_there(
        hub: Hub, alice_token: str, era: str) -> None:
    token = mint(hub, "alice", alice_token, f"helper-{era}")
    with open_session(endpoint(hub, "alice"), era,
                      headers={"Authorization": f"Bearer {token}"}) as mcp:
        who = mcp.call_tool("who_am_i", {}).structured_content
    assert who == {"id": f"assistant:helper-{era}", "roles": ["assistant"]}


def test_an_assistant_of_alice_is_refused_on_bob_endpoint(hub: Hub, alice_token: str) -> None:
    token = mint(hub, "alice", alice_token, "roamer")
    for scheme in ("Bearer", "token"):
        refused = initialize(hub, "bob", {"Authorization": f"{scheme} {token}"})
        assert refused.status_code == 403
        assert token not in refused.text


def test_an_assistant_of_alice_opens_no_other_route_of_her_server_or_the_hub(
        hub: Hub, alice_token: str) -> None:
    token = mint(hub, "alice", alice_token, "wanderer")
    bearer = {"Authorization": f"Bearer {token}"}
    for url in (f"{hub.server_url('alice')}api/contents", f"{hub.server_url('alice')}api/kernels",
                f"{hub.server_url('alice')}cloudg/api/approvals",
                f"{hub.server_url('alice')}cloudg/api/assistants",
                f"{hub.api}user", f"{hub.api}users/alice"):
        answered = requests.get(url, headers=bearer, timeout=30, allow_redirects=False)
        assert answered.status_code in (302, 401, 403), (url, answered.status_code)


def test_an_assistant_minted_by_bob_is_not_known_to_alice_server(
        hub: Hub, alice_token: str, bob_token: str) -> None:
    token = mint(hub, "bob", bob_token, "bobs-helper")
    assert initialize(hub, "bob", {"Authorization": f"Bearer {token}"}).status_code == 200
    assert initialize(hub, "alice", {"Authorization": f"Bearer {token}"}).status_code == 403


# -- the analyst's pages need her hub login ------------------------------------------------------


def test_alice_hub_login_opens_her_sidebar_api(hub: Hub, alice_browser: requests.Session) -> None:
    listed = api(hub, "alice", "GET", "approvals", session=alice_browser)
    assert listed.status_code == 200 and "pending" in listed.json()
    assert api(hub, "alice", "GET", "activity", session=alice_browser).status_code == 200
    assert api(hub, "alice", "GET", "assistants", session=alice_browser).status_code == 200


@pytest.mark.parametrize("path", ["approvals", "activity", "assistants", "status"])
def test_bob_hub_login_does_not_open_alice_sidebar_api(
        hub: Hub, bob_browser: requests.Session, path: str) -> None:
    assert hub.open_server(bob_browser, "alice").status_code == 403  # the hub refuses bob
    answered = api(hub, "alice", "GET", path, session=bob_browser)
    assert answered.status_code in (302, 403), answered.status_code


@pytest.mark.parametrize("path", ["approvals", "activity", "assistants", "status"])
def test_no_login_does_not_open_alice_sidebar_api(hub: Hub, path: str) -> None:
    answered = api(hub, "alice", "GET", path)
    assert answered.status_code in (302, 403), answered.status_code


def test_the_approval_page_opens_for_alice_login_only(
        hub: Hub, alice_browser: requests.Session, bob_browser: requests.Session,
        waiting: WaitingCall) -> None:
    page = f"{hub.server_url('alice')}cloudg/approvals/{waiting.approval['id']}"
    mine = alice_browser.get(page, timeout=30, allow_redirects=False)
    assert mine.status_code == 200 and waiting.finding in mine.text
    for browser in (bob_browser, requests.Session()):
        other = browser.get(page, timeout=30, allow_redirects=False)
        assert other.status_code in (302, 403) and waiting.finding not in other.text


def test_alice_decides_with_her_login_and_the_decision_is_hers(
        hub: Hub, alice_browser: requests.Session, bob_browser: requests.Session,
        waiting: WaitingCall) -> None:
    path = f"approvals/{waiting.approval['id']}"
    for browser in (bob_browser, requests.Session()):
        xsrf = browser.cookies.get("_xsrf", path="/user/alice/") or "x"
        refused = api(hub, "alice", "POST", path, {"X-XSRFToken": xsrf}, session=browser,
                      json={"decision": "approve"})
        assert refused.status_code in (302, 403)
    xsrf = alice_browser.cookies.get("_xsrf", path="/user/alice/")
    no_xsrf = api(hub, "alice", "POST", path, session=alice_browser, json={"decision": "approve"})
    assert no_xsrf.status_code == 403
    decided = api(hub, "alice", "POST", path, {"X-XSRFToken": str(xsrf)}, session=alice_browser,
                  json={"decision": "approve"})
    assert decided.status_code == 200, decided.text
    assert decided.json()["approval"]["decided_by"] == "alice"
    assert not waiting.finish().is_error


def test_the_approval_link_is_at_the_hub_public_address(hub: Hub, waiting: WaitingCall) -> None:
    assert re.fullmatch(re.escape(f"{hub.url}user/alice/cloudg/approvals/") + r"[\w-]+",
                        waiting.approval["url"]), waiting.approval["url"]
