"""Finding a running Jupyter server's MCP endpoint: the order of sources, URL joining, and
errors that say what to do. Server files are real ``jpserver-*.json`` files in a temporary
runtime dir, owned by live helper processes (Jupyter ignores files of dead processes)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cloudg_nb.jupyter_discovery import (
    JupyterServerNotFound,
    endpoint_url,
    find_jupyter_endpoint,
    hub_public_root,
)

ServerFile = Callable[..., int]


@pytest.fixture
def runtime_dir(tmp_path: Path) -> Path:
    path = tmp_path / "runtime"
    path.mkdir()
    return path


@pytest.fixture
def server_file(runtime_dir: Path) -> Iterator[ServerFile]:
    """Write a server file owned by a live process; returns that process's pid."""
    procs: list[subprocess.Popen[bytes]] = []

    def write(root_dir: Path, *, port: int = 8888, base_url: str = "/", token: str = "tok",
              hostname: str = "127.0.0.1", url: str | None = None) -> int:
        proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
        procs.append(proc)
        info = {
            "url": url or f"http://{hostname or 'localhost'}:{port}{base_url}",
            "hostname": hostname, "port": port, "sock": "", "secure": False,
            "base_url": base_url, "token": token, "root_dir": str(root_dir),
            "password": False, "pid": proc.pid, "version": "2.21.1",
        }
        (runtime_dir / f"jpserver-{proc.pid}.json").write_text(json.dumps(info))
        return proc.pid

    yield write
    for proc in procs:
        proc.kill()
        proc.wait()


def _find(runtime_dir: Path, cwd: Path, env: dict[str, str] | None = None,
          **kwargs: str) -> object:
    return find_jupyter_endpoint(environ=env or {}, cwd=cwd, runtime_dir=str(runtime_dir),
                                 **kwargs)


@pytest.mark.parametrize(("server", "base_url", "expected"), [
    ("http://127.0.0.1:8888/", "/", "http://127.0.0.1:8888/cloudg/mcp"),
    ("http://127.0.0.1:8888", None, "http://127.0.0.1:8888/cloudg/mcp"),
    ("http://127.0.0.1:8888/user/alice/", "/user/alice/",
     "http://127.0.0.1:8888/user/alice/cloudg/mcp"),
    ("http://127.0.0.1:8888/", "user/alice", "http://127.0.0.1:8888/user/alice/cloudg/mcp"),
    ("http://127.0.0.1:8888/user/alice", "/user/alice/",
     "http://127.0.0.1:8888/user/alice/cloudg/mcp"),
    ("https://hub.example.org/user/alice/lab/tree/a.ipynb?token=x", None,
     "https://hub.example.org/user/alice/cloudg/mcp"),
])
def test_endpoint_url_joins_server_and_base_url_with_single_slashes(
    server: str, base_url: str | None, expected: str,
) -> None:
    assert endpoint_url(server, base_url) == expected


def test_explicit_url_wins_over_environment_and_server_files(
    runtime_dir: Path, server_file: ServerFile, tmp_path: Path,
) -> None:
    server_file(tmp_path)
    found = _find(runtime_dir, tmp_path, {"CLOUDG_MCP_URL": "http://127.0.0.1:1/mcp"},
                  url="http://127.0.0.1:9999/", token="given")
    assert (found.url, found.token) == ("http://127.0.0.1:9999/cloudg/mcp", "given")
    assert found.found_by == "the URL given"


def test_explicit_lab_url_with_token_query_gives_endpoint_and_token(
    runtime_dir: Path, tmp_path: Path,
) -> None:
    found = _find(runtime_dir, tmp_path, url="http://127.0.0.1:8888/user/al/lab?token=abc")
    assert (found.url, found.token) == ("http://127.0.0.1:8888/user/al/cloudg/mcp", "abc")
    assert found.status_url == "http://127.0.0.1:8888/user/al/cloudg/api/status"


def test_explicit_mcp_endpoint_is_used_as_is(runtime_dir: Path, tmp_path: Path) -> None:
    found = _find(runtime_dir, tmp_path, url="http://127.0.0.1:8888/x/cloudg/mcp")
    assert found.url == "http://127.0.0.1:8888/x/cloudg/mcp"
    assert found.server_url == "http://127.0.0.1:8888/x/"


