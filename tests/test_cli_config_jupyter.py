"""``cloudg-nb config --client NAME --jupyter``: configurations for the running Jupyter
server's endpoint that keep its token out of the text unless ``--show-token`` asks for it,
and an error that says what to do when no server runs. Server files are real
``jpserver-*.json`` files owned by live helper processes in a temporary runtime dir."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cloudg_nb.cli import main

TOKEN = "s3cr3t-jupyter-token"


def _unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def jupyter_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An isolated runtime dir, the current folder inside ``tmp_path``, no discovery vars."""
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(runtime))
    for name in list(os.environ):
        if name.startswith(("CLOUDG_MCP_", "JUPYTERHUB_")) or name in (
                "JPY_PARENT_PID", "JUPYTER_TOKEN"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    yield runtime


@pytest.fixture
def server_file(jupyter_env: Path, tmp_path: Path) -> Iterator[str]:
    """A server file (root_dir = the current folder) on a port nobody listens on; yields the
    expected endpoint URL."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    port = _unused_port()
    info = {"url": f"http://127.0.0.1:{port}/user/al/", "hostname": "127.0.0.1",
            "port": port, "sock": "", "secure": False, "base_url": "/user/al/",
            "token": TOKEN, "root_dir": str(tmp_path), "password": False, "pid": proc.pid}
    (jupyter_env / f"jpserver-{proc.pid}.json").write_text(json.dumps(info))
    yield f"http://127.0.0.1:{port}/user/al/cloudg/mcp"
    proc.kill()
    proc.wait()


def _config(client: str, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[str, str]:
    assert main(["config", "--client", client, "--jupyter", *extra]) == 0
    captured = capsys.readouterr()
    return captured.out, captured.err


def test_claude_code_command_reads_the_token_from_the_shell(
    server_file: str, capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    out, err = _config("claude-code", capsys)
    assert TOKEN not in out + err
    # Run the printed line with a stand-in `claude` that records its argv.
    fake = tmp_path / "bin" / "claude"
    fake.parent.mkdir()
    fake.write_text(f"#!{sys.executable}\nimport json, sys\nprint(json.dumps(sys.argv[1:]))\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    env = {**os.environ, "PATH": f"{fake.parent}{os.pathsep}{os.environ['PATH']}",
           "JUPYTER_TOKEN": "from-the-shell"}
    ran = subprocess.run(["bash", "-c", out.strip()], env=env, capture_output=True, text=True,
                         check=True, timeout=60)
    assert json.loads(ran.stdout) == ["mcp", "add", "--transport", "http", "cloudg", server_file,
                                      "--header", "Authorization: Bearer from-the-shell"]


def test_cursor_config_refers_to_the_token_variable(
    server_file: str, capsys: pytest.CaptureFixture[str],
) -> None:
    out, err = _config("cursor", capsys)
    entry = json.loads(out)["mcpServers"]["cloudg"]
    assert entry == {"url": server_file,
                     "headers": {"Authorization": "Bearer ${env:JUPYTER_TOKEN}"}}
    assert TOKEN not in err and "--show-token" in err


def test_vscode_config_prompts_for_the_token_as_a_password(
    server_file: str, capsys: pytest.CaptureFixture[str],
) -> None:
    config = json.loads(_config("vscode", capsys)[0])
    (prompt,) = config["inputs"]
    assert prompt["password"] is True
    assert config["servers"]["cloudg"] == {
        "type": "http", "url": server_file,
        "headers": {"Authorization": f"Bearer ${{input:{prompt['id']}}}"}}


def test_claude_desktop_config_leaves_a_placeholder_for_the_token(
    server_file: str, capsys: pytest.CaptureFixture[str],
) -> None:
    out, err = _config("claude-desktop", capsys)
    entry = json.loads(out)["mcpServers"]["cloudg"]
    assert entry["args"] == ["-y", "mcp-remote", server_file, "--header",
                             "Authorization:${AUTH_HEADER}"]
    assert entry["env"]["AUTH_HEADER"].startswith("Bearer <")
    assert TOKEN not in out + err and "replace" in err


def test_show_token_puts_the_token_in_the_configuration(
    server_file: str, capsys: pytest.CaptureFixture[str],
) -> None:
    entry = json.loads(_config("cursor", capsys, "--show-token")[0])["mcpServers"]["cloudg"]
    assert entry["headers"] == {"Authorization": f"Bearer {TOKEN}"}


def test_the_shell_already_holding_the_token_is_acknowledged(
    server_file: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("JUPYTER_TOKEN", TOKEN)
    err = _config("cursor", capsys)[1]
    assert "$JUPYTER_TOKEN in this shell holds this server's token" in err


def test_a_server_file_nobody_answers_for_is_warned_about(
    server_file: str, capsys: pytest.CaptureFixture[str],
) -> None:
    err = _config("cursor", capsys)[1]
    assert "warning: nothing answers at that address" in err


def test_hub_session_refers_to_the_hub_api_token(
    jupyter_env: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("JUPYTERHUB_SERVICE_PREFIX", "/user/al/")
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "hub-secret")
    monkeypatch.setenv("JUPYTERHUB_PUBLIC_URL", "https://hub.example.org/user/al/")
    out, err = _config("cursor", capsys)
    entry = json.loads(out)["mcpServers"]["cloudg"]
    assert entry == {"url": "https://hub.example.org/user/al/cloudg/mcp",
                     "headers": {"Authorization": "Bearer ${env:JUPYTERHUB_API_TOKEN}"}}
    assert "hub-secret" not in out + err


def test_url_names_the_server_and_token_is_still_hidden(
    jupyter_env: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    url = f"http://127.0.0.1:{_unused_port()}/lab?token={TOKEN}"
    out, err = _config("cursor", capsys, "--url", url)
    entry = json.loads(out)["mcpServers"]["cloudg"]
    assert entry["url"] == url.split("lab?")[0] + "cloudg/mcp"
    assert TOKEN not in out + err


def test_no_running_server_is_a_usage_error_that_says_what_to_do(
    jupyter_env: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["config", "--client", "cursor", "--jupyter"]) == 2
    err = capsys.readouterr().err
    assert "No running Jupyter server found" in err
    assert "jupyter lab" in err and "--url" in err and "Traceback" not in err


def test_show_token_without_jupyter_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "--client", "cursor", "--show-token"]) == 2
    assert "--jupyter" in capsys.readouterr().err


def test_config_for_a_real_running_server_connects_without_warnings(
    jupyter_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.jupyter.server import jupyter_server
    from tests.protocol.harness import open_session

    with jupyter_server(tmp_path / "server") as server:
        monkeypatch.setenv("JUPYTER_RUNTIME_DIR", server.env["JUPYTER_RUNTIME_DIR"])
        monkeypatch.chdir(server.root_dir)
        out, err = _config("cursor", capsys, "--show-token")
        entry = json.loads(out)["mcpServers"]["cloudg"]
        assert entry["url"] == server.endpoint
        assert "warning" not in err
        with open_session(entry["url"], "2026", headers=entry["headers"]) as session:
            assert session.list_tools().tools
