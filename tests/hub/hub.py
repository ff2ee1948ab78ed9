"""Start a real JupyterHub (with JupyterHub's own proxy from npm) for tests and benchmarks.

``jupyterhub(tmp_path)`` runs ``python -m jupyterhub`` from the ``jupyterhub_config.py`` of
``docs/jupyterhub.md`` (read from the page, so the documented config is the tested one), its
folders and ``127.0.0.1:8000`` moved under ``tmp_path`` and to free ports, plus what a test
needs: a service token with admin roles, ``--allow-root``, this checkout on ``PYTHONPATH`` of
the servers it spawns. ``Hub.start_server(name)`` starts a user's server through the hub's REST
API; ``Hub.login(name)`` is a browser session logged in as that user. Stopping the hub stops
its proxy and servers (JupyterHub's own cleanup); any process left behind is killed by pid.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

from tests.jupyter.server import ROOT, free_port, isolated_env

#: The page whose config the hub runs.
DOC = ROOT / "docs" / "jupyterhub.md"
#: JupyterHub's proxy, installed by ``make hub-deps`` (npm ci in tests/hub/node).
PROXY_BIN = ROOT / "tests" / "hub" / "node" / "node_modules" / ".bin"
#: The users the documented config allows.
USERS = ("alice", "bob")
#: The service the tests act as on the hub's REST API.
SERVICE = "cloudg-tests"
#: Generous: a hub and its servers start in 20-40 s on a loaded 2-core machine.
START_TIMEOUT = 180.0
_CONFIG = re.compile(r"<!-- jupyterhub_config.py: begin -->\n```python\n(.*?)```\n"
                     r"<!-- jupyterhub_config.py: end -->", re.S)


def documented_config() -> str:
    """The ``jupyterhub_config.py`` the docs give for a local hub."""
    found = _CONFIG.search(DOC.read_text(encoding="utf-8"))
    if found is None:
        raise LookupError(f"{DOC} has no marked jupyterhub_config.py block")
    return found.group(1)


def proxy_installed() -> bool:
    return (PROXY_BIN / "configurable-http-proxy").exists()


def hub_config(folder: Path, port: int, token: str, extra_args: Sequence[str] = (),
                extra: str = "") -> str:
    """The documented config with its folders under ``folder`` and the hub on ``port``, and
    what the tests add (appended, so it wins)."""
    text = documented_config().replace("/srv/cloudg-hub", str(folder)) \
        .replace("127.0.0.1:8000", f"127.0.0.1:{port}")
    additions = {
        "c.JupyterHub.hub_bind_url": f"http://127.0.0.1:{free_port()}",
        "c.ConfigurableHTTPProxy.api_url": f"http://127.0.0.1:{free_port()}",
        "c.ConfigurableHTTPProxy.command": [str(PROXY_BIN / "configurable-http-proxy")],
        "c.JupyterHub.db_url": f"sqlite:///{folder / 'jupyterhub.sqlite'}",
        "c.JupyterHub.cookie_secret_file": str(folder / "jupyterhub_cookie_secret"),
        "c.ConfigurableHTTPProxy.pid_file": str(folder / "proxy.pid"),
        "c.Spawner.cmd": [str(Path(sys.executable).with_name("jupyterhub-singleuser"))],
        "c.Spawner.environment": {"PYTHONPATH": os.pathsep.join(
            p for p in (str(ROOT), str(ROOT / "jupyter_server_ext"),
                        os.environ.get("PYTHONPATH")) if p)},
        "c.JupyterHub.services": [{"name": SERVICE, "api_token": token}],
        "c.JupyterHub.load_roles": [{"name": SERVICE, "services": [SERVICE],
                                     "scopes": ["admin:users", "admin:servers", "tokens"]}],
        "c.Spawner.start_timeout": int(START_TIMEOUT),
        "c.Spawner.http_timeout": int(START_TIMEOUT),
    }
    lines = [f"{name} = {value!r}" for name, value in additions.items()]
    args = ["--allow-root", *extra_args]
    lines.append(f"c.Spawner.args = [*c.Spawner.args, *{args!r}]")
    return "\n".join([text, "# -- added by tests/hub/hub.py --", *lines, extra, ""])


@dataclass
class Hub:
    """A running hub: its public URL (the proxy), service token, process and log."""

    url: str  #: ``http://127.0.0.1:PORT/`` (the proxy: what browsers and assistants open)
    token: str
    proc: subprocess.Popen[bytes]
    folder: Path
    log_path: Path
    started: dict[str, float] = field(default_factory=dict)  #: user -> seconds to ready

    @property
    def api(self) -> str:
        return f"{self.url}hub/api/"

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def call(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        """The hub's REST API as the tests' service."""
        kwargs.setdefault("timeout", 30)
        return requests.request(method, self.api + path,
                                headers={"Authorization": f"token {self.token}"}, **kwargs)

    def server_url(self, user: str) -> str:
        """``{hub}/user/NAME/``: where the user's server is reached (through the proxy)."""
        return f"{self.url}user/{user}/"

    def user_model(self, user: str) -> dict[str, Any]:
        response = self.call("GET", f"users/{user}")
        response.raise_for_status()
        return dict(response.json())

    def start_server(self, user: str, timeout: float = START_TIMEOUT) -> None:
        """Start ``user``'s server through the REST API and wait until the hub says it is
        ready and cloudg's endpoint behind the proxy is."""
        began = time.monotonic()
        response = self.call("POST", f"users/{user}/server")
        if response.status_code not in (201, 202):
            raise RuntimeError(f"starting {user}'s server: {response.status_code} "
                               f"{response.text}\n{self.log()}")
        deadline = began + timeout
        token = self.user_token(user, ["access:servers!user=" + user])
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the hub exited ({self.proc.returncode}):\n{self.log()}")
            server = self.user_model(user).get("servers", {}).get("")
            if server and server.get("ready"):
                with contextlib.suppress(requests.RequestException, ValueError):
                    status = requests.get(f"{self.server_url(user)}cloudg/api/status",
                                          headers={"Authorization": f"token {token}"},
                                          timeout=10)
                    if status.status_code == 200 and status.json().get("ready"):
                        self.started[user] = time.monotonic() - began
                        return
            time.sleep(0.25)
        raise RuntimeError(f"{user}'s server did not become ready:\n{self.log()}\n"
                           + self.server_log(user))

    def server_log(self, user: str) -> str:
        """What a user's server logged: the hub's log carries its output."""
        return "\n".join(line for line in self.log().splitlines() if f"{user}|" in line
                         or "SingleUser" in line or "cloudg" in line.lower())

    def user_token(self, user: str, scopes: Sequence[str], note: str = "tests") -> str:
        """A new hub API token of ``user`` with ``scopes``."""
        response = self.call("POST", f"users/{user}/tokens",
                             json={"scopes": list(scopes), "note": note, "expires_in": 3600})
        if response.status_code != 201:
            raise RuntimeError(f"token for {user}: {response.status_code} {response.text}")
        return str(response.json()["token"])

    def login(self, user: str) -> requests.Session:
        """A browser session logged in to the hub as ``user`` (the test login takes any
        password)."""
        browser = requests.Session()
        page = browser.get(f"{self.url}hub/login", timeout=30)
        page.raise_for_status()
        xsrf = re.search(r'name="_xsrf" value="([^"]+)"', page.text)
        form = {"username": user, "password": "any"}
        if xsrf:
            form["_xsrf"] = xsrf.group(1)
        done = browser.post(f"{self.url}hub/login", data=form, timeout=60,
                            allow_redirects=False)
        if done.status_code != 302:
            raise RuntimeError(f"login as {user}: {done.status_code} {done.text[:300]}")
        return browser

    def open_server(self, browser: requests.Session, user: str) -> requests.Response:
        """Open ``user``'s server in ``browser`` (the hub's OAuth round trip gives the server's
        own login cookie when the browser's user may access it); the final response."""
        return browser.get(f"{self.server_url(user)}lab", timeout=60)

    def stop(self, timeout: float = 60.0) -> int:
        """Stop the hub (SIGTERM: it stops its servers and proxy) and kill by pid whatever it
        started that is still running; the hub's exit code."""
        left = _descendants(self.proc.pid)
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=timeout)
        for pid, argv in left:  # the hub stops them all; one it could not is killed here
            with contextlib.suppress(OSError):
                if _cmdline(pid) == argv:  # still that process, not a reused pid
                    os.kill(pid, signal.SIGKILL)
        return int(self.proc.returncode)


