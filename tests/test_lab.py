"""The main job: ``make demo`` (the README's command) serves JupyterLab with the extension and
the demo estate, and prints a lab URL, the MCP endpoint and an assistant command that work (the
OAuth form, URL alone; with --token-auth it mints the assistant a credential of its own)."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from cloudg_nb.lab import _pick_port
from tests.protocol.harness import open_session

#: What it starts (`make demo` and `cloudg-nb lab` start JupyterLab): tests/lanes.py.
pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parents[1]
#: The acceptance bound: served within 60 s of the install finishing.
READY_WITHIN = 60.0
#: ``make demo`` reinstalls the package first when pyproject.toml is newer than the venv.
INSTALL_WITHIN = 600.0
BANNER_END = "Stop with Ctrl-C."


@dataclass
class Launched:
    """A running ``make demo`` (or ``cloudg-nb lab``) and what it printed."""

    proc: subprocess.Popen[str]
    env: dict[str, str] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    seconds_to_banner: float = 0.0

    @property
    def text(self) -> str:
        return "".join(self.lines)

    def field(self, label: str) -> str:
        found = re.search(rf"^\s*{label}:\s+(\S+)", self.text, re.MULTILINE)
        assert found, f"no {label!r} line in the output:\n{self.text}"
        return found.group(1)

    def stop(self, sig: int = signal.SIGINT, timeout: float = 60.0) -> int:
        """Send ``sig`` to the whole process group, as Ctrl-C in a terminal does."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, sig)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        return int(self.proc.returncode)


