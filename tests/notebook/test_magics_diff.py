"""``%cloudg diff``: the drift report in a notebook (local mode, in-process IPython) — what got
worse first, then what improved, escaped HTML, the "since my last review" form, and errors
that say what to do."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from IPython.core.interactiveshell import InteractiveShell

import cloudg_nb
from cloudg_nb.notebook.client import Client
from cloudg_nb.notebook.drift_report import DriftReport

from .magics_shell import run_cell, shell_with_extension
from .test_completion import texts

WAF_LOSS = "web-waf (WAF) protects web-alb — protector removed"
OPENED_PATH = ("internet → web-alb → web-1 → app-role → customers-db — web-alb lost its WAF "
               "(web-waf)")


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    opened = cloudg_nb.local()
    assert not opened.call("sample_estate", name="drifted", activate=False).is_error
    yield opened
    opened.close()


@pytest.fixture
def ip(client: Client) -> Iterator[InteractiveShell]:
    with shell_with_extension(client) as shell:
        shell.user_ns.pop("drift", None)
        yield shell


def test_diff_shows_what_got_worse_before_what_improved(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg diff demo demo-drifted")
    text = run.text
    assert text.index("What got worse") < text.index(WAF_LOSS) < text.index(OPENED_PATH) \
        < text.index("What improved") < text.index("f-002 HIGH Security group allows SSH")
    assert "Protections lost (1)" in text and "Attack paths to crown jewels opened (3)" in text


def test_diff_html_has_the_headline_and_both_sections(ip: InteractiveShell) -> None:
    html = run_cell(ip, "%cloudg diff demo demo-drifted").htmls[-1]
    assert 'class="cloudg-drift-headline"' in html
    assert "Worse: 1 protection lost (web-waf (WAF) protects web-alb)" in html
    assert html.index("cloudg-drift-worse") < html.index("cloudg-drift-better")
    assert "internet → web-alb → web-1" in html


def test_diff_with_o_stores_the_report_data(ip: InteractiveShell) -> None:
    run_cell(ip, "%cloudg diff demo demo-drifted -o drift")
    drift = ip.user_ns["drift"]
    assert [p["protector"]["name"] for p in drift["worse"]["lost_protections"]] == ["web-waf"]


def test_diff_of_one_name_compares_it_with_the_active_dataset(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg diff demo-drifted")  # active: demo -> the WAF comes back
    assert "Protections added (1)" in run.text
    assert "Attack paths to crown jewels closed (3)" in run.text


def test_diff_without_names_is_since_the_latest_snapshot(ip: InteractiveShell,
                                                         client: Client) -> None:
    assert not client.call("snapshot_dataset", dataset="demo-drifted",
                           name="drifted-review").is_error
    try:
        assert not client.call("select_dataset", name="demo-drifted").is_error
        run = run_cell(ip, "%cloudg diff")
        assert "Drift from drifted-review (v1) to demo-drifted (v1) (since its latest " \
               "snapshot)" in run.text
        assert "Nothing got worse." in run.text and "Nothing improved." in run.text
    finally:
        client.call("select_dataset", name="demo")
        client.call("unload_dataset", name="drifted-review")


def test_diff_without_a_snapshot_says_how_to_take_one(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg diff -o drift")
    assert "No snapshot of 'demo' of yours" in run.text and "snapshot_dataset" in run.text
    assert "Traceback" not in run.text and "drift" not in ip.user_ns


def test_diff_of_a_dataset_with_itself_is_an_error_not_an_empty_report(
        ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg diff demo demo")
    assert "same dataset ('demo')" in run.text and "What got worse" not in run.text


def test_diff_of_an_unknown_dataset_suggests_the_loaded_ones(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg diff dmeo")
    assert "demo" in run.text and "What got worse" not in run.text


@pytest.mark.parametrize("line", ["diff a b c", "diff demo colour=red"])
def test_diff_usage_errors_show_the_usage(ip: InteractiveShell, line: str) -> None:
    run = run_cell(ip, f"%cloudg {line}")
    assert "%cloudg diff [BASE] [TARGET] [-o VAR]" in run.text


def test_dataset_names_complete_after_diff(ip: InteractiveShell) -> None:
    assert texts(ip, "%cloudg diff demo-d") == ["demo-drifted"]
    assert texts(ip, "%cloudg diff demo demo-d") == ["demo-drifted"]


def test_the_report_escapes_names_from_the_estate() -> None:
    evil = "<img src=x onerror=alert(1)>"
    report = DriftReport({
        "base": {"name": "a", "version": 1}, "target": {"name": "b", "version": 1},
        "headline": f"Worse: 1 asset newly exposed to the internet ({evil}).",
        "worse": {"newly_internet_exposed": [{"id": "x", "name": evil, "type": "EC2"}]},
        "better": {}, "summary": {"worse_newly_internet_exposed": 1}})
    html = report._repr_html_()
    assert evil not in html and "&lt;img src=x onerror=alert(1)&gt;" in html


def test_the_report_says_how_many_more_a_capped_list_holds() -> None:
    report = DriftReport({
        "base": {"name": "a", "version": 1}, "target": {"name": "b", "version": 2},
        "headline": "", "better": {},
        "worse": {"findings_opened": [{"id": "f-1", "severity": "HIGH", "title": "t"}]},
        "summary": {"worse_findings_opened": 1250}})
    assert "Findings opened (1,250)" in repr(report)
    assert "… and 1,249 more (raise limit=)" in repr(report)
