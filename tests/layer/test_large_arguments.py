"""Arguments over the loop budget: their checks, input transforms, validation and audit hashes
run in a worker thread, so the serving loop keeps running other requests; small arguments stay
on the loop (no thread hop), and both give the same results."""

import asyncio
import io
import json
import threading
from typing import Annotated, Any

import pytest
from pydantic import AfterValidator

from cloudg_nb.layer import CloudGMCPLayer, PromptArgument, Registry
from cloudg_nb.layer.bounds import LOOP_CHARS, LOOP_VALUES
from cloudg_nb.layer.middleware import AuditLogMiddleware
from cloudg_nb.layer.pipeline import Pipeline
from tests.layer.fakes import FakePolicy, core_layer

LARGE = LOOP_VALUES + 1_000


class _Threads:
    """Where each step ran: thread names, in order."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def note(self, value: Any, *_: Any) -> Any:
        self.seen.append(threading.current_thread().name)
        return value


class _RecordingPolicy(FakePolicy):
    """An open policy whose input pipeline notes the thread it runs in."""

    def __init__(self, threads: _Threads) -> None:
        super().__init__("recording")
        self.threads = threads

    def input_pipeline(self, spec: Any, principal: Any) -> Pipeline:
        return Pipeline([self.threads.note])


def _layer(threads: _Threads, *middleware: Any) -> CloudGMCPLayer:
    reg = Registry()

    @reg.tool
    def count_ids(ctx, ids: Annotated[list[str], AfterValidator(threads.note)]) -> dict:
        return {"count": len(ids)}

    @reg.prompt(arguments=[PromptArgument("topic")])
    def brief(ctx, topic: str = "") -> str:
        return f"{len(topic)} characters"

    return core_layer(reg, policy=_RecordingPolicy(threads), middleware=list(middleware))


async def test_small_arguments_are_transformed_and_validated_on_the_loop() -> None:
    threads = _Threads()
    result = await _layer(threads).call_tool("count_ids", {"ids": ["a"] * 10})
    assert result.structured == {"count": 10}
    assert threads.seen == [threading.current_thread().name] * 2


async def test_large_arguments_are_transformed_and_validated_in_a_worker() -> None:
    threads = _Threads()
    result = await _layer(threads).call_tool("count_ids", {"ids": ["a"] * LARGE})
    assert result.structured == {"count": LARGE}
    assert len(threads.seen) == 2 and all(name.startswith("cloudg-light") for name in
                                          threads.seen), threads.seen


async def test_the_loop_runs_other_tasks_while_large_arguments_are_prepared() -> None:
    threads = _Threads()
    layer = _layer(threads)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0)
            ticks += 1

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0)
    before = ticks
    await layer.call_tool("count_ids", {"ids": [str(i) for i in range(90_000)]})
    during = ticks - before
    task.cancel()
    assert during > 0  # on the loop, checks and validation would run without a break


async def test_a_large_call_refused_by_bounds_in_the_worker_is_an_error_result() -> None:
    threads = _Threads()
    layer = _layer(threads)
    nested = [[str(i)] for i in range(60_000)]  # 120k values: found only by walking
    result = await layer.call_tool("count_ids", {"ids": nested})
    assert result.is_error
    assert result.meta["cloudg/error_data"]["limit"] == "value count"
    assert threads.seen == []  # refused before transforms


async def test_a_large_prompt_is_rendered_as_a_small_one_would_be() -> None:
    threads = _Threads()
    result = await _layer(threads).get_prompt("brief", {"topic": "x" * (LOOP_CHARS + 5)})
    assert f"{LOOP_CHARS + 5} characters" in json.dumps(result.to_wire())
    assert threads.seen and threads.seen[0].startswith("cloudg-light")


async def test_a_large_completion_context_is_transformed_in_a_worker() -> None:
    threads = _Threads()
    reg = Registry()

    @reg.prompt(arguments=[PromptArgument("topic", completion=lambda ctx, partial: ["net"])])
    def brief(ctx, topic: str = "") -> str:
        return topic

    layer = core_layer(reg, policy=_RecordingPolicy(threads))
    done = await layer.complete({"type": "ref/prompt", "name": "brief"},
                                {"name": "topic", "value": "n"},
                                context_arguments={"notes": "y" * (LOOP_CHARS + 1)})
    assert done["values"] == ["net"]
    assert threads.seen and threads.seen[0].startswith("cloudg-light")


@pytest.mark.parametrize("value", [
    7, "text", {"b": [1, 2.5, None, True], "a": "é"}, [{"k": i} for i in range(50)],
    {f"k{i}": [i, "x"] for i in range(LARGE)},
])
def test_audit_hashes_fed_in_pieces_equal_the_one_shot_hash(value: Any) -> None:
    audit = AuditLogMiddleware(stream=io.StringIO(), salt="pepper")
    assert audit.hash_value(value, in_pieces=True) == audit.hash_value(value)


async def test_a_large_call_is_audited_with_the_same_hashes() -> None:
    stream = io.StringIO()
    audit = AuditLogMiddleware(stream=stream, salt="pepper")
    ids = [f"id-{i}" for i in range(LARGE)]
    await _layer(_Threads(), audit).call_tool("count_ids", {"ids": ids})
    (line,) = [json.loads(text) for text in stream.getvalue().splitlines()]
    assert line["outcome"] == "ok"
    assert line["argument_hashes"] == {"ids": audit.hash_value(ids)}
