"""The suite's lanes: a test is marked with what it starts (``server``, ``kernel``, ``browser``,
``clients``: its own marks and those its fixtures declare, ``tests/lanes.py``), and fails if it
starts a process of a kind it is not marked for (``tests/process_guard.py``). The fast lane
(``-m "not server and not kernel and not browser and not clients"``) deselects all four.

``sigint_default`` is for tests that rely on Ctrl-C (``tests/sigint.py``): the suite may run
where SIGINT is ignored (a background job, ``nohup``).
"""

from __future__ import annotations

from collections.abc import Generator, Iterator

import pytest

from .lanes import kinds_marked, kinds_of_fixtures
from .process_guard import GUARD
from .sigint import sigint_default


def pytest_configure(config: pytest.Config) -> None:
    GUARD.install()


def pytest_unconfigure(config: pytest.Config) -> None:
    GUARD.uninstall()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for kind in sorted(kinds_of_fixtures(item) - kinds_marked(item)):
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


@pytest.fixture(name="sigint_default")
def sigint_default_fixture() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt in the test and the processes it starts begin with
    SIGINT's default action, wherever the suite runs (``tests/sigint.py``)."""
    with sigint_default():
        yield
