"""cloudg's events on Jupyter's event bus, read as JupyterLab reads them (a websocket on
``/api/events/subscribe`` with the server token), and the approval lines of the server log, on
a real Jupyter server with real MCP clients holding minted credentials: an assistant's
sensitive call is announced within 2 s; a decision POSTed to the REST API is announced and
reaches the assistant within 1 s; activity events are coalesced; credentials minted and
revoked are announced; no event or log line holds an argument value or a token."""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Iterator

import pytest

from cloudg_nb.layer.wire import (
    ACTIVITY_EVENT_SCHEMA,
    APPROVALS_EVENT_SCHEMA,
    ASSISTANTS_EVENT_SCHEMA,
)
from tests.protocol.harness import open_session

from .event_stream import Event, subscribe
from .oversight_client import BASE, OWNER, PLANTED, Waiting, api, unsuppress
from .server import JupyterServer, jupyter_server

#: What it starts (a Jupyter server, one per module): tests/lanes.py.
pytestmark = [pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning"), pytest.mark.server]

#: What the acceptance allows: the announcement of a waiting call, and a decision's way to
#: the assistant.
ANNOUNCED_WITHIN = 2.0
DECIDED_WITHIN = 1.0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    with jupyter_server(tmp_path_factory.mktemp("oversight-events"), base_url=BASE) as started:
        yield started


def approval_event(stream_event: Event, action: str, approval_id: str) -> bool:
    return (stream_event.get("schema_id") == APPROVALS_EVENT_SCHEMA
            and stream_event.get("action") == action and stream_event.get("id") == approval_id)


def test_a_waiting_call_is_announced_within_2_s_and_an_approval_reaches_the_assistant_within_1_s(
        server: JupyterServer) -> None:
    with subscribe(server) as stream:
        call = Waiting(server, "announced")
        requested = stream.wait_for(lambda e: approval_event(e, "requested", call.id),
                                    what="the requested event")
        assert requested["_received"] - call.out["called"] <= ANNOUNCED_WITHIN
        assert (requested["principal"], requested["tool"], requested["state"]) == (
            "assistant:announced", "suppress_findings", "pending")
        assert requested["pending"] >= 1 and 0 < requested["expires_in"] <= 120
        posted = time.monotonic()
        status, _, _ = api(server, "POST", f"approvals/{call.id}", {"decision": "approve"})
        assert status == 200
        result = call.result()
        decided = stream.wait_for(lambda e: approval_event(e, "decided", call.id),
                                  what="the decided event")
    try:
        assert not result.is_error, result.content
        assert call.out["done"] - posted <= DECIDED_WITHIN
        assert (decided["state"], decided["decided_by"], decided["expires_in"]) == (
            "approved", OWNER, 0.0)
        assert decided["pending"] == requested["pending"] - 1
    finally:
        unsuppress(server)


def test_a_denial_is_announced_with_its_reason_and_the_assistant_is_told_it(
        server: JupyterServer) -> None:
    with subscribe(server) as stream:
        call = Waiting(server, "refused")
        api(server, "POST", f"approvals/{call.id}",
            {"decision": "deny", "reason": "ask me first"})
        decided = stream.wait_for(lambda e: approval_event(e, "decided", call.id),
                                  what="the decided event")
    result = call.result()
    assert (decided["state"], decided["reason"]) == ("denied", "ask me first")
    assert result.is_error and "ask me first" in result.content[0].text


def test_a_revoked_credential_cancels_its_waiting_call_and_is_announced(
        server: JupyterServer) -> None:
    with subscribe(server) as stream:
        call = Waiting(server, "short-lived")
        status, _, _ = api(server, "DELETE", "assistants/short-lived")
        assert status == 200
        cancelled = stream.wait_for(lambda e: approval_event(e, "cancelled", call.id),
                                    what="the cancelled event")
        revoked = stream.wait_for(
            lambda e: e.get("schema_id") == ASSISTANTS_EVENT_SCHEMA
            and e.get("action") == "revoked", what="the revoked event")
    assert cancelled["state"] == "denied" and "decided_by" not in cancelled
    assert revoked["name"] == "short-lived"
    with pytest.raises(BaseException):  # noqa: B017 - its session was ended with the token
        call.result()


def test_minting_a_credential_is_announced_by_name(server: JupyterServer) -> None:
    with subscribe(server) as stream:
        status, _, _ = api(server, "POST", "assistants", {"name": "fresh", "client": "cursor"})
        minted = stream.wait_for(lambda e: e.get("schema_id") == ASSISTANTS_EVENT_SCHEMA,
                                 what="the minted event")
    assert status == 201
    assert {k: v for k, v in minted.items() if not k.startswith("_")} == {
        "schema_id": ASSISTANTS_EVENT_SCHEMA, "action": "minted", "name": "fresh"}


def test_activity_events_are_coalesced_and_account_for_every_entry(
        server: JupyterServer) -> None:
    _, _, before = api(server, "GET", "activity?since=0&limit=1")
    calls = 40
    with subscribe(server) as stream, \
            open_session(server.endpoint, "2025", headers=server.headers) as analyst:
        started = time.monotonic()
        for _ in range(calls):
            analyst.call_tool("count_assets", {"group_by": "provider"})
        _, _, after = api(server, "GET", "activity?since=0&limit=1")
        stream.wait_for(lambda e: e.get("schema_id") == ACTIVITY_EVENT_SCHEMA
                        and e["seq"] == after["seq"], what="the last activity event")
        ended = time.monotonic()  # the last event may trail the last call by up to 0.25 s
        events = stream.of(ACTIVITY_EVENT_SCHEMA)
    assert after["seq"] - before["seq"] >= calls
    # Each event counts the entries since the one before it: together, every entry.
    assert events[0]["seq"] - events[0]["count"] <= before["seq"]
    assert all(e["count"] == e["seq"] - p["seq"] for p, e in itertools.pairwise(events))
    # At most 4 a second (the server spaces them 0.25 s apart; arrival can bunch a little).
    assert len(events) <= 4 * (ended - started) + 2, (len(events), ended - started)
    assert all(e["waiting"] == 0 for e in events)


def test_no_event_holds_an_argument_value_or_a_token(server: JupyterServer) -> None:
    with subscribe(server) as stream:
        call = Waiting(server, "careful")
        api(server, "POST", f"approvals/{call.id}", {"decision": "deny", "reason": "no"})
        call.result()
        stream.wait_for(lambda e: approval_event(e, "decided", call.id), what="the decision")
        api(server, "DELETE", "assistants/careful")
        stream.wait_for(lambda e: e.get("action") == "revoked", what="the revocation")
    everything = "\n".join(stream.raw)
    assert PLANTED not in everything and "f-004" not in everything
    assert call.token not in everything and "cgat_" not in everything
    assert server.token not in everything


def test_the_server_log_says_when_a_call_waits_and_how_it_was_decided(
        server: JupyterServer) -> None:
    call = Waiting(server, "logged")
    api(server, "POST", f"approvals/{call.id}", {"decision": "deny", "reason": "not now"})
    call.result()
    time.sleep(0.2)
    lines = [line for line in server.log().splitlines() if call.id in line]
    requested = [line for line in lines if "approval requested:" in line]
    decided = [line for line in lines if "approval decided:" in line]
    assert len(requested) == 1 and len(decided) == 1
    assert " INFO" in requested[0] or "[I " in requested[0]
    assert re.search(rf"approval requested: assistant:logged wants suppress_findings \(id "
                     rf"{call.id}, expires in \d+(\.\d+)? s\)", requested[0]), requested[0]
    assert re.search(rf"approval decided: {call.id} denied by {re.escape(OWNER)} after "
                     r"\d+(\.\d+)? s", decided[0]), decided[0]
    assert not any(PLANTED in line for line in lines)
