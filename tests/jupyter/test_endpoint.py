"""The MCP endpoint inside a real Jupyter server, driven by the official SDK client over HTTP
with the Jupyter token, in both protocol eras: handshake, catalog, calls on the demo estate
(preloaded at start), resources, prompts, completions, the caller's principal, progress while a
sync tool runs, and the status endpoint.
"""

from __future__ import annotations

import json
import time

import pytest
from mcp_types import PromptReference, ResourceTemplateReference

from tests.protocol.harness import MODERN, ClientSession, open_session

from .server import JupyterServer

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")


def test_client_negotiates_its_protocol_era(session: ClientSession) -> None:
    expected = MODERN if session.era == "2026" else "2025-11-25"  # type: ignore[attr-defined]
    assert session.protocol_version == expected


def test_tools_list_is_the_catalog_plus_the_configured_registry(session: ClientSession) -> None:
    names = {tool.name for tool in session.list_tools().tools}
    assert {"top_risks", "attack_paths", "suppress_findings", "sample_estate"} <= names
    assert {"progress_then_sleep", "who_am_i"} <= names


def test_structured_call_answers_from_the_preloaded_demo_estate(session: ClientSession) -> None:
    result = session.call_tool("count_assets", {"group_by": "provider"})
    assert result.is_error is False
    assert result.structured_content["dataset"] == "demo"
    assert result.structured_content["total"] == 60
    assert {g["group"] for g in result.structured_content["groups"]} == {"AWS", "AZURE", "GCP"}


def test_resource_read_returns_the_dataset_summary(session: ClientSession) -> None:
    (content,) = session.read_resource("cloudg://datasets/demo/summary").contents
    summary = json.loads(content.text)
    assert (summary["name"], summary["assets"]) == ("demo", 60)


def test_prompt_renders_facts_from_the_estate(session: ClientSession) -> None:
    result = session.get_prompt("security_posture_review", {"dataset": "demo"})
    text = result.messages[0].content.text
    assert "demo" in text and "```json" in text


def test_completion_of_a_prompt_argument_offers_the_loaded_dataset(
    session: ClientSession,
) -> None:
    result = session.complete(PromptReference(name="investigate_asset"),
                              {"name": "dataset", "value": "d"})
    assert result.completion.values == ["demo"]


def test_completion_of_a_template_variable(session: ClientSession) -> None:
    ref = ResourceTemplateReference(uri="cloudg://findings/severity/{severity}")
    result = session.complete(ref, {"name": "severity", "value": "CR"})
    assert result.completion.values == ["CRITICAL"]


def test_caller_is_the_servers_owner_with_default_roles(session: ClientSession) -> None:
    import getpass

    who = session.call_tool("who_am_i", {}).structured_content
    assert who == {"id": getpass.getuser(), "roles": ["default"]}


def test_progress_from_a_sync_tool_arrives_while_it_runs(session: ClientSession) -> None:
    """The tool reports progress, then sleeps 1 s: the report must reach the client at least
    0.5 s before the result (not buffered until the end, as behind buffering bridges)."""
    arrivals: list[tuple[str, float]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        arrivals.append(("progress", time.monotonic()))

    session.call_tool("progress_then_sleep", {"seconds": 1.0}, progress_callback=on_progress)
    arrivals.append(("result", time.monotonic()))
    assert [kind for kind, _ in arrivals] == ["progress", "result"]
    assert arrivals[1][1] - arrivals[0][1] >= 0.5


def test_status_endpoint_describes_what_is_served(jupyter: JupyterServer) -> None:
    status, body = jupyter.get_json(jupyter.status_url)
    assert status == 200
    assert body["endpoint"] == jupyter.endpoint
    assert body["ready"] is True
    assert {"2025-11-25", MODERN} <= set(body["protocol_versions"])
    assert body["policy"] == "standard"
    demo = next(d for d in body["datasets"] if d["name"] == "demo")
    assert demo["assets"] == 60 and demo["version"] >= 1
    assert body["tools"] >= 40
    assert isinstance(body["sessions"], int) and body["uptime_seconds"] >= 0


def test_the_server_lets_threads_take_turns_at_the_configured_switch_interval(
        jupyter: JupyterServer) -> None:
    """Assistants' CPU-bound calls in worker threads must not keep the serving loop and the
    analyst's calls off the interpreter for Python's default 5 ms at a time."""
    _, body = jupyter.get_json(jupyter.status_url)
    assert body["switch_interval"] == pytest.approx(0.0005)


def test_status_endpoint_counts_live_sessions(jupyter: JupyterServer) -> None:
    def sessions() -> int:
        return int(jupyter.get_json(jupyter.status_url)[1]["sessions"])

    before = sessions()
    with open_session(jupyter.endpoint, "2025", headers=jupyter.headers):
        assert sessions() == before + 1
    assert sessions() == before


def test_status_endpoint_names_each_session_client(jupyter: JupyterServer) -> None:
    from mcp_types import Implementation

    def clients() -> list[dict]:
        return list(jupyter.get_json(jupyter.status_url)[1]["clients"])

    with open_session(jupyter.endpoint, "2025", headers=jupyter.headers,
                      client_info=Implementation(name="probe-client", version="9.9")) as s:
        s.call_tool("count_assets", {})
        named = [c for c in clients() if c["client"] == "probe-client"]
        assert len(named) == 1
        assert named[0]["client_version"] == "9.9"
        assert named[0]["protocol_version"] == "2025-11-25"
        assert len(named[0]["session"]) == 8
    assert not [c for c in clients() if c["client"] == "probe-client"]


def test_start_log_names_the_endpoint_and_the_command_that_mints_an_assistant_credential(
        jupyter: JupyterServer) -> None:
    log = jupyter.log()
    assert f"MCP endpoint at {jupyter.endpoint}" in log
    assert "cloudg-nb config --client claude-code --jupyter" in log
    assert "claude mcp add" not in log  # no command that would hand out the server's token
    assert jupyter.token not in log
