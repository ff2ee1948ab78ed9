"""A 2026-era tools/call finds the tool's input schema (for its ``Mcp-Param-*`` header check)
in the registry: the server does not build the whole tools/list for every call.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn

from cloudg_nb.estate import demo
from cloudg_nb.layer import CloudGMCPLayer
from cloudg_nb.protocol import build_http_app
from cloudg_nb.protocol.http import bind_socket

from .harness import TIMEOUT, open_session

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
    sock = bind_socket("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(build_http_app(layer), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        while not server.started:
            thread.join(0.02)
            assert thread.is_alive()
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/mcp", layer
    finally:
        server.should_exit = True
        thread.join(TIMEOUT)
        sock.close()


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
