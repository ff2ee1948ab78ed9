"""Fixtures for the protocol tests: a shared HTTP server process and SDK client sessions.

``session`` is parametrised over the four ways a client reaches the server: stdio or HTTP,
handshake era (2025) or stateless era (2026-07-28). Each is one real connection per module.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.lanes import starts

from .harness import ClientSession, ServerProcess, open_session

SESSIONS = ("stdio-2025", "stdio-2026", "http-2025", "http-2026")


@pytest.fixture(scope="module")
@starts("server")
def http_server() -> Iterator[ServerProcess]:
    with ServerProcess() as server:
        yield server


@pytest.fixture(scope="module", params=SESSIONS)
@starts("server")
def session(request: Any) -> Iterator[ClientSession]:
    transport, era = request.param.split("-")
    target = "stdio" if transport == "stdio" else request.getfixturevalue("http_server").url
    with open_session(target, era) as opened:
        opened.transport, opened.era = transport, era  # type: ignore[attr-defined]
        opened.server_url = None if target == "stdio" else target  # type: ignore[attr-defined]
        yield opened
