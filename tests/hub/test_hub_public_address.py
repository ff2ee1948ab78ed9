"""Inside a JupyterHub single-user server every address cloudg hands out is the hub's public
one (``https://HUB/user/NAME/...``), never the server's own loopback port: the endpoint the
server reports, its start log, ``cloudg-nb config --jupyter`` run in the server, and (in
``test_hub_owner.py``) approval links."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from tests.protocol.harness import open_session

from .hub import Hub

pytestmark = [pytest.mark.hub, pytest.mark.server,
              pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]


def public_endpoint(hub: Hub, user: str) -> str:
    return f"{hub.url}user/{user}/cloudg/mcp"


def server_process(hub: Hub, user: str) -> int:
    """The pid of ``user``'s single-user server (the hub's spawner state)."""
    return int(hub.user_model(user)["servers"][""]["state"]["pid"])


def server_environment(hub: Hub, user: str) -> dict[str, str]:
    """The environment ``user``'s server runs with: what a terminal in it inherits."""
    raw = Path(f"/proc/{server_process(hub, user)}/environ").read_bytes()
    pairs = (item.split(b"=", 1) for item in raw.split(b"\0") if b"=" in item)
    return {key.decode(): value.decode() for key, value in pairs}


def server_port(hub: Hub, user: str) -> int:
    """The loopback port ``user``'s server listens on (the hub's proxy forwards to it)."""
    return int(re.search(r":(\d+)/", server_environment(hub, user)["JUPYTERHUB_SERVICE_URL"])
               .group(1))  # type: ignore[union-attr]


def status(hub: Hub, user: str) -> dict[str, object]:
    token = hub.user_token(user, [f"access:servers!user={user}"])
    answered = requests.get(f"{hub.server_url(user)}cloudg/api/status",
                            headers={"Authorization": f"token {token}"}, timeout=30)
    assert answered.status_code == 200
    return dict(answered.json())


def test_the_hub_gives_each_server_its_public_address(hub: Hub) -> None:
    env = server_environment(hub, "alice")
    assert env["JUPYTERHUB_PUBLIC_URL"] == hub.server_url("alice")
    assert env["JUPYTERHUB_SERVICE_URL"] != env["JUPYTERHUB_PUBLIC_URL"]  # loopback, own port


@pytest.mark.parametrize("user", ["alice", "bob"])
def test_the_endpoint_a_server_reports_is_at_the_hub_public_address(hub: Hub, user: str) -> None:
    assert status(hub, user)["endpoint"] == public_endpoint(hub, user)


def test_the_start_log_names_the_endpoint_at_the_hub_public_address(hub: Hub) -> None:
    log = hub.log()
    for user in ("alice", "bob"):
        assert f"cloudg: MCP endpoint at {public_endpoint(hub, user)}" in log
        assert f"127.0.0.1:{server_port(hub, user)}/user/{user}/cloudg/mcp" not in log
    assert "approval links use this server's own address" not in log


def config_in_server(hub: Hub, user: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``cloudg-nb config --jupyter ARGS`` run as in a terminal of ``user``'s server: its
    environment, in its folder."""
    home = hub.folder / "home" / user
    return subprocess.run([sys.executable, "-m", "cloudg_nb", "config", "--jupyter", *args],
                          env=server_environment(hub, user), cwd=home, capture_output=True,
                          text=True, timeout=120)


def test_config_jupyter_in_a_server_gives_the_hub_public_endpoint(hub: Hub) -> None:
    done = config_in_server(hub, "alice", "--client", "vscode", "--token-auth", "--name",
                            "laptop-vscode")
    assert done.returncode == 0, done.stderr
    config = json.loads(done.stdout)
    (entry,) = config["servers"].values()
    assert entry["url"] == public_endpoint(hub, "alice")
    assert f":{server_port(hub, 'alice')}/" not in done.stdout + done.stderr
    assert "warning" not in done.stderr
    token = entry["headers"]["Authorization"].removeprefix("Bearer ")
    with open_session(entry["url"], "2026", headers={"Authorization": f"Bearer {token}"}) as mcp:
        who = mcp.call_tool("who_am_i", {}).structured_content
    assert who == {"id": "assistant:laptop-vscode", "roles": ["assistant"]}


def test_config_jupyter_oauth_form_in_a_server_gives_the_hub_public_endpoint(hub: Hub) -> None:
    done = config_in_server(hub, "alice", "--client", "vscode")
    assert done.returncode == 0, done.stderr
    (entry,) = json.loads(done.stdout)["servers"].values()
    assert entry["url"] == public_endpoint(hub, "alice")
    assert "headers" not in entry  # the client signs in with OAuth: no token in its config
    assert f":{server_port(hub, 'alice')}/" not in done.stdout + done.stderr
    assert "warning" not in done.stderr


def test_config_jupyter_with_the_server_token_also_gives_the_hub_public_endpoint(
        hub: Hub) -> None:
    done = config_in_server(hub, "bob", "--client", "vscode", "--server-token")
    assert done.returncode == 0, done.stderr
    (entry,) = json.loads(done.stdout)["servers"].values()
    assert entry["url"] == public_endpoint(hub, "bob")


@pytest.mark.parametrize("client", ["claude-code", "vscode", "other"])
def test_an_assistant_minted_from_the_sidebar_gets_the_hub_public_endpoint(
        hub: Hub, client: str) -> None:
    # The JupyterLab sidebar's "connect an assistant" shows the answer's endpoint and config.
    token = hub.user_token("alice", ["access:servers!user=alice"])
    minted = requests.post(f"{hub.server_url('alice')}cloudg/api/assistants",
                           headers={"Authorization": f"token {token}"},
                           json={"name": f"sidebar-{client}", "client": client}, timeout=30)
    assert minted.status_code == 201
    body = minted.json()
    assert body["endpoint"] == public_endpoint(hub, "alice")
    if body["config"] is not None:
        assert public_endpoint(hub, "alice") in body["config"]
        assert f":{server_port(hub, 'alice')}/" not in body["config"]
