"""A 2026-era tools/call finds the tool's input schema (for its ``Mcp-Param-*`` header check)
in the registry: the server does not build the whole tools/list for every call.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from cloudg_nb.estate import demo
from cloudg_nb.layer import CloudGMCPLayer
from cloudg_nb.protocol import build_http_app

from .harness import open_session, serve_app_in_thread

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")


class CountingLayer(CloudGMCPLayer):
    listings = 0

    def tools_wire(self, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        self.listings += 1
        return super().tools_wire(*args, **kwargs)


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, CountingLayer]]:
    layer = CountingLayer(policy="standard")
    layer.workspace.add(demo(), "demo", activate=True)
    with serve_app_in_thread(build_http_app(layer)) as url:
        yield url, layer


@pytest.mark.parametrize("era", ["2026", "2025"])
def test_tool_calls_do_not_list_every_tool_each_time(
    served: tuple[str, CountingLayer], era: str,
) -> None:
    url, layer = served
    with open_session(url, era) as session:
        session.call_tool("get_asset", {"ref": "aws-acct-prod"})  # the client lists once
        before = layer.listings
        for _ in range(5):
            result = session.call_tool("get_asset", {"ref": "aws-acct-prod"})
            assert not result.is_error
        assert layer.listings == before
