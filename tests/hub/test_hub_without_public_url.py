"""A hub that does not say its public address (no ``JupyterHub.public_url``): the only address
its single-user server knows is its internal one, so every place that hands that out says so:
the server's start log warns (naming the settings to set), and ``cloudg-nb config --jupyter``
run in the server warns that an assistant elsewhere cannot reach it."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.lanes import starts

from .hub import Hub, jupyterhub
from .test_hub_public_address import server_environment

pytestmark = [pytest.mark.hub, pytest.mark.server]


@pytest.fixture(scope="module")
@starts("hub", "server")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    """The documented hub with its public_url unset, and alice's server only."""
    with jupyterhub(tmp_path_factory.mktemp("hub"), extra="c.JupyterHub.public_url = ''") \
            as started:
        started.start_server("alice")
        yield started


def test_the_server_start_log_warns_that_links_use_its_own_address(hub: Hub) -> None:
    env = server_environment(hub, "alice")
    assert env["JUPYTERHUB_PUBLIC_URL"] == "" and env["JUPYTERHUB_PUBLIC_HUB_URL"] == ""
    log = hub.log()
    assert "approval links use this server's own address" in log
    assert "JupyterHub.public_url" in log


def test_config_jupyter_warns_that_the_address_is_internal(hub: Hub) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cloudg_nb", "config", "--jupyter", "--client", "vscode"],
        env=server_environment(hub, "alice"), cwd=Path(hub.folder, "home", "alice"),
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    (entry,) = json.loads(done.stdout)["servers"].values()
    internal = server_environment(hub, "alice")["JUPYTERHUB_SERVICE_URL"]
    assert entry["url"].startswith(internal.rstrip("/").rsplit("/user/", 1)[0])
    assert "cannot reach" in done.stderr and "JupyterHub.public_url" in done.stderr
