"""stdio serving: stdout belongs to the protocol, and the caller is the local principal.

A tool that prints (``print``, ``sys.stdout``, raw fd 1) must not put a byte on the protocol
stream: the client would see unparsable lines (delivered to its message handler as
exceptions) and the session would break.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .harness import ClientSession, open_session

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]


@pytest.fixture(scope="module", params=("2025", "2026"))
def stdio_session(request: Any) -> Iterator[ClientSession]:
    with open_session("stdio", request.param) as session:
        yield session


def test_tool_that_prints_does_not_corrupt_the_stream(stdio_session: ClientSession) -> None:
    for _ in range(3):
        result = stdio_session.call_tool("noisy_print", {})
        assert result.structured_content == {"printed": True}
    after = stdio_session.call_tool("add_numbers", {"a": 20, "b": 22})
    assert after.structured_content == {"sum": 42}
    assert [n for n in stdio_session.notes if isinstance(n, Exception)] == []


def test_stdio_caller_is_the_local_principal(stdio_session: ClientSession) -> None:
    result = stdio_session.call_tool("who_am_i", {})
    assert result.structured_content == {"id": "local", "roles": ["default", "local"]}
