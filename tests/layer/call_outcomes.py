"""Requests that end every way a request can, over a core layer, for the recorders' tests.

``OUTCOMES`` names each way (ok, tool error, denied, rate limited, rejected, timeout,
cancelled, redacted, a resource's exception and layer error, a prompt, a completion);
``request(name, middleware)`` makes that request as ``ALICE`` (request id ``req-7``) through a
layer with ``middleware`` and swallows what it raises, so a test reads what was recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from cloudg_nb.layer.context import Principal
from cloudg_nb.layer.errors import InputRejectedError, NotFoundError
from cloudg_nb.layer.layer import CloudGMCPLayer
from cloudg_nb.layer.registry import Registry
from cloudg_nb.layer.specs import PromptArgument
from tests.layer.fakes import FakePolicy, core_layer

__all__ = ["ALICE", "ARGUMENTS", "OUTCOMES", "registry", "request"]

ALICE = Principal("alice", frozenset({"analyst", "admin"}))
#: The arguments of every ``lookup`` call.
ARGUMENTS = {"token": "abc", "count": 2}


def _refuse_input(value: Any, ctx: Any) -> Any:
    raise InputRejectedError("Argument looks like a secret; pass a reference instead")


def _count_a_redaction(value: Any, ctx: Any) -> Any:
    ctx.count("redacted", "email")
    return value


#: Each way a request ends: (what is asked, the FakePolicy's settings).
OUTCOMES: dict[str, tuple[str, dict[str, Any]]] = {
    "ok": ("lookup", {}),
    "tool error": ("boom", {}),
    "denied": ("lookup", {"denied": ["lookup"]}),
    "rate limited": ("lookup", {"limit": 0}),
    "rejected": ("lookup", {"input": [_refuse_input]}),
    "timeout": ("slow", {}),
    "cancelled": ("cancel sleepy", {}),
    "redacted": ("lookup", {"output": [_count_a_redaction]}),
    "resource ok": ("cloudg://status", {}),
    "resource exception": ("cloudg://broken", {}),
    "resource layer error": ("cloudg://missing", {}),
    "prompt": ("brief", {}),
    "completion": ("complete brief", {}),
}

#: Calls of ``sleepy`` that started (a request cancels one once it runs).
_STARTED: list[str] = []


def registry() -> Registry:
    reg = Registry()

    @reg.tool
    def lookup(ctx, token: str = "", count: int = 1) -> dict:
        return {"count": count}

    @reg.tool
    def boom(ctx) -> dict:
        raise RuntimeError("handler exploded")

    @reg.tool(timeout_seconds=0.05)
    async def slow(ctx) -> dict:
        await asyncio.sleep(5)
        return {}

    @reg.tool
    async def sleepy(ctx) -> dict:
        _STARTED.append("sleepy")
        await asyncio.sleep(10)
        return {}

    @reg.tool(sensitivity="restricted")
    def vault_read(ctx) -> dict:
        return {"ok": True}

    @reg.resource("cloudg://status")
    def status(ctx) -> dict:
        return {"status": "up"}

    @reg.resource("cloudg://broken")
    def broken(ctx) -> dict:
        raise ValueError("cannot read")

    @reg.resource("cloudg://missing")
    def missing(ctx) -> dict:
        raise NotFoundError("No such thing. List the things first.")

    def complete_topic(ctx, partial: str) -> list[str]:
        return ["network"]

    @reg.prompt(arguments=[PromptArgument("topic", required=True, completion=complete_topic)])
    def brief(ctx, topic: str) -> str:
        return f"Brief me on {topic}"

    return reg


async def cancel_sleepy(layer: CloudGMCPLayer, ctx: Any = None) -> None:
    """Call ``sleepy`` and cancel the call once its handler runs."""
    _STARTED.clear()
    task = asyncio.create_task(layer.call_tool("sleepy", {}, context=ctx))
    while not _STARTED:
        await asyncio.sleep(0.005)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def request(outcome: str, middleware: list[Any]) -> CloudGMCPLayer:
    """Make the request that ends as ``outcome`` (a key of ``OUTCOMES``) through a new layer
    with ``middleware``; returns the layer."""
    asked, settings = OUTCOMES[outcome]
    layer = core_layer(registry(), policy=FakePolicy(**settings), middleware=middleware)
    ctx = layer.context(ALICE, request_id="req-7")
    with contextlib.suppress(Exception):
        if asked == "cancel sleepy":
            await cancel_sleepy(layer, ctx)
        elif asked.startswith("cloudg://"):
            await layer.read_resource(asked, context=ctx)
        elif asked == "brief":
            await layer.get_prompt("brief", {"topic": "net"}, context=ctx)
        elif asked == "complete brief":
            await layer.complete({"type": "ref/prompt", "name": "brief"},
                                 {"name": "topic", "value": "n"}, principal=ALICE)
        elif asked == "lookup":
            await layer.call_tool("lookup", dict(ARGUMENTS), context=ctx)
        else:
            await layer.call_tool(asked, {}, context=ctx)
    return layer