def test_explicit_url_without_scheme_is_rejected_with_an_example(
    runtime_dir: Path, tmp_path: Path,
) -> None:
    with pytest.raises(ValueError, match=r"http://127\.0\.0\.1:8888/"):
        _find(runtime_dir, tmp_path, url="127.0.0.1:8888")


def test_cloudg_mcp_url_and_token_win_over_server_files(
    runtime_dir: Path, server_file: ServerFile, tmp_path: Path,
) -> None:
    server_file(tmp_path)
    env = {"CLOUDG_MCP_URL": "http://127.0.0.1:8765/mcp", "CLOUDG_MCP_TOKEN": "envtok"}
    found = _find(runtime_dir, tmp_path, env)
    assert (found.url, found.token) == ("http://127.0.0.1:8765/mcp", "envtok")
    assert (found.found_by, found.token_env) == ("$CLOUDG_MCP_URL", "CLOUDG_MCP_TOKEN")


def test_parent_pid_server_wins_over_the_server_serving_the_current_folder(
    runtime_dir: Path, server_file: ServerFile, tmp_path: Path,
) -> None:
    here = tmp_path / "project"
    here.mkdir()
    server_file(here, port=1111, token="cwd-server")
    parent = server_file(tmp_path / "elsewhere", port=2222, token="parent-server")
    found = _find(runtime_dir, here, {"JPY_PARENT_PID": str(parent)})
    assert (found.url, found.token) == ("http://127.0.0.1:2222/cloudg/mcp", "parent-server")
    assert f"pid {parent}" in found.found_by
    assert found.token_env == "JUPYTER_TOKEN"


def test_most_specific_root_dir_holding_the_current_folder_wins(
    runtime_dir: Path, server_file: ServerFile, tmp_path: Path,
) -> None:
    here = tmp_path / "a" / "b"
    here.mkdir(parents=True)
    server_file(tmp_path, port=1111)
    server_file(tmp_path / "a", port=2222, base_url="/user/al/")
    server_file(tmp_path / "other", port=3333)
    found = _find(runtime_dir, here, {"JPY_PARENT_PID": "1"})  # pid 1 runs no server here
    assert found.url == "http://127.0.0.1:2222/user/al/cloudg/mcp"
    assert "root_dir holds the current folder" in found.found_by


def test_server_files_of_dead_processes_are_ignored(
    runtime_dir: Path, server_file: ServerFile, tmp_path: Path,
) -> None:
    live = server_file(tmp_path, port=1111)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = json.loads((runtime_dir / f"jpserver-{live}.json").read_text())
    stale.update(pid=dead.pid, port=2222, url="http://127.0.0.1:2222/")
    (runtime_dir / f"jpserver-{dead.pid}.json").write_text(json.dumps(stale))
    found = _find(runtime_dir, tmp_path, {"JPY_PARENT_PID": str(dead.pid)})
    assert found.url == "http://127.0.0.1:1111/cloudg/mcp"


def test_wildcard_bind_address_is_reached_on_loopback(
    runtime_dir: Path, server_file: ServerFile, tmp_path: Path,
) -> None:
    server_file(tmp_path, port=4444, hostname="0.0.0.0", url="http://somehost:4444/")
    assert _find(runtime_dir, tmp_path).url == "http://127.0.0.1:4444/cloudg/mcp"


def test_server_without_a_token_needs_none(
    runtime_dir: Path, server_file: ServerFile, tmp_path: Path,
) -> None:
    server_file(tmp_path, token="")
    found = _find(runtime_dir, tmp_path)
    assert (found.token, found.token_env) == (None, None)


def test_hub_server_file_without_token_uses_the_hub_api_token(
    runtime_dir: Path, server_file: ServerFile, tmp_path: Path,
) -> None:
    pid = server_file(tmp_path, token="", base_url="/user/al/")
    env = {"JPY_PARENT_PID": str(pid), "JUPYTERHUB_API_TOKEN": "hubtok",
           "JUPYTERHUB_SERVICE_PREFIX": "/user/al/"}
    found = _find(runtime_dir, tmp_path, env)
    assert (found.url, found.token) == ("http://127.0.0.1:8888/user/al/cloudg/mcp", "hubtok")
    assert found.token_env == "JUPYTERHUB_API_TOKEN"


