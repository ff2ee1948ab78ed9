"""Tests that rely on Ctrl-C pass wherever the suite runs: ``sigint_default`` gives them
Python's KeyboardInterrupt and children that start with SIGINT's default action, even when
the suite itself was started with SIGINT ignored (a background job, ``nohup``)."""

from __future__ import annotations

import _thread
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from tests.sigint import sigint_default

#: What a Python child does on SIGINT: "ignored", or the name of its handler.
CHILDS_HANDLER = ("import signal; handler = signal.getsignal(signal.SIGINT); "
                  "print('ignored' if handler == signal.SIG_IGN else handler.__name__)")


@pytest.fixture
def sigint_ignored() -> Iterator[None]:
    """As under ``nohup`` or ``cmd &``: SIGINT ignored, and so in every child."""
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def _childs_handler() -> str:
    return subprocess.run([sys.executable, "-c", CHILDS_HANDLER], capture_output=True,
                          text=True, check=True, timeout=60).stdout.strip()


def test_where_sigint_is_ignored_a_child_ignores_it_too(sigint_ignored: None) -> None:
    assert _childs_handler() == "ignored"


def test_sigint_default_raises_keyboard_interrupt_where_sigint_was_ignored(
        sigint_ignored: None) -> None:
    with sigint_default(), pytest.raises(KeyboardInterrupt):
        _thread.interrupt_main()
        time.sleep(5)  # interrupted at once


def test_a_child_started_under_sigint_default_gets_pythons_handler(
        sigint_ignored: None) -> None:
    with sigint_default():
        assert _childs_handler() == "default_int_handler"


def test_sigint_default_puts_back_the_handler_it_found(sigint_ignored: None) -> None:
    with sigint_default():
        pass
    assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