def isolated_home(tmp_path: Path) -> dict[str, str]:
    """A fresh user: HOME and every Jupyter dir under ``tmp_path``, no inherited tokens."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("JUPYTER", "CLOUDG_MCP", "JPY_"))}
    env["HOME"] = str(tmp_path / "home")
    for name in ("config", "data", "runtime"):
        env[f"JUPYTER_{name.upper()}_DIR"] = str(tmp_path / "home" / f"jupyter-{name}")
    Path(env["HOME"]).mkdir(parents=True, exist_ok=True)
    return env


@contextlib.contextmanager
def launched(argv: list[str], env: dict[str, str]) -> Iterator[Launched]:
    """Run ``argv`` from the repository root until its banner ends; stop it on exit.

    The clock starts when ``cloudg-nb lab`` starts: for ``make demo``, when make echoes that
    command, after (re)installing the package if pyproject.toml changed (up to INSTALL_WITHIN).
    """
    started = time.monotonic()
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    run = Launched(proc, env)
    lines: queue.Queue[str] = queue.Queue()

    def drain() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            run.lines.append(line)
            lines.put(line)

    threading.Thread(target=drain, daemon=True).start()
    through_make = argv[0] == "make"
    deadline = started + (INSTALL_WITHIN if through_make else READY_WITHIN)
    try:
        while True:
            try:
                line = lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                raise AssertionError(f"no banner in time:\n{run.text}") from None
            if through_make and line.rstrip().endswith("cloudg-nb lab"):
                started = time.monotonic()  # the install (if any) is done
                deadline = started + READY_WITHIN
            if line.strip() == BANNER_END:
                run.seconds_to_banner = time.monotonic() - started
                break
        yield run
    finally:
        run.stop()


def port_answers(url: str) -> bool:
    host, port = re.match(r"http://([^:/]+):(\d+)/", url).groups()  # type: ignore[union-attr]
    with socket.socket() as sock:
        sock.settimeout(2)
        return sock.connect_ex((host, int(port))) == 0


@pytest.fixture(scope="module")
def make_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Launched]:
    env = isolated_home(tmp_path_factory.mktemp("make-demo"))
    with launched(["make", "--no-print-directory", "demo"], env) as run:
        yield run


def test_make_demo_prints_a_lab_url_that_opens_the_quickstart_notebook(
        make_demo: Launched) -> None:
    lab_url = make_demo.field("JupyterLab")
    assert lab_url.startswith("http://127.0.0.1:")
    assert "/lab/tree/notebooks/01-quickstart.ipynb?token=" in lab_url
    with urllib.request.urlopen(lab_url, timeout=30) as response:
        assert response.status == 200
        assert "JupyterLab" in response.read().decode()
    server_url = lab_url.partition("lab/tree/")[0]
    token = lab_url.partition("?token=")[2]
    contents = f"{server_url}api/contents/notebooks/01-quickstart.ipynb?token={token}"
    with urllib.request.urlopen(contents, timeout=30) as response:
        assert json.loads(response.read())["type"] == "notebook"


def test_make_demo_is_ready_within_a_minute(make_demo: Launched) -> None:
    assert make_demo.seconds_to_banner < READY_WITHIN
    print(f"make demo: banner after {make_demo.seconds_to_banner:.1f} s")


def test_the_printed_assistant_command_adds_the_endpoint_for_claude_codes_oauth_sign_in(
        make_demo: Launched) -> None:
    endpoint = make_demo.field("MCP endpoint")
    token = make_demo.field("Token")
    line = next(line for line in make_demo.lines if "config --client claude-code" in line)
    assert token not in line
    printed = subprocess.run(shlex.split(line), cwd=ROOT, env=make_demo.env,
                             capture_output=True, text=True, timeout=120)
    assert printed.returncode == 0, printed.stderr
    assert shlex.split(printed.stdout) == [
        "claude", "mcp", "add", "--transport", "http", "cloudg", endpoint]
    assert token not in printed.stdout + printed.stderr


def test_the_printed_command_with_token_auth_gives_claude_code_a_credential_that_lists_the_tools(
        make_demo: Launched) -> None:
    endpoint = make_demo.field("MCP endpoint")
    token = make_demo.field("Token")
    line = next(line for line in make_demo.lines if "config --client claude-code" in line)
    assert any("add --token-auth" in line for line in make_demo.lines)
    minted = subprocess.run([*shlex.split(line), "--token-auth"], cwd=ROOT, env=make_demo.env,
                            capture_output=True, text=True, timeout=120)
    assert minted.returncode == 0, minted.stderr
    assert token not in minted.stdout + minted.stderr
    argv = shlex.split(minted.stdout.strip())
    assert argv[:6] == ["claude", "mcp", "add", "--transport", "http", "cloudg"]
    assert argv[6] == endpoint
    header_name, _, header_value = argv[argv.index("--header") + 1].partition(": ")
    assert header_value.startswith("Bearer cgat_")

    with open_session(endpoint, "2025", headers={header_name: header_value}) as session:
        tools = {tool.name for tool in session.list_tools().tools}
    assert {"attack_paths", "findings_summary", "sample_estate"} <= tools


def test_the_served_workspace_holds_the_demo_estate(make_demo: Launched) -> None:
    endpoint = make_demo.field("MCP endpoint")
    headers = {"Authorization": f"Bearer {make_demo.field('Token')}"}
    with open_session(endpoint, "2025", headers=headers) as session:
        result = session.call_tool("findings_summary", {})
    assert not result.is_error, result
    assert result.structured_content["dataset"] == "demo"


def test_the_endpoint_refuses_a_client_without_the_token(make_demo: Launched) -> None:
    request = urllib.request.Request(make_demo.field("MCP endpoint"), method="POST", data=b"{}",
                                     headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code in (401, 403)


@pytest.mark.usefixtures("sigint_default")
def test_ctrl_c_stops_jupyterlab_and_frees_its_port(tmp_path: Path) -> None:
    env = isolated_home(tmp_path)
    argv = [sys.executable, "-m", "cloudg_nb", "lab", "--port", "0",
            "--root-dir", str(tmp_path)]
    with launched(argv, env) as run:
        lab_url = run.field("JupyterLab")
        assert port_answers(lab_url)
        assert run.stop(signal.SIGINT) == 0
    assert not port_answers(lab_url)
    assert "stopping JupyterLab" in run.text


def test_a_lab_without_the_notebooks_says_so_and_opens_the_file_browser(
        tmp_path: Path) -> None:
    env = isolated_home(tmp_path)
    argv = [sys.executable, "-m", "cloudg_nb", "lab", "--port", "0",
            "--root-dir", str(tmp_path)]
    with launched(argv, env) as run:
        assert "notebooks/01-quickstart.ipynb is not under" in run.text
        assert re.search(r"JupyterLab:\s+http://127\.0\.0\.1:\d+/lab\?token=", run.text)


def test_a_taken_port_falls_back_to_a_free_one_and_says_so() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        port, note = _pick_port("127.0.0.1", busy)
    assert port != busy
    assert note == f"port {busy} is in use, so the server listens on {port}"


def test_the_policy_reaches_the_extension_from_the_option_or_the_environment(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from cloudg_nb import cli, lab

    launched_with: list[lab.LabLaunch] = []
    monkeypatch.setattr(lab, "run_lab", lambda launch: launched_with.append(launch) or 0)
    monkeypatch.setenv("CLOUDG_MCP_POLICY", "open")
    assert cli.main(["lab"]) == 0
    assert cli.main(["lab", "--policy", "strict"]) == 0
    argvs = [lab.jupyter_argv(launch, 8888, "t") for launch in launched_with]
    assert "--CloudGExtension.policy=open" in argvs[0]
    assert "--CloudGExtension.policy=strict" in argvs[1]
