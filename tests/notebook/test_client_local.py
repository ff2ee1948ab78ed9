"""The notebook client in local mode: an in-process layer with the demo estate, one API."""

from __future__ import annotations

import _thread
import threading
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pandas
import pytest

import cloudg_nb
from cloudg_nb.notebook import client as client_module
from cloudg_nb.notebook.call_result import CloudGError
from cloudg_nb.notebook.client import Client

from .waiting import wait_for


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    opened = cloudg_nb.local()
    yield opened
    opened.close()


#: This module's wait: up to 2.0 s.
_wait_for = partial(wait_for, timeout=2.0)


def test_local_client_says_it_is_local(client: Client) -> None:
    assert client.mode == "local"
    assert client.description.startswith("local: in-process layer")


def test_list_result_becomes_a_dataframe(client: Client) -> None:
    result = client.call("find_assets", internet_exposed=True, progress=False)
    assert not result.is_error
    assert isinstance(result.df, pandas.DataFrame)
    assert len(result.df) == result.data["returned"] > 0
    assert result.df["internet_exposed"].all()


def test_dict_result_has_data_and_no_dataframe(client: Client) -> None:
    result = client.call("get_asset", ref="web-1", progress=False)
    assert not result.is_error
    assert isinstance(result.data, dict)
    assert result.df is None
    assert "web-1" in result.text


def test_unknown_tool_is_an_error_result_with_close_matches(client: Client) -> None:
    result = client.call("find_asets", progress=False)
    assert result.is_error and result.error is not None
    assert result.error.code == "not_found"
    assert "find_assets" in result.error.hints


def test_misspelt_argument_is_named_with_a_close_match(client: Client) -> None:
    result = client.call("find_assets", internet_exposd=True, progress=False)
    assert result.is_error and result.error is not None
    assert result.error.code == -32602
    assert "internet_exposd" in result.error.message
    assert result.error.hints == ["internet_exposed"]


def test_paged_result_names_its_cursor_and_next_page_continues(client: Client) -> None:
    first = client.call("find_assets", limit=5, progress=False)
    assert first.next_cursor
    assert "next page" in first.caption
    second = client.call("find_assets", limit=5, cursor=first.next_cursor, progress=False)
    assert not second.is_error
    assert set(first.df["id"]).isdisjoint(second.df["id"])


def test_frame_concatenates_every_page(client: Client) -> None:
    everything = client.call("find_assets", limit=500, progress=False)
    paged = client.frame("find_assets", limit=7, progress=False)
    assert everything.next_cursor is None
    assert len(paged) == len(everything.df) > 7
    assert list(paged["id"]) == list(everything.df["id"])


def test_frame_of_an_error_raises_cloudg_error(client: Client) -> None:
    with pytest.raises(CloudGError) as caught:
        client.frame("find_assets", limit="many", progress=False)
    assert caught.value.error.code == -32602


def test_read_parses_json_resources(client: Client) -> None:
    workspace = client.read("cloudg://workspace")
    assert workspace["active"] == "demo"


def test_read_of_an_unknown_resource_raises_cloudg_error(client: Client) -> None:
    with pytest.raises(CloudGError):
        client.read("cloudg://nothing/here")


def test_prompt_returns_role_and_text_messages(client: Client) -> None:
    messages = client.prompt("investigate_asset", ref="web-1")
    assert messages[0]["role"] == "user"
    assert "web-1" in messages[0]["text"]


def test_complete_tool_argument_ref_offers_demo_asset_refs(client: Client) -> None:
    values = client.complete("ref", "web", tool="get_asset")
    assert "web-1" in values and all("web" in v for v in values)


def test_complete_plural_argument_uses_the_singular_variable(client: Client) -> None:
    assert client.complete("severities", "H", tool="list_findings") == ["HIGH"]


def test_complete_of_an_unknown_argument_is_empty(client: Client) -> None:
    assert client.complete("nothing_like_this", "x", tool="get_asset") == []


def test_tools_and_datasets(client: Client) -> None:
    names = {tool["name"] for tool in client.tools()}
    assert {"find_assets", "list_findings", "suppress_findings"} <= names
    datasets = client.datasets()
    assert list(datasets["name"]) == ["demo"]


def test_status_names_mode_and_workspace(client: Client) -> None:
    status = client.status()
    assert status["mode"] == "local"
    assert status["workspace"]["active"] == "demo"


def test_progress_function_receives_the_tools_reports(client: Client) -> None:
    seen: list[tuple[float, float | None, str | None]] = []
    threads: set[str] = set()

    def record(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))
        threads.add(threading.current_thread().name)

    result = client.call("sample_estate", name="demo", dataset_name="progress_probe",
                         activate=False, progress=record)
    assert not result.is_error
    assert len(seen) >= 3 and seen[-1][0] == seen[-1][1] == 100
    assert threads == {"cloudg-nb-client"}


def test_subscribe_fires_when_findings_are_suppressed() -> None:
    with cloudg_nb.local() as own:
        changed: list[str] = []
        stop = own.subscribe("cloudg://datasets/demo/findings", changed.append)
        high = own.frame("list_findings", severities=["HIGH"], progress=False)
        result = own.call("suppress_findings", ids=[high["id"].iloc[0]], reason="accepted",
                          progress=False)
        assert not result.is_error
        assert _wait_for(lambda: changed == ["cloudg://datasets/demo/findings"])
        stop()
        own.call("unsuppress_findings", ids=[high["id"].iloc[0]], progress=False)
        time.sleep(0.1)
        assert changed == ["cloudg://datasets/demo/findings"]


