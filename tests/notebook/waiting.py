"""Waiting in notebook tests for something another thread (the client's loop, a widget
update, a server notification) makes true: poll until it holds or the time is up."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_for(predicate: Callable[[], object], timeout: float, poll: float = 0.01) -> bool:
    """Whether ``predicate()`` became true within ``timeout`` seconds (checked once more at
    the end), polling every ``poll`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(poll)
    return bool(predicate())
