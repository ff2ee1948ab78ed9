"""`%cloudg live`: a LiveFrame stored under -o that follows workspace changes (local mode)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from IPython.core.interactiveshell import InteractiveShell

import cloudg_nb
from cloudg_nb.notebook.client import Client
from cloudg_nb.notebook.live import LiveFrame

from .magics_shell import run_cell, shell_with_extension


@pytest.fixture
def client() -> Iterator[Client]:
    opened = cloudg_nb.local()
    yield opened
    opened.close()


@pytest.fixture
def ip(client: Client) -> Iterator[InteractiveShell]:
    with shell_with_extension(client) as shell:
        shell.user_ns.pop("lf", None)
        yield shell


def test_live_stores_a_liveframe_that_follows_a_suppression(ip: InteractiveShell,
                                                            client: Client) -> None:
    run = run_cell(ip, '%cloudg live list_findings severities=["HIGH"] -o lf')
    assert run.result.success and "Traceback" not in run.text
    lf = ip.user_ns["lf"]
    try:
        assert isinstance(lf, LiveFrame)
        assert set(lf.df["severity"]) == {"HIGH"}
        gone = str(lf.df["id"].iloc[0])
        assert gone in run.text  # the table was displayed
        done = client.call("suppress_findings", ids=[gone], reason="test", progress=False)
        assert not done.is_error, done.text
        deadline = time.monotonic() + 1.0
        while gone in set(lf.df["id"]) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert gone not in set(lf.df["id"])
    finally:
        lf.close()


def test_live_cell_body_gives_the_arguments(ip: InteractiveShell) -> None:
    run = run_cell(ip, "%%cloudg live find_assets -o lf\ninternet_exposed: true\n")
    assert run.result.success
    lf = ip.user_ns["lf"]
    try:
        assert len(lf.df) == 4 and lf.df["internet_exposed"].all()
    finally:
        lf.close()


def test_live_of_an_unknown_tool_is_a_short_error_and_stores_nothing(
        ip: InteractiveShell) -> None:
    run = run_cell(ip, "%cloudg live list_findngs -o lf")
    assert run.result.success and "Traceback" not in run.text
    assert "Error [" in run.text and "list_findings" in run.text
    assert "lf" not in ip.user_ns
