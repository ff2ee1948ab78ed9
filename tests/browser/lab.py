"""Start a real JupyterLab with the cloudg extension, for the browser tests.

``jupyter_lab(tmp_path, notebooks={...})`` runs ``python -m jupyter lab`` on 127.0.0.1 (free
port, token, isolated Jupyter/JupyterLab dirs), as a plain install of this package has it: the
peers the ``bench`` extra brings (jupyter-mcp-live, collaboration) are off. Stop: SIGTERM.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from tests.jupyter.server import (
    ROOT,
    JupyterServer,
    isolated_env,
    start_on_free_port,
    wait_ready,
)

#: Server extensions installed by the ``bench`` extra that a plain install does not have.
PEER_SERVER_EXTENSIONS = ("jupyter_mcp_live", "jupyter_server_ydoc")
#: Front-end plugins switched off: the peers' collaboration UI, and JupyterLab's news toast
#: (it would cover part of every screenshot).
DISABLED_LAB_PLUGINS = (
    "@jupyter/collaboration-extension",
    "@jupyter/docprovider-extension",
    "@jupyterlab/apputils-extension:announcements",
)


#: The prebuilt JupyterLab extension in this repository (what the wheel installs).
LAB_EXTENSION = "cloudg-nb-lab"
LAB_EXTENSION_DIR = ROOT / "labextension" / "prebuilt"


def lab_argv(port: int, token: str, root_dir: Path, base_url: str = "/") -> list[str]:
    """The command line: JupyterLab on loopback, no browser, the app exposed to tests."""
    argv = [
        sys.executable, "-m", "jupyter", "lab", "--no-browser",
        "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}", f"--ServerApp.base_url={base_url}",
        f"--ServerApp.root_dir={root_dir}",
        # window.jupyterapp: lets a test run JupyterLab commands (run all cells) by name.
        "--LabApp.expose_app_in_browser=True",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]
    if os.geteuid() == 0:
        argv.append("--allow-root")
    return argv


def write_notebook(path: Path, cells: list[str]) -> Path:
    """A Python 3 notebook of code cells (no outputs), written to ``path``."""
    notebook = {
        "nbformat": 4, "nbformat_minor": 5,
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
        },
        "cells": [
            {"cell_type": "code", "id": f"cell-{i}", "metadata": {}, "execution_count": None,
             "outputs": [], "source": source}
            for i, source in enumerate(cells)
        ],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(notebook, indent=1), encoding="utf-8")
    return path


def _isolate_lab(env: dict[str, str], tmp_path: Path) -> None:
    """JupyterLab's user settings and workspaces under ``tmp_path``; peers switched off; the
    repository's prebuilt lab extension found first (an install may hold an older copy): from
    a folder on ``JUPYTER_PATH``, which Jupyter searches before the environment's share/jupyter
    (the user's data dir comes after it inside a virtualenv)."""
    first = tmp_path / "jupyter-path-first"
    labextensions = first / "labextensions"
    labextensions.mkdir(parents=True, exist_ok=True)
    env["JUPYTER_PATH"] = os.pathsep.join(p for p in (str(first), env.get("JUPYTER_PATH")) if p)
    linked = labextensions / LAB_EXTENSION
    if not linked.exists():
        linked.symlink_to(LAB_EXTENSION_DIR, target_is_directory=True)
    for name in ("settings", "workspaces"):
        path = tmp_path / f"lab-{name}"
        path.mkdir(parents=True, exist_ok=True)
        env[f"JUPYTERLAB_{name.upper()}_DIR"] = str(path)
    config_dir = Path(env["JUPYTER_CONFIG_DIR"])
    (config_dir / "labconfig").mkdir(parents=True, exist_ok=True)
    (config_dir / "labconfig" / "page_config.json").write_text(
        json.dumps({"disabledExtensions": dict.fromkeys(DISABLED_LAB_PLUGINS, True)}),
        encoding="utf-8",
    )
    server_config = config_dir / "jupyter_server_config.json"
    server_config.write_text(json.dumps({"ServerApp": {
        "jpserver_extensions": dict.fromkeys(PEER_SERVER_EXTENSIONS, False),
    }}), encoding="utf-8")


def _lab_ready(server: JupyterServer) -> bool:
    """The cloudg status page says ready and the lab's settings answer."""
    status, body = server.get_json(server.status_url, timeout=5)
    if status != 200 or not body.get("ready"):
        return False
    lab_status, _ = server.get_json(f"{server.url}lab/api/settings", timeout=5)
    return lab_status == 200


@contextlib.contextmanager
def jupyter_lab(
    tmp_path: Path,
    *,
    notebooks: Mapping[str, list[str]] | None = None,
    env: Mapping[str, str] | None = None,
    attempts: int = 3,
) -> Iterator[JupyterServer]:
    """A real JupyterLab with the cloudg extension on 127.0.0.1; stopped on exit.

    ``notebooks`` maps a path under the lab's root dir to the sources of its code cells.
    """
    token = secrets.token_hex(16)
    root_dir = tmp_path / "root"
    root_dir.mkdir(parents=True, exist_ok=True)
    for relative, cells in (notebooks or {}).items():
        write_notebook(root_dir / relative, cells)
    full_env: dict[str, Any] = isolated_env(tmp_path, env)
    _isolate_lab(full_env, tmp_path)
    server = start_on_free_port(
        lambda port: lab_argv(port, token, root_dir), log_name="jupyter-lab",
        tmp_path=tmp_path, token=token, base_url="/", root_dir=root_dir, env=full_env,
        attempts=attempts,
        wait=lambda started: wait_ready(started, _lab_ready, what="jupyter lab", poll=0.2))
    try:
        yield server
    finally:
        server.stop()
