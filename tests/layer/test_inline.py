"""A sync tool's ``inline`` fast path (``ToolSpec.inline``): it answers on the serving loop's
thread when it can, and when it raises ``RunInWorker`` the handler runs in a worker thread
with the same arguments; progress it reports arrives before its result."""

from __future__ import annotations

import threading
from typing import Any

from cloudg_nb.layer import CloudGMCPLayer, Registry, RunInWorker
from tests.layer.fakes import core_layer


def _layer(inline: Any, seen: list[str]) -> CloudGMCPLayer:
    reg = Registry()

    def double(ctx, n: int) -> dict:
        seen.append(f"handler:{threading.current_thread() is threading.main_thread()}")
        return {"n": 2 * n}

    reg.tool(double, inline=inline)
    return core_layer(reg)


async def test_an_inline_fast_path_answers_on_the_loop_thread() -> None:
    seen: list[str] = []

    def inline(ctx, n: int) -> dict:
        seen.append(f"inline:{threading.current_thread() is threading.main_thread()}")
        return {"n": 2 * n}

    result = await _layer(inline, seen).call_tool("double", {"n": 4})
    assert result.structured == {"n": 8}
    assert seen == ["inline:True"]


async def test_run_in_worker_from_the_fast_path_runs_the_handler_in_a_worker_thread() -> None:
    seen: list[str] = []

    def inline(ctx, n: int) -> dict:
        seen.append("inline")
        raise RunInWorker

    result = await _layer(inline, seen).call_tool("double", {"n": 4})
    assert result.structured == {"n": 8}
    assert seen == ["inline", "handler:False"]


async def test_progress_reported_by_the_fast_path_arrives_before_its_result() -> None:
    reported: list[float] = []

    def inline(ctx, n: int) -> dict:
        ctx.report_progress_sync(0, 100, "start")
        ctx.report_progress_sync(100, 100, "done")
        return {"n": 2 * n, "progress_at_return": list(reported)}

    layer = _layer(inline, [])
    ctx = layer.context(progress_callback=lambda p, t, m: reported.append(p))
    result = await layer.call_tool("double", {"n": 1}, context=ctx)
    assert result.structured["progress_at_return"] == []
    assert reported == [0, 100]
