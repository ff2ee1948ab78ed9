"""The notebook client in remote mode, against a real Jupyter server with the extension:
the shared workspace, progress, change notifications, cancellation by interrupt, discovery."""

from __future__ import annotations

import _thread
import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from functools import partial
from pathlib import Path

import pytest

from cloudg_nb.notebook.call_result import CloudGError
from cloudg_nb.notebook.client import Client, connect
from tests.jupyter.server import JupyterServer, free_port, jupyter_server
from tests.protocol.harness import open_session

from .waiting import wait_for

ROOT = Path(__file__).resolve().parents[2]


#: This module's wait: up to 5.0 s.
_wait_for = partial(wait_for, timeout=5.0, poll=0.02)


def test_remote_client_calls_the_servers_workspace(client: Client) -> None:
    result = client.call("find_assets", internet_exposed=True, progress=False)
    assert client.mode == "remote"
    assert not result.is_error
    assert result.dataset == "demo"
    assert len(result.df) == result.data["total"] > 0
    assert result.df["internet_exposed"].all()


def test_remote_session_shows_in_the_servers_status(server: JupyterServer,
                                                    client: Client) -> None:
    session = client.status()["session_id"]
    _, status = server.get_json(server.status_url)
    mine = [c for c in status["clients"] if c["client"] == "cloudg-nb-kernel"]
    assert [c["session"] for c in mine] == [session[:8]]


def test_remote_unknown_tool_is_not_found_with_close_matches(client: Client) -> None:
    result = client.call("list_findngs", progress=False)
    assert result.is_error and result.error is not None
    assert result.error.code == "not_found"
    assert "list_findings" in result.error.hints


def test_remote_bad_argument_names_the_argument(client: Client) -> None:
    result = client.call("find_assets", internet_exposd=True, progress=False)
    assert result.is_error and result.error is not None
    assert "internet_exposd" in result.error.message
    assert result.error.hints == ["internet_exposed"]


def test_remote_progress_reports_reach_the_progress_function(client: Client) -> None:
    seen: list[tuple[float, float | None, str | None]] = []
    result = client.call("sample_estate", name="demo", dataset_name="progress_probe",
                         activate=False, progress=lambda *report: seen.append(report))
    assert not result.is_error
    assert [value for value, _, _ in seen] == [0, 70, 100]
    assert {total for _, total, _ in seen} == {100}


def test_remote_frame_read_prompt_and_complete(client: Client) -> None:
    assert len(client.frame("find_assets", limit=7, progress=False)) == 60
    assert client.read("cloudg://workspace")["active"] == "demo"
    assert "web-1" in client.prompt("investigate_asset", ref="web-1")[0]["text"]
    assert "web-1" in client.complete("ref", "web", tool="get_asset")


def test_remote_read_of_an_unknown_resource_raises_cloudg_error(client: Client) -> None:
    with pytest.raises(CloudGError):
        client.read("cloudg://nothing/here")


def test_remote_subscribe_hears_another_client_suppress_a_finding(
        server: JupyterServer, client: Client) -> None:
    changed: list[str] = []
    uri = "cloudg://datasets/demo/findings"
    stop = client.subscribe(uri, changed.append)
    try:
        high = client.frame("list_findings", severities=["HIGH"], progress=False)
        with open_session(server.endpoint, "2025", headers=server.headers) as assistant:
            done = assistant.call_tool("suppress_findings",
                                       {"ids": [str(high["id"].iloc[0])], "reason": "accepted"})
            assert not done.is_error
        assert _wait_for(lambda: uri in changed)
    finally:
        stop()


@pytest.mark.usefixtures("sigint_default")
def test_interrupt_cancels_a_remote_call_and_the_next_call_works(
        client: Client, tmp_path: Path) -> None:
    marker = tmp_path / "cancelled"
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        client.call("work_until_cancelled", marker=str(marker), seconds=30, progress=False)
    assert time.monotonic() - started < 0.5 + 2.0
    # The server's tool saw the cancellation (notifications/cancelled reached it).
    assert _wait_for(lambda: marker.exists())
    assert not client.call("find_assets", limit=1, progress=False).is_error


def test_connect_with_a_wrong_token_raises_a_clear_error(server: JupyterServer) -> None:
    with pytest.raises(CloudGError) as caught:
        connect(server.url, "not-the-token")
    assert caught.value.error.code == "connection"
    assert "not-the-token" not in str(caught.value)


def test_connect_to_a_port_nobody_listens_on_raises_a_clear_error() -> None:
    with pytest.raises(CloudGError) as caught:
        connect(f"http://127.0.0.1:{free_port()}/", "t")
    assert "Could not connect" in caught.value.error.message


