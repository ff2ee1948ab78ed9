"""Hold each test to its lane markers: a process of a kind the test is not marked for fails it.

While a test runs (setup, call, teardown), starting such a process through ``subprocess``
(``asyncio``'s and anyio's subprocesses go through it too) raises ``UnmarkedProcessError``
before anything runs. A watcher thread reads the test's process tree in ``/proc`` every
``PERIOD`` seconds for what its children start (a kernel a Jupyter server starts, the server a
benchmark script starts); ``failures(item)`` names the first such process, and the suite's
conftest fails the test with it. Written here: no pytest plugin checks marks against processes.
"""

from __future__ import annotations

import contextlib
import inspect
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
TICKS = os.sysconf("SC_CLK_TCK")
#: How often the watcher reads the test's process tree (seconds).
PERIOD = 0.2


class UnmarkedProcessError(RuntimeError):
    """A test started a process of a kind it is not marked for."""


def advice(nodeid: str, missing: set[str], argv: Sequence[str]) -> str:
    marks = " and ".join(f"@pytest.mark.{kind}" for kind in sorted(missing))
    return (f"{nodeid} started a {'/'.join(sorted(missing))} process "
            f"({shlex.join(argv)[:300]}) but is not marked so: add {marks} to the test or its "
            f"module, or declare the fixture that starts it with tests.lanes.starts")


def command_of(args: Any, shell: bool) -> list[str]:
    """The command line ``Popen(args, shell=shell)`` runs (a shell's command split in words)."""
    if isinstance(args, str | bytes | os.PathLike):
        args = [args]
    argv = [os.fsdecode(arg) for arg in args]
    if shell and argv:
        with contextlib.suppress(ValueError):
            return shlex.split(argv[0])
    return argv


class Guard:
    """The test running now, the kinds it may start, and the first process beyond them."""

    def __init__(self) -> None:
        self.nodeid: str | None = None
        self.allowed: set[str] = set(KINDS)
        self.since = 0.0  #: when the test began, in clock ticks since boot
        self.found: dict[str, str] = {}  #: nodeid -> what its descendants started unmarked
        self.wakeup = threading.Event()
        self.original: Any = None

    def install(self) -> None:
        """Wrap ``subprocess.Popen._execute_child`` (where every ``Popen`` starts its child,
        its arguments already a list) and start the watcher."""
        if self.original is not None:
            return
        self.original = original = subprocess.Popen._execute_child  # type: ignore[attr-defined]
        guard, signature = self, inspect.signature(original)

        def execute_child(popen: subprocess.Popen[Any], args: Any, executable: Any,
                          *rest: Any, **kwargs: Any) -> Any:
            shell = bool(signature.bind(popen, args, executable, *rest, **kwargs)
                         .arguments.get("shell"))
            argv = command_of(args, shell)
            if executable is not None and not shell and argv:
                argv[0] = os.fsdecode(executable)
            guard.check(argv)
            return original(popen, args, executable, *rest, **kwargs)

        subprocess.Popen._execute_child = execute_child  # type: ignore[attr-defined]
        if PROC.joinpath("self", "task").is_dir():
            threading.Thread(target=self.watch, name="process-guard", daemon=True).start()

    def uninstall(self) -> None:
        if self.original is not None:
            subprocess.Popen._execute_child = self.original  # type: ignore[attr-defined]
            self.original = None
            self.wakeup.set()

    def check(self, argv: Sequence[str]) -> None:
        nodeid, missing = self.nodeid, kinds_of_command(argv) - self.allowed
        if nodeid is not None and missing:
            raise UnmarkedProcessError(advice(nodeid, missing, argv))

    @contextlib.contextmanager
    def running(self, item: pytest.Item, allowed: set[str]) -> Iterator[None]:
        self.nodeid, self.allowed, self.since = item.nodeid, allowed, _ticks_since_boot()
        self.wakeup.set()
        try:
            yield
        finally:
            self.nodeid, self.allowed = None, set(KINDS)

    def failures(self, item: pytest.Item) -> str | None:
        """What the test's descendants started unmarked (looking once more now)."""
        if self.nodeid == item.nodeid:
            self.look()
        return self.found.pop(item.nodeid, None)

    def watch(self) -> None:
        while self.original is not None:
            if self.nodeid is None or self.allowed >= set(KINDS):
                self.wakeup.wait()  # until a test that may not start everything begins
            else:
                self.look()
                self.wakeup.wait(PERIOD)
            self.wakeup.clear()

    def look(self) -> None:
        nodeid, allowed, since = self.nodeid, self.allowed, self.since
        if nodeid is None or nodeid in self.found:
            return
        for started, argv in _descendants(os.getpid()):
            missing = kinds_of_command(argv) - allowed
            if started >= since and missing:  # older ones: an earlier test's, still stopping
                self.found[nodeid] = advice(nodeid, missing, argv)
                return


def _ticks_since_boot() -> float:
    with contextlib.suppress(OSError, ValueError, IndexError):
        return float(PROC.joinpath("uptime").read_text().split()[0]) * TICKS - 1
    return 0.0


def _descendants(root: int) -> Iterator[tuple[int, list[str]]]:
    """(start in clock ticks since boot, argv) of each live descendant of ``root``."""
    pending = [root]
    while pending:
        pid = pending.pop()
        with contextlib.suppress(OSError, ValueError):
            for task in PROC.joinpath(str(pid), "task").iterdir():
                pending.extend(int(word) for word in (task / "children").read_text().split())
            if pid != root:
                stat = PROC.joinpath(str(pid), "stat").read_text()
                raw = PROC.joinpath(str(pid), "cmdline").read_bytes()
                argv = [os.fsdecode(arg) for arg in raw.split(b"\0") if arg]
                yield int(stat.rpartition(")")[2].split()[19]), argv


GUARD = Guard()
