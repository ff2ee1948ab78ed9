"""Workspace: the named estate datasets a layer serves, and their change events.

Listeners registered with ``on_change(fn)`` receive ``fn(kind, uri)`` for every change; the
layer registers its ``notify_change`` so changes reach every adapter and notebook.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from .config import CloudGConfig

__all__ = ["Workspace"]

logger = logging.getLogger("cloudg.workspace")

ChangeListener = Callable[[str, "str | None"], Any]


class Workspace:
    """Holds datasets by name and fires change events to listeners."""

    def __init__(
        self,
        config: CloudGConfig | None = None,
        *,
        allowed_roots: list[Any] | None = None,
        output_dir: Any = None,
        max_datasets: int | None = None,
    ) -> None:
        self.config = config or CloudGConfig()
        if allowed_roots is not None:
            self.config.allowed_roots = list(allowed_roots)
        if output_dir is not None:
            self.config.output_dir = output_dir
        if max_datasets is not None:
            self.config.max_datasets = max_datasets
        self.datasets: dict[str, Any] = {}
        self.active: str | None = None
        self._listeners: list[ChangeListener] = []
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        return f"Workspace(datasets={list(self.datasets)}, active={self.active!r})"

    def on_change(self, fn: ChangeListener) -> Callable[[], None]:
        """Call ``fn(kind, uri)`` on every change; returns a function that unsubscribes."""
        with self._lock:
            self._listeners.append(fn)

        def unsubscribe() -> None:
            with self._lock:
                if fn in self._listeners:
                    self._listeners.remove(fn)

        return unsubscribe

    def notify(self, kind: str, uri: str | None = None) -> None:
        """Tell every listener that ``kind`` (and ``uri``) changed; a failing one is skipped."""
        with self._lock:
            listeners = list(self._listeners)
        for fn in listeners:
            try:
                fn(kind, uri)
            except Exception:
                logger.debug("workspace listener %r failed", fn, exc_info=True)

    def status(self) -> dict[str, Any]:
        return {"datasets": sorted(self.datasets), "active": self.active}
