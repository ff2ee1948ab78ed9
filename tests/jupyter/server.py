"""Start a real ``jupyter server`` with the cloudg extension, for tests and benchmarks.

``jupyter_server(tmp_path, base_url=..., extra_args=...)`` runs ``python -m jupyter_server`` on
127.0.0.1 (a free port), with a token and isolated config/data/runtime dirs under ``tmp_path``
(the extension itself is enabled by the config file the package installs), waits until the
cloudg endpoint is ready and yields a ``JupyterServer``. Stopping sends SIGTERM.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = "cloudg_jupyter"
#: Server argument that merges the test tools of ``fixture_registry`` into the catalog.
FIXTURE_REGISTRY = "--CloudGExtension.registry=tests.jupyter.fixture_registry:registry"
#: Generous: the suite runs on a loaded 2-core machine.
START_TIMEOUT = 90.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class JupyterServer:
    """A running Jupyter server: where it listens, its token, process and log file."""

    url: str  #: ``http://127.0.0.1:PORT{base_url}`` (ends with ``/``)
    token: str
    base_url: str
    port: int
    proc: subprocess.Popen[bytes]
    log_path: Path
    root_dir: Path
    env: dict[str, str] = field(repr=False, default_factory=dict)
    exit_seconds: float | None = None  #: how long the last ``stop`` took

    @property
    def endpoint(self) -> str:
        """The MCP endpoint, ``{url}cloudg/mcp``."""
        return f"{self.url}cloudg/mcp"

    @property
    def status_url(self) -> str:
        return f"{self.url}cloudg/api/status"

    @property
    def host_port(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def headers(self) -> dict[str, str]:
        """The token header an MCP client sends."""
        return {"Authorization": f"Bearer {self.token}"}

    def log(self) -> str:
        """Everything the server wrote to stdout/stderr so far."""
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def get_json(self, url: str, timeout: float = 10.0) -> tuple[int, dict]:
        """GET ``url`` with the token header: (status, JSON body or {})."""
        request = urllib.request.Request(url, headers={"Authorization": f"token {self.token}"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as exc:
            try:
                body = json.loads(exc.read() or b"{}")
            except ValueError:
                body = {}
            return exc.code, body

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        """Send ``sig`` and wait; kills after ``timeout``. Returns the exit code and records
        how long the exit took in ``exit_seconds``."""
        if self.proc.poll() is not None:
            return int(self.proc.returncode)
        started = time.monotonic()
        self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait(timeout=timeout)
        self.exit_seconds = time.monotonic() - started
        return int(code)


def installed_extensions() -> set[str]:
    """Server extensions enabled by installed ``jupyter_server_config.d`` files."""
    from jupyter_core.paths import jupyter_config_path

    names: set[str] = set()
    for folder in jupyter_config_path():
        for path in sorted(Path(folder, "jupyter_server_config.d").glob("*.json")):
            with contextlib.suppress(OSError, ValueError):
                data = json.loads(path.read_text(encoding="utf-8"))
                names.update(data.get("ServerApp", {}).get("jpserver_extensions", {}))
    return names


def server_argv(port: int, token: str, base_url: str, root_dir: Path,
                extra_args: Sequence[str] = ()) -> list[str]:
    return [
        sys.executable, "-m", "jupyter_server",
        "--no-browser", "--allow-root",
        "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.base_url={base_url}",
        f"--ServerApp.root_dir={root_dir}",
        *extra_args,
    ]


def isolated_env(tmp_path: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Jupyter's user config/data/runtime dirs under ``tmp_path``; tests importable."""
    env = dict(os.environ)
    for name in ("config", "data", "runtime"):
        path = tmp_path / f"jupyter-{name}"
        path.mkdir(parents=True, exist_ok=True)
        env[f"JUPYTER_{name.upper()}_DIR"] = str(path)
    env.pop("JUPYTER_TOKEN", None)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


