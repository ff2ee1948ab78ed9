"""%load_ext opens the magics' session in the background, so the first %cloudg line costs one
round trip: the server lists the kernel's session before any call, the first call uses it,
a client chosen meanwhile wins (the warmed session is closed), and CLOUDG_WARMUP=0 opens
nothing until the first call."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from IPython.core.interactiveshell import InteractiveShell

from cloudg_nb.notebook import client as client_module
from cloudg_nb.notebook import warmup
from cloudg_nb.notebook.client import Client, connect, default_client, set_default_client
from cloudg_nb.notebook.remote import CLIENT_NAME
from tests.jupyter.server import JupyterServer

from .magics_shell import run_cell
from .waiting import wait_for

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")


def kernel_sessions(server: JupyterServer) -> int:
    clients = server.get_json(server.status_url)[1]["clients"]
    return sum(1 for c in clients if c["client"] == CLIENT_NAME)


@pytest.fixture
def ip(server: JupyterServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[InteractiveShell]:
    """A shell whose magics find ``server`` through $CLOUDG_MCP_URL; the extension is loaded
    by the test."""
    monkeypatch.setenv("CLOUDG_MCP_URL", server.endpoint)
    monkeypatch.setenv("CLOUDG_MCP_TOKEN", server.token)
    set_default_client(None)
    shell = InteractiveShell.instance()
    try:
        yield shell
    finally:
        shell.run_line_magic("unload_ext", "cloudg_nb")
        warmup.abandon()
        if client_module._default is not None:
            client_module._default.close()
        set_default_client(None)


def test_loading_the_extension_opens_the_session_before_the_first_call(
        ip: InteractiveShell, server: JupyterServer) -> None:
    before = kernel_sessions(server)
    ip.run_line_magic("load_ext", "cloudg_nb")
    assert wait_for(lambda: kernel_sessions(server) == before + 1, 60, poll=0.1)
    run = run_cell(ip, "%cloudg call list_datasets -o listed")
    assert "demo" in set(ip.user_ns.pop("listed")["name"]), run.text
    assert "cloudg: remote" in run.stdout
    assert kernel_sessions(server) == before + 1  # the call used the warmed session


def test_a_client_chosen_while_warming_wins_and_the_warmed_session_closes(
        ip: InteractiveShell, server: JupyterServer) -> None:
    before = kernel_sessions(server)
    ip.run_line_magic("load_ext", "cloudg_nb")
    chosen: Client = connect(server.url, server.token)
    try:
        set_default_client(chosen)
        assert default_client() is chosen
        assert wait_for(lambda: kernel_sessions(server) == before + 1, 60, poll=0.1), \
            "the warmed session was not closed"
    finally:
        chosen.close()


def test_with_warmup_off_nothing_opens_until_the_first_call(
        ip: InteractiveShell, server: JupyterServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLOUDG_WARMUP", "0")
    before = kernel_sessions(server)
    ip.run_line_magic("load_ext", "cloudg_nb")
    assert warmup._pending is None
    assert kernel_sessions(server) == before
    run_cell(ip, "%cloudg call list_datasets")
    assert kernel_sessions(server) == before + 1
