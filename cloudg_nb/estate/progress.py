"""Progress reporting for long estate operations.

Long functions take ``progress=fn`` with ``fn(progress, total, message)`` (the catalog passes
``ctx.report_progress_sync``). ``Phases`` turns a function's steps into one strictly
increasing sequence on a fixed scale, so nested work (e.g. the first build of an index,
which reports 0/1 then 1/1 on its own) can be folded into the caller's range.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

__all__ = ["ProgressFn", "Phases", "report"]

ProgressFn = Callable[[float, "float | None", "str | None"], Any]


def report(progress: ProgressFn | None, value: float, total: float | None, message: str) -> None:
    """Call ``progress`` if given; a failing callback never breaks the computation."""
    if progress is None:
        return
    with contextlib.suppress(Exception):  # progress is advisory
        progress(value, total, message)


class Phases:
    """A strictly increasing progress sequence from 0 to ``total``.

    ``step(value, message)`` reports ``value`` if it is above the last one; ``sub(start, end)``
    returns a callback mapping a nested ``(p, t, msg)`` into ``[start, end]``; ``done()``
    reports ``total``.
    """

    def __init__(self, progress: ProgressFn | None, total: float = 100.0) -> None:
        self.progress = progress
        self.total = float(total)
        self.last: float | None = None

    def step(self, value: float, message: str) -> None:
        value = min(float(value), self.total)
        if self.last is not None and value <= self.last:
            return
        self.last = value
        report(self.progress, value, self.total, message)

    def sub(self, start: float, end: float) -> ProgressFn | None:
        if self.progress is None:
            return None

        def nested(p: float, t: float | None, message: str | None = None) -> None:
            frac = (p / t) if t else 0.0
            self.step(start + (end - start) * max(0.0, min(1.0, frac)), message or "")

        return nested

    def done(self, message: str = "done") -> None:
        self.step(self.total, message)
