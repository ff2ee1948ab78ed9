"""Long estate functions stop when the call that passed ``progress`` is cancelled: the
callback's ``check_cancelled`` is asked between phases, graph levels, sources and batches,
and its ``CancelledError`` is never swallowed like an ordinary progress failure."""

from __future__ import annotations

import threading
import time
from concurrent.futures import CancelledError

import pytest

from cloudg_nb.estate import (
    Dataset,
    Phases,
    centrality_top,
    checker,
    demo,
    internet_exposure,
    load_path,
    scaled,
    write_inventory_map,
)
from cloudg_nb.estate.formats.inventory_map import read_inventory_map
from cloudg_nb.estate.progress_callbacks import report


class Cancellable:
    """A progress callback with ``check_cancelled``, cancelled by ``cancel()`` (any thread),
    or by itself at the first report that reaches ``cancel_at`` (mid-work, however fast the
    machine or warm the caches)."""

    def __init__(self, cancel_at: float | None = None) -> None:
        self.cancelled = threading.Event()
        self.cancelled_at: float | None = None
        self.reports = 0
        self._cancel_at = cancel_at

    def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.check_cancelled()
        self.reports += 1
        if self._cancel_at is not None and progress >= self._cancel_at:
            self.cancel()

    def check_cancelled(self) -> None:
        if self.cancelled.is_set():
            raise CancelledError("cancelled")

    def cancel(self) -> None:
        self.cancelled_at = time.monotonic()
        self.cancelled.set()


def _stops_after_cancel(fn, progress: Cancellable) -> float:
    """Run ``fn`` in a thread until ``progress`` cancels it mid-work; seconds from the cancel
    to the ``CancelledError``."""
    outcome: list[tuple[BaseException | None, float]] = []

    def run() -> None:
        try:
            fn()
            outcome.append((None, time.monotonic()))
        except BaseException as exc:
            outcome.append((exc, time.monotonic()))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive()
    error, stopped_at = outcome[0]
    assert progress.cancelled_at is not None, "the work never reached the cancel point"
    assert isinstance(error, CancelledError), "the work went on to the end after a cancel"
    return stopped_at - progress.cancelled_at


@pytest.fixture(scope="module")
def big() -> Dataset:
    return scaled(60_000)


def test_report_passes_cancellation_through() -> None:
    progress = Cancellable()
    progress.cancel()
    with pytest.raises(CancelledError):
        report(progress, 1, 2, "step")


def test_report_still_swallows_other_callback_failures() -> None:
    def broken(*_args: object) -> None:
        raise RuntimeError("client went away")

    report(broken, 1, 2, "step")


def test_phases_check_even_when_the_value_does_not_increase() -> None:
    progress = Cancellable()
    ph = Phases(progress)
    ph.step(50, "half")
    progress.cancel()
    with pytest.raises(CancelledError):
        ph.step(10, "not an increase")


def test_a_callback_without_a_check_never_stops_the_work() -> None:
    checker(lambda *a: None)()
    checker(None)()


def test_nested_progress_keeps_the_check() -> None:
    progress = Cancellable()
    nested = Phases(progress).sub(10, 20)
    progress.cancel()
    with pytest.raises(CancelledError):
        checker(nested)()


def test_a_cancelled_graph_build_caches_nothing(big: Dataset) -> None:
    ds = big.copy("fresh")
    progress = Cancellable()
    progress.cancel()
    with pytest.raises(CancelledError):
        ds.graph(progress)
    assert ds.graph() is not None  # built afresh for the next caller


def test_betweenness_stops_within_a_second_of_cancellation(big: Dataset) -> None:
    big.graph()
    progress = Cancellable(cancel_at=20)  # (its sources: 5..90)
    took = _stops_after_cancel(
        lambda: centrality_top(big, metric="betweenness", progress=progress), progress)
    assert took < 1.0


def test_internet_exposure_stops_within_a_second_of_cancellation(big: Dataset) -> None:
    ds = big.copy("exposure")
    progress = Cancellable(cancel_at=20)  # (the graph index is ready; reach is measured next)
    took = _stops_after_cancel(lambda: internet_exposure(ds, progress=progress), progress)
    assert took < 1.0


def test_a_cancelled_load_stops_between_its_steps(tmp_path) -> None:
    write_inventory_map(demo(), tmp_path)
    checks: list[int] = []

    def check() -> None:
        checks.append(1)
        if len(checks) == 2:  # parsed, assets built: stop before the edges
            raise CancelledError("cancelled")

    with pytest.raises(CancelledError):
        read_inventory_map(tmp_path / "inventory-map.json", check=check)
    assert len(checks) == 2
    assert load_path(tmp_path) is not None  # without a check it loads
