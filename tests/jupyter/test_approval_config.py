"""Which assistant calls wait for the analyst is configurable: ``require_approval`` for every
profile without an ``approval`` section, and a profile's own section for its assistants, name
calls that wait besides those that change the analyst's data, which always wait."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.protocol.harness import open_session

from .server import JupyterServer, jupyter_server
from .test_assistants import bearer, mint, request

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

OWN_PROFILE = """
name: trusted-bot
extends: assistant
approval:
  tools: [count_*]
  timeout: 2
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    tmp = tmp_path_factory.mktemp("approval-config")
    with jupyter_server(tmp, base_url="/user/alice/", extra_args=[
            "--CloudGExtension.require_approval=list_datasets",
            "--CloudGExtension.approval_timeout=2"]) as started:
        (started.root_dir / "trusted.yaml").write_text(OWN_PROFILE)
        yield started


def _waits(server: JupyterServer, token: str, tool: str, args: dict) -> bool:
    """Whether ``tool`` waited for approval (and, undecided, timed out)."""
    with open_session(server.endpoint, "2025", headers=bearer(token)) as session:
        result = session.call_tool(tool, args)
    text = result.content[0].text if result.content else ""
    return result.is_error and "did not approve" in text


def test_the_server_setting_names_what_waits(server: JupyterServer) -> None:
    token = mint(server, "default-bot")
    assert _waits(server, token, "list_datasets", {})
    assert not _waits(server, token, "count_assets", {"group_by": "provider"})


def test_a_change_to_the_analysts_data_waits_whatever_the_setting_names(
        server: JupyterServer) -> None:
    token = mint(server, "effects-bot")
    assert _waits(server, token, "suppress_findings", {"ids": ["f-001"], "reason": "r"})
    with open_session(server.endpoint, "2025", headers=bearer(token)) as session:
        copy = session.call_tool("snapshot_dataset", {"name": "effects-bot-copy"})
        assert not copy.is_error, copy.content
        own = session.call_tool("suppress_findings", {"ids": ["f-001"], "reason": "r",
                                                      "dataset": "effects-bot-copy"})
        assert not own.is_error, own.content  # its own copy: nothing to approve
        assert own.structured_content["suppressed"] == ["f-001"]


def test_a_profiles_own_section_wins(server: JupyterServer) -> None:
    profile = str(server.root_dir / "trusted.yaml")
    token = mint(server, "trusted", profile=profile)
    assert not _waits(server, token, "list_datasets", {})
    assert _waits(server, token, "count_assets", {"group_by": "provider"})
    _, _, raw = request(server, "GET", "/user/alice/cloudg/api/assistants",
                             headers={"Authorization": f"token {server.token}"})
    listed = {a["name"]: a for a in json.loads(raw)["assistants"]}
    assert listed["trusted"]["profile"] == profile and listed["default-bot"]["profile"] == (
        "assistant")
