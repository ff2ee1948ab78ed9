"""%cloudg against a real Jupyter server with the extension: `%cloudg connect URL --token T`,
then calls, status and tab completion (MCP completion/complete) go to the server's workspace."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from IPython.core.completer import provisionalcompleter
from IPython.core.interactiveshell import InteractiveShell

import cloudg_nb
from cloudg_nb.notebook.client import set_default_client
from tests.jupyter.server import JupyterServer, jupyter_server

from .magics_shell import magics, run_cell

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    with jupyter_server(tmp_path_factory.mktemp("magics"), other_extensions=False) as running:
        yield running


@pytest.fixture(scope="module")
def ip(server: JupyterServer) -> Iterator[InteractiveShell]:
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "cloudg_nb")
    placeholder = cloudg_nb.local(sample=None)  # never the default: connect replaces it
    magics(shell).set_client(placeholder)
    try:
        run = run_cell(shell, f"%cloudg connect {server.url} --token {server.token}")
        assert "cloudg: remote:" in run.text, run.text
        yield shell
    finally:
        magics(shell).client.close()
        placeholder.close()
        shell.run_line_magic("unload_ext", "cloudg_nb")
        set_default_client(None)


def test_connect_makes_the_magics_call_the_servers_workspace(ip: InteractiveShell,
                                                             server: JupyterServer) -> None:
    run = run_cell(ip, "%cloudg call find_assets internet_exposed=true -o df")
    assert run.result.success and "Traceback" not in run.text
    assert sorted(ip.user_ns["df"]["id"]) == ["aws-alb-web", "aws-ec2-bastion", "az-vm-jump",
                                              "gcp-gce-kibana"]
    session = magics(ip).client.status()["session_id"]
    _, status = server.get_json(server.status_url)
    mine = [c["session"] for c in status["clients"] if c["client"] == "cloudg-nb-kernel"]
    assert session[:8] in mine


def test_status_after_connect_says_remote(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg status -o res")
    assert ip.user_ns["res"]["mode"] == "remote"
    assert "remote" in run.text


def test_remote_error_is_a_short_message(ip: InteractiveShell) -> None:
    run = run_cell(ip, '%cloudg call list_findings severities=["HIGHH"] -o bad')
    assert "did you mean: HIGH" in run.text and "Traceback" not in run.text
    assert "bad" not in ip.user_ns


def test_ref_completion_goes_through_mcp_completion(ip: InteractiveShell) -> None:
    line = "%cloudg call get_asset ref=cust"
    with provisionalcompleter():
        found = [c.text for c in ip.Completer.completions(line, len(line))]
    assert {"customers-db", "customer-pii-exports"} <= set(found)
