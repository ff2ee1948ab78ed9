"""Progress displays for client calls: a widget bar in a Jupyter kernel, a tqdm bar elsewhere.

``progress_for(label)`` is called on the calling (kernel main) thread; its
``update(progress, total, message)`` may be called from any thread and is coalesced to at most
``MAX_RATE`` renders a second (a timer flushes the latest state, so none is lost); nothing is
shown before the first update or ``QUIET_SECONDS``; ``finish(ok=, summary=)`` shows the final
state and collapses the display to one summary line. ``CLOUDG_PROGRESS=widget|text|off``
overrides the choice. A blocking call wraps it in ``DeferredProgress``: the display is made
only once it is due, so a quick call makes none (no widget, nothing imported for one).
"""

from __future__ import annotations

import abc
import html
import os
import sys
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any, Protocol, TextIO

__all__ = ["MAX_RATE", "QUIET_SECONDS", "DeferredProgress", "ProgressDisplay", "WidgetProgress",
           "TextProgress", "NullProgress", "kernel_shell", "progress_for", "progress_mode"]

#: Renders per second at most (updates in between are merged into the next render).
MAX_RATE = 20
#: A call that ends this soon without reporting progress shows nothing at all.
QUIET_SECONDS = 0.5
#: How often a shown display refreshes its elapsed time while no progress arrives.
TICK_SECONDS = 1.0
#: Reports kept for a display not made yet (beyond it, the newest replaces the last kept).
_EARLY_MAX = 64


class ProgressDisplay(Protocol):
    def update(self, progress: float, total: float | None, message: str | None) -> None: ...

    def finish(self, *, ok: bool, summary: str) -> None: ...


def progress_mode() -> str:
    """``widget`` inside an IPython kernel with ipywidgets, else ``text``; the
    ``CLOUDG_PROGRESS`` variable (widget, text or off) overrides."""
    forced = os.environ.get("CLOUDG_PROGRESS", "").strip().lower()
    if forced in ("widget", "text", "off"):
        return forced
    if kernel_shell() is not None:
        try:
            import ipywidgets  # noqa: F401
        except ImportError:
            return "text"
        return "widget"
    return "text"


def kernel_shell() -> Any:
    """The running IPython shell when it belongs to a kernel (not terminal IPython)."""
    if "IPython" not in sys.modules:  # scripts never import IPython just to find out
        return None
    from IPython import get_ipython

    shell = get_ipython()
    return shell if shell is not None and getattr(shell, "kernel", None) is not None else None


def progress_for(label: str) -> ProgressDisplay:
    """A progress display for one call named ``label`` (see the module docstring)."""
    mode = progress_mode()
    if mode == "widget":
        return WidgetProgress(label)
    if mode == "text":
        return TextProgress(label)
    return NullProgress()


class DeferredProgress:
    """A display made only when it is due: at the first report, or once the call has run
    ``QUIET_SECONDS`` without one; a quick call makes none. ``poll`` makes it, from the
    thread that waits for the call (the one that made it: in a kernel, its output lands in
    the calling cell); ``wake`` is set by each report so that thread polls at once. Reports
    that came first are handed to the display in order; a call that reported and ended
    before any poll gets its display (and summary) at ``finish``."""

    def __init__(self, label: str, make: Callable[[str], ProgressDisplay | None]) -> None:
        self.label = label
        self.started = time.monotonic()
        self.wake = threading.Event()
        self.display: ProgressDisplay | None = None
        self._make = make
        self._made = False
        self._lock = threading.Lock()
        self._early: list[tuple[float, float | None, str | None]] = []

    def update(self, progress: float, total: float | None, message: str | None) -> None:
        with self._lock:
            if not self._made:
                if len(self._early) < _EARLY_MAX:
                    self._early.append((progress, total, message))
                else:
                    self._early[-1] = (progress, total, message)
                self.wake.set()
                return
            display = self.display
        if display is not None:
            display.update(progress, total, message)

    def poll(self) -> float | None:
        """Make the display if it is due; else the seconds until it is (None once made)."""
        if self._made:
            return None
        with self._lock:
            reported = bool(self._early)
        left = QUIET_SECONDS - (time.monotonic() - self.started)
        if not reported and left > 0:
            return left
        self._make_now()
        return None

    def finish(self, *, ok: bool, summary: str) -> None:
        with self._lock:
            reported = bool(self._early)
        if not self._made and reported:
            self._make_now()
        if self.display is not None:
            self.display.finish(ok=ok, summary=summary)

    def _make_now(self) -> None:
        display = self._make(self.label)
        if isinstance(display, _Coalesced):
            display.started = self.started  # (its clock and quiet period: the call's)
        with self._lock:  # the early reports first, then whatever arrives later
            for state in self._early:
                if display is not None:
                    display.update(*state)
            self._early = []
            self.display = display
            self._made = True


