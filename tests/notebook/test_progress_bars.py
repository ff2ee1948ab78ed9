"""Progress displays: coalesced renders from any thread, the final state always shown and
collapsed to a summary line, silence for quick calls, and the text fallback outside a kernel.
(The widget's comm messages in a real kernel are asserted by the kernel acceptance tests.)"""

from __future__ import annotations

import gc
import io
import threading
import time
from collections.abc import Iterator
from functools import partial

import pytest

import cloudg_nb
from cloudg_nb.notebook import progress_bars
from cloudg_nb.notebook.progress_bars import (
    NullProgress,
    TextProgress,
    WidgetProgress,
    progress_for,
    progress_mode,
)

from .waiting import wait_for


@pytest.fixture
def widget() -> Iterator[WidgetProgress]:
    display = WidgetProgress("find_assets")
    yield display
    display.finish(ok=True, summary="cleanup")


def _values(display: WidgetProgress) -> list[int]:
    seen: list[int] = []
    display.bar.observe(lambda change: seen.append(change["new"]), "value")
    return seen


#: This module's wait: up to 3.0 s.
_wait_for = partial(wait_for, timeout=3.0)


def test_a_burst_of_updates_from_another_thread_renders_a_few_times_then_the_final(
    widget: WidgetProgress,
) -> None:
    seen = _values(widget)

    def burst() -> None:
        for i in range(100):
            widget.update(i + 1, 100, f"step {i + 1}")
            time.sleep(0.001)

    started = time.monotonic()
    worker = threading.Thread(target=burst)
    worker.start()
    worker.join()
    elapsed = time.monotonic() - started
    before_finish = list(seen)
    widget.finish(ok=True, summary="find_assets: 12 rows")
    assert len(before_finish) <= int(elapsed * progress_bars.MAX_RATE) + 2
    assert len(before_finish) < 10
    assert seen[-1] == 100


def test_the_latest_state_is_rendered_without_a_further_update(widget: WidgetProgress) -> None:
    for i in (10, 20, 30):
        widget.update(i, 100, f"at {i}")
    assert _wait_for(lambda: widget.bar.value == 30 and "at 30" in widget.text.value)


def test_the_label_shows_percent_message_and_elapsed(widget: WidgetProgress) -> None:
    widget.update(1, 4, "reading <assets>")
    assert _wait_for(lambda: "25%" in widget.text.value)
    assert "reading &lt;assets&gt;" in widget.text.value
    assert widget.text.value.rstrip().endswith(" s")


def test_a_done_display_collapses_to_one_summary_line(widget: WidgetProgress) -> None:
    widget.update(5, 10, "half")
    widget.finish(ok=True, summary="sample_estate: done · 0.3 s")
    assert widget.bar.value == 100 and widget.bar.bar_style == "success"
    assert widget.bar.layout.display == "none" and widget.box.layout.display == "flex"
    assert widget.text.value == "✓ sample_estate: done · 0.3 s"


def test_a_failed_call_keeps_its_last_value_and_says_it_failed(widget: WidgetProgress) -> None:
    widget.update(3, 10, "working")
    widget.finish(ok=False, summary="interrupted after 1.2 s")
    assert widget.bar.value == 30 and widget.bar.bar_style == "danger"
    assert widget.text.value == "✗ interrupted after 1.2 s"


def test_a_quick_call_without_progress_shows_nothing(widget: WidgetProgress) -> None:
    widget.finish(ok=True, summary="get_asset: done")
    assert widget.renders == 0 and widget.box.layout.display == "none"
    assert widget.box.comm is None and widget.bar.comm is None  # closed: no view remains


def test_a_slow_call_without_progress_appears_after_the_quiet_period(
    widget: WidgetProgress,
) -> None:
    assert widget.box.layout.display == "none"
    assert _wait_for(lambda: widget.box.layout.display == "flex")
    assert time.monotonic() - widget.started >= progress_bars.QUIET_SECONDS
    assert "find_assets" in widget.text.value


def test_updates_after_finish_are_ignored(widget: WidgetProgress) -> None:
    widget.update(1, 2, None)
    widget.finish(ok=True, summary="done")
    widget.update(1, 10, "late")
    time.sleep(0.1)
    assert widget.bar.value == 100 and widget.text.value == "✓ done"


# -- text fallback --------------------------------------------------------------------------


def test_text_fallback_prints_percent_and_message_then_a_summary_line() -> None:
    out = io.StringIO()
    display = TextProgress("sample_estate", file=out)
    display.update(1, 2, "generating")
    assert _wait_for(lambda: "50%" in out.getvalue())
    display.finish(ok=True, summary="sample_estate: done · 0.1 s")
    text = out.getvalue()
    assert "sample_estate" in text and "generating" in text
    assert text.endswith("✓ sample_estate: done · 0.1 s\n")


def test_text_fallback_of_a_quick_call_prints_nothing() -> None:
    out = io.StringIO()
    display = TextProgress("get_asset", file=out)
    display.finish(ok=True, summary="get_asset: done")
    assert out.getvalue() == ""


def test_outside_a_kernel_the_display_is_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLOUDG_PROGRESS", raising=False)
    assert progress_mode() == "text"
    display = progress_for("x")
    display.finish(ok=True, summary="x")
    assert isinstance(display, TextProgress)


def test_cloudg_progress_off_shows_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLOUDG_PROGRESS", "off")
    assert isinstance(progress_for("x"), NullProgress)


def test_a_local_client_call_shows_the_tools_progress_as_text(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("CLOUDG_PROGRESS", "text")
    client = cloudg_nb.local(sample="")
    try:
        result = client.call("sample_estate", name="scaled", n=3000, dataset_name="big")
    finally:
        client.close()
    assert not result.is_error
    err = capsys.readouterr().err
    assert "%" in err
    assert err.splitlines()[-1].startswith("✓ sample_estate")


def test_a_display_dropped_without_finish_stops_its_render_thread() -> None:
    display = TextProgress("lost", file=io.StringIO())
    display.update(1, 2, "working")
    thread = display._thread
    del display
    gc.collect()
    thread.join(timeout=progress_bars.TICK_SECONDS + 2)
    assert not thread.is_alive()
