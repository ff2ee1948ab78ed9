"""``build_http_app`` served in-process by uvicorn on a real 127.0.0.1 socket.

In-process so the test can look at the server's side: an HTTP session is tracked by the
change fan-out while it lives and dropped when the client ends it, and a custom principal
resolver sees each request's headers.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from cloudg_nb.layer import CloudGMCPLayer, Principal
from cloudg_nb.protocol import RequestInfo, build_http_app

from .fixture_registry import registry
from .harness import open_session, serve_app_in_thread

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")


def _from_header(info: RequestInfo) -> Principal | None:
    name = info.headers.get("x-analyst")
    return Principal(name, frozenset({"analyst"})) if name else None


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, Any]]:
    app = build_http_app(CloudGMCPLayer(registry=registry, policy="open"), resolver=_from_header)
    with serve_app_in_thread(app) as url:
        yield url, app


def test_http_session_is_tracked_while_open_and_dropped_when_closed(
    served: tuple[str, Any],
) -> None:
    url, app = served
    fanout = app.state.binding.fanout
    before = fanout.session_count
    with open_session(url, "2025") as session:
        session.call_tool("add_numbers", {"a": 1, "b": 2})
        assert fanout.session_count == before + 1
    session.wait_for(lambda: fanout.session_count == before)


@pytest.mark.parametrize("era", ["2025", "2026"])
def test_custom_resolver_sees_request_headers(served: tuple[str, Any], era: str) -> None:
    url, _ = served
    with open_session(url, era, headers={"X-Analyst": "carol"}) as session:
        who = session.call_tool("who_am_i", {}).structured_content
    assert who == {"id": "carol", "roles": ["analyst"]}


def test_without_token_or_resolver_match_the_http_caller_is_anonymous(
    served: tuple[str, Any],
) -> None:
    url, _ = served
    with open_session(url, "2025") as session:
        who = session.call_tool("who_am_i", {}).structured_content
    assert who == {"id": "anonymous", "roles": ["default"]}
