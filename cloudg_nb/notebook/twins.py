"""Each client method is written once, as a coroutine: ``on_loop`` makes it await on the
client's loop thread from whatever loop its caller runs, and ``blocking(aname)`` makes the
blocking method ``name`` that runs it there (an interrupt cancels it). Both keep the
coroutine's signature, docstring and types (``functools.wraps`` for ``help()`` and IPython;
``ParamSpec`` for mypy and IDEs). Written here: no library makes sync twins of methods that
must run on a loop of their own thread.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

__all__ = ["LoopBound", "blocking", "on_loop"]

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")


class LoopBound(Protocol):
    """An object whose coroutines run on its own loop thread (``Client``)."""

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the loop thread, blocking until it ends."""
        ...

    async def _on_loop(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await ``coro`` on the loop thread from any loop."""
        ...


S = TypeVar("S", bound=LoopBound)


def on_loop(method: Callable[Concatenate[S, P], Coroutine[Any, Any, R]]
            ) -> Callable[Concatenate[S, P], Coroutine[Any, Any, R]]:
    """``method`` awaited on its object's loop thread (directly when already there)."""

    @functools.wraps(method)
    async def run_on_loop(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return await self._on_loop(method(self, *args, **kwargs))

    return run_on_loop


def blocking(method: Callable[Concatenate[S, P], Coroutine[Any, Any, R]]
             ) -> Callable[Concatenate[S, P], R]:
    """The blocking twin of the awaitable ``method`` (``aread`` -> ``read``): runs it on the
    object's loop thread and returns its result."""
    name = method.__name__
    if not name.startswith("a"):
        raise ValueError(f"{name}: an awaitable twin's name starts with 'a' (aread -> read)")

    @functools.wraps(method)
    def run_blocking(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return self._run(method(self, *args, **kwargs))

    run_blocking.__name__ = name[1:]
    run_blocking.__qualname__ = f"{method.__qualname__.rpartition('.')[0]}.{name[1:]}".lstrip(".")
    return run_blocking
