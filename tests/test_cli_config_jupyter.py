"""``cloudg-nb config --client NAME --jupyter`` and ``cloudg-nb assistants``: each assistant gets
a credential of its own from the running Jupyter server (a token that opens the MCP endpoint and
nothing else, replaced by minting again, refused once revoked, also through the store file when
no server is found); ``--server-token`` is the loud escape hatch that refers to the server's own
token. Real servers under a non-root base_url, driven by the console script; server files whose
server is gone are real ``jpserver-*.json`` files owned by live helper processes."""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import stat
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from cloudg_nb.catalog import default_registry
from cloudg_nb.cli import main
from cloudg_nb.policy import Policy
from tests.jupyter.server import JupyterServer, jupyter_server
from tests.lanes import starts
from tests.protocol.harness import open_session

TOKEN = "s3cr3t-jupyter-token"
BASE = "/user/alice/"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "config-test", "version": "1"}}}
_DISCOVERY_VARS = ("JPY_PARENT_PID", "JUPYTER_TOKEN")


def _unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# -- a real server, the console script, and what a token opens --------------------------------


@pytest.fixture(scope="module")
@starts("server")
def alice(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    """A real Jupyter server with the extension under /user/alice/."""
    with jupyter_server(tmp_path_factory.mktemp("alice"), base_url=BASE,
                        other_extensions=False) as server:
        yield server


def _cli_env(server: JupyterServer, **overrides: str) -> dict[str, str]:
    env = {k: v for k, v in server.env.items()
           if not k.startswith(("CLOUDG_MCP_", "JUPYTERHUB_")) and k not in _DISCOVERY_VARS}
    env.update(overrides)
    return env


def cli(server: JupyterServer, *args: str, cwd: Path | None = None,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``cloudg-nb ARGS`` as a user runs it (from the server's root dir by default)."""
    return subprocess.run([sys.executable, "-m", "cloudg_nb", *args],
                          cwd=cwd or server.root_dir, env=env or _cli_env(server),
                          capture_output=True, text=True, timeout=120)


def mint(server: JupyterServer, client: str, *extra: str,
         cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``config --client CLIENT --jupyter --token-auth EXTRA``: a minted token's form."""
    ran = cli(server, "config", "--client", client, "--jupyter", "--token-auth", *extra,
              cwd=cwd)
    assert ran.returncode == 0, ran.stderr
    assert server.token not in ran.stdout + ran.stderr
    return ran


def _status(request: urllib.request.Request) -> int:
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def mcp_status(server: JupyterServer, authorization: str) -> int:
    """The status of an MCP initialize sent with this Authorization header."""
    return _status(urllib.request.Request(
        server.endpoint, data=json.dumps(INITIALIZE).encode(), method="POST",
        headers={"Authorization": authorization, "Content-Type": "application/json",
                 "Accept": "application/json, text/event-stream"}))


def contents_status(server: JupyterServer, authorization: str) -> int:
    """The status of listing the server's files (``/api/contents``) with this header."""
    return _status(urllib.request.Request(f"{server.url}api/contents",
                                          headers={"Authorization": authorization}))


def authorization_in(client: str, out: str) -> str:
    """The Authorization header value a client's configuration sends."""
    if client == "claude-code":
        argv = shlex.split(out.strip())
        return argv[argv.index("--header") + 1].partition(": ")[2]
    config = json.loads(out)
    if client == "vscode":
        return str(config["servers"]["cloudg"]["headers"]["Authorization"])
    entry = config["mcpServers"]["cloudg"]
    if client == "claude-desktop":
        return str(entry["env"]["AUTH_HEADER"])
    return str(entry["headers"]["Authorization"])


@pytest.mark.parametrize("client", ["claude-code", "cursor", "vscode", "claude-desktop"])
def test_each_client_gets_its_own_token_that_opens_the_mcp_endpoint_and_nothing_else(
        alice: JupyterServer, client: str) -> None:
    ran = mint(alice, client)
    assert alice.endpoint in ran.stdout and BASE in alice.endpoint
    authorization = authorization_in(client, ran.stdout)
    assert authorization.startswith("Bearer cgat_")
    assert mcp_status(alice, authorization) == 200
    assert contents_status(alice, authorization) == 403
    assert f"minted a credential for assistant {client}" in ran.stderr
    assert "it is shown only now" in ran.stderr
    assert f"revoke with `cloudg-nb assistants revoke {client}`" in ran.stderr


#: What ``config --client CLIENT --jupyter`` prints for a client that signs in with OAuth.
OAUTH_FORMS = {
    "claude-code": lambda url: f"claude mcp add --transport http cloudg {url}\n",
    "cursor": lambda url: {"mcpServers": {"cloudg": {"url": url}}},
    "vscode": lambda url: {"servers": {"cloudg": {"type": "http", "url": url}}},
    "claude-desktop": lambda url: {"mcpServers": {"cloudg": {"command": "npx", "args": [
        "-y", "mcp-remote", url, "--transport", "http-only"]}}},
}


def assistant_names(server: JupyterServer) -> list[str]:
    request = urllib.request.Request(f"{server.url}cloudg/api/assistants",
                                     headers={"Authorization": f"token {server.token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return sorted(a["name"] for a in json.load(response)["assistants"])


@pytest.mark.parametrize("client", sorted(OAUTH_FORMS))
def test_an_oauth_client_gets_the_endpoint_url_alone_and_nothing_is_minted(
        alice: JupyterServer, client: str) -> None:
    before = assistant_names(alice)
    ran = cli(alice, "config", "--client", client, "--jupyter")
    assert ran.returncode == 0, ran.stderr
    expected = OAUTH_FORMS[client](alice.endpoint)
    printed = ran.stdout if isinstance(expected, str) else json.loads(ran.stdout)
    assert printed == expected
    assert "cgat_" not in ran.stdout + ran.stderr and alice.token not in ran.stdout + ran.stderr
    assert "signs in with OAuth" in ran.stderr and "--token-auth" in ran.stderr
    assert "minted" not in ran.stderr
    assert assistant_names(alice) == before


def test_cursor_is_told_to_pick_the_compact_profile_on_the_consent_page(
        alice: JupyterServer) -> None:
    ran = cli(alice, "config", "--client", "cursor", "--jupyter")
    assert "pick the assistant-compact profile on the consent page" in ran.stderr


def test_jupyter_ai_gets_a_minted_token_without_token_auth(alice: JupyterServer) -> None:
    ran = cli(alice, "config", "--client", "jupyter-ai", "--jupyter", "--name", "jai-direct")
    assert ran.returncode == 0, ran.stderr
    assert "minted a credential for assistant jai-direct" in ran.stderr
    assert "jai-direct" in assistant_names(alice)


def _readme_examples() -> list[tuple[list[str], str]]:
    """The README's ``cloudg-nb config ...`` commands of "Connecting an assistant safely" with
    the output each shows (``#  -> `` and its continuation lines)."""
    text = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = text.split("## Connecting an assistant safely", 1)[1].split("\n## ", 1)[0]
    examples: list[tuple[list[str], str]] = []
    lines = section.splitlines()
    for i, line in enumerate(lines):
        if not line.startswith("cloudg-nb config "):
            continue
        shown = []
        for follow in lines[i + 1:]:
            if follow.startswith("#  -> "):
                shown.append(follow[len("#  -> "):])
            elif shown and follow.startswith("#       "):
                shown.append(follow[len("#       "):])
            else:
                break
        if shown:
            examples.append((shlex.split(line)[1:], " ".join(shown)))
    return examples


def test_the_readme_shows_what_config_prints_in_both_forms(alice: JupyterServer) -> None:
    examples = _readme_examples()
    forms = {"--token-auth" in argv for argv, _ in examples}
    assert forms == {True, False} and len(examples) >= 8
    for argv, shown in examples:
        ran = cli(alice, *argv)
        assert ran.returncode == 0, (argv, ran.stderr)
        printed = ran.stdout.replace(alice.endpoint, "http://127.0.0.1:8888/cloudg/mcp")
        printed = re.sub(r"cgat_[A-Za-z0-9_-]+", "cgat_…", printed).strip()
        if shown.startswith("{"):
            assert json.loads(printed) == json.loads(shown), argv
        else:
            assert printed == shown, argv


def test_claude_desktop_reads_the_token_from_mcp_remote_env(alice: JupyterServer) -> None:
    entry = json.loads(mint(alice, "claude-desktop", "--name", "desktop-2").stdout)[
        "mcpServers"]["cloudg"]
    assert entry["command"] == "npx"
    assert entry["args"] == ["-y", "mcp-remote", alice.endpoint, "--transport", "http-only",
                             "--header", "Authorization:${AUTH_HEADER}"]
    assert entry["env"]["AUTH_HEADER"].startswith("Bearer cgat_")


def test_cursors_token_lists_a_tool_set_that_fits_its_tool_limit(alice: JupyterServer) -> None:
    # Cursor uses about 40 tools across all its MCP servers; the catalog has more.
    ran = mint(alice, "cursor", "--name", "cursor-compact")
    assert "under assistant-compact" in ran.stderr and "--profile NAME picks another" in ran.stderr
    authorization = authorization_in("cursor", ran.stdout)
    with open_session(alice.endpoint, "2025", headers={"Authorization": authorization}) as s:
        listed = [tool.name for tool in s.list_tools().tools]
        paths = s.call_tool("attack_paths", {"target": "customers-db"})
        refused = s.call_tool("list_regions", {})
    compact = Policy.load("assistant-compact")
    assert listed == [n for n in default_registry().tools if n in set(compact.tool_set or ())]
    assert len(listed) <= 40 < len(default_registry().tools)
    assert not paths.is_error and paths.structured_content["count"] > 0
    assert refused.is_error
    assert refused.content[0].text.startswith(
        "Access denied by policy 'assistant-compact': this tool is not in the policy's tool set")


def test_another_profile_gives_cursor_every_tool(alice: JupyterServer) -> None:
    ran = mint(alice, "cursor", "--name", "cursor-full", "--profile", "assistant")
    assert "under assistant," in ran.stderr and "takes only so many tools" not in ran.stderr
    authorization = authorization_in("cursor", ran.stdout)
    with open_session(alice.endpoint, "2025", headers={"Authorization": authorization}) as s:
        listed = [tool.name for tool in s.list_tools().tools]
    assert listed == list(default_registry().tools)


def test_claude_code_command_registers_the_token_when_run_in_a_shell(
        alice: JupyterServer, tmp_path: Path) -> None:
    out = mint(alice, "claude-code", "--name", "shell-run", "--server-name", "estate").stdout
    fake = tmp_path / "bin" / "claude"
    fake.parent.mkdir()
    fake.write_text(f"#!{sys.executable}\nimport json, sys\nprint(json.dumps(sys.argv[1:]))\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    env = {**os.environ, "PATH": f"{fake.parent}{os.pathsep}{os.environ['PATH']}"}
    ran = subprocess.run(["bash", "-c", out.strip()], env=env, capture_output=True, text=True,
                         check=True, timeout=60)
    argv = json.loads(ran.stdout)
    assert argv[:6] == ["mcp", "add", "--transport", "http", "estate", alice.endpoint]
    assert mcp_status(alice, argv[7].partition(": ")[2]) == 200


def test_minting_a_name_again_replaces_its_token(alice: JupyterServer) -> None:
    first = authorization_in("cursor", mint(alice, "cursor", "--name", "remint").stdout)
    assert "already had a credential" not in mint(alice, "cursor", "--name", "other").stderr
    again = mint(alice, "cursor", "--name", "remint")
    assert "assistant remint already had a credential: it is replaced" in again.stderr
    second = authorization_in("cursor", again.stdout)
    assert second != first
    assert mcp_status(alice, first) == 403
    assert mcp_status(alice, second) == 200


def test_jupyter_ai_entry_is_merged_into_the_servers_workspace_settings(
        alice: JupyterServer, tmp_path: Path) -> None:
    settings = alice.root_dir / ".jupyter" / "mcp_settings.json"
    settings.parent.mkdir(exist_ok=True)
    other = {"type": "http", "name": "other", "url": "http://127.0.0.1:9/mcp"}
    settings.write_text(json.dumps({"theme": "dark", "mcp_servers": [
        other, {"type": "http", "name": "cloudg", "url": "http://stale.invalid/mcp"}]}))
    elsewhere = tmp_path / "elsewhere"  # not under root_dir: the server file names it
    elsewhere.mkdir()
    ran = mint(alice, "jupyter-ai", cwd=elsewhere)
    assert ran.stdout == ""  # the token is in the file only
    assert f"into {settings}" in ran.stderr and "other entries kept" in ran.stderr
    written = json.loads(settings.read_text())
    assert written["theme"] == "dark"
    assert written["mcp_servers"][0] == other
    (entry,) = [s for s in written["mcp_servers"] if s["name"] == "cloudg"]
    assert entry["type"] == "http" and entry["url"] == alice.endpoint
    (header,) = entry["headers"]
    assert header["name"] == "Authorization" and header["value"].startswith("Bearer cgat_")
    assert settings.stat().st_mode & 0o777 == 0o600
    assert mcp_status(alice, header["value"]) == 200
    assert contents_status(alice, header["value"]) == 403
    assert not (elsewhere / ".jupyter").exists()


@pytest.mark.server
def test_a_jupyter_ai_settings_file_that_is_not_json_is_left_alone_and_nothing_is_minted(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    with jupyter_server(tmp_path_factory.mktemp("broken-ai"), other_extensions=False) as server:
        settings = server.root_dir / ".jupyter" / "mcp_settings.json"
        settings.parent.mkdir()
        settings.write_text("{not json")
        ran = cli(server, "config", "--client", "jupyter-ai", "--jupyter")
        assert ran.returncode == 2
        assert "is not valid JSON" in ran.stderr and "Traceback" not in ran.stderr
        assert settings.read_text() == "{not json"
        listed = json.loads(cli(server, "assistants", "list", "--json").stdout)
        assert listed["assistants"] == []


def test_assistants_list_shows_names_and_hints_but_no_token(alice: JupyterServer) -> None:
    ran = mint(alice, "cursor", "--name", "lister", "--profile", "read_only")
    token = authorization_in("cursor", ran.stdout).removeprefix("Bearer ")
    assert mcp_status(alice, f"Bearer {token}") == 200
    table = cli(alice, "assistants", "list")
    assert table.returncode == 0, table.stderr
    header, *rows = table.stdout.splitlines()
    assert header.split() == ["NAME", "CLIENT", "PROFILE", "TOKEN", "CREATED", "LAST", "USED",
                              "SESSIONS", "SERVER"]
    (row,) = [r.split() for r in rows if r.startswith("lister ")]
    assert row[:3] == ["lister", "cursor", "read_only"]
    assert " ".join(row[7:]) == f"/user/alice/ on {alice.root_dir.resolve()}"  # its server
    assert row[3].startswith(token[:9]) and len(row[3]) < 16  # a hint, not the token
    assert row[5] != "-"  # used a moment ago
    listed = json.loads(cli(alice, "assistants", "list", "--json").stdout)
    (item,) = [a for a in listed["assistants"] if a["name"] == "lister"]
    assert item["principal"] == "assistant:lister" and "token" not in item
    for output in (table.stdout + table.stderr, json.dumps(listed)):
        assert token not in output and alice.token not in output


def test_assistants_revoke_makes_the_token_fail_on_the_next_request(alice: JupyterServer) -> None:
    authorization = authorization_in("cursor", mint(alice, "cursor", "--name", "revokee").stdout)
    assert mcp_status(alice, authorization) == 200
    ran = cli(alice, "assistants", "revoke", "revokee")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("revoked assistant revokee (assistant:revokee)")
    assert mcp_status(alice, authorization) == 403
    again = cli(alice, "assistants", "revoke", "revokee")
    assert again.returncode == 2 and "no assistant is named revokee" in again.stderr


def test_without_a_server_found_the_store_file_is_used_and_the_server_sees_the_revocation(
        alice: JupyterServer, tmp_path: Path) -> None:
    authorization = authorization_in("cursor", mint(alice, "cursor", "--name", "offline").stdout)
    empty_runtime = tmp_path / "runtime"
    empty_runtime.mkdir()
    offline = _cli_env(alice, JUPYTER_RUNTIME_DIR=str(empty_runtime))
    store = Path(alice.env["JUPYTER_DATA_DIR"]) / "cloudg" / "assistants.json"
    listed = cli(alice, "assistants", "list", cwd=tmp_path, env=offline)
    assert listed.returncode == 0, listed.stderr
    assert f"no running Jupyter server found: using the credential store file {store}" in (
        listed.stderr)
    assert any(line.split()[0] == "offline" for line in listed.stdout.splitlines())
    revoked = cli(alice, "assistants", "revoke", "offline", cwd=tmp_path, env=offline)
    assert revoked.returncode == 0, revoked.stderr
    assert f"in {store}" in revoked.stdout
    assert mcp_status(alice, authorization) == 403


def test_minting_failures_are_one_line_usage_errors_without_the_token(
        alice: JupyterServer) -> None:
    def fails(*args: str) -> str:
        ran = cli(alice, "config", "--client", "cursor", "--jupyter", "--token-auth", *args)
        assert ran.returncode == 2 and ran.stdout == ""
        assert ran.stderr.count("\n") == 1 and "Traceback" not in ran.stderr
        assert alice.token not in ran.stderr
        return ran.stderr

    wrong = "not-the-server-token"
    refused = fails("--url", alice.url, "--token", wrong)
    assert "refused the token" in refused and "--token" in refused and wrong not in refused
    assert "needs the owner's token" in fails("--url", alice.url)
    assert "is an assistant's token" in fails("--url", alice.url, "--token", "cgat_" + "x" * 40)
    assert "no-such-profile" in fails("--name", "badprofile", "--profile", "no-such-profile")
    assert "an assistant name is" in fails("--name", "Not A Name")
    dead = f"http://127.0.0.1:{_unused_port()}{BASE}"
    assert "cannot reach the Jupyter server" in fails("--url", dead, "--token", alice.token)


def test_server_token_escape_hatch_warns_that_the_token_opens_files_and_kernels(
        alice: JupyterServer) -> None:
    ran = cli(alice, "config", "--client", "cursor", "--jupyter", "--server-token")
    assert ran.returncode == 0, ran.stderr
    assert "WARNING" in ran.stderr
    assert "/api/contents" in ran.stderr and "/api/kernels" in ran.stderr
    entry = json.loads(ran.stdout)["mcpServers"]["cloudg"]
    assert entry == {"url": alice.endpoint,
                     "headers": {"Authorization": "Bearer ${env:JUPYTER_TOKEN}"}}
    assert alice.token not in ran.stdout + ran.stderr
    shown = cli(alice, "config", "--client", "cursor", "--jupyter", "--server-token",
                "--show-token")
    authorization = json.loads(shown.stdout)["mcpServers"]["cloudg"]["headers"]["Authorization"]
    assert authorization == f"Bearer {alice.token}"
    assert "# warning:" not in shown.stderr  # the endpoint answers
    assert mcp_status(alice, authorization) == 200


# -- the escape hatch and discovery, without a live server ------------------------------------


@pytest.fixture
def jupyter_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An isolated runtime dir, the current folder inside ``tmp_path``, no discovery vars."""
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(runtime))
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "data"))
    for name in list(os.environ):
        if name.startswith(("CLOUDG_MCP_", "JUPYTERHUB_")) or name in _DISCOVERY_VARS:
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


def _server_token_config(client: str, capsys: pytest.CaptureFixture[str],
                         *extra: str) -> tuple[str, str]:
    return _config(client, capsys, "--server-token", *extra)


def test_server_token_claude_code_command_reads_the_token_from_the_shell(
    server_file: str, capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    out, err = _server_token_config("claude-code", capsys)
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


def test_server_token_cursor_config_refers_to_the_token_variable(
    server_file: str, capsys: pytest.CaptureFixture[str],
) -> None:
    out, err = _server_token_config("cursor", capsys)
    entry = json.loads(out)["mcpServers"]["cloudg"]
    assert entry == {"url": server_file,
                     "headers": {"Authorization": "Bearer ${env:JUPYTER_TOKEN}"}}
    assert TOKEN not in err and "--show-token" in err


def test_server_token_vscode_config_prompts_for_the_token_as_a_password(
    server_file: str, capsys: pytest.CaptureFixture[str],
) -> None:
    config = json.loads(_server_token_config("vscode", capsys)[0])
    (prompt,) = config["inputs"]
    assert prompt["password"] is True
    assert config["servers"]["cloudg"] == {
        "type": "http", "url": server_file,
        "headers": {"Authorization": f"Bearer ${{input:{prompt['id']}}}"}}


def test_server_token_claude_desktop_config_leaves_a_placeholder_for_the_token(
    server_file: str, capsys: pytest.CaptureFixture[str],
) -> None:
    out, err = _server_token_config("claude-desktop", capsys)
    entry = json.loads(out)["mcpServers"]["cloudg"]
    assert entry["args"] == ["-y", "mcp-remote", server_file, "--transport", "http-only",
                             "--header", "Authorization:${AUTH_HEADER}"]
    assert entry["env"]["AUTH_HEADER"].startswith("Bearer <")
    assert TOKEN not in out + err and "replace" in err


def test_show_token_puts_the_server_token_in_the_configuration(
    server_file: str, capsys: pytest.CaptureFixture[str],
) -> None:
    out = _server_token_config("cursor", capsys, "--show-token")[0]
    assert json.loads(out)["mcpServers"]["cloudg"]["headers"] == {
        "Authorization": f"Bearer {TOKEN}"}


def test_the_shell_already_holding_the_server_token_is_acknowledged(
    server_file: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("JUPYTER_TOKEN", TOKEN)
    err = _server_token_config("cursor", capsys)[1]
    assert "$JUPYTER_TOKEN in this shell holds this server's token" in err


def test_a_server_file_nobody_answers_for_is_warned_about_or_refuses_to_mint(
    server_file: str, capsys: pytest.CaptureFixture[str],
) -> None:
    err = _server_token_config("cursor", capsys)[1]
    assert "warning: nothing answers at that address" in err
    assert main(["config", "--client", "cursor", "--jupyter", "--token-auth"]) == 2
    captured = capsys.readouterr()
    assert "cannot reach the Jupyter server" in captured.err and "--url" in captured.err
    assert TOKEN not in captured.out + captured.err


def test_hub_session_server_token_refers_to_the_hub_api_token(
    jupyter_env: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("JUPYTERHUB_SERVICE_PREFIX", "/user/al/")
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "hub-secret")
    monkeypatch.setenv("JUPYTERHUB_PUBLIC_URL", "https://hub.example.org/user/al/")
    out, err = _server_token_config("cursor", capsys)
    entry = json.loads(out)["mcpServers"]["cloudg"]
    assert entry == {"url": "https://hub.example.org/user/al/cloudg/mcp",
                     "headers": {"Authorization": "Bearer ${env:JUPYTERHUB_API_TOKEN}"}}
    assert "hub-secret" not in out + err


def test_url_names_the_server_and_its_token_is_never_printed(
    jupyter_env: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    url = f"http://127.0.0.1:{_unused_port()}/lab?token={TOKEN}"
    out, err = _server_token_config("cursor", capsys, "--url", url)
    entry = json.loads(out)["mcpServers"]["cloudg"]
    assert entry["url"] == url.split("lab?")[0] + "cloudg/mcp"
    assert TOKEN not in out + err
    assert main(["config", "--client", "cursor", "--jupyter", "--token-auth", "--url",
                 url]) == 2
    captured = capsys.readouterr()
    assert TOKEN not in captured.out + captured.err
    assert main(["config", "--client", "cursor", "--jupyter", "--url", url]) == 0  # OAuth
    captured = capsys.readouterr()
    assert json.loads(captured.out) == {"mcpServers": {"cloudg": {"url": entry["url"]}}}
    assert TOKEN not in captured.out + captured.err


def test_no_running_server_is_a_usage_error_that_says_what_to_do(
    jupyter_env: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["config", "--client", "cursor", "--jupyter"]) == 2
    err = capsys.readouterr().err
    assert "No running Jupyter server found" in err
    assert "jupyter lab" in err and "--url" in err and "Traceback" not in err


@pytest.mark.parametrize(("argv", "says"), [
    (["--client", "cursor", "--show-token"], "--jupyter --server-token"),
    (["--client", "cursor", "--jupyter", "--show-token"], "--jupyter --server-token"),
    (["--client", "cursor", "--server-token"], "--server-token goes with --jupyter"),
    (["--client", "cursor", "--profile", "strict"], "goes with --jupyter"),
    (["--client", "cursor", "--jupyter", "--server-token", "--profile", "strict"],
     "without --server-token"),
    (["--client", "jupyter-ai"], "add --jupyter"),
    (["--client", "jupyter-ai", "--jupyter", "--server-token"], "drop --server-token"),
    (["--client", "cursor", "--name", "a", "--server-name", "b"], "only --server-name"),
    (["--client", "cursor", "--token-auth"], "--token-auth goes with --jupyter"),
    (["--client", "cursor", "--jupyter", "--server-token", "--token-auth"],
     "--token-auth goes with --jupyter (without --server-token)"),
    (["--client", "cursor", "--jupyter", "--profile", "strict"], "add --token-auth"),
    (["--client", "vscode", "--jupyter", "--name", "mine"], "add --token-auth"),
])
def test_options_that_do_not_go_together_are_usage_errors(
    jupyter_env: Path, capsys: pytest.CaptureFixture[str], argv: list[str], says: str,
) -> None:
    assert main(["config", *argv]) == 2
    assert says in capsys.readouterr().err


def test_assistants_without_a_server_or_store_file_list_nothing(
    jupyter_env: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["assistants", "list"]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "using the credential store file" in captured.err
    assert "no assistant has a credential" in captured.err
    assert main(["assistants", "revoke", "nobody"]) == 2
    assert "no assistant is named nobody" in capsys.readouterr().err
