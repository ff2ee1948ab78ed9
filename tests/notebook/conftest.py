"""Fixtures for the notebook tests, one of each per module: ``server``, a real Jupyter server
with the extension and the fixture tools (no other server extensions), and ``client``, a remote
``Client`` connected to it; ``kernel_server``, a server with the fixture tools whose ``python3``
kernels run this interpreter (``tests/notebook/kernel.py``). A module that needs another server
or a local client defines its own ``server`` / ``client``, which takes precedence."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cloudg_nb.notebook.client import Client, connect
from tests.jupyter.server import FIXTURE_REGISTRY, JupyterServer, jupyter_server
from tests.lanes import starts
from tests.notebook.kernel import notebook_server


@pytest.fixture(scope="module")
@starts("server")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    with jupyter_server(tmp_path_factory.mktemp("remote"), extra_args=[FIXTURE_REGISTRY],
                        other_extensions=False) as running:
        yield running


@pytest.fixture(scope="module")
def client(server: JupyterServer) -> Iterator[Client]:
    opened = connect(server.url, server.token)
    yield opened
    opened.close()


@pytest.fixture(scope="module")
@starts("server", "kernel")
def kernel_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    with notebook_server(tmp_path_factory.mktemp("kernel-server")) as running:
        yield running
