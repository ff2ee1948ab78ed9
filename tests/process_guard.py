"""Refuse the processes a test is not marked for, so each lane holds what its markers say.

While a test runs (setup with its module fixtures, call, teardown), ``subprocess`` refuses to
start a process whose kind (``tests/lanes.py``) the test is not marked for: the start raises
``UnmarkedProcessError`` naming the marker. A watcher thread also reads, through ``/proc``,
the processes that the test's own children start (a bench script's server, the lab behind
``make demo``, a kernel a Jupyter server starts), and ``failures(item)`` lists those.
Written here: no pytest plugin checks markers against the processes a test starts.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from .lanes import KINDS, kinds_of_command

PROC = Path("/proc")
TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
#: How often the watcher looks at the test's process tree (seconds).
PERIOD = 0.25


class UnmarkedProcessError(RuntimeError):
    """A test started a process of a kind it is not marked for."""


def advice(nodeid: str, missing: set[str], argv: Sequence[str]) -> str:
    marks = ", ".join(f"pytest.mark.{kind}" for kind in sorted(missing))
    command = shlex.join(str(arg) for arg in argv)[:300]
    return (f"{nodeid} started a {'/'.join(sorted(missing))} process ({command}) but is not "
            f"marked so: add {marks} to the test or module, or name the helper that starts it "
            f"in STARTERS of tests/lanes.py")


class Guard:
    """The test running now, the kinds it may start, and what it started beyond them."""

    def __init__(self) -> None:
        self.item: pytest.Item | None = None
        self.allowed: set[str] = set(KINDS)
        self.since = 0.0  #: when the test began, in seconds since boot
        self.found: dict[str, str] = {}  #: nodeid -> the first unmarked descendant
        self.wakeup = threading.Event()
        self.original: Any = None

    # --- direct children ------------------------------------------------------------------

    def install(self) -> None:
        if self.original is not None:
            return
        self.original = original = subprocess.Popen._execute_child  # type: ignore[attr-defined]
        guard = self

        def execute_child(popen: subprocess.Popen[Any], args: Any, executable: Any,
                          *rest: Any, **kwargs: Any) -> Any:
            shell = kwargs.get("shell", rest[7] if len(rest) > 7 else False)
            guard.check_start(args, executable, shell=bool(shell))
            return original(popen, args, executable, *rest, **kwargs)

        subprocess.Popen._execute_child = execute_child  # type: ignore[attr-defined]
        if PROC.joinpath("self", "task").is_dir():
            threading.Thread(target=self.watch, name="process-guard", daemon=True).start()

    def uninstall(self) -> None:
        if self.original is not None:
            subprocess.Popen._execute_child = self.original  # type: ignore[attr-defined]
            self.original = None
        self.item = None

    def check_start(self, args: Any, executable: Any, shell: bool) -> None:
        item = self.item
        if item is None:
            return
        if isinstance(args, str | bytes | os.PathLike):
            args = [args]
        argv = [os.fsdecode(arg) for arg in args]
        if shell:
            argv = shlex.split(argv[0]) if argv else []
        elif executable is not None:
            argv = [os.fsdecode(executable), *argv[1:]]
        missing = kinds_of_command(argv) - self.allowed
        if missing:
            raise UnmarkedProcessError(advice(item.nodeid, missing, argv))

    # --- the test -------------------------------------------------------------------------

    @contextlib.contextmanager
    def running(self, item: pytest.Item, allowed: set[str]) -> Iterator[None]:
        self.item, self.allowed, self.since = item, allowed, _uptime()
        self.wakeup.set()
        try:
            yield
        finally:
            self.item, self.allowed = None, set(KINDS)

    def failures(self, item: pytest.Item) -> str | None:
        if self.item is item and self.original is not None:
            self.look()
        return self.found.pop(item.nodeid, None)

    # --- grandchildren --------------------------------------------------------------------

    def watch(self) -> None:
        while self.original is not None:
            if self.item is None or self.allowed >= set(KINDS):
                self.wakeup.wait(1.0)
                self.wakeup.clear()
                continue
            with contextlib.suppress(OSError, ValueError):
                self.look()
            self.wakeup.wait(PERIOD)

    def look(self) -> None:
        item, allowed, since = self.item, self.allowed, self.since
        if item is None or item.nodeid in self.found:
            return
        for pid in _descendants(os.getpid()):
            started, argv = _process(pid)
            if started is None or started + 1 / TICKS < since:
                continue  # gone, or started by an earlier test (its server still stopping)
            missing = kinds_of_command(argv) - allowed
            if missing:
                self.found[item.nodeid] = advice(item.nodeid, missing, argv)
                return


def _uptime() -> float:
    try:
        return float(PROC.joinpath("uptime").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0.0


def _descendants(root: int) -> Iterator[int]:
    pending = [root]
    while pending:
        pid = pending.pop()
        try:
            tasks = list(PROC.joinpath(str(pid), "task").iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                children = [int(word) for word in (task / "children").read_text().split()]
            except (OSError, ValueError):
                continue
            pending.extend(children)
            yield from children


def _process(pid: int) -> tuple[float | None, list[str]]:
    """(start, in seconds since boot; argv) of a live process, (None, []) when gone."""
    try:
        stat = PROC.joinpath(str(pid), "stat").read_text()
        raw = PROC.joinpath(str(pid), "cmdline").read_bytes()
    except OSError:
        return None, []
    fields = stat.rpartition(")")[2].split()
    argv = [os.fsdecode(arg) for arg in raw.split(b"\0") if arg]
    return int(fields[19]) / TICKS, argv


GUARD = Guard()
