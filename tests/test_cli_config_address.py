"""Which endpoint address ``cloudg-nb config --jupyter`` gives an assistant: the server's own
word when it names a public address (its ``public_url``, the hub's), else what discovery found
(inside a hub, the hub's public address from the environment), never a loopback address the
server reported over the one discovery knows to be public; and when a hub gave no public
address at all, the command says so."""

from __future__ import annotations

from typing import Any

import pytest

from cloudg_nb.cli.config import served_address, under_hub_without_address
from cloudg_nb.jupyter_discovery import JupyterEndpoint

LOOPBACK = "http://127.0.0.1:41234/user/al/cloudg/mcp"
PUBLIC = "https://hub.example.org/user/al/cloudg/mcp"


def found(public_url: str | None = None) -> JupyterEndpoint:
    return JupyterEndpoint(LOOPBACK, "tok", "a server file", LOOPBACK.removesuffix("cloudg/mcp"),
                           public_url=public_url)


def test_the_servers_public_endpoint_is_given() -> None:
    assert served_address({"endpoint": PUBLIC}, found()) == PUBLIC


def test_the_hub_address_discovery_found_beats_a_loopback_one_the_server_reports() -> None:
    assert served_address({"endpoint": LOOPBACK}, found(PUBLIC)) == PUBLIC


@pytest.mark.parametrize("said", [None, 7, "", "javascript:alert(1)//cloudg/mcp",
                                  "https://elsewhere.example.org/login",
                                  "ftp://hub.example.org/user/al/cloudg/mcp"])
def test_an_answer_that_is_no_endpoint_address_is_ignored(said: Any) -> None:
    assert served_address({"endpoint": said}, found(PUBLIC)) == PUBLIC
    assert served_address({"endpoint": said}, found()) == LOOPBACK


@pytest.mark.parametrize(("env", "warned"), [
    ({"JUPYTERHUB_SERVICE_PREFIX": "/user/al/", "JUPYTERHUB_PUBLIC_URL": ""}, True),
    ({"JUPYTERHUB_SERVICE_PREFIX": "/user/al/",
      "JUPYTERHUB_PUBLIC_URL": "https://hub.example.org/user/al/"}, False),
    ({}, False),  # not in a hub: a local server's loopback address is the right one
])
def test_a_hub_that_gave_no_public_address_is_told(
        monkeypatch: pytest.MonkeyPatch, env: dict[str, str], warned: bool) -> None:
    for name in ("JUPYTERHUB_SERVICE_PREFIX", "JUPYTERHUB_PUBLIC_URL",
                 "JUPYTERHUB_PUBLIC_HUB_URL", "JUPYTERHUB_HOST", "JUPYTERHUB_EXTERNAL_URL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert under_hub_without_address() is warned
