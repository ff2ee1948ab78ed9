"""The notebook client outlives its MCP session: after the server expired an idle session (a
network drop longer than ``session_idle_timeout``) or restarted on the same port, calls and
LiveFrames resume by themselves with a fresh read and a visible note; only a server that stays
gone gives an error, and that error says what to do."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cloudg_nb.notebook.client import Client
from cloudg_nb.notebook.remote import RemoteBackend
from tests.jupyter.server import FIXTURE_REGISTRY, JupyterServer, jupyter_server
from tests.protocol.harness import open_session

from .magics_shell import run_cell, shell_with_extension
from .tcp_proxy import TcpProxy, tcp_proxy
from .waiting import wait_for

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

IDLE_TIMEOUT = 4
#: The sessions of one server: the status API names each by the first 8 characters.
ARGS = [FIXTURE_REGISTRY, f"--CloudGExtension.session_idle_timeout={IDLE_TIMEOUT}"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    with jupyter_server(tmp_path_factory.mktemp("reconnect"), extra_args=ARGS,
                        other_extensions=False) as running:
        yield running


@pytest.fixture
def proxy(server: JupyterServer) -> Iterator[TcpProxy]:
    with tcp_proxy(server.port) as running:
        yield running


def through(proxy: TcpProxy, server: JupyterServer, **options: float) -> Client:
    """A remote client whose connections pass through ``proxy``."""
    backend = RemoteBackend(proxy.url("/cloudg/mcp"), server.token, **options)
    return Client.open(backend)


def open_sessions(server: JupyterServer) -> list[str]:
    return [c["session"] for c in server.get_json(server.status_url)[1]["clients"]]


def suppress(server: JupyterServer, finding: str) -> None:
    """Another client (an assistant, say) changes the shared workspace."""
    with open_session(server.endpoint, "2025", headers=server.headers) as other:
        result = other.call_tool("suppress_findings", {"ids": [finding], "reason": "test"})
        assert not result.is_error, result.content


def unsuppress(server: JupyterServer, finding: str) -> None:
    with open_session(server.endpoint, "2025", headers=server.headers) as other:
        assert not other.call_tool("unsuppress_findings", {"ids": [finding]}).is_error


def expire(proxy: TcpProxy, server: JupyterServer, client: Client) -> None:
    """Cut the client's connections for longer than the idle timeout: the server ends its
    session (as after a laptop slept)."""
    old = str(client.status()["session_id"])[:8]
    assert old in open_sessions(server)
    proxy.blackout(IDLE_TIMEOUT + 2.5)
    assert wait_for(lambda: old not in open_sessions(server), IDLE_TIMEOUT + 6, poll=0.2), \
        "the server did not expire the session"


# -- idle expiry -------------------------------------------------------------------------------


def test_an_idle_client_keeps_its_session_past_the_idle_timeout(server: JupyterServer) -> None:
    from cloudg_nb.notebook.client import connect

    client = connect(server.url, server.token)
    try:
        first = client.status()["session_id"]
        time.sleep(IDLE_TIMEOUT + 2)
        assert not client.call("list_datasets", progress=False).is_error
        status = client.status()
        assert status["session_id"] == first and status["reconnects"] == 0
    finally:
        client.close()


def test_a_live_frame_follows_a_change_made_10_s_after_its_session_expired(
        server: JupyterServer, proxy: TcpProxy) -> None:
    client = through(proxy, server)
    try:
        lf = client.live("list_findings")
        assert "f-001" in set(lf.df["id"])
        started = time.monotonic()
        expire(proxy, server, client)
        time.sleep(max(0.0, 10 - (time.monotonic() - started)))
        suppress(server, "f-001")
        assert wait_for(lambda: "f-001" not in set(lf.df["id"]), 20, poll=0.1), lf.caption()
        fresh = client.frame("list_findings", progress=False)
        assert sorted(lf.df["id"]) == sorted(fresh["id"])  # nothing lost, nothing twice
        assert lf.df["id"].is_unique
        assert client.status()["reconnects"] >= 1
        assert "reconnected" in lf.caption()
        lf.close()
    finally:
        client.close()
        unsuppress(server, "f-001")


def test_a_magic_call_after_expiry_succeeds_and_says_it_reconnected(
        server: JupyterServer, proxy: TcpProxy) -> None:
    client = through(proxy, server)
    try:
        with shell_with_extension(client) as ip:
            assert "Error" not in run_cell(ip, "%cloudg call list_datasets").text
            expire(proxy, server, client)
            while proxy.dark:
                time.sleep(0.1)
            run = run_cell(ip, "%cloudg call list_datasets -o listed")
            assert "demo" in set(ip.user_ns.pop("listed")["name"]), run.text
            assert "reconnected to the Jupyter server" in run.stderr
            again = run_cell(ip, "%cloudg call list_datasets")
            assert "reconnected" not in again.stderr  # said once
    finally:
        client.close()


def test_the_awaitable_twin_reconnects_too(server: JupyterServer, proxy: TcpProxy) -> None:
    client = through(proxy, server)
    try:
        expire(proxy, server, client)
        while proxy.dark:
            time.sleep(0.1)
        result = asyncio.run(client.acall("count_assets", group_by="provider"))
        assert not result.is_error and result.data["total"] == 60
    finally:
        client.close()


def test_a_call_while_the_server_is_out_of_reach_says_so_and_the_next_one_works(
        server: JupyterServer, proxy: TcpProxy) -> None:
    client = through(proxy, server, reconnect_wait=1.0)
    try:
        proxy.blackout(8)
        started = time.monotonic()
        result = client.call("list_datasets", progress=False)
        assert time.monotonic() - started < 7
        assert result.is_error and result.error is not None
        assert result.error.code == "connection"
        assert "does not answer" in result.error.message
        assert "resume by themselves once it is back" in result.error.message
        assert server.token not in result.error.message
        while proxy.dark:
            time.sleep(0.1)
        assert not client.call("list_datasets", progress=False).is_error
    finally:
        client.close()


# -- a server restart on the same port ----------------------------------------------------------


def test_calls_and_live_frames_resume_after_a_server_restart_on_the_same_port(
        tmp_path: Path) -> None:
    with jupyter_server(tmp_path, extra_args=[FIXTURE_REGISTRY],
                        other_extensions=False) as first:
        client = Client.open(RemoteBackend(first.endpoint, first.token))
        lf = client.live("list_findings")
        port, token = first.port, first.token
        before = client.status()["session_id"]
    try:
        down = client.call("list_datasets", progress=False)
        assert down.is_error and down.error is not None and down.error.code == "connection"
        with jupyter_server(tmp_path, extra_args=[FIXTURE_REGISTRY], other_extensions=False,
                            port=port, token=token) as second:
            suppress(second, "f-002")  # made on the new server, before the client returns
            assert wait_for(lambda: "f-002" not in set(lf.df["id"]), 30, poll=0.1), \
                lf.caption()
            assert lf.df["id"].is_unique
            counted = client.call("count_assets", group_by="provider", progress=False)
            assert not counted.is_error and counted.data["total"] == 60
            assert client.status()["session_id"] != before
            lf.close()
    finally:
        client.close()


@pytest.mark.parametrize("how", ["stopped", "killed"])
def test_a_call_cut_off_by_the_server_going_away_is_an_error_that_says_so(
        tmp_path: Path, how: str) -> None:
    with jupyter_server(tmp_path, extra_args=[FIXTURE_REGISTRY],
                        other_extensions=False) as first:
        client = Client.open(RemoteBackend(first.endpoint, first.token, reconnect_wait=0.5))
        future = client.loop.submit(client._call("sleep_async", {"seconds": 30}, None))
        time.sleep(1.0)
        first.stop(signal.SIGTERM if how == "stopped" else signal.SIGKILL)
    try:
        result = future.result(30)
        assert result.is_error and result.error is not None
        if how == "stopped":  # the server ends its calls as it shuts down, and says so
            assert "shutting down" in result.error.message
        else:  # nobody said anything: the call may have run
            assert result.error.code == "connection"
            assert "may or may not have taken effect" in result.error.message
    finally:
        client.close()
