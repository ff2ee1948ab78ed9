"""The suite's lanes: each test is marked with what it starts (``server``, ``kernel``,
``browser``, ``clients``; see ``tests/lanes.py``), and fails if it starts a process of a kind
it is not marked for (``tests/process_guard.py``). The fast lane deselects all four."""

from __future__ import annotations

from collections.abc import Generator

import pytest

from .lanes import kinds_marked, kinds_reached
from .process_guard import GUARD


def pytest_configure(config: pytest.Config) -> None:
    GUARD.install()


def pytest_unconfigure(config: pytest.Config) -> None:
    GUARD.uninstall()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for kind in sorted(kinds_reached(item) - kinds_marked(item)):
            item.add_marker(kind)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    with GUARD.running(item, kinds_marked(item)):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    yield
    found = GUARD.failures(item)
    if found:
        pytest.fail(found, pytrace=False)
