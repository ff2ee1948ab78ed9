"""Oversight in a local (in-process) workspace, which no assistant connects to: the Python API
and the magics say so plainly (use %cloudg connect), show no made-up data and no traceback."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from IPython.core.interactiveshell import InteractiveShell

import cloudg_nb
from cloudg_nb.notebook.activity_feed import ActivityFeed
from cloudg_nb.notebook.approval_panel import ApprovalPanel
from cloudg_nb.notebook.call_result import CloudGError
from cloudg_nb.notebook.client import Client

from .magics_shell import run_cell, shell_with_extension


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    opened = cloudg_nb.local(sample=None)
    yield opened
    opened.close()


@pytest.fixture
def ip(client: Client) -> Iterator[InteractiveShell]:
    with shell_with_extension(client) as shell:
        shell.user_ns.pop("feed", None)
        yield shell


def _says_connect(text: str) -> None:
    assert "assistants connect to the Jupyter server" in text, text
    assert "%cloudg connect" in text, text


@pytest.mark.parametrize("method", ["activity", "approvals", "assistants", "activity_feed",
                                    "approval_panel"])
def test_reading_oversight_locally_raises_local_mode(client: Client, method: str) -> None:
    with pytest.raises(CloudGError) as raised:
        getattr(client, method)()
    assert raised.value.error.code == "local_mode"
    _says_connect(raised.value.error.message)


@pytest.mark.parametrize("decide", ["approve", "deny"])
def test_deciding_locally_is_an_error_result_that_says_where_assistants_are(
        client: Client, decide: str) -> None:
    result = getattr(client, decide)("abc123", "why")
    assert result.is_error and result.error is not None
    assert result.error.code == "local_mode"
    _says_connect(result.error.message)


def test_revoking_locally_is_an_error_result(client: Client) -> None:
    result = client.revoke_assistant("bot")
    assert result.is_error and result.error is not None and result.error.code == "local_mode"


def test_local_status_reports_no_waiting_approvals(client: Client) -> None:
    assert "approvals_waiting" not in client.status()


@pytest.mark.parametrize("line", ["activity -o feed", "approvals", "approve abc123",
                                  "deny abc123 not now", "assistants", "assistants revoke bot"])
def test_oversight_magics_locally_say_to_connect_and_store_nothing(
        ip: InteractiveShell, line: str) -> None:
    run = run_cell(ip, f"%cloudg {line}")
    assert run.result.success and "Traceback" not in run.text
    _says_connect(run.text)
    assert "feed" not in ip.user_ns


@pytest.mark.parametrize("line,usage", [
    ("approve", "approve ID [REASON]"), ("activity extra", "activity [-o VAR]"),
    ("assistants remove bot", "assistants [revoke NAME] [-o VAR]"),
    ("assistants revoke", "assistants [revoke NAME] [-o VAR]"),
    ("deny abc123 colour=red", "deny ID [REASON]"),
])
def test_oversight_magics_with_wrong_words_show_their_usage(
        ip: InteractiveShell, line: str, usage: str) -> None:
    run = run_cell(ip, f"%cloudg {line}")
    assert "Traceback" not in run.text
    assert f"Usage: %cloudg {usage}" in run.text or "Unexpected key=value" in run.text, run.text


def test_help_lists_the_oversight_subcommands(ip: InteractiveShell) -> None:
    text = run_cell(ip, "%cloudg help").text
    for usage in ("activity [-o VAR]", "approvals [-o VAR]", "approve ID [REASON]",
                  "deny ID [REASON]", "assistants [revoke NAME] [-o VAR]"):
        assert usage in text


@pytest.mark.parametrize("display", [ActivityFeed, ApprovalPanel])
def test_a_display_that_cannot_start_leaves_no_widget_behind(
        client: Client, display: type[ActivityFeed] | type[ApprovalPanel]) -> None:
    from ipywidgets.widgets.widget import _instances

    before = set(_instances)
    with pytest.raises(CloudGError):
        display(client, widget=True)
    assert set(_instances) == before
