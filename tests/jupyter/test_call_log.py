"""The server log names calls that ended early (cancelled or timed out), and only those."""

from __future__ import annotations

import asyncio
import logging

import pytest
from cloudg_jupyter.call_log import CallLogMiddleware

from cloudg_nb.layer import CloudGMCPLayer, Registry, ToolContext


def _layer(log: logging.Logger) -> CloudGMCPLayer:
    registry = Registry()

    @registry.tool(timeout_seconds=0.2)
    async def slow(ctx: ToolContext) -> dict[str, int]:
        await asyncio.sleep(5)
        return {"done": 1}

    @registry.tool
    def quick(ctx: ToolContext, secret_arg: str = "") -> dict[str, int]:
        return {"done": 1}

    layer = CloudGMCPLayer(registry=registry, policy="open")
    layer.use(CallLogMiddleware(log))
    return layer


def test_a_timed_out_call_gets_one_server_log_line(caplog: pytest.LogCaptureFixture) -> None:
    log = logging.getLogger("test.cloudg.calls")
    layer = _layer(log)
    with caplog.at_level(logging.INFO, logger=log.name):
        result = asyncio.run(layer.call_tool("slow", {}))
    assert result.is_error
    lines = [r.getMessage() for r in caplog.records if r.name == log.name]
    assert len(lines) == 1
    assert lines[0].startswith("cloudg: tool slow by ") and "ended early (timed out)" in lines[0]


def test_calls_that_end_normally_are_not_logged(caplog: pytest.LogCaptureFixture) -> None:
    log = logging.getLogger("test.cloudg.calls")
    layer = _layer(log)
    with caplog.at_level(logging.INFO, logger=log.name):
        assert not asyncio.run(layer.call_tool("quick", {"secret_arg": "hunter2"})).is_error
    assert [r for r in caplog.records if r.name == log.name] == []
