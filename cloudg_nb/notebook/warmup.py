"""Opening the magics' client ahead of the first ``%cloudg`` line: at ``%load_ext`` a
background thread imports what showing a result needs (pandas, the renderers), opens the
client (``client.warm_up``: the Jupyter server found through ``connection``, with its session
and tool list), so the first call costs one round trip; then, if no call has started
meanwhile, the widget modules.
``default_client()`` takes the warmed client (or waits for it); a client chosen meanwhile wins
and the warmed one is closed. ``CLOUDG_WARMUP=0`` turns it off.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import os
import threading
from collections.abc import Callable
from typing import Any, Protocol

__all__ = ["Warmable", "abandon", "enabled", "import_ahead", "start", "take"]

logger = logging.getLogger("cloudg.notebook")


class Warmable(Protocol):
    """What is opened ahead (a ``Client``): its tool list is read ahead too."""

    def tools(self) -> Any: ...

    def close(self) -> None: ...


_lock = threading.Lock()
_pending: concurrent.futures.Future[Warmable | None] | None = None


def enabled() -> bool:
    """Whether warming is on (``CLOUDG_WARMUP`` is not 0, off, false or no)."""
    return os.environ.get("CLOUDG_WARMUP", "1").strip().lower() not in ("0", "off", "false",
                                                                        "no")


def start(open_client: Callable[[], Warmable | None], *, chosen: Callable[[], bool]) -> None:
    """Run ``open_client()`` in a background thread unless warming is off, under way, or a
    client is ``chosen()`` already (None from it: nothing to open, e.g. no server found)."""
    global _pending
    if not enabled():
        return
    with _lock:
        if _pending is not None or chosen():
            return
        future: concurrent.futures.Future[Warmable | None] = concurrent.futures.Future()
        _pending = future
    threading.Thread(target=_warm, args=(future, open_client), name="cloudg-nb-warmup",
                     daemon=True).start()


def _import_for_results() -> None:
    """What showing a first result needs: pandas (and its lazy parts), the renderers.
    (A second thread for these gains nothing measurable: both halves mostly compute.)"""
    try:
        import pandas

        from . import columns, render  # noqa: F401  (reading and showing results)

        pandas.DataFrame.from_records([{"warm": "up"}])  # pandas' lazy imports for tables
    except Exception:
        logger.debug("cloudg: importing ahead failed", exc_info=True)


def _import_for_widgets() -> None:
    """What slow calls and large results show: progress bars, the grid, the graph view."""
    try:
        from . import graph_view, grid, progress  # noqa: F401

        with contextlib.suppress(ImportError):
            import ipywidgets  # noqa: F401  (progress bars and notes in a kernel)
    except Exception:
        logger.debug("cloudg: importing ahead failed", exc_info=True)


def import_ahead() -> None:
    """Everything ``%load_ext`` imports ahead, in this thread: for a process that uses the
    client without the magics and wants its first result to cost what a notebook's does."""
    _import_for_results()
    _import_for_widgets()


def _warm(future: concurrent.futures.Future[Warmable | None],
          open_client: Callable[[], Warmable | None]) -> None:
    """The imports a first result needs, then the client with its tool list (None when no
    server is found: the local layer is built on first use, it needs no network), then the
    widget imports, unless a call has taken the client meanwhile: those would only slow that
    call down (it imports them itself if it shows a widget)."""
    _import_for_results()
    try:
        client = open_client()
        if client is not None:
            with contextlib.suppress(Exception):
                client.tools()
        future.set_result(client)
    except BaseException as exc:  # the first call then connects itself, and says why
        logger.debug("cloudg: warming the client failed", exc_info=True)
        future.set_exception(exc)
    with _lock:
        idle = _pending is future
    if idle:
        _import_for_widgets()


def take() -> Warmable | None:
    """The warmed client (waiting for it if still warming), once; None when nothing
    was warmed, no server was found, or warming failed."""
    global _pending
    with _lock:
        future, _pending = _pending, None
    if future is None:
        return None
    try:
        return future.result()
    except Exception:
        return None


def abandon() -> None:
    """A client was chosen: close whatever warming opens."""
    global _pending
    with _lock:
        future, _pending = _pending, None
    if future is not None:
        future.add_done_callback(_close_unused)


def _close_unused(future: concurrent.futures.Future[Warmable | None]) -> None:
    with contextlib.suppress(Exception):
        client = future.result()
        if client is not None:
            client.close()