def _run_python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def _clean_env(server: JupyterServer | None, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CLOUDG_MCP_", "JUPYTERHUB_", "JPY_"))}
    if server is not None:
        env["JUPYTER_RUNTIME_DIR"] = server.env["JUPYTER_RUNTIME_DIR"]
    env.update(extra)
    return env


DEFAULT_CLIENT_PROBE = """
    import json, sys
    from cloudg_nb.notebook.client import default_client
    client = default_client()
    result = client.call("find_assets", internet_exposed=True, progress=False)
    client.close()
    print(json.dumps({"mode": client.mode, "rows": len(result.df),
                      "nest": sorted(m for m in sys.modules if m.startswith("nest_asyncio"))}))
"""


def test_default_client_inside_a_servers_kernel_is_remote_and_says_why(
        server: JupyterServer, tmp_path: Path) -> None:
    env = _clean_env(server, JPY_PARENT_PID=str(server.proc.pid))
    done = _run_python(DEFAULT_CLIENT_PROBE, env)
    assert done.returncode == 0, done.stderr
    announce, report = done.stdout.strip().splitlines()
    assert announce.startswith("cloudg: remote: Jupyter server ")
    assert f"pid {server.proc.pid}" in announce
    assert json.loads(report)["mode"] == "remote"


def test_default_client_without_a_server_is_local_and_says_why(tmp_path: Path) -> None:
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    done = _run_python(DEFAULT_CLIENT_PROBE, _clean_env(None, JUPYTER_RUNTIME_DIR=str(runtime)))
    assert done.returncode == 0, done.stderr
    announce, report = done.stdout.strip().splitlines()
    assert announce.startswith("cloudg: local: in-process layer")
    assert "no Jupyter server found" in announce
    assert json.loads(report) == {"mode": "local", "rows": 4, "nest": []}


def test_client_never_imports_nest_asyncio(server: JupyterServer) -> None:
    env = _clean_env(server, CLOUDG_MCP_URL=server.endpoint, CLOUDG_MCP_TOKEN=server.token)
    done = _run_python(DEFAULT_CLIENT_PROBE, env)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["mode"] == "remote" and report["rows"] > 0
    assert report["nest"] == []


async def test_remote_async_call_runs_without_blocking_the_callers_loop(
        client: Client) -> None:
    import asyncio

    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticker = asyncio.create_task(tick())
    result = await client.acall("progress_then_sleep", seconds=0.5, progress=False)
    ticker.cancel()
    assert result.data == {"slept": 0.5}
    assert ticks >= 10  # the caller's loop kept running while the call waited


async def test_cancelling_an_async_call_cancels_it_on_the_server(
        client: Client, tmp_path: Path) -> None:
    import asyncio

    marker = tmp_path / "cancelled"
    call = asyncio.create_task(client.acall("work_until_cancelled", marker=str(marker),
                                            seconds=30, progress=False))
    await asyncio.sleep(0.5)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    deadline = time.monotonic() + 5
    while not marker.exists() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert marker.exists()
    assert not (await client.acall("find_assets", limit=1, progress=False)).is_error


@pytest.mark.server
def test_a_call_after_the_server_stopped_is_a_connection_error_result(
        tmp_path: Path) -> None:
    with jupyter_server(tmp_path, other_extensions=False) as running:
        lost = connect(running.url, running.token)
        running.stop()
        result = lost.call("find_assets", limit=1, progress=False)
        lost.close()
    assert result.is_error and result.error is not None
    assert result.error.code == "connection"
    assert "does not answer" in result.error.message
    assert "resume by themselves once it is back" in result.error.message


def test_default_client_falls_back_to_local_when_the_server_found_does_not_answer(
        tmp_path: Path) -> None:
    silent = f"http://127.0.0.1:{free_port()}/cloudg/mcp"
    done = _run_python(DEFAULT_CLIENT_PROBE, _clean_env(None, CLOUDG_MCP_URL=silent,
                                                        CLOUDG_MCP_TOKEN="t"))
    assert done.returncode == 0, done.stderr
    announce, report = done.stdout.strip().splitlines()
    assert announce.startswith("cloudg: local: in-process layer")
    assert "did not answer" in announce
    assert json.loads(report)["mode"] == "local"


def test_a_process_that_exits_without_close_ends_its_session(server: JupyterServer) -> None:
    def kernel_sessions() -> int:
        _, status = server.get_json(server.status_url)
        return sum(c["client"] == "cloudg-nb-kernel" for c in status["clients"])

    before = kernel_sessions()
    code = """
        import json, urllib.request, os
        from cloudg_nb.notebook.client import connect
        connect()
        token = os.environ["CLOUDG_MCP_TOKEN"]
        request = urllib.request.Request(os.environ["STATUS_URL"],
                                         headers={"Authorization": "token " + token})
        status = json.loads(urllib.request.urlopen(request).read())
        print(sum(c["client"] == "cloudg-nb-kernel" for c in status["clients"]))
    """
    env = _clean_env(server, CLOUDG_MCP_URL=server.endpoint, CLOUDG_MCP_TOKEN=server.token,
                     STATUS_URL=server.status_url)
    done = _run_python(code, env)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.strip()) == before + 1
    assert _wait_for(lambda: kernel_sessions() == before)


def test_remote_arguments_may_be_numpy_and_pandas_values(client: Client) -> None:
    import numpy

    exposed = client.frame("find_assets", internet_exposed=True, progress=False)
    paged = client.call("find_assets", internet_exposed=True, limit=numpy.int64(2),
                        fields=exposed.columns[:3], progress=False)
    assert not paged.is_error, paged.error
    assert len(paged.df) == 2 and list(paged.df.columns) == list(exposed.columns[:3])


def test_connect_without_any_server_says_how_to_name_one(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from cloudg_nb.jupyter_discovery import JupyterServerNotFound

    for name in ("CLOUDG_MCP_URL", "CLOUDG_MCP_TOKEN", "JPY_PARENT_PID",
                 "JUPYTERHUB_SERVICE_PREFIX"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path))
    with pytest.raises(JupyterServerNotFound, match="CLOUDG_MCP_URL"):
        connect()
