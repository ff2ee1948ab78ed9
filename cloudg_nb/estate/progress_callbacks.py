"""Progress reporting for long estate operations.

Long functions take ``progress=fn`` with ``fn(progress, total, message)`` (the catalog passes
``ctx.progress_sync``). ``Phases`` turns a function's steps into one strictly
increasing sequence on a fixed scale, so nested work (e.g. the first build of an index,
which reports 0/1 then 1/1 on its own) can be folded into the caller's range.
Cancellation rides on the callback: one that has ``check_cancelled()`` (the catalog's) is
asked between phases and levels (``checker``), and its ``CancelledError`` is never swallowed.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import CancelledError
from typing import Any

__all__ = ["ProgressFn", "CancelCheck", "Phases", "report", "checker", "rescaled"]

ProgressFn = Callable[[float, "float | None", "str | None"], Any]
#: Raises (a ``concurrent.futures.CancelledError``) when the work should stop.
CancelCheck = Callable[[], None]


def _never() -> None:
    return None


def checker(progress: ProgressFn | None) -> CancelCheck:
    """The cancellation check ``progress`` carries (``check_cancelled``), else a no-op."""
    check = getattr(progress, "check_cancelled", None)
    return check if callable(check) else _never


def report(progress: ProgressFn | None, value: float, total: float | None, message: str) -> None:
    """Call ``progress`` if given; a failing callback never breaks the computation, except
    by cancelling it (``CancelledError``, which propagates)."""
    if progress is None:
        return
    try:
        progress(value, total, message)
    except CancelledError:
        raise
    except Exception:  # progress is advisory
        pass


class _Rescaled:
    """``progress`` seen through ``map(p, t) -> (p', t')``, with the original callback's
    cancellation check."""

    __slots__ = ("check_cancelled", "map", "progress")

    def __init__(self, progress: ProgressFn,
                 map: Callable[[float, float | None], tuple[float, float | None]],
                 check: CancelCheck) -> None:
        self.progress = progress
        self.map = map
        self.check_cancelled = check

    def __call__(self, p: float, t: float | None = None, message: str | None = None) -> None:
        value, total = self.map(p, t)
        self.progress(value, total, message)


def rescaled(progress: ProgressFn | None, start: float, end: float,
             total: float | None = 1) -> ProgressFn | None:
    """A callback mapping a nested ``(p, t)`` onto ``[start, end]`` of ``total``."""
    if progress is None:
        return None

    def to_range(p: float, t: float | None) -> tuple[float, float | None]:
        frac = (p / t) if t else 0.0
        return start + (end - start) * max(0.0, min(1.0, frac)), total

    return _Rescaled(lambda v, tt, m: report(progress, v, tt, m or ""), to_range,
                     checker(progress))


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
        #: Raises when the work was cancelled; every ``step`` asks it first.
        self.check = checker(progress)

    def step(self, value: float, message: str) -> None:
        self.check()
        value = min(float(value), self.total)
        if self.last is not None and value <= self.last:
            return
        self.last = value
        report(self.progress, value, self.total, message)

    def sub(self, start: float, end: float) -> ProgressFn | None:
        if self.progress is None:
            return None

        def to_range(p: float, t: float | None) -> tuple[float, float | None]:
            frac = (p / t) if t else 0.0
            return start + (end - start) * max(0.0, min(1.0, frac)), None

        return _Rescaled(lambda v, _t, m: self.step(v, m or ""), to_range, self.check)

    def done(self, message: str = "done") -> None:
        self.step(self.total, message)
