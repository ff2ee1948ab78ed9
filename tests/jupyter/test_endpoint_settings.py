"""The extension's traitlets reach the endpoint (``CloudGExtension.endpoint_settings``), and the
endpoint serves in-process from them (``cloudg_jupyter.endpoint``, no Jupyter server): the
datasets load through the shared spec parser, a bad one is one problem line, the status says
what is served, and ``stop`` ends it all."""

from __future__ import annotations

import gc
import logging
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from cloudg_jupyter.app import CloudGExtension
from cloudg_jupyter.endpoint import Endpoint
from cloudg_jupyter.identity import Identity
from cloudg_jupyter.public_address import PublicAddress
from cloudg_jupyter.served_layer import EndpointSettings
from jupyter_server.auth.identity import IdentityProvider, User
from jupyter_server.extension.application import ExtensionApp

#: Traitlets the app applies itself (the endpoint never reads them).
APP_ONLY = {"enabled", "switch_interval", "roles", "default_roles",
            # MCP authorization is built beside the endpoint (oauth_server.JupyterOAuth)
            "oauth", "oauth_access_token_lifetime", "oauth_root_discovery"}
#: Traitlets every ExtensionApp has (Jupyter's own, not cloudg's settings).
JUPYTERS = set(ExtensionApp.class_traits(config=True))
SERVER = SimpleNamespace(connection_url="http://127.0.0.1:8888/lab/",
                         identity_provider=IdentityProvider(token="t"))


def _changed(ext: CloudGExtension) -> dict[str, object]:
    """A value of each setting other than its default."""
    out: dict[str, object] = {}
    for name in ext.traits(config=True):
        if name in APP_ONLY or name in JUPYTERS:
            continue
        value = getattr(ext, name)
        out[name] = (not value if isinstance(value, bool) else
                     value + 1 if isinstance(value, int | float) else
                     [*value, "extra=sample:demo"] if isinstance(value, list) else
                     "changed" if isinstance(value, str) or value is None else value)
    return out


def test_every_cloudg_setting_reaches_the_endpoint_with_its_value() -> None:
    changed = _changed(CloudGExtension())
    settings = CloudGExtension(**changed).endpoint_settings()
    assert {name: getattr(settings, name) for name in changed} == {
        name: tuple(value) if isinstance(value, list) else value
        for name, value in changed.items()}


def test_the_settings_hold_nothing_but_cloudg_settings_and_the_servers_place() -> None:
    fields = set(EndpointSettings.__dataclass_fields__)
    ours = set(CloudGExtension.class_traits(config=True)) - JUPYTERS - APP_ONLY
    assert fields == ours | {"root_dir", "base_url"}


def test_without_a_server_the_root_is_the_current_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    settings = CloudGExtension().endpoint_settings()
    assert (settings.root_dir, settings.base_url) == (tmp_path.resolve(), "/")


# -- the endpoint in-process -----------------------------------------------------------------------


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """The endpoint freezes the collector's view of startup objects, and stopping it tells
    sse-starlette that the process is stopping: both undone for other tests (an in-process
    server of a later test would otherwise end every event stream at once)."""
    from sse_starlette.sse import AppStatus

    exiting = AppStatus.should_exit
    try:
        yield
    finally:
        gc.unfreeze()
        AppStatus.should_exit = exiting


def _endpoint(tmp_path: Path, **settings: object) -> Endpoint:
    ext = CloudGExtension(audit_log="", assistant_store=str(tmp_path / "assistants.json"),
                          **settings)
    identity = Identity(SERVER.identity_provider, {}, ["default"])
    return Endpoint(ext.endpoint_settings(), address=PublicAddress(SERVER), identity=identity,
                    log=logging.getLogger("test"))


async def test_the_endpoint_serves_its_datasets_and_says_so_until_stopped(
        tmp_path: Path, unfrozen: None) -> None:
    endpoint = _endpoint(tmp_path, datasets=["mine=sample:demo", "no-equals-sign"])
    endpoint.build()
    endpoint.start()
    await endpoint.ready.wait()
    status = endpoint.status(Identity(SERVER.identity_provider, {}, []).principal_for(
        User(username="anyone")))
    await endpoint.stop()
    assert endpoint.setup_problem is None and status["ready"] is True
    assert status["endpoint"] == "http://127.0.0.1:8888/lab/cloudg/mcp"
    assert [d["name"] for d in status["datasets"]] == ["mine"]
    assert status["problems"] == ["'no-equals-sign' is not NAME=PATH"]
    assert status["tools"] > 20 and status["assistants"]["credentials"] == 0
    assert not endpoint.ready.is_set() and endpoint.stopping


def test_a_setting_that_does_not_build_is_the_endpoints_one_line_problem(
        tmp_path: Path) -> None:
    endpoint = _endpoint(tmp_path, registry="not-a-target")
    endpoint.build()
    assert endpoint.setup_problem == (
        "CloudGExtension.registry takes MODULE:ATTR, for example mypkg.tools:registry")
    assert endpoint.layer is None and endpoint.asgi_app is None
