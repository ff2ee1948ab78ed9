"""The oversight magics against a real Jupyter server: %cloudg activity / approvals show the
live displays, %cloudg approve / deny decide an assistant's waiting call, %cloudg assistants
lists and revokes credentials, %cloudg status counts waiting calls; Tab offers the ids and
names they take."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from IPython.core.completer import provisionalcompleter
from IPython.core.interactiveshell import InteractiveShell

from cloudg_nb.notebook.activity_feed import ActivityFeed
from cloudg_nb.notebook.approval_panel import ApprovalPanel
from cloudg_nb.notebook.client import Client
from tests.jupyter.server import JupyterServer
from tests.protocol.harness import ClientSession

from .assistants import Background, assistant, mint
from .magics_shell import run_cell, shell_with_extension
from .waiting import wait_for

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")


@pytest.fixture
def ip(client: Client) -> Iterator[InteractiveShell]:
    with shell_with_extension(client) as shell:
        yield shell


def suppress(bot: ClientSession) -> Background:
    return Background(lambda: bot.call_tool("suppress_findings",
                                            {"ids": ["f-002"], "reason": "accepted risk"}))


def waiting_id(client: Client, principal: str) -> str:
    found: list[str] = []

    def look() -> bool:
        found[:] = [a["id"] for a in client.approvals() if a["principal"] == principal]
        return bool(found)

    assert wait_for(look, 15, poll=0.05)
    return found[0]


def completions(ip: InteractiveShell, line: str) -> list[str]:
    with provisionalcompleter():
        return [c.text for c in ip.Completer.completions(line, len(line))]


def test_activity_shows_the_live_feed_and_stores_it(ip: InteractiveShell,
                                                    client: Client) -> None:
    client.call("list_datasets", progress=False)
    run = run_cell(ip, "%cloudg activity -o feed")
    feed = ip.user_ns.pop("feed")
    try:
        assert isinstance(feed, ActivityFeed) and not feed.closed
        assert "activity · " in run.text and "list_datasets" in run.text
        assert "cloudg-activity-table" in "".join(run.htmls)
    finally:
        feed.close()


def test_approve_by_id_lets_the_waiting_call_run(ip: InteractiveShell, server: JupyterServer,
                                                 client: Client) -> None:
    with assistant(server, "magic-yes") as bot:
        call = suppress(bot)
        shown = run_cell(ip, "%cloudg approvals -o panel")
        panel = ip.user_ns.pop("panel")
        try:
            assert isinstance(panel, ApprovalPanel)
            approval_id = waiting_id(client, "assistant:magic-yes")
            assert wait_for(lambda: panel.pending, 5)
            assert completions(ip, "%cloudg approve ") == [approval_id]
            assert "waiting for" in shown.text or "waiting for" in panel.text()
            run = run_cell(ip, f"%cloudg approve {approval_id} -o decided")
            assert "approved: suppress_findings for assistant:magic-yes" in run.text, run.text
            assert ip.user_ns.pop("decided")["state"] == "approved"
            assert not call.join().is_error
        finally:
            panel.close()
    client.call("unsuppress_findings", ids=["f-002"], progress=False)


def test_deny_with_a_reason_tells_the_assistant(ip: InteractiveShell, server: JupyterServer,
                                                client: Client) -> None:
    with assistant(server, "magic-no") as bot:
        call = suppress(bot)
        approval_id = waiting_id(client, "assistant:magic-no")
        status = run_cell(ip, "%cloudg status -o st")
        assert ip.user_ns.pop("st")["approvals_waiting"] == 1 and "approvals_waiting" in status.text
        run = run_cell(ip, f"%cloudg deny {approval_id} not on prod")
        assert "denied: suppress_findings for assistant:magic-no (not on prod)" in run.text
        refused = call.join()
    assert refused.is_error and "not on prod" in refused.content[0].text
    again = run_cell(ip, f"%cloudg approve {approval_id} -o nothing")
    assert "no longer waiting" in again.text and "Traceback" not in again.text
    assert "nothing" not in ip.user_ns


def test_assistants_lists_and_revokes_credentials(ip: InteractiveShell, server: JupyterServer,
                                                  client: Client) -> None:
    token = mint(server, "magic-gone")
    run = run_cell(ip, "%cloudg assistants -o creds")
    creds = ip.user_ns.pop("creds")
    assert "magic-gone" in set(creds["name"]) and token not in run.text
    assert "magic-gone" in completions(ip, "%cloudg assistants revoke magic-")
    revoked = run_cell(ip, "%cloudg assistants revoke magic-gone")
    assert "revoked assistant:magic-gone: its token no longer works" in revoked.text
    assert "magic-gone" not in set(client.assistants()["name"])
    unknown = run_cell(ip, "%cloudg assistants revoke magic-gone")
    assert "No assistant has that name" in unknown.text and "Traceback" not in unknown.text