def test_a_hub_server_found_by_its_file_has_the_hub_public_address_for_clients(
    runtime_dir: Path, server_file: ServerFile, tmp_path: Path,
) -> None:
    pid = server_file(tmp_path, token="", base_url="/user/al/")
    env = {"JPY_PARENT_PID": str(pid), "JUPYTERHUB_API_TOKEN": "hubtok",
           "JUPYTERHUB_SERVICE_PREFIX": "/user/al/",
           "JUPYTERHUB_PUBLIC_URL": "https://hub.example.org/user/al/"}
    found = _find(runtime_dir, tmp_path, env)
    assert found.url == "http://127.0.0.1:8888/user/al/cloudg/mcp"  # this shell reaches it here
    assert found.public_url == "https://hub.example.org/user/al/cloudg/mcp"
    assert found.address == found.public_url  # what an assistant elsewhere is given


def test_another_server_than_the_hubs_gets_no_hub_address(
    runtime_dir: Path, server_file: ServerFile, tmp_path: Path,
) -> None:
    pid = server_file(tmp_path, base_url="/")  # e.g. a `jupyter lab` started in a terminal
    env = {"JPY_PARENT_PID": str(pid), "JUPYTERHUB_SERVICE_PREFIX": "/user/al/",
           "JUPYTERHUB_PUBLIC_URL": "https://hub.example.org/user/al/"}
    found = _find(runtime_dir, tmp_path, env)
    assert found.public_url is None and found.address == "http://127.0.0.1:8888/cloudg/mcp"


@pytest.mark.parametrize(("env", "expected"), [
    ({"JUPYTERHUB_SERVICE_PREFIX": "/user/al/",
      "JUPYTERHUB_PUBLIC_URL": "https://hub.example.org/user/al/"},
     "https://hub.example.org/user/al/"),
    ({"JUPYTERHUB_SERVICE_PREFIX": "/user/al/", "JUPYTERHUB_PUBLIC_URL": "https://hub.org"},
     "https://hub.org/user/al/"),
    ({"JUPYTERHUB_SERVICE_PREFIX": "/jhub/user/al/",
      "JUPYTERHUB_PUBLIC_HUB_URL": "https://hub.org/jhub/hub/"}, "https://hub.org/jhub/user/al/"),
    ({"JUPYTERHUB_SERVICE_PREFIX": "/user/al/", "JUPYTERHUB_PUBLIC_URL": "",
      "JUPYTERHUB_PUBLIC_HUB_URL": "", "JUPYTERHUB_HOST": "https://al.hub.org"},
     "https://al.hub.org/user/al/"),
])
def test_hub_public_root_is_this_servers_public_address(
        env: dict[str, str], expected: str) -> None:
    assert hub_public_root(env) == expected


@pytest.mark.parametrize("env", [
    {},
    {"JUPYTERHUB_SERVICE_PREFIX": "/user/al/", "JUPYTERHUB_PUBLIC_URL": "",
     "JUPYTERHUB_PUBLIC_HUB_URL": "", "JUPYTERHUB_HOST": "",
     "JUPYTERHUB_SERVICE_URL": "http://127.0.0.1:51234/user/al/"},
    {"JUPYTERHUB_SERVICE_PREFIX": "/user/al/", "JUPYTERHUB_PUBLIC_URL": "hub.example.org"},
])
def test_hub_public_root_is_none_without_a_public_address(env: dict[str, str]) -> None:
    # The internal service URL is the server's own port: no address for anyone elsewhere.
    assert hub_public_root(env) is None


def test_hub_public_url_is_used_when_no_server_file_matches(
    runtime_dir: Path, tmp_path: Path,
) -> None:
    env = {"JUPYTERHUB_API_TOKEN": "hubtok", "JUPYTERHUB_SERVICE_PREFIX": "/user/al/",
           "JUPYTERHUB_PUBLIC_URL": "https://hub.example.org/user/al/",
           "JUPYTERHUB_SERVICE_URL": "http://0.0.0.0:8888/user/al/"}
    found = _find(runtime_dir, tmp_path, env)
    assert (found.url, found.token) == ("https://hub.example.org/user/al/cloudg/mcp", "hubtok")
    assert "JUPYTERHUB_PUBLIC_URL" in found.found_by


