"""binder/: what Binder (repo2docker) installs from it serves the quickstart in JupyterLab.

One fresh venv per run (slow: ~45 s with a warm pip cache): ``pip install -r
binder/requirements.txt`` from the repository root, as repo2docker runs it; then
``jupyter lab --no-browser`` under a non-root base_url, as Binder starts it.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.jupyter.server import free_port

#: What it starts (JupyterLab from a fresh binder install): tests/lanes.py.
pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parents[1]
BASE_URL = "/user/analyst-x1y2/"
QUICKSTART = "notebooks/01-quickstart.ipynb"
START_TIMEOUT = 120.0
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(scope="module")
def binder_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    """A venv with what binder/ installs, and an environment with a fresh Jupyter user."""
    tmp = tmp_path_factory.mktemp("binder")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("JUPYTER", "CLOUDG_MCP", "JPY_", "VIRTUAL_ENV", "PYTHON"))}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    install = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "--quiet", "-r", "binder/requirements.txt"],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )
    assert install.returncode == 0, install.stderr[-4000:]
    for name in ("config", "data", "runtime"):
        env[f"JUPYTER_{name.upper()}_DIR"] = str(tmp / f"jupyter-{name}")
    yield venv, env


def test_the_binder_install_enables_the_cloudg_server_extension(
        binder_env: tuple[Path, dict[str, str]]) -> None:
    venv, env = binder_env
    listed = subprocess.run([str(venv / "bin" / "jupyter"), "server", "extension", "list"],
                            env=env, capture_output=True, text=True, timeout=120)
    text = ANSI.sub("", listed.stdout + listed.stderr)
    assert re.search(r"cloudg_jupyter\s+enabled", text), text
    assert re.search(r"cloudg_jupyter\s+OK", text), text


def test_the_binder_install_has_the_cloudg_lab_extension_prebuilt_and_enabled(
        binder_env: tuple[Path, dict[str, str]]) -> None:
    venv, env = binder_env
    version = json.loads((ROOT / "labextension" / "package.json").read_text())["version"]
    listed = subprocess.run([str(venv / "bin" / "jupyter"), "labextension", "list"],
                            env=env, capture_output=True, text=True, timeout=120)
    text = ANSI.sub("", listed.stdout + listed.stderr)
    # Prebuilt extensions are listed under the folder they were installed to (no build step).
    prebuilt = text.split(str(venv / "share" / "jupyter" / "labextensions"), 1)
    assert len(prebuilt) == 2, text
    assert re.search(rf"cloudg-nb-lab v{re.escape(version)} enabled OK \(python, cloudg-nb\)",
                     prebuilt[1].split("\n\n")[0]), text


def _get(url: str, token: str) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, b""


def test_jupyter_lab_under_a_binder_base_url_serves_the_quickstart_and_the_endpoint(
        binder_env: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    venv, env = binder_env
    token, port = secrets.token_hex(16), free_port()
    argv = [str(venv / "bin" / "jupyter"), "lab", "--no-browser", "--ip=127.0.0.1",
            f"--port={port}", "--ServerApp.port_retries=0", f"--ServerApp.base_url={BASE_URL}",
            f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={ROOT}"]
    if os.geteuid() == 0:
        argv.append("--allow-root")
    server = f"http://127.0.0.1:{port}{BASE_URL}"
    log_path = tmp_path / "lab.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        status: tuple[int, bytes] = (0, b"")
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                status = _get(f"{server}cloudg/api/status", token)
            except OSError:
                status = (0, b"")
            if status[0] == 200 and json.loads(status[1]).get("ready"):
                break
            time.sleep(0.25)
        assert status[0] == 200, log_path.read_text(errors="replace")

        page_status, page = _get(f"{server}lab/tree/{QUICKSTART}", token)
        assert page_status == 200
        assert b"JupyterLab" in page
        contents_status, _ = _get(f"{server}api/contents/{QUICKSTART}", token)
        assert contents_status == 200
    finally:
        proc.terminate()
        proc.wait(timeout=30)