async def test_async_twins_run_on_the_client_loop(client: Client) -> None:
    result = await client.acall("find_assets", internet_exposed=True, progress=False)
    frame = await client.aframe("find_assets", limit=7, progress=False)
    assert not result.is_error and len(frame) > 7
    assert (await client.aread("cloudg://workspace"))["active"] == "demo"
    assert "web-1" in await client.acomplete("ref", "web-1", tool="get_asset")


def test_empty_sample_gives_an_empty_workspace() -> None:
    with cloudg_nb.local(sample=None) as empty:
        assert empty.read("cloudg://workspace")["datasets"] == []


class RecordingDisplay:
    """Stands in for progress_bars.progress_for's display: records what the client sends."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.updates: list[tuple[float, float | None, str | None]] = []
        self.finished: list[tuple[bool, str]] = []

    def update(self, progress: float, total: float | None, message: str | None) -> None:
        self.updates.append((progress, total, message))

    def finish(self, *, ok: bool, summary: str) -> None:
        self.finished.append((ok, summary))


@pytest.fixture
def displays(monkeypatch: pytest.MonkeyPatch) -> list[RecordingDisplay]:
    made: list[RecordingDisplay] = []

    def progress_display(label: str) -> RecordingDisplay:
        made.append(RecordingDisplay(label))
        return made[-1]

    monkeypatch.setattr(client_module, "_progress_display", progress_display)
    return made


def test_progress_display_gets_the_reports_then_one_finish(
        client: Client, displays: list[RecordingDisplay]) -> None:
    result = client.call("sample_estate", name="demo", dataset_name="display_probe",
                         activate=False)
    assert not result.is_error
    [display] = displays
    assert display.label == "sample_estate"
    assert [value for value, _, _ in display.updates] == [0, 70, 100]
    assert len(display.finished) == 1 and display.finished[0][0] is True


def test_a_call_ending_in_the_quiet_period_without_reports_makes_no_display(
        client: Client, displays: list[RecordingDisplay],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing would be shown for it anyway: no widget is made (or imported) for it."""
    from cloudg_nb.notebook import progress_bars

    monkeypatch.setattr(progress_bars, "QUIET_SECONDS", 60.0)  # (a slow machine stays quiet)
    assert not client.call("find_assets", limit=1).is_error
    assert client.call("find_assets", limit="many").is_error
    assert len(client.frame("find_assets")) > 0
    assert displays == []


def test_a_call_past_the_quiet_period_gets_a_display_that_finishes_not_ok_on_an_error(
        client: Client, displays: list[RecordingDisplay],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from cloudg_nb.notebook import progress_bars

    monkeypatch.setattr(progress_bars, "QUIET_SECONDS", 0.0)  # every call is past it at once
    client.call("find_assets", limit="many")
    [display] = displays
    assert display.finished == [(False, display.finished[0][1])]
    assert "error" in display.finished[0][1]


def test_a_display_made_late_gets_the_reports_in_order_then_the_new_ones() -> None:
    from cloudg_nb.notebook.progress_bars import DeferredProgress

    made: list[RecordingDisplay] = []
    later = DeferredProgress("probe", lambda label: made.append(RecordingDisplay(label))
                             or made[-1])
    later.update(1, 4, "a")
    later.update(2, 4, None)
    assert made == [] and later.wake.is_set()
    assert later.poll() is None  # a report arrived: due now, made on this (waiting) thread
    later.update(3, 4, "c")
    later.finish(ok=True, summary="probe: done")
    [display] = made
    assert display.updates == [(1, 4, "a"), (2, 4, None), (3, 4, "c")]
    assert display.finished == [(True, "probe: done")]


def test_a_call_that_reported_and_ended_before_any_poll_still_shows_its_summary(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from cloudg_nb.notebook import progress_bars

    monkeypatch.setattr(progress_bars, "QUIET_SECONDS", 60.0)
    made: list[RecordingDisplay] = []
    later = progress_bars.DeferredProgress("probe", lambda label: made.append(
        RecordingDisplay(label)) or made[-1])
    assert 0 < (later.poll() or 0) <= 60  # quiet so far: due in the rest of the period
    assert made == []
    later.update(1, 1, None)
    later.finish(ok=True, summary="probe: done")
    assert [d.updates for d in made] == [[(1, 1, None)]]
    assert made[0].finished == [(True, "probe: done")]


def test_progress_false_shows_no_display(client: Client,
                                         displays: list[RecordingDisplay]) -> None:
    client.call("find_assets", limit=1, progress=False)
    assert displays == []


def test_local_policy_profile_applies_and_results_note_what_it_changed() -> None:
    with cloudg_nb.local(policy="strict") as strict:
        result = strict.call("get_asset", ref="web-1", progress=False)
        assert strict.status()["policy"] == "strict"
    assert not result.is_error
    assert result.transform_note is not None and "pseudonymized" in result.transform_note


@pytest.mark.usefixtures("sigint_default")
def test_interrupt_cancels_a_local_call_and_the_next_call_works(tmp_path: Path) -> None:
    from cloudg_nb import CloudGMCPLayer
    from cloudg_nb.notebook.inprocess import LocalBackend
    from tests.jupyter.fixture_registry import registry

    marker = tmp_path / "cancelled"
    layer = CloudGMCPLayer(registry=registry)
    with Client.open(LocalBackend(sample=None, layer=layer)) as own:
        threading.Timer(0.3, _thread.interrupt_main).start()
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            own.call("work_until_cancelled", marker=str(marker), seconds=30, progress=False)
        assert time.monotonic() - started < 0.3 + 2.0
        assert _wait_for(marker.exists)  # the worker thread saw the cancellation
        assert own.call("who_am_i", progress=False).data["id"]