def test_hub_public_host_is_joined_with_the_service_prefix(
    runtime_dir: Path, tmp_path: Path,
) -> None:
    env = {"JUPYTERHUB_SERVICE_PREFIX": "/user/al/",
           "JUPYTERHUB_PUBLIC_HUB_URL": "https://hub.example.org/hub/"}
    assert _find(runtime_dir, tmp_path, env).url == "https://hub.example.org/user/al/cloudg/mcp"


def test_hub_internal_service_url_is_the_last_hub_resort_on_loopback(
    runtime_dir: Path, tmp_path: Path,
) -> None:
    env = {"JUPYTERHUB_API_TOKEN": "hubtok", "JUPYTERHUB_SERVICE_PREFIX": "/user/al/",
           "JUPYTERHUB_SERVICE_URL": "http://0.0.0.0:8888/user/al/"}
    found = _find(runtime_dir, tmp_path, env)
    assert found.url == "http://127.0.0.1:8888/user/al/cloudg/mcp"
    assert "inside the session" in found.found_by


def test_the_only_running_server_is_used_when_none_serves_the_current_folder(
    runtime_dir: Path, server_file: ServerFile, tmp_path: Path,
) -> None:
    (tmp_path / "served").mkdir()
    server_file(tmp_path / "served", port=5555)
    found = _find(runtime_dir, tmp_path)
    assert found.url == "http://127.0.0.1:5555/cloudg/mcp"
    assert "only running" in found.found_by


def test_no_server_raises_an_error_that_says_how_to_start_one(
    runtime_dir: Path, tmp_path: Path,
) -> None:
    with pytest.raises(JupyterServerNotFound) as err:
        _find(runtime_dir, tmp_path)
    assert "jupyter lab" in err.value.message and "CLOUDG_MCP_URL" in err.value.message
    assert any(str(runtime_dir) in source for source in err.value.looked_at)


def test_several_unrelated_servers_are_listed_without_their_tokens(
    runtime_dir: Path, server_file: ServerFile, tmp_path: Path,
) -> None:
    for port, name in ((1111, "x"), (2222, "y")):
        (tmp_path / name).mkdir()
        server_file(tmp_path / name, port=port, token=f"secret-{port}")
    with pytest.raises(JupyterServerNotFound) as err:
        _find(runtime_dir, tmp_path)
    assert "http://127.0.0.1:1111/" in err.value.message
    assert "http://127.0.0.1:2222/" in err.value.message
    assert "secret-" not in err.value.message


def test_explicit_token_replaces_the_discovered_one(
    runtime_dir: Path, server_file: ServerFile, tmp_path: Path,
) -> None:
    server_file(tmp_path, token="discovered")
    found = _find(runtime_dir, tmp_path, token="mine")
    assert (found.token, found.token_env) == ("mine", None)


def test_importing_discovery_starts_nothing_and_imports_no_server_code() -> None:
    code = ("import cloudg_nb.jupyter_discovery, sys, json; "
            "print(json.dumps(sorted(m for m in ('jupyter_server', 'tornado', 'mcp') "
            "if m in sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    assert out.strip() == "[]"


@pytest.mark.server
def test_a_kernel_of_a_real_server_finds_its_endpoint_and_it_answers(tmp_path: Path) -> None:
    from tests.jupyter.server import jupyter_server
    from tests.protocol.harness import open_session

    with jupyter_server(tmp_path, base_url="/user/alice/") as server:
        # What a kernel started by this server sees: its pid in JPY_PARENT_PID.
        found = find_jupyter_endpoint(
            environ={"JPY_PARENT_PID": str(server.proc.pid)}, cwd=tmp_path,
            runtime_dir=server.env["JUPYTER_RUNTIME_DIR"])
        assert (found.url, found.token) == (server.endpoint, server.token)
        with open_session(found.url, "2025",
                          headers={"Authorization": f"Bearer {found.token}"}) as session:
            names = {tool.name for tool in session.list_tools().tools}
        assert "workspace_status" in names
