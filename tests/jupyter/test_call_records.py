"""On a real Jupyter server, each call of an assistant (a minted credential, a real MCP
client) is recorded once and told the same way by every recorder: one audit line and one
activity entry with the same name, caller and outcome (a redaction counted in both; a layer
error the caller reads as an error is an ``exception`` in the audit log and an ``error`` in the
feed, as before), and, for a call that timed out, one server log line; reads of the feed
itself leave no entry."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.protocol.harness import open_session

from .server import FIXTURE_REGISTRY, JupyterServer, jupyter_server
from .test_auth import request

#: What it starts (a Jupyter server, one per module): tests/lanes.py.
pytestmark = [pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning"), pytest.mark.server]

#: (tool, arguments, the outcome of its audit line, of its activity entry)
CALLS: list[tuple[str, dict[str, Any], str, str]] = [
    ("who_am_i", {}, "ok", "ok"),
    ("read_app_config", {}, "ok", "ok"),  # its planted secret is redacted
    ("get_asset", {"ref": "no-such-asset"}, "exception", "error"),  # NotFoundError
    ("reveal_token", {"token": "pseudonym"}, "denied", "denied"),  # the profile denies it
    ("sleep_async", {"seconds": 30}, "error", "error"),  # timed out by default_timeout
]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[JupyterServer, Path]]:
    tmp = tmp_path_factory.mktemp("call-records")
    audit = tmp / "audit.jsonl"
    with jupyter_server(tmp, extra_args=[FIXTURE_REGISTRY, "--CloudGExtension.default_timeout=1",
                                         f"--CloudGExtension.audit_log={audit}"]) as server:
        yield server, audit


@pytest.fixture(scope="module")
def recorded(served: tuple[JupyterServer, Path]) -> dict[str, Any]:
    """Every call of ``CALLS`` made once by the assistant ``recorded``, then what the audit
    log, the activity feed and the server log say of that assistant."""
    server, audit = served
    status, _, raw = request(server, "POST", f"{server.base_url}cloudg/api/assistants",
                             {"name": "recorded", "client": "other"},
                             {"Authorization": f"token {server.token}",
                              "Content-Type": "application/json"})
    assert status == 201, raw
    token = json.loads(raw)["token"]
    results = {}
    with open_session(server.endpoint, "2025",
                      headers={"Authorization": f"Bearer {token}"}) as session:
        for tool, arguments, _, _ in CALLS:
            results[tool] = session.call_tool(tool, arguments)
        for _ in range(3):
            session.read_resource("cloudg://activity")
    with open_session(server.endpoint, "2025", headers=server.headers) as analyst:
        feed = json.loads(analyst.read_resource("cloudg://activity").contents[0].text)
    who = "assistant:recorded"
    lines = [json.loads(t) for t in audit.read_text(encoding="utf-8").splitlines()]
    deadline = time.monotonic() + 10
    while "ended early" not in server.log() and time.monotonic() < deadline:
        time.sleep(0.1)  # the server log is written by another process
    return {
        "results": results,
        "audit": [ln for ln in lines if ln.get("principal", {}).get("id") == who],
        "activity": [e for e in feed["entries"] if e["principal"] == who],
        "log": [ln for ln in server.log().splitlines() if "ended early" in ln and who in ln],
    }


def test_each_call_makes_one_audit_line_and_one_activity_entry(recorded: dict[str, Any]
                                                               ) -> None:
    tools = [tool for tool, *_ in CALLS]
    assert [line["name"] for line in recorded["audit"] if line["kind"] == "tool"] == tools
    assert [entry["name"] for entry in recorded["activity"]] == tools


def test_the_audit_line_and_the_activity_entry_tell_the_same_outcome(
        recorded: dict[str, Any]) -> None:
    audited = {ln["name"]: ln for ln in recorded["audit"] if ln["kind"] == "tool"}
    shown = {e["name"]: e for e in recorded["activity"]}
    for tool, _, audit_outcome, activity_outcome in CALLS:
        assert (audited[tool]["outcome"], shown[tool]["outcome"]) == (
            audit_outcome, activity_outcome), tool
        assert recorded["results"][tool].is_error is (activity_outcome != "ok"), tool
        error = audited[tool].get("error", {})
        assert error.get("code") == shown[tool]["error_code"], tool
        assert shown[tool]["assistant"] is True and shown[tool]["approval"] is None


def test_a_redaction_is_counted_in_the_audit_line_and_the_activity_entry(
        recorded: dict[str, Any]) -> None:
    (audited,) = [ln for ln in recorded["audit"] if ln["name"] == "read_app_config"]
    (shown,) = [e for e in recorded["activity"] if e["name"] == "read_app_config"]
    assert audited["transforms"]["redacted"] and shown["redacted"] >= 1


def test_a_timed_out_call_makes_one_server_log_line(recorded: dict[str, Any]) -> None:
    (line,) = recorded["log"]
    assert "cloudg: tool sleep_async by assistant:recorded ended early (timed out)" in line
    (audited,) = [ln for ln in recorded["audit"] if ln["name"] == "sleep_async"]
    assert audited["error"] == {"code": "timeout"} and audited["duration_ms"] >= 900


def test_reading_the_feed_leaves_an_audit_line_but_no_activity_entry(
        recorded: dict[str, Any]) -> None:
    reads = [ln for ln in recorded["audit"] if ln["kind"] == "resource"]
    assert [ln["name"] for ln in reads] == ["cloudg://activity"] * 3
    assert all(e["kind"] == "tool" for e in recorded["activity"])