def percent(progress: float, total: float | None) -> int | None:
    """``progress`` of ``total`` as a whole percent in 0..100; None without a total."""
    if not total or total <= 0:
        return None
    return max(0, min(100, round(100.0 * progress / total)))


def elapsed_text(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes} min {secs:02d} s"


class NullProgress:
    """Shows nothing (``CLOUDG_PROGRESS=off``)."""

    def update(self, progress: float, total: float | None, message: str | None) -> None:
        return None

    def finish(self, *, ok: bool, summary: str) -> None:
        return None


class _Coalesced(abc.ABC):
    """Keeps the latest reported state and renders it from one daemon thread: at most
    ``MAX_RATE`` times a second, the first render on the first update or after
    ``QUIET_SECONDS``, then a tick each ``TICK_SECONDS`` for the elapsed time. Subclasses
    implement ``_show``, ``_render`` (on that thread) and ``_final`` (on the finishing one)."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.started = time.monotonic()
        self.progress = 0.0
        self.total: float | None = None
        self.message: str | None = None
        self.updates = 0
        self.renders = 0
        self.shown = False
        self._pending = False
        self._done = False
        self._finished = False
        self._last_render = 0.0
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, args=(weakref.ref(self), self._cond),
                                        name="cloudg-progress", daemon=True)
        self._thread.start()

    # -- any thread ----------------------------------------------------------------------------

    def update(self, progress: float, total: float | None, message: str | None) -> None:
        with self._cond:
            if self._done:
                return
            self.progress = float(progress)
            self.total = float(total) if total is not None else None
            if message is not None:
                self.message = str(message)
            self.updates += 1
            self._pending = True
            self._cond.notify()

    def finish(self, *, ok: bool, summary: str) -> None:
        """Stop the render thread, then show the final state and the summary line."""
        with self._cond:
            if self._finished:
                return
            self._finished = self._done = True
            self._cond.notify()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=5)
        if ok and self.total:
            self.progress = self.total
        quiet = not self.shown and not self.updates
        self._final(ok=ok, summary=summary, quiet=quiet)

    # -- the render thread ---------------------------------------------------------------------

    @staticmethod
    def _run(ref: weakref.ReferenceType[_Coalesced], cond: threading.Condition) -> None:
        """The render loop. It holds the display only weakly between rounds, so a display
        dropped without ``finish`` (its call raised) stops rendering instead of ticking on."""
        interval = 1.0 / MAX_RATE
        with cond:
            while True:
                self = ref()
                if self is None or self._done:
                    return
                now = time.monotonic()
                due_first = not self.shown and (self._pending or now - self.started
                                                >= QUIET_SECONDS)
                due_update = self._pending and now - self._last_render >= interval
                due_tick = self.shown and now - self._last_render >= TICK_SECONDS
                if due_first or due_update or due_tick:
                    self._pending = False
                    self._last_render = now
                    state = (self.progress, self.total, self.message)
                    first = not self.shown
                    self.shown = True
                    cond.release()
                    try:
                        self._render_safely(state, first)
                    finally:
                        cond.acquire()
                    del self
                    continue
                if not self.shown:
                    wait = self.started + QUIET_SECONDS - now
                elif self._pending:
                    wait = self._last_render + interval - now
                else:
                    wait = self._last_render + TICK_SECONDS - now
                del self
                cond.wait(max(wait, 0.001))

    def _render_safely(self, state: tuple[float, float | None, str | None],
                       first: bool) -> None:
        try:
            if first:
                self._show()
            self._render(*state)
            self.renders += 1
        except Exception:  # a display that cannot render must never break the call
            import logging

            logging.getLogger("cloudg.notebook").debug("progress render failed",
                                                       exc_info=True)

    @abc.abstractmethod
    def _show(self) -> None:
        """Make the display visible (first update or after ``QUIET_SECONDS``)."""

    @abc.abstractmethod
    def _render(self, progress: float, total: float | None, message: str | None) -> None:
        """Draw one coalesced state."""

    @abc.abstractmethod
    def _final(self, *, ok: bool, summary: str, quiet: bool) -> None:
        """Draw the final state, then collapse to the one-line summary."""

    def elapsed(self) -> float:
        return time.monotonic() - self.started


class WidgetProgress(_Coalesced):
    """``HBox([IntProgress 0..100, HTML label])`` displayed (hidden) on the creating thread;
    renders only assign trait values. Done: the bar shows its final value, then hides and
    the label becomes the one-line summary (also the output's text/plain, for nbconvert)."""

    def __init__(self, label: str) -> None:
        import ipywidgets as widgets
        from IPython.display import display

        self.bar = widgets.IntProgress(value=0, min=0, max=100, description="",
                                       layout=widgets.Layout(width="16em"))
        self.text = widgets.HTML(value="")
        self.box = widgets.HBox([self.bar, self.text], layout=widgets.Layout(display="none"))
        bundle = self.box._repr_mimebundle_()
        bundle = bundle[0] if isinstance(bundle, tuple) else bundle
        self._widget_view = {k: v for k, v in bundle.items() if k != "text/plain"}
        self._handle = display({**self._widget_view, "text/plain": ""}, raw=True,
                               display_id=True)
        super().__init__(label)

    def _line(self, progress: float, total: float | None, message: str | None) -> str:
        pct = percent(progress, total)
        parts = [f"<b>{html.escape(self.label)}</b>"]
        parts.append(f"{pct}%" if pct is not None else f"{progress:g}")
        if message:
            parts.append(html.escape(message))
        parts.append(elapsed_text(self.elapsed()))
        return " · ".join(parts)

    def _show(self) -> None:
        self.box.layout.display = "flex"

    def _render(self, progress: float, total: float | None, message: str | None) -> None:
        pct = percent(progress, total)
        with self.box.hold_sync():
            if pct is not None:
                self.bar.value = pct
            self.text.value = self._line(progress, total, message)

    def _final(self, *, ok: bool, summary: str, quiet: bool) -> None:
        if quiet:
            for w in (self.box, self.bar, self.text):
                w.close()
            if self._handle is not None:
                self._handle.update({"text/plain": ""}, raw=True)
            return
        mark = "✓" if ok else "✗"
        final = 100 if ok else percent(self.progress, self.total)
        if final is not None:
            self.bar.value = final
        self.bar.bar_style = "success" if ok else "danger"
        with self.box.hold_sync():
            self.text.value = f"{mark} {html.escape(summary)}"
            self.bar.layout.display = "none"
            self.box.layout.display = "flex"
        if self._handle is not None:
            self._handle.update({**self._widget_view, "text/plain": f"{mark} {summary}"},
                                raw=True)


class TextProgress(_Coalesced):
    """A tqdm bar (percent, message, elapsed) on stderr; done: the bar is cleared and one
    summary line printed in its place."""

    def __init__(self, label: str, file: TextIO | None = None) -> None:
        self.file = file
        self.bar: Any = None
        super().__init__(label)

    def _out(self) -> TextIO:
        return self.file if self.file is not None else sys.stderr

    def _show(self) -> None:
        from tqdm.std import tqdm  # text on purpose: tqdm.auto would pick widgets in a kernel

        self.bar = tqdm(total=100, desc=self.label, file=self._out(), leave=False,
                        mininterval=0, dynamic_ncols=True,
                        bar_format="{desc}: {percentage:3.0f}%|{bar}| {postfix} [{elapsed}]")

    def _render(self, progress: float, total: float | None, message: str | None) -> None:
        pct = percent(progress, total)
        if pct is not None:
            self.bar.n = pct
        self.bar.set_postfix_str(message or "", refresh=False)
        self.bar.refresh()

    def _final(self, *, ok: bool, summary: str, quiet: bool) -> None:
        if self.bar is not None:
            final = 100 if ok else percent(self.progress, self.total)
            if final is not None:
                self.bar.n = final
            self.bar.refresh()
            self.bar.close()
        if quiet:
            return
        out = self._out()
        out.write(f"{'✓' if ok else '✗'} {summary}\n")
        out.flush()
