"""The address in every link cloudg hands out: the configured public URL, else JupyterHub's
public URL of this server, else Jupyter's own connection URL; never anything from a request."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from cloudg_jupyter.public_address import (
    PublicAddress,
    check_public_url,
    public_base_url,
    under_jupyterhub,
)

SERVER = SimpleNamespace(connection_url="http://127.0.0.1:8888/user/alice/")
HUB = {"JUPYTERHUB_SERVICE_PREFIX": "/user/alice/"}


def test_the_configured_url_wins() -> None:
    env = {**HUB, "JUPYTERHUB_PUBLIC_URL": "https://hub.example.org/user/alice/"}
    assert public_base_url("https://proxy.example.org/user/alice", SERVER, env) == (
        "https://proxy.example.org/user/alice/")


@pytest.mark.parametrize("bad", ["/user/alice/", "proxy.example.org", "ftp://x.example/",
                                 "https:///path", "https://x.example/?token=1",
                                 "https://x.example/#top"])
def test_a_configured_url_that_is_not_an_absolute_http_url_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="URL"):
        check_public_url(bad)


def test_under_jupyterhub_the_hubs_public_url_of_this_server_is_used() -> None:
    env = {**HUB, "JUPYTERHUB_PUBLIC_URL": "https://hub.example.org/user/alice/"}
    assert under_jupyterhub(env)
    assert public_base_url("", SERVER, env) == "https://hub.example.org/user/alice/"


def test_a_hub_url_without_the_servers_prefix_gets_it() -> None:
    env = {**HUB, "JUPYTERHUB_PUBLIC_URL": "https://hub.example.org/"}
    assert public_base_url("", SERVER, env) == "https://hub.example.org/user/alice/"


def test_without_the_servers_public_url_the_hubs_public_address_is_joined_with_its_prefix(
        ) -> None:
    # JupyterHub sets JUPYTERHUB_PUBLIC_URL="" but may still name its own public address.
    env = {**HUB, "JUPYTERHUB_PUBLIC_URL": "",
           "JUPYTERHUB_PUBLIC_HUB_URL": "https://hub.example.org/hub/"}
    assert public_base_url("", SERVER, env) == "https://hub.example.org/user/alice/"


@pytest.mark.parametrize("public", ["", "not a url"])
def test_without_a_usable_hub_url_the_connection_url_is_used(public: str) -> None:
    env = {**HUB, "JUPYTERHUB_PUBLIC_URL": public}
    assert public_base_url("", SERVER, env) == SERVER.connection_url


def test_outside_jupyterhub_the_connection_url_is_used() -> None:
    assert not under_jupyterhub({})
    assert public_base_url("", SimpleNamespace(connection_url="http://host:1/x"), {}) == (
        "http://host:1/x/")


def test_the_endpoint_and_approval_pages_hang_off_the_configured_address() -> None:
    address = PublicAddress(SERVER, {})
    address.configure("https://proxy.example.org/user/alice")
    approval = SimpleNamespace(id="abc123")
    assert address.endpoint_url() == "https://proxy.example.org/user/alice/cloudg/mcp"
    assert address.approval_url(approval, None) == (  # type: ignore[arg-type]
        "https://proxy.example.org/user/alice/cloudg/approvals/abc123")


def test_a_configured_address_that_is_refused_leaves_the_servers_own() -> None:
    address = PublicAddress(SERVER, {})
    with pytest.raises(ValueError, match="URL"):
        address.configure("proxy.example.org")
    assert address.configured == "" and address.base() == SERVER.connection_url


def test_unconfigured_the_address_follows_the_environment_as_it_is_now() -> None:
    env: dict[str, str] = {}
    address = PublicAddress(SERVER, env)
    assert address.base() == SERVER.connection_url
    env.update({**HUB, "JUPYTERHUB_PUBLIC_URL": "https://hub.example.org/"})
    assert address.base() == "https://hub.example.org/user/alice/"