def _cmdline(pid: int) -> bytes:
    return Path(f"/proc/{pid}/cmdline").read_bytes()


def _descendants(root: int) -> list[tuple[int, bytes]]:
    """(pid, command line) of ``root``'s live descendants (from /proc)."""
    found, pending = [], [root]
    while pending:
        pid = pending.pop()
        with contextlib.suppress(OSError, ValueError):
            for task in Path(f"/proc/{pid}/task").iterdir():
                children = [int(w) for w in (task / "children").read_text().split()]
                pending.extend(children)
                found.extend((child, _cmdline(child)) for child in children)
    return found


def wait_hub(hub: Hub, timeout: float = START_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if hub.proc.poll() is not None:
            raise RuntimeError(f"the hub exited ({hub.proc.returncode}):\n{hub.log()}")
        with contextlib.suppress(requests.RequestException):
            if hub.call("GET", "", timeout=5).status_code == 200:
                return
        time.sleep(0.25)
    raise RuntimeError("the hub did not become ready:\n" + hub.log())


@contextlib.contextmanager
def jupyterhub(tmp_path: Path, *, extra_args: Sequence[str] = (), extra: str = "",
               estate: Path | None = None) -> Iterator[Hub]:
    """A real JupyterHub on 127.0.0.1 (a free port) from the documented config; stopped on
    exit. ``estate``: a folder copied in as the team's estate folder (default: the demo
    estate files). ``extra_args`` are added to every server's command line, ``extra`` is
    config text appended last."""
    if not proxy_installed():
        raise RuntimeError("JupyterHub's proxy is missing: run `make hub-deps` (npm ci in "
                           "tests/hub/node)")
    folder = tmp_path / "hub"
    (folder / "home").mkdir(parents=True)
    from cloudg_nb.estate.demo_estate import DEMO_DATA_DIR

    shutil.copytree(estate or DEMO_DATA_DIR, folder / "estate")
    port, token = free_port(), secrets.token_hex(24)
    config = folder / "jupyterhub_config.py"
    config.write_text(hub_config(folder, port, token, extra_args, extra), encoding="utf-8")
    env = isolated_env(tmp_path)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), str(PROXY_BIN),
                                   env.get("PATH", "")])
    for name in list(env):
        if name.startswith("JUPYTERHUB_"):  # a test run inside a hub must not leak its own
            del env[name]
    log_path = folder / "jupyterhub.log"
    with log_path.open("wb") as log_file:
        proc = subprocess.Popen(
            [sys.executable, "-m", "jupyterhub", "-f", str(config)], cwd=folder, env=env,
            stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT,
            start_new_session=True)
    hub = Hub(url=f"http://127.0.0.1:{port}/", token=token, proc=proc, folder=folder,
              log_path=log_path)
    try:
        wait_hub(hub)
        yield hub
    finally:
        hub.stop()
