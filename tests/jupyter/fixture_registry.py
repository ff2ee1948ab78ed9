"""Test-only tools merged into the extension's catalog (``--CloudGExtension.registry``).

Each one exercises a behaviour of the endpoint inside Jupyter: progress from a worker
thread (once, or in steps), CPU-bound work off the server loop, calls still running at server
stop, the caller's principal, a result holding a planted secret, and calls that count how
many of each caller's run at once (the fair share).
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

from jupyter_server import CallContext

from cloudg_nb.layer import Registry, ToolContext
from cloudg_nb.layer.errors import CallCancelledError

registry = Registry()


@registry.tool
def progress_then_sleep(ctx: ToolContext, seconds: float = 1.0) -> dict[str, float]:
    """Report progress 1 of 2 from the worker thread, sleep ``seconds``, then return."""
    ctx.report_progress_sync(1, 2, "started")
    time.sleep(seconds)
    return {"slept": seconds}


@registry.tool
def progress_steps(ctx: ToolContext, steps: int = 5, interval: float = 0.2) -> dict[str, int]:
    """Report progress i of ``steps`` (i = 1..steps) from the worker thread, ``interval``
    seconds apart, then return."""
    for i in range(1, steps + 1):
        time.sleep(interval)
        ctx.report_progress_sync(i, steps, f"step {i} of {steps}")
    return {"steps": steps}


@registry.tool
def burn_cpu(ctx: ToolContext, seconds: float = 2.0) -> dict[str, int]:
    """Spin the CPU in pure Python for ``seconds`` (holding the GIL as much as it can)."""
    deadline = time.perf_counter() + seconds
    loops = 0
    while time.perf_counter() < deadline:
        loops += sum(range(200)) and 1
    return {"loops": loops}


@registry.tool
async def sleep_async(ctx: ToolContext, seconds: float = 60.0) -> dict[str, float]:
    """Sleep on the server loop (an in-flight call that only cancellation ends early)."""
    await asyncio.sleep(seconds)
    return {"slept": seconds}


@registry.tool
def who_am_i(ctx: ToolContext) -> dict[str, Any]:
    """The caller's principal id and roles."""
    return {"id": ctx.principal.id, "roles": sorted(ctx.principal.roles)}


@registry.tool
def work_until_cancelled(ctx: ToolContext, marker: str, seconds: float = 60.0,
                         started: str = "") -> dict[str, str]:
    """Loop in the worker thread, checking for cancellation; once cancelled, write
    ``cancelled`` to the file ``marker`` (an absolute path) and stop. ``started``: a file
    written when the work begins (so a test knows the call is in flight)."""
    if started:
        Path(started).write_text("started", encoding="utf-8")
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            ctx.check_cancelled()
            time.sleep(0.02)
    except CallCancelledError:
        Path(marker).write_text("cancelled", encoding="utf-8")
        raise
    return {"finished": "uncancelled"}


@registry.tool
def request_seen(ctx: ToolContext) -> dict[str, Any]:
    """What the MCP server saw of the HTTP request: header names and the query string of the
    ASGI scope the endpoint handed it (Jupyter's call context names the handler serving this
    call; its bridge builds that scope)."""
    handler = CallContext.get(CallContext.JUPYTER_HANDLER)
    bridge = getattr(handler, "bridge", None)
    if bridge is None:
        return {"headers": [], "query": ""}
    scope = bridge.scope()
    return {"headers": sorted(name.decode("latin-1") for name, _ in scope["headers"]),
            "query": scope["query_string"].decode("latin-1")}


#: A credential in "configuration" a tool returns: the policy must redact it for every caller.
PLANTED_DSN = "postgres://app:Pl4ntedS3cretPassw0rd@db.internal:5432/app"


@registry.tool
def read_app_config(ctx: ToolContext) -> dict[str, Any]:
    """An application's configuration, holding a database connection string (a secret)."""
    return {"service": "billing", "database_url": PLANTED_DSN}


# -- counted calls (the fair share) --------------------------------------------------------

#: The key under which every assistant's calls are counted together.
ALL_ASSISTANTS = "assistants"
_counts = threading.Lock()
_running: dict[str, int] = {}
_peaks: dict[str, int] = {}
_started: dict[str, list[str]] = {}


def _enter(principal_id: str, tag: str) -> list[str]:
    keys = [principal_id, *([ALL_ASSISTANTS] if principal_id.startswith("assistant:") else [])]
    with _counts:
        for key in keys:
            _running[key] = _running.get(key, 0) + 1
            _peaks[key] = max(_peaks.get(key, 0), _running[key])
        if tag:
            _started.setdefault(principal_id, []).append(tag)
    return keys


def _leave(keys: list[str]) -> None:
    with _counts:
        for key in keys:
            _running[key] -= 1


def _spin(seconds: float) -> None:
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        sum(range(200))


@registry.tool
async def counted_sleep(ctx: ToolContext, seconds: float = 1.0, tag: str = "") -> dict[str, str]:
    """Sleep ``seconds`` on the server loop, counted among the caller's calls running at once
    (``running_peaks``); ``tag`` is noted as started."""
    keys = _enter(ctx.principal.id, tag)
    try:
        await asyncio.sleep(seconds)
    finally:
        _leave(keys)
    return {"tag": tag}


def counted_burn(ctx: ToolContext, seconds: float = 1.0, tag: str = "") -> dict[str, str]:
    """Spin the CPU in pure Python for ``seconds`` in a worker thread (holding the GIL as
    much as it can), counted among the caller's calls running at once."""
    keys = _enter(ctx.principal.id, tag)
    try:
        _spin(seconds)
    finally:
        _leave(keys)
    return {"tag": tag}


registry.tool(counted_burn)
registry.tool(counted_burn, name="counted_heavy_burn", lane="heavy")


@registry.tool
def running_peaks(ctx: ToolContext, reset: bool = False) -> dict[str, Any]:
    """Most counted calls running at once, per principal and for all assistants together
    (``assistants``), calls running now, and the tags started per principal; ``reset``
    clears them after reading."""
    with _counts:
        out = {"peaks": dict(_peaks), "running": dict(_running),
               "started": {k: list(v) for k, v in _started.items()}}
        if reset:
            _peaks.clear()
            _started.clear()
            _peaks.update((k, v) for k, v in _running.items() if v)
    return out
