"""The client's background loop: blocking runs, cancellation on interrupt, restarts."""

from __future__ import annotations

import _thread
import asyncio
import os
import threading
import time

import pytest

from cloudg_nb.notebook import loop as loop_module
from cloudg_nb.notebook.loop import SETTLE_SECONDS, LoopThread, shared_loop


@pytest.fixture
def loop_thread() -> LoopThread:
    thread = LoopThread(name="test-loop")
    yield thread
    thread.stop()


def test_run_returns_the_coroutines_result_from_the_loop_thread(loop_thread: LoopThread) -> None:
    async def where() -> str:
        await asyncio.sleep(0)
        return threading.current_thread().name

    assert loop_thread.run(where()) == "test-loop"


def test_run_raises_the_coroutines_exception(loop_thread: LoopThread) -> None:
    async def fail() -> None:
        raise ValueError("broken")

    with pytest.raises(ValueError, match="broken"):
        loop_thread.run(fail())


@pytest.mark.usefixtures("sigint_default")
def test_interrupt_cancels_the_coroutine_and_reraises(loop_thread: LoopThread) -> None:
    cancelled = threading.Event()

    async def forever() -> None:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    threading.Timer(0.3, _thread.interrupt_main).start()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        loop_thread.run(forever())
    assert time.monotonic() - started < 0.3 + SETTLE_SECONDS
    assert cancelled.is_set()
    assert loop_thread.run(asyncio.sleep(0, result="next")) == "next"


@pytest.mark.usefixtures("sigint_default")
def test_interrupt_waits_for_the_cancelled_coroutine_to_unwind(loop_thread: LoopThread) -> None:
    unwound = threading.Event()

    async def slow_unwind() -> None:
        try:
            await asyncio.sleep(60)
        finally:
            await asyncio.sleep(0.2)  # e.g. sending notifications/cancelled
            unwound.set()

    threading.Timer(0.2, _thread.interrupt_main).start()
    with pytest.raises(KeyboardInterrupt):
        loop_thread.run(slow_unwind())
    assert unwound.is_set()


def test_timeout_cancels_and_raises_timeout_error(loop_thread: LoopThread) -> None:
    with pytest.raises(TimeoutError):
        loop_thread.run(asyncio.sleep(60), timeout=0.2)


def test_run_on_the_loop_thread_itself_is_refused(loop_thread: LoopThread) -> None:
    async def nested() -> None:
        loop_thread.run(asyncio.sleep(0))

    with pytest.raises(RuntimeError, match="awaitable"):
        loop_thread.run(nested())


def test_shared_loop_is_one_instance_restarted_when_dead(
        monkeypatch: pytest.MonkeyPatch) -> None:
    own = LoopThread(name="test-shared")
    monkeypatch.setattr(loop_module, "_shared", own)  # the real shared loop stays untouched
    monkeypatch.setattr(loop_module, "_shared_pid", os.getpid())
    assert shared_loop() is own and shared_loop() is own
    own.stop()
    assert not own.alive
    second = shared_loop()
    try:
        assert second is not own and second.alive
        assert second.run(asyncio.sleep(0, result=1)) == 1
    finally:
        second.stop()
