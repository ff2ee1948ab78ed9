"""``cloudg-nb lab``, the main job: JupyterLab with the cloudg extension and the demo estate.

Starts ``python -m jupyter lab`` (loopback, fresh token, no browser: works over SSH) on
``notebooks/01-quickstart.ipynb``; once the MCP endpoint is ready, prints ``JupyterLab:``,
``MCP endpoint:`` and ``Token:`` lines and the ``cloudg-nb config`` command that connects an
assistant, ending with ``Stop with Ctrl-C.``. Jupyter logs to a file in its runtime dir.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO
from urllib.parse import quote

from .layer.wire import ENDPOINT_PATH, STATUS_PATH

__all__ = ["DEFAULT_NOTEBOOK", "LabLaunch", "LabStartError", "run_lab"]

#: The notebook the lab opens on, relative to its root dir.
DEFAULT_NOTEBOOK = "notebooks/01-quickstart.ipynb"
DEFAULT_PORT = 8888
#: How long Jupyter may take to serve the endpoint (a cold start on a small machine is ~10 s).
START_TIMEOUT = 120.0
STOP_TIMEOUT = 30.0


class LabStartError(Exception):
    """JupyterLab could not be started or did not become ready; the text says what to do."""


@dataclass(frozen=True)
class LabLaunch:
    """What to start: where it listens, what it serves and opens, and extension settings."""

    ip: str = "127.0.0.1"
    port: int = DEFAULT_PORT  #: 0 picks a free port; a busy one falls back to a free port
    root_dir: Path = Path()
    notebook: str = DEFAULT_NOTEBOOK
    token: str | None = None  #: None: a fresh random token
    policy: str | None = None
    registry: str | None = None


def _port_is_free(ip: str, port: int) -> bool:
    family = socket.AF_INET6 if ":" in ip else socket.AF_INET
    with socket.socket(family) as sock:
        try:
            sock.bind((ip, port))
        except OSError:
            return False
    return True


def _pick_port(ip: str, wanted: int) -> tuple[int, str | None]:
    """``wanted`` when free, else a free port; and a note when it was not ``wanted``."""
    if wanted and _port_is_free(ip, wanted):
        return wanted, None
    family = socket.AF_INET6 if ":" in ip else socket.AF_INET
    with socket.socket(family) as sock:
        sock.bind((ip, 0))
        port = int(sock.getsockname()[1])
    note = f"port {wanted} is in use, so the server listens on {port}" if wanted else None
    return port, note


def _host_in_url(ip: str) -> str:
    if ip in ("", "0.0.0.0"):
        return "127.0.0.1"
    if ip == "::":
        return "[::1]"
    return f"[{ip}]" if ":" in ip else ip


def jupyter_argv(launch: LabLaunch, port: int, token: str) -> list[str]:
    """The ``python -m jupyter lab`` command line for ``launch``."""
    default_url = "/lab/tree/" + quote(launch.notebook) if launch.notebook else "/lab"
    argv = [
        sys.executable, "-m", "jupyter", "lab", "--no-browser",
        f"--ServerApp.ip={launch.ip}", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={launch.root_dir}",
        f"--LabApp.default_url={default_url}",
    ]
    if launch.policy:
        argv.append(f"--CloudGExtension.policy={launch.policy}")
    if launch.registry:
        argv.append(f"--CloudGExtension.registry={launch.registry}")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        argv.append("--allow-root")  # containers and CI run as root
    return argv


def _status(url: str, token: str) -> tuple[int, dict[str, object]]:
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        return exc.code, {}


def _log_tail(log_path: Path, lines: int = 20) -> str:
    try:
        text = log_path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def _wait_ready(proc: subprocess.Popen[bytes], status_url: str, token: str,
                log_path: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise LabStartError(f"JupyterLab exited with status {proc.returncode} before it "
                                f"was ready; the end of its log ({log_path}):\n"
                                + _log_tail(log_path))
        with contextlib.suppress(OSError, ValueError):
            status, body = _status(status_url, token)
            if status == 200 and body.get("ready"):
                return
            if status == 404 and time.monotonic() + timeout / 2 > deadline:
                raise LabStartError(
                    "JupyterLab is up but has no cloudg endpoint: the extension is not "
                    "enabled (`jupyter server extension enable cloudg_jupyter`); its log: "
                    f"{log_path}")
        time.sleep(0.2)
    raise LabStartError(f"JupyterLab was not ready after {timeout:.0f} s; its log: {log_path}")


def _stop(proc: subprocess.Popen[bytes]) -> int:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return int(proc.returncode)


def cli_command() -> str:
    """How to run ``cloudg-nb`` from a shell: the name when PATH finds this installation,
    else the script beside this interpreter (``make demo`` runs ``.venv/bin/cloudg-nb``)."""
    beside = Path(sys.executable).parent / "cloudg-nb"
    on_path = shutil.which("cloudg-nb")
    if on_path and (not beside.is_file() or Path(on_path).resolve() == beside.resolve()):
        return "cloudg-nb"
    if beside.is_file():
        with contextlib.suppress(ValueError):
            return shlex.quote(str(beside.relative_to(Path.cwd())))
        return shlex.quote(str(beside))
    return f"{shlex.quote(sys.executable)} -m cloudg_nb"


def banner(launch: LabLaunch, server_url: str, token: str, log_path: Path,
           notes: Sequence[str] = ()) -> str:
    """What the user reads once the server is ready (URLs, assistant command, SSH hint)."""
    endpoint = f"{server_url}{ENDPOINT_PATH}"
    notebook_exists = bool(launch.notebook) and (launch.root_dir / launch.notebook).is_file()
    page = f"lab/tree/{quote(launch.notebook)}" if notebook_exists else "lab"
    cli = cli_command()
    port = server_url.rsplit(":", 1)[1].split("/", 1)[0]
    lines = [
        "",
        "cloudg-nb is running: JupyterLab with the cloudg MCP endpoint and the demo estate.",
        "",
        f"  JupyterLab:    {server_url}{page}?token={token}",
        f"  MCP endpoint:  {endpoint}",
        f"  Token:         {token}   (the server's own: it opens files and kernels too)",
        "",
        "Connect Claude Code (in a shell, in the folder served); it signs in with OAuth when it",
        "first connects, and you allow it in your browser:",
        f"  {cli} config --client claude-code --jupyter",
        "  other assistants: --client cursor|vscode|claude-desktop|jupyter-ai",
        "  a client that cannot sign in: add --token-auth for a token of its own",
        f"  their credentials: {cli} assistants list, {cli} assistants revoke NAME",
        "",
        f"Over SSH: ssh -N -L {port}:127.0.0.1:{port} USER@THIS-HOST on your machine, "
        "then open the JupyterLab URL there.",
        f"Jupyter's log: {log_path}",
        "Stop with Ctrl-C.",
    ]
    if not notebook_exists and launch.notebook:
        lines.insert(2, f"note: {launch.notebook} is not under {launch.root_dir.resolve()}, so "
                        "the lab opens on its file browser (run this from the cloudg-nb "
                        "checkout to get the notebooks)")
    for note in notes:
        lines.insert(2, f"note: {note}")
    return "\n".join(lines) + "\n"


def run_lab(launch: LabLaunch, out: IO[str] | None = None) -> int:
    """Serve until Ctrl-C / SIGTERM; returns Jupyter's exit status (0 after a clean stop)."""
    from jupyter_core.paths import jupyter_runtime_dir

    out = out or sys.stdout
    port, port_note = _pick_port(launch.ip, launch.port)
    token = launch.token or secrets.token_hex(24)
    runtime_dir = Path(jupyter_runtime_dir())
    runtime_dir.mkdir(parents=True, exist_ok=True)
    log_path = runtime_dir / f"cloudg-lab-{port}.log"
    server_url = f"http://{_host_in_url(launch.ip)}:{port}/"
    notes = [port_note] if port_note else []
    if launch.ip not in ("127.0.0.1", "localhost", "::1"):
        notes.append(f"listening on {launch.ip}: anyone who can reach this address and has "
                     "the token can run code; prefer the loopback default with an SSH tunnel")
    env = dict(os.environ)
    env.pop("JUPYTER_TOKEN", None)  # the token on the command line is the one printed
    with log_path.open("wb") as log_file:
        try:
            proc = subprocess.Popen(
                jupyter_argv(launch, port, token), cwd=launch.root_dir, env=env,
                stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT,
            )
        except OSError as exc:
            raise LabStartError(f"cannot start JupyterLab ({exc.strerror})") from None

    def forward_sigterm(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, forward_sigterm)
    try:
        _wait_ready(proc, f"{server_url}{STATUS_PATH}", token, log_path, START_TIMEOUT)
        out.write(banner(launch, server_url, token, log_path, notes))
        out.flush()
        return int(proc.wait())
    except KeyboardInterrupt:
        out.write("\nstopping JupyterLab...\n")
        out.flush()
        code = _stop(proc)
        return 0 if code in (0, -signal.SIGTERM, -signal.SIGINT) else code
    except BaseException:
        _stop(proc)
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)

