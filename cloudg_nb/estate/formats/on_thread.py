"""A call run on a thread of its own, for work that releases the GIL (Arrow's parsing and
compute kernels) while this thread goes on with its own."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar, cast

__all__ = ["OnThread"]

T = TypeVar("T")


class OnThread(Generic[T]):
    """``fn(*args)`` started on a new thread now; ``result`` waits for it."""

    def __init__(self, fn: Callable[..., T], *args: object, name: str = "cloudg-load") -> None:
        self._value: T | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(fn, args), name=name,
                                        daemon=True)
        self._thread.start()

    def _run(self, fn: Callable[..., T], args: tuple[object, ...]) -> None:
        try:
            self._value = fn(*args)
        except BaseException as exc:  # (raised again by ``result``, on the caller's thread)
            self._error = exc

    def result(self) -> T:
        """What the call returned, once it has; what it raised is raised here."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return cast(T, self._value)  # (set, since no error was)
