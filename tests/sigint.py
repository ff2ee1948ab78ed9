"""SIGINT as under a terminal, for tests that rely on Ctrl-C.

The suite may run where SIGINT is ignored (a background job, ``nohup``): Python then installs
no KeyboardInterrupt handler (``_thread.interrupt_main`` does nothing) and every process it
starts inherits the ignored signal. ``sigint_default()`` installs Python's default handler for
its block (so processes started in it begin with SIGINT's default action, as handlers do not
survive ``exec``) and puts back the one it found. The conftest's ``sigint_default`` fixture
wraps a test in it.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator


@contextlib.contextmanager
def sigint_default() -> Iterator[None]:
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
