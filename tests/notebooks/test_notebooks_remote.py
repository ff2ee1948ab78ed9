"""The quickstart run headless against a real Jupyter server (remote mode, as in JupyterLab):
its scripted assistant gets a credential of its own, its suppression waits for the analyst,
the notebook's analyst-side cell approves it, the activity feed shows the call under the
assistant's name, and the notebook leaves the workspace and the credentials as it found them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.jupyter.server import JupyterServer, jupyter_server
from tests.lanes import starts
from tests.protocol.harness import open_session

from .execute import NOTEBOOKS, cell_text, execute_notebook, problems, stderr_blocks
from .test_notebooks_execute import WIDGET_VIEW, cell_with, mime_types, stdout_of

pytestmark = pytest.mark.kernel


@pytest.fixture(scope="module")
@starts("server")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    with jupyter_server(tmp_path_factory.mktemp("remote-notebooks")) as running:
        yield running


def run_remotely(name: str, server: JupyterServer, tmp_path: Path):  # type: ignore[no-untyped-def]
    return execute_notebook(NOTEBOOKS / name, tmp_path, env={
        "CLOUDG_MCP_URL": server.endpoint, "CLOUDG_MCP_TOKEN": server.token})


def test_quickstart_remotely_an_assistant_asks_the_notebook_approves_the_feed_shows_it(
        server: JupyterServer, tmp_path: Path) -> None:
    notebook = run_remotely("01-quickstart.ipynb", server, tmp_path)

    assert problems(notebook) == [] and stderr_blocks(notebook) == []
    assert f"cloudg: remote: Jupyter server {server.url}" in cell_text(
        cell_with(notebook, "%load_ext cloudg_nb"))
    assert WIDGET_VIEW in mime_types(cell_with(notebook, "graph(paths, findings"))
    asked = stdout_of(cell_with(notebook, "ScriptedAssistant.mint("))
    assert "assistant:quickstart-assistant, with its own credential (cgat_" in asked
    assert server.token not in asked
    assert WIDGET_VIEW in mime_types(cell_with(notebook, "client.approval_panel()"))
    decided = stdout_of(cell_with(notebook, "client.approve("))
    assert "waiting for you: assistant:quickstart-assistant · suppress_findings" in decided
    assert "approved: the assistant's call is done (f-006 suppressed in dataset 'demo')" \
        in decided
    feed = cell_with(notebook, "client.activity_feed()")
    assert WIDGET_VIEW in mime_types(feed)
    assert "(1 by assistants)" in cell_text(feed)
    assert "credential revoked; f-006 is open again" in stdout_of(
        cell_with(notebook, "client.revoke_assistant("))
    with open_session(server.endpoint, "2025", headers=server.headers) as analyst:
        f006 = analyst.call_tool("get_finding", {"finding_id": "f-006"}).structured_content
        assistants = analyst.call_tool("list_assistants", {}).structured_content
        read = analyst.read_resource("cloudg://activity")
    entries = json.loads(read.contents[0].text)["entries"]
    by_assistant = [(e["name"], e["outcome"], e["approval"]) for e in entries
                    if e["principal"] == "assistant:quickstart-assistant"]
    assert by_assistant == [("suppress_findings", "ok", "approved")]
    assert f006["is_suppressed"] is False
    assert [a["name"] for a in assistants["assistants"]] == []
