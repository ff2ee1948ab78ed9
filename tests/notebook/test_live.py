"""LiveFrame in local mode: the query's frame refreshes when the workspace changes (through the
same client or another client of the same layer), in place in one widget tree, debounced,
pausable, and a failing refresh keeps the old frame. (Real-kernel behaviour — the shared
Jupyter workspace, comm messages — is covered by the kernel acceptance tests.)"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from functools import partial

import pandas as pd
import pytest
from ipywidgets.widgets.widget import _instances

import cloudg_nb
from cloudg_nb.notebook.call_result import CloudGError
from cloudg_nb.notebook.client import Client
from cloudg_nb.notebook.inprocess import LocalBackend
from cloudg_nb.notebook.live import TABLE_ROWS, LiveFrame, ago
from cloudg_nb.notebook.loop import LoopThread

from .waiting import wait_for


@pytest.fixture
def client() -> Iterator[Client]:
    opened = cloudg_nb.local()
    yield opened
    opened.close()


@pytest.fixture
def live(client: Client) -> Iterator[Callable[..., LiveFrame]]:
    made: list[LiveFrame] = []

    def make(tool: str, **kwargs: object) -> LiveFrame:
        widget = bool(kwargs.pop("widget", False))
        frame = LiveFrame(client, tool, dict(kwargs), widget=widget)
        made.append(frame)
        return frame

    yield make
    for frame in made:
        frame.close()


@pytest.fixture
def other_client(client: Client) -> Iterator[Client]:
    """A second client of the same in-process layer, on its own loop thread."""
    loop = LoopThread("other-client")
    other = Client.open(LocalBackend(sample=None, layer=client.backend.layer), loop=loop)
    yield other
    other.close()
    loop.stop()


#: This module's wait: up to 3.0 s.
_wait_for = partial(wait_for, timeout=3.0, poll=0.005)


def _suppress(client: Client, finding: str) -> None:
    result = client.call("suppress_findings", ids=[finding], progress=False)
    assert not result.is_error, result.text


def test_live_frame_holds_the_query_result_with_its_dataset_and_version(live) -> None:
    lf = live("list_findings", severities=["HIGH"])
    assert lf.df["severity"].eq("HIGH").all() and len(lf.df) == 4
    assert (lf.dataset, lf.version) == ("demo", 1)
    assert lf.updated_at is not None


def test_client_live_builds_a_live_frame(client: Client) -> None:
    lf = client.live("list_findings", severities=["HIGH"])
    try:
        assert isinstance(lf, LiveFrame) and len(lf.df) == 4
    finally:
        lf.close()


def test_all_pages_are_read(live) -> None:
    lf = live("find_assets", limit=7)
    assert len(lf.df) == 60 and lf.df["id"].is_unique


def test_suppression_through_the_same_client_refreshes_the_frame(client, live) -> None:
    lf = live("list_findings", severities=["HIGH"])
    gone = str(lf.df["id"].iloc[0])
    _suppress(client, gone)
    assert _wait_for(lambda: gone not in set(lf.df["id"]))
    assert lf.version == 2 and len(lf.df) == 3


def test_suppression_by_another_client_of_the_layer_refreshes_the_frame(
    other_client: Client, live,
) -> None:
    lf = live("list_findings", severities=["HIGH"])
    gone = str(lf.df["id"].iloc[-1])
    _suppress(other_client, gone)
    assert _wait_for(lambda: gone not in set(lf.df["id"]))


def test_updates_change_trait_values_of_one_widget_tree(client, live) -> None:
    lf = live("list_findings", severities=["HIGH"], widget=True)
    tree, table = lf.widget, lf._table
    first = table.value
    widgets_before = set(_instances)
    for finding in lf.df["id"].tolist()[:2]:
        _suppress(client, finding)
        assert _wait_for(lambda f=finding: f not in table.value)
    assert lf.widget is tree and lf.widget.children == (lf._caption, table)
    assert set(_instances) == widgets_before
    assert table.value != first and "dataset demo v3" in lf._caption.value


def test_a_burst_of_changes_causes_few_refreshes(client, live) -> None:
    lf = live("list_findings")
    before = lf.refreshes
    ids = lf.df["id"].tolist()[:5]
    for finding in ids:
        _suppress(client, finding)
    assert _wait_for(lambda: not set(ids) & set(lf.df["id"]))
    time.sleep(0.3)
    assert lf.refreshes - before <= 3


def test_a_paused_frame_waits_and_resume_catches_up(client, live) -> None:
    lf = live("list_findings", severities=["HIGH"])
    lf.pause()
    gone = str(lf.df["id"].iloc[0])
    _suppress(client, gone)
    time.sleep(0.4)
    assert gone in set(lf.df["id"]) and "paused (changes waiting)" in lf.caption()
    lf.resume()
    assert _wait_for(lambda: gone not in set(lf.df["id"]))
    assert not lf.caption().startswith("paused")


def test_a_failing_refresh_keeps_the_old_frame_and_says_why(client, live) -> None:
    lf = live("list_findings", dataset="demo", widget=True)
    before = lf.df.copy()
    result = client.call("unload_dataset", name="demo", progress=False)
    assert not result.is_error, result.text
    assert _wait_for(lambda: lf.error is not None)
    assert lf.df.equals(before)
    assert "refresh failed" in lf.caption() and "refresh failed" in lf._caption.value


def test_explicit_refresh_rereads_the_data(client, live) -> None:
    lf = live("list_findings", severities=["HIGH"])
    lf.pause()
    _suppress(client, str(lf.df["id"].iloc[0]))
    lf.refresh()
    assert len(lf.df) == 3


def test_a_closed_frame_stops_refreshing(client, live) -> None:
    lf = live("list_findings", severities=["HIGH"])
    lf.close()
    _suppress(client, str(lf.df["id"].iloc[0]))
    time.sleep(0.4)
    assert len(lf.df) == 4 and lf.caption().startswith("closed")


def test_a_frame_on_the_active_dataset_follows_a_switch(client, live) -> None:
    lf = live("list_findings")
    result = client.call("sample_estate", name="drifted", progress=False)
    assert not result.is_error, result.text
    assert _wait_for(lambda: lf.dataset == "demo-drifted")
    assert lf.version == 1


def test_caption_says_when_which_dataset_version_and_rows(live) -> None:
    lf = live("list_findings", severities=["HIGH"])
    assert lf.caption() == "updated 0 s ago · dataset demo v1 · 4 rows"
    assert ago(2.4) == "2 s ago" and ago(125) == "2 min ago"


def test_the_table_shows_at_most_fifty_rows_and_says_so(live) -> None:
    lf = live("find_assets")
    html = lf.table_html()
    assert html.count("<tr") == TABLE_ROWS + 1  # header row + 50
    assert f"showing {TABLE_ROWS} of 60 rows" in html


def test_outside_a_kernel_it_renders_as_html(live) -> None:
    lf = live("list_findings", severities=["HIGH"])
    bundle = lf._repr_mimebundle_()
    assert "<table" in bundle["text/html"] and "dataset demo v1" in bundle["text/html"]
    assert "application/vnd.jupyter.widget-view+json" not in bundle


def test_in_widget_mode_it_renders_as_the_widget(live) -> None:
    lf = live("list_findings", severities=["HIGH"], widget=True)
    bundle = lf._repr_mimebundle_()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == lf.widget.model_id


def test_a_query_that_fails_at_first_raises_with_close_matches(client: Client) -> None:
    with pytest.raises(CloudGError) as err:
        LiveFrame(client, "list_findigs", {}, widget=False)
    assert err.value.error.code == "not_found" and "list_findings" in err.value.error.hints


def test_a_tool_that_returns_no_list_is_refused(client: Client) -> None:
    with pytest.raises(CloudGError) as err:
        LiveFrame(client, "get_asset", {"ref": "web-1"}, widget=False)
    assert err.value.error.code == "not_a_list"


async def test_alive_builds_a_live_frame_without_blocking_the_callers_loop(
    client: Client,
) -> None:
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.001)

    running = asyncio.ensure_future(ticker())
    try:
        lf = await client.alive("find_assets", limit=5)
    finally:
        running.cancel()
    try:
        assert len(lf.df) == 60 and lf.dataset == "demo"
        assert ticks > 1  # the caller's loop kept running while the pages were read
    finally:
        lf.close()


def test_choosing_the_shown_columns_rerenders_the_table_and_keeps_every_column(live) -> None:
    lf = live("list_findings", severities=["HIGH"], widget=True)
    table = lf._table
    assert ">uri</th>" in table.value
    lf.columns = ["id", "severity", "title"]
    assert lf._table is table
    assert ">uri</th>" not in table.value and ">title</th>" in table.value
    assert "uri" in lf.df.columns
    lf.columns = None
    assert ">uri</th>" in table.value


# -- applying a changed-rows answer ------------------------------------------------------------


def _held() -> pd.DataFrame:
    return pd.DataFrame.from_records([
        {"id": f"a-{i}", "name": f"n{i}", "open_findings": i, "max_severity": "HIGH"}
        for i in range(200)])


def test_a_delta_that_changes_cells_in_place_keeps_types_and_leaves_the_old_frame() -> None:
    from cloudg_nb.notebook.live import apply_delta

    held = _held()
    rows = [{"id": "a-7", "name": "n7", "open_findings": 0, "max_severity": None},
            {"id": "a-150", "name": "renamed", "open_findings": 151, "max_severity": "LOW"}]
    delta = {"keys": ["a-7", "a-150"], "key_columns": ["id"], "positions": [7, 150]}
    applied = apply_delta(held, delta, rows, len(held))
    assert applied is not None and list(applied.dtypes) == list(held.dtypes)
    expected = held.copy()
    expected.loc[7, ["open_findings", "max_severity"]] = [0, None]
    expected.loc[150, ["name", "open_findings", "max_severity"]] = ["renamed", 151, "LOW"]
    pd.testing.assert_frame_equal(applied, expected)
    pd.testing.assert_frame_equal(held, _held())  # what the caller held is unchanged


def test_a_delta_whose_values_change_a_columns_type_rebuilds_the_frame() -> None:
    from cloudg_nb.notebook.live import apply_delta

    held = _held()
    rows = [{"id": "a-3", "name": "n3", "open_findings": "many", "max_severity": "HIGH"}]
    applied = apply_delta(held, {"keys": ["a-3"], "key_columns": ["id"], "positions": [3]},
                          rows, len(held))
    assert applied is not None and applied.loc[3, "open_findings"] == "many"
    assert applied.loc[4, "open_findings"] == 4 and len(applied) == len(held)


def _reporting_client() -> Client:
    """A local client whose layer has one list tool that reports three steps first."""
    from cloudg_nb import CloudGMCPLayer, Registry, ToolContext

    registry = Registry()

    @registry.tool
    async def slow_rows(ctx: ToolContext, n: int = 3) -> dict[str, object]:
        """Rows after three reported steps."""
        for step in (1, 2, 3):
            await ctx.report_progress(step, 3, f"step {step}")
        return {"items": [{"id": str(i)} for i in range(n)], "total": n}

    return Client.open(LocalBackend(sample=None, layer=CloudGMCPLayer(registry=registry)))


def test_the_first_load_shows_progress_then_one_summary(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from cloudg_nb.notebook import live as live_module

    class Display:
        def __init__(self, label: str) -> None:
            self.label, self.updates, self.finished = label, [], []

        def update(self, progress: float, total: float | None, message: str | None) -> None:
            self.updates.append((progress, total, message))

        def finish(self, *, ok: bool, summary: str) -> None:
            self.finished.append((ok, summary))

    made: list[Display] = []
    monkeypatch.setattr(live_module, "progress_for", lambda label: made.append(
        Display(label)) or made[-1])
    client = _reporting_client()
    try:
        lf = client.live("slow_rows", n=5)
        [display] = made
        assert display.label == "slow_rows"
        assert [(p, t) for p, t, _ in display.updates] == [(1, 3), (2, 3), (3, 3)]
        assert len(display.finished) == 1
        ok, summary = display.finished[0]
        assert ok and summary.startswith("slow_rows: 5 rows · ")
        lf.refresh()  # refreshes report in the caption, not in a new display
        assert len(made) == 1 and len(display.updates) == 3
        lf.close()
        made.clear()
        client.live("slow_rows", progress=False).close()
        assert made == []
    finally:
        client.close()


def test_a_progress_function_hears_the_first_load_only() -> None:
    client = _reporting_client()
    heard: list[tuple[float, float | None, str | None]] = []
    try:
        lf = client.live("slow_rows", progress=lambda *report: heard.append(report))
        assert [p for p, _, _ in heard] == [1, 2, 3] and len(lf.df) == 3
        lf.refresh()
        assert len(heard) == 3
        lf.close()

        async def in_async_code() -> LiveFrame:
            return await client.alive("slow_rows", n=2, progress=lambda *r: heard.append(r))

        frame = asyncio.run(in_async_code())
        assert len(heard) == 6 and len(frame.df) == 2
        frame.close()
    finally:
        client.close()
