"""A long afternoon, time-compressed: a notebook client with a LiveFrame goes through 48
session expiries (8 hours at the default 600 s idle timeout), calling tools and following
another client's changes throughout, and ends with as many threads, loop tasks, open files
and server sessions as it had after the first few."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator

import pytest

from cloudg_nb.notebook.client import Client
from cloudg_nb.notebook.live import LiveFrame
from cloudg_nb.notebook.remote import CLIENT_NAME, RemoteBackend
from tests.jupyter.server import FIXTURE_REGISTRY, JupyterServer, jupyter_server
from tests.protocol.harness import ClientSession, open_session

from .tcp_proxy import TcpProxy, tcp_proxy
from .waiting import wait_for

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

IDLE_TIMEOUT = 0.5
#: 8 hours of the default 600 s idle timeout.
EXPIRIES = 48
WARM_UP = 3
FINDING = "f-005"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    with jupyter_server(tmp_path_factory.mktemp("endurance"), other_extensions=False,
                        extra_args=[FIXTURE_REGISTRY,
                                    f"--CloudGExtension.session_idle_timeout={IDLE_TIMEOUT}"]
                        ) as running:
        yield running


@pytest.fixture
def proxy(server: JupyterServer) -> Iterator[TcpProxy]:
    with tcp_proxy(server.port) as running:
        yield running


def kernel_sessions(server: JupyterServer) -> list[str]:
    clients = server.get_json(server.status_url)[1]["clients"]
    return [c["session"] for c in clients if c["client"] == CLIENT_NAME]


def loop_tasks(client: Client) -> int:
    async def count() -> int:
        import asyncio

        return len(asyncio.all_tasks())

    return client.loop.submit(count()).result(10)


def client_threads() -> int:
    """Threads of this process but the test proxy's (one pair per forwarded connection)."""
    return sum(1 for t in threading.enumerate() if "_pump" not in t.name
               and t.name != "tcp-proxy")


def open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_48_expiries_with_calls_and_a_live_frame_leak_nothing(
        server: JupyterServer, proxy: TcpProxy) -> None:
    client = Client.open(RemoteBackend(proxy.url("/cloudg/mcp"), server.token, keepalive=0.2))
    lf = client.live("list_findings")
    baseline: dict[str, int] = {}
    try:
        with open_session(server.endpoint, "2025", headers=server.headers) as other:
            for cycle in range(EXPIRIES):
                expire_and_use(server, proxy, client, cycle)
                if cycle % 8 == 0:  # another client changes the workspace: the frame follows
                    flip_finding(other, lf, cycle)
                if cycle == WARM_UP:
                    time.sleep(0.5)
                    baseline = {"threads": client_threads(), "tasks": loop_tasks(client),
                                "files": open_files()}
        time.sleep(0.5)
        assert client_threads() <= baseline["threads"] + 1
        assert loop_tasks(client) <= baseline["tasks"] + 1
        assert open_files() <= baseline["files"] + 4
        assert len(kernel_sessions(server)) == 1
        backend = client.backend
        assert isinstance(backend, RemoteBackend)
        assert not backend._retiring and len(backend._subscribers) <= 4
    finally:
        lf.close()
        client.close()


def expire_and_use(server: JupyterServer, proxy: TcpProxy, client: Client, cycle: int) -> None:
    """Cut the client off until the server expires its session; it reconnects and calls."""
    old = set(kernel_sessions(server))
    proxy.blackout(IDLE_TIMEOUT + 0.8)
    assert wait_for(lambda: not old & set(kernel_sessions(server)), 10, poll=0.05), \
        f"cycle {cycle}: the session did not expire"
    assert wait_for(lambda: client.backend.status()["reconnects"] > cycle, 20, poll=0.05), \
        f"cycle {cycle}: the client did not reconnect"
    result = client.call("count_assets", group_by="provider", progress=False)
    assert not result.is_error, (cycle, result.text)


def flip_finding(other: ClientSession, lf: LiveFrame, cycle: int) -> None:
    """Suppress (or unsuppress) FINDING from another client; the LiveFrame shows it."""
    shown = FINDING in set(lf.df["id"])
    if shown:
        result = other.call_tool("suppress_findings", {"ids": [FINDING], "reason": "soak"})
    else:
        result = other.call_tool("unsuppress_findings", {"ids": [FINDING]})
    assert not result.is_error
    assert wait_for(lambda: (FINDING in set(lf.df["id"])) != shown, 20, poll=0.05), \
        f"cycle {cycle}: {lf.caption()}"
    assert lf.df["id"].is_unique