def wait_ready(server: JupyterServer, is_ready: Callable[[JupyterServer], bool], *,
               what: str, timeout: float = START_TIMEOUT, poll: float = 0.1) -> None:
    """Poll ``is_ready`` (a connection error counts as not yet) until it holds. The process
    exiting first, or ``timeout`` passing, is a RuntimeError carrying the server's log."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.proc.poll() is not None:
            raise RuntimeError(f"{what} exited ({server.proc.returncode}):\n" + server.log())
        with contextlib.suppress(OSError):
            if is_ready(server):
                return
        time.sleep(poll)
    raise RuntimeError(f"{what} did not become ready:\n" + server.log())


def start_on_free_port(
    argv: Callable[[int], list[str]], *, log_name: str, tmp_path: Path, token: str,
    base_url: str, root_dir: Path, env: dict[str, str],
    wait: Callable[[JupyterServer], None], attempts: int = 3, port: int | None = None,
) -> JupyterServer:
    """Start ``argv(port)`` on a free port (output to ``{tmp_path}/{log_name}-{port}.log``)
    and ``wait`` until it is ready; a port lost to a race ("already in use") is retried with
    another, up to ``attempts`` starts. The caller stops the server."""
    fixed = port
    for attempt in range(attempts):
        port = fixed or free_port()
        log_path = tmp_path / f"{log_name}-{port}.log"
        with log_path.open("wb") as log_file:
            proc = subprocess.Popen(
                argv(port), cwd=root_dir, env=env, stdin=subprocess.DEVNULL, stdout=log_file,
                stderr=subprocess.STDOUT, start_new_session=True,
            )
        server = JupyterServer(
            url=f"http://127.0.0.1:{port}{base_url}", token=token, base_url=base_url,
            port=port, proc=proc, log_path=log_path, root_dir=root_dir, env=env,
        )
        try:
            wait(server)
        except RuntimeError:
            server.stop(timeout=10)
            if "already in use" in server.log() and attempt + 1 < attempts:
                continue
            raise
        return server
    raise ValueError("attempts must be at least 1")


def _cloudg_ready(server: JupyterServer) -> bool:
    status, body = server.get_json(server.status_url, timeout=5)
    return status == 200 and bool(body.get("ready"))


def _server_ready(server: JupyterServer) -> bool:
    status, _ = server.get_json(f"{server.url}api/status", timeout=5)
    return status == 200


@contextlib.contextmanager
def jupyter_server(
    tmp_path: Path,
    *,
    base_url: str = "/",
    extra_args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    config: Mapping[str, Any] | None = None,
    token: str | None = None,
    wait_for_extension: bool = True,
    other_extensions: bool = True,
    attempts: int = 3,
    port: int | None = None,
) -> Iterator[JupyterServer]:
    """A real Jupyter server with the cloudg extension on 127.0.0.1; stopped on exit.

    ``config`` is written as ``jupyter_server_config.json`` in the isolated config dir (e.g.
    ``{"CloudGExtension": {"roles": {...}}}``). ``wait_for_extension`` waits until
    ``{base_url}cloudg/api/status`` says ready (set it False for servers where the extension
    is disabled or misconfigured). ``other_extensions=False`` disables every other installed
    server extension (JupyterLab, peers), for tests that judge this extension alone.
    A port lost to a race is retried; ``port`` asks for that one (a restart on the same
    port), with no retry.
    """
    token = token or secrets.token_hex(16)
    root_dir = tmp_path / "root"
    root_dir.mkdir(parents=True, exist_ok=True)
    full_env = isolated_env(tmp_path, env)
    config = dict(config or {})
    if not other_extensions:
        server_config = dict(config.get("ServerApp", {}))
        switches = {name: False for name in installed_extensions() if name != EXTENSION}
        switches.update(server_config.get("jpserver_extensions", {}))
        server_config["jpserver_extensions"] = switches
        config["ServerApp"] = server_config
    if config:
        config_file = Path(full_env["JUPYTER_CONFIG_DIR"]) / "jupyter_server_config.json"
        config_file.write_text(json.dumps(config), encoding="utf-8")
    if not base_url.endswith("/"):
        base_url += "/"
    ready = _cloudg_ready if wait_for_extension else _server_ready
    server = start_on_free_port(
        lambda port: server_argv(port, token, base_url, root_dir, extra_args),
        log_name="jupyter-server", tmp_path=tmp_path, token=token, base_url=base_url,
        root_dir=root_dir, env=full_env, attempts=1 if port else attempts, port=port,
        wait=lambda started: wait_ready(started, ready, what="jupyter server"))
    try:
        yield server
    finally:
        server.stop()
