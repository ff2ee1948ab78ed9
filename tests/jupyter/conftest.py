"""Fixtures for the extension tests: one real Jupyter server per module, and MCP sessions.

``jupyter`` is a server with the cloudg extension and the test tools of
``fixture_registry`` merged into its catalog; ``session`` is an ``mcp.Client`` over HTTP with
the token header, parametrised over both protocol eras (one connection per module and era).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.lanes import starts
from tests.protocol.harness import ClientSession, open_session

from .server import FIXTURE_REGISTRY, JupyterServer, jupyter_server

ERAS = ("2025", "2026")


@pytest.fixture(scope="module")
@starts("server")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    with jupyter_server(tmp_path_factory.mktemp("jupyter"), extra_args=[FIXTURE_REGISTRY]) \
            as server:
        yield server


@pytest.fixture(scope="module", params=ERAS)
def session(request: Any, jupyter: JupyterServer) -> Iterator[ClientSession]:
    with open_session(jupyter.endpoint, request.param, headers=jupyter.headers) as opened:
        opened.era = request.param  # type: ignore[attr-defined]
        yield opened
