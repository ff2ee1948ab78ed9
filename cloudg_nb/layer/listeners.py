"""Listeners: callbacks with unsubscribe handles, called in order, each failure isolated.

The layer, the workspace and every dataset keep their change listeners in one. Adding and
removing are thread-safe; ``emit`` calls a snapshot, so a listener may unsubscribe while
being called. A failing listener is logged at DEBUG and never stops the others (or undoes
the change that fired them).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["Listeners"]


class Listeners:
    def __init__(self, logger: logging.Logger, what: str = "listener") -> None:
        self._fns: list[Callable[..., Any]] = []
        self._lock = threading.Lock()
        self._logger = logger
        self._what = what

    def __len__(self) -> int:
        return len(self._fns)

    def add(self, fn: Callable[..., Any]) -> Callable[[], None]:
        """Register ``fn``; returns a function that unsubscribes it (safe to call twice)."""
        with self._lock:
            self._fns.append(fn)

        def unsubscribe() -> None:
            with self._lock:
                if fn in self._fns:
                    self._fns.remove(fn)

        return unsubscribe

    def emit(self, *args: Any) -> None:
        """Call every listener with ``args``."""
        with self._lock:
            fns = list(self._fns)
        for fn in fns:
            try:
                fn(*args)
            except Exception:
                self._logger.debug("%s %r failed", self._what, fn, exc_info=True)
