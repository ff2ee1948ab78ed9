"""Test-only registry for the protocol tests: one primitive per behaviour the edge must carry.

Loaded by test servers with ``serve --registry tests.protocol.fixture_registry:registry``.
State (gates, counters, cancellations) is per server process.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from typing import Any

from cloudg_nb.layer import PromptArgument, Registry, ToolContext

registry = Registry()

_gates: dict[str, asyncio.Event] = {}
_state: dict[str, int] = {"counter": 0, "started": 0, "cancelled": 0}
_lock = threading.Lock()

COUNTER_URI = "fixture://counter"
ITEMS = ("alpha", "beta", "gamma")


def _gate(name: str) -> asyncio.Event:
    return _gates.setdefault(name, asyncio.Event())


@registry.tool(output_schema={
    "type": "object",
    "properties": {"sum": {"type": "integer"}},
    "required": ["sum"],
})
def add_numbers(ctx: ToolContext, a: int, b: int) -> dict[str, int]:
    """Add two integers and return the sum as structured content."""
    return {"sum": a + b}


@registry.tool
def always_fails(ctx: ToolContext) -> dict[str, Any]:
    """Raise, so the call comes back as an error result."""
    raise RuntimeError("this tool always fails")


@registry.tool
async def count_up(ctx: ToolContext, steps: int = 3) -> dict[str, int]:
    """Report progress 1..steps (of steps), then return."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
        await asyncio.sleep(0.01)
    return {"steps": steps}


@registry.tool
async def progress_then_wait(ctx: ToolContext, gate: str) -> dict[str, str]:
    """Report progress 1, wait until ``open_gate(gate)`` is called, report 2, return."""
    await ctx.report_progress(1, 2, "waiting")
    await asyncio.wait_for(_gate(gate).wait(), timeout=60)
    await ctx.report_progress(2, 2, "released")
    return {"gate": gate}


@registry.tool
async def open_gate(ctx: ToolContext, gate: str) -> dict[str, str]:
    """Release whoever waits on ``gate``."""
    _gate(gate).set()
    return {"opened": gate}


@registry.tool
async def emit_logs(ctx: ToolContext) -> dict[str, int]:
    """Log one message at each of debug, info, warning and error."""
    for level in ("debug", "info", "warning", "error"):
        await ctx.log(level, f"{level} message", "fixture")
    return {"logged": 4}


@registry.tool
def bump_counter(ctx: ToolContext) -> dict[str, int]:
    """Increment the counter (in a worker thread) and announce that its resource changed."""
    with _lock:
        _state["counter"] += 1
        value = _state["counter"]
    ctx.workspace.notify("resource", COUNTER_URI)
    return {"counter": value}


@registry.tool
def touch_resource(ctx: ToolContext, uri: str) -> dict[str, str]:
    """Announce that the resource at ``uri`` changed."""
    ctx.workspace.notify("resource", uri)
    return {"touched": uri}


@registry.tool
def announce_new_listing(ctx: ToolContext) -> dict[str, bool]:
    """Announce that the resource and tool lists changed (as a dataset load does)."""
    ctx.workspace.notify("resources")
    ctx.workspace.notify("tools")
    return {"announced": True}


@registry.tool
def noisy_print(ctx: ToolContext) -> dict[str, bool]:
    """Write junk to stdout three ways (print, sys.stdout, fd 1), then return."""
    print("junk from print()")
    sys.stdout.write("junk from sys.stdout\n")
    sys.stdout.flush()
    os.write(1, b"junk written to fd 1\n")
    return {"printed": True}


@registry.tool
async def wait_to_be_cancelled(ctx: ToolContext, seconds: float = 60.0) -> dict[str, str]:
    """Sleep; records whether the sleep was cancelled."""
    _state["started"] += 1
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        _state["cancelled"] += 1
        raise
    return {"slept": "fully"}


@registry.tool
def cancellation_state(ctx: ToolContext) -> dict[str, int]:
    """How many ``wait_to_be_cancelled`` calls started and how many were cancelled."""
    return {"started": _state["started"], "cancelled": _state["cancelled"]}


@registry.tool
def who_am_i(ctx: ToolContext) -> dict[str, Any]:
    """The caller's principal id and roles."""
    return {"id": ctx.principal.id, "roles": sorted(ctx.principal.roles)}


@registry.resource(COUNTER_URI)
def counter(ctx: ToolContext) -> dict[str, int]:
    """The counter ``bump_counter`` increments."""
    return {"counter": _state["counter"]}


@registry.resource("fixture://hello", mime_type="text/plain")
def hello(ctx: ToolContext) -> str:
    """A plain-text greeting."""
    return "hello from the fixture"


def _complete_item(ctx: ToolContext, partial: str) -> list[str]:
    return [item for item in ITEMS if item.startswith(partial)]


@registry.resource_template("fixture://items/{item_id}", completions={"item_id": _complete_item})
def item(ctx: ToolContext, item_id: str) -> dict[str, str]:
    """One item by id."""
    return {"item": item_id}


@registry.prompt(arguments=[PromptArgument("name", "Who to greet", required=True,
                                           completion=_complete_item)])
def greet(ctx: ToolContext, name: str) -> str:
    """Greet someone by name."""
    return f"Say hello to {name}."


@registry.tool
def spin_cpu(ctx: ToolContext, seconds: float = 60.0,
             cooperative: bool = True) -> dict[str, int]:
    """Busy-loop in the worker thread for ``seconds`` (CPU-bound work).

    With ``cooperative`` it checks ``ctx.check_cancelled()`` between rounds, so a cancelled
    call stops early; without, it runs to the end whatever happens.
    """
    import time

    check = ctx.check_cancelled if cooperative else None
    deadline = time.monotonic() + seconds
    rounds = 0
    with _lock:
        _state["spinning"] = _state.get("spinning", 0) + 1
    try:
        while time.monotonic() < deadline:
            sum(range(20_000))
            rounds += 1
            if check is not None:
                check()
    finally:
        with _lock:
            _state["spinning"] -= 1
    return {"rounds": rounds}


@registry.tool
async def spinning(ctx: ToolContext) -> dict[str, int]:
    """How many ``spin_cpu`` calls are running right now."""
    return {"spinning": _state.get("spinning", 0)}


@registry.tool
def refuse_with_server_paths(ctx: ToolContext) -> dict[str, str]:
    """Raise a -31001 access error whose message and data name absolute server paths."""
    from cloudg_nb.layer import AccessDeniedError

    here = os.getcwd()
    raise AccessDeniedError(
        f"The path is outside the allowed folders {here}/data and /srv/estates.",
        data={"roots": [f"{here}/data", "/srv/estates"], "field": "path"},
    )


@registry.resource("fixture://refused")
def refused(ctx: ToolContext) -> str:
    """Refuse with the same server paths as ``refuse_with_server_paths`` (a JSON-RPC error)."""
    return str(refuse_with_server_paths(ctx))
