"""Blocking methods made from their awaitable twins (``twins.py``): the same signature and
docstring for help() and IDEs, the coroutine run on the object's loop thread whichever way it
is called, and every Client method's twin takes the same arguments."""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

import pytest

from cloudg_nb.notebook.client import Client
from cloudg_nb.notebook.loop import LoopThread
from cloudg_nb.notebook.twins import blocking, on_loop

T = TypeVar("T")


class Counter:
    """A small object with a loop thread of its own, as the Client has."""

    def __init__(self, loop: LoopThread) -> None:
        self.loop = loop
        self.count = 0

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self.loop.run(coro)

    async def _on_loop(self, coro: Coroutine[Any, Any, T]) -> T:
        if asyncio.get_running_loop() is self.loop.loop:
            return await coro
        return await asyncio.wrap_future(self.loop.submit(coro))

    @on_loop
    async def aadd(self, n: int, /, *, times: int = 1) -> tuple[int, str]:
        """Add ``n`` ``times``; the new count and the thread that added."""
        await asyncio.sleep(0)
        self.count += n * times
        return self.count, threading.current_thread().name

    add = blocking(aadd)


@pytest.fixture
def counter() -> Iterator[Counter]:
    loop = LoopThread("twins-test")
    yield Counter(loop)
    loop.stop()


def test_the_blocking_twin_has_the_awaitable_ones_signature_docstring_and_name() -> None:
    assert inspect.signature(Counter.add) == inspect.signature(Counter.aadd)
    assert Counter.add.__doc__ == Counter.aadd.__doc__ and "times" in (Counter.add.__doc__ or "")
    assert (Counter.add.__name__, Counter.add.__qualname__) == ("add", "Counter.add")
    assert not inspect.iscoroutinefunction(Counter.add)
    assert inspect.iscoroutinefunction(Counter.aadd)


def test_the_blocking_twin_runs_the_coroutine_on_the_objects_loop_thread(
        counter: Counter) -> None:
    assert counter.add(2, times=3) == (6, "twins-test")


def test_the_awaitable_twin_runs_on_the_objects_loop_from_another_loop(
        counter: Counter) -> None:
    async def elsewhere() -> tuple[int, str]:
        return await counter.aadd(5)

    assert asyncio.run(elsewhere()) == (5, "twins-test")


def test_a_twin_is_made_only_of_an_a_prefixed_coroutine() -> None:
    async def read(self: Counter) -> None: ...

    with pytest.raises(ValueError, match="starts with 'a'"):
        blocking(read)


#: Client methods whose blocking twin is made from the awaitable one (README "Python API").
MADE_TWINS = ["request", "read", "prompt", "complete", "tools", "datasets", "status",
              "activity", "approvals", "approve", "deny", "assistants", "revoke_assistant"]
#: Written apart (progress displays and widgets are made on the calling thread).
WRITTEN_TWINS = ["call", "frame", "live", "activity_feed", "approval_panel", "subscribe",
                 "close"]


@pytest.mark.parametrize("name", MADE_TWINS + WRITTEN_TWINS)
def test_every_client_method_and_its_awaitable_twin_take_the_same_arguments(name: str) -> None:
    sync, awaitable = getattr(Client, name), getattr(Client, f"a{name}")
    assert inspect.iscoroutinefunction(awaitable) and not inspect.iscoroutinefunction(sync)
    assert inspect.signature(sync).parameters == inspect.signature(awaitable).parameters
    assert sync.__doc__, f"Client.{name} has no docstring"


@pytest.mark.parametrize("name", MADE_TWINS)
def test_a_made_twin_returns_what_its_awaitable_one_does(name: str) -> None:
    sync, awaitable = getattr(Client, name), getattr(Client, f"a{name}")
    assert inspect.signature(sync) == inspect.signature(awaitable)
    assert sync.__doc__ == awaitable.__doc__
