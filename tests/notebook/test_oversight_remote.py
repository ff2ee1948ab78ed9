"""The analyst's oversight from a notebook client on a real Jupyter server: the activity feed
tells assistants and the analyst apart, follows calls live at a bounded render rate and stays
cheap with 1000 entries; the approval panel's buttons and the Python API decide an
assistant's waiting call; credentials are listed and revoked."""

from __future__ import annotations

import asyncio
import getpass
import json
import time
import urllib.error
import urllib.request

import pytest

from cloudg_nb.notebook.activity_feed import ActivityFeed
from cloudg_nb.notebook.approval_panel import ApprovalPanel
from cloudg_nb.notebook.client import Client
from tests.jupyter.fixture_registry import PLANTED_DSN
from tests.jupyter.server import JupyterServer
from tests.protocol.harness import ClientSession

from .assistants import Background, assistant, mint
from .waiting import wait_for

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")

SECRET = "Pl4ntedS3cret"
FINDING = "f-001"


def suppress(bot: ClientSession, reason: str = "accepted risk") -> Background:
    """The assistant's sensitive call, waiting in the background for a decision."""
    return Background(lambda: bot.call_tool("suppress_findings",
                                            {"ids": [FINDING], "reason": reason}))


def waiting(client: Client, principal: str) -> dict:
    found: list[dict] = []

    def look() -> bool:
        found[:] = [a for a in client.approvals() if a["principal"] == principal]
        return bool(found)

    assert wait_for(look, 15, poll=0.05), f"no call of {principal} waits"
    return found[0]


def rows_of(table: str, name: str) -> list[str]:
    """The table's rows (newest first) that show tool ``name``."""
    return [row for row in table.split("<tr class=")[1:] if f"<code>{name}</code>" in row]


# -- the activity feed ---------------------------------------------------------------------------


def test_the_feed_tells_two_assistants_and_the_analyst_apart_and_shows_no_value(
        server: JupyterServer, client: Client) -> None:
    with assistant(server, "first") as first, assistant(server, "second") as second:
        for bot in (first, second):
            assert not bot.call_tool("read_app_config", {}).is_error
        assert not first.call_tool("find_assets", {"query": "customers-db"}).is_error
    assert not client.call("read_app_config", progress=False).is_error
    feed = ActivityFeed(client, widget=True)
    try:
        mine = feed.df[feed.df["name"] == "read_app_config"].tail(3)
        assert mine["principal"].tolist() == ["assistant:first", "assistant:second",
                                              getpass.getuser()]
        assert mine["assistant"].tolist() == [True, True, False]
        assert (mine["redacted"] >= 1).all()
        analyst, second_row, first_row = rows_of(feed._table.value, "read_app_config")[:3]
        assert "cloudg-analyst" in analyst and f">{getpass.getuser()}<" in analyst
        assert "cloudg-assistant" in second_row and ">second<" in second_row
        assert "cloudg-assistant" in first_row and ">first<" in first_row
        assert f"<td>{int(mine['redacted'].iloc[0])}</td>" in first_row
        shown = [feed._table.value, feed.text(), feed.df.to_json(date_format="iso"), feed.caption()]
        for text in shown:
            assert SECRET not in text and PLANTED_DSN not in text
            assert "customers-db" not in text  # an argument value: never in the feed
    finally:
        feed.close()


def test_the_feed_grows_by_itself_when_an_assistant_calls(
        server: JupyterServer, client: Client) -> None:
    feed = client.activity_feed()
    try:
        before = feed.latest or 0
        with assistant(server, "live") as bot:
            assert not bot.call_tool("count_assets", {"group_by": "provider"}).is_error
            called = time.monotonic()
            assert wait_for(lambda: ((feed.df["principal"] == "assistant:live")
                                     & (feed.df["seq"] > before)).any(), 2.0)
        assert time.monotonic() - called < 2.0
        new = feed.df[feed.df["seq"] > before]
        assert new[new["principal"] == "assistant:live"]["name"].tolist() == ["count_assets"]
    finally:
        feed.close()


def test_a_burst_of_200_calls_renders_at_most_5_times_a_second_and_loses_none(
        server: JupyterServer, client: Client) -> None:
    feed = ActivityFeed(client, widget=True)
    renders: list[float] = []
    feed._table.observe(lambda change: renders.append(time.monotonic()), "value")
    try:
        started = time.monotonic()
        with assistant(server, "burst") as bot:
            for _ in range(200):
                bot.call_tool("list_datasets", {})
            assert wait_for(lambda: (feed.df["principal"] == "assistant:burst").sum() == 200,
                            5.0)
        elapsed = time.monotonic() - started
        assert len(renders) >= 2, "the table did not follow the burst"
        assert len(renders) <= 5 * elapsed + 1, (len(renders), elapsed)
        assert feed.renders == feed.refreshes
    finally:
        feed.close()


def test_a_full_feed_of_1000_entries_opens_and_renders_in_bounded_time_and_size(
        server: JupyterServer, client: Client) -> None:
    async def fill(count: int) -> None:
        done = 0
        while done < count:
            batch = min(50, count - done)
            await asyncio.gather(*(client.acall("list_datasets", progress=False)
                                   for _ in range(batch)))
            done += batch

    client.loop.run(fill(1000))
    started = time.monotonic()
    feed = ActivityFeed(client, widget=True)
    try:
        opened = time.monotonic() - started
        assert len(feed.df) == 1000
        table = feed._table.value
        assert table.count("<tr class=") == 200
        assert "800 more in <code>.df</code>" in table
        assert len(table) < 200_000
        assert opened < 3.0, f"opening took {opened:.2f} s"
        ticks = time.perf_counter()
        for _ in range(10):
            feed.table_html()
        assert (time.perf_counter() - ticks) / 10 < 0.05
        latest = feed.latest
        client.call("list_datasets", progress=False)
        assert wait_for(lambda: feed.latest is not None and latest is not None
                        and feed.latest > latest, 3.0)
        assert len(feed.df) == 1000 and feed.df["seq"].iloc[-1] == feed.latest
    finally:
        feed.close()


def test_outside_a_kernel_the_feed_and_the_panel_render_as_html_and_text(
        client: Client) -> None:
    client.call("list_datasets", progress=False)
    feed, panel = client.activity_feed(), client.approval_panel()
    try:
        assert feed.widget is None and panel.widget is None
        shown = feed._repr_mimebundle_()
        assert "cloudg-activity-table" in shown["text/html"]
        assert "list_datasets" in shown["text/plain"]
        assert "waiting for approval" in panel._repr_mimebundle_()["text/plain"]
    finally:
        feed.close()
        panel.close()


def test_activity_returns_the_newest_entries_last(client: Client) -> None:
    client.call("list_datasets", progress=False)
    client.call("count_assets", group_by="provider", progress=False)
    df = client.activity(limit=2)
    assert df["name"].tolist() == ["list_datasets", "count_assets"]
    assert df["seq"].is_monotonic_increasing
    assert str(df["time"].dtype).startswith("datetime64") and str(df["time"].dt.tz) == "UTC"
    assert client.activity(limit=0).empty
    assert list(client.activity(limit=0).columns) == list(df.columns)


# -- approvals ---------------------------------------------------------------------------------


def test_clicking_approve_in_the_panel_lets_the_waiting_call_run(
        server: JupyterServer, client: Client) -> None:
    panel = ApprovalPanel(client, widget=True)
    try:
        with assistant(server, "asker") as bot:
            call = suppress(bot)
            assert wait_for(lambda: panel.pending, 15, poll=0.05)
            approval = panel.pending[0]
            assert (approval["principal"], approval["tool"]) == ("assistant:asker",
                                                                 "suppress_findings")
            row = panel._rows[panel._slot_ids.index(approval["id"])]
            assert row.box.layout.display == "flex"
            assert "accepted risk" in row.info.value and " s left" in row.info.value
            button = panel.approve_button(approval["id"])
            assert "cloudg-approve" in button._dom_classes
            assert approval["id"] in button.tooltip
            assert "cloudg-approvals" in panel.widget._dom_classes
            assert call.running
            button.click()
            result = call.join()
        assert not result.is_error
        assert [*result.structured_content["suppressed"],
                *result.structured_content["already"]] == [FINDING]
        assert wait_for(lambda: not panel.pending and panel.recent
                        and panel.recent[-1]["state"] == "approved", 5)
        assert wait_for(lambda: row.box.layout.display == "none", 2)
        assert "approved" in panel._recent.value
        assert not panel.decisions[approval["id"]].is_error
    finally:
        panel.close()
        client.call("unsuppress_findings", ids=[FINDING], progress=False)


def test_deny_in_the_panel_tells_the_assistant_the_reason_typed(
        server: JupyterServer, client: Client) -> None:
    panel = ApprovalPanel(client, widget=True)
    try:
        with assistant(server, "refused") as bot:
            call = suppress(bot)
            assert wait_for(lambda: panel.pending, 15, poll=0.05)
            approval_id = panel.pending[0]["id"]
            panel.reason_box(approval_id).value = "not on prod"
            deny = panel.deny_button(approval_id)
            assert "cloudg-deny" in deny._dom_classes
            deny.click()
            result = call.join()
        assert result.is_error and "not on prod" in result.content[0].text
        assert wait_for(lambda: panel.recent and panel.recent[-1]["state"] == "denied", 5)
        assert panel.recent[-1]["reason"] == "not on prod"
    finally:
        panel.close()


def test_the_panels_browser_side_decides_through_the_server_by_default(
        client: Client) -> None:
    panel = ApprovalPanel(client, widget=True)
    try:
        server_side = panel._server
        assert server_side in panel.widget.children
        assert server_side.enabled is True
        assert server_side.api_path == "cloudg/api/approvals"
    finally:
        panel.close()


def test_a_decision_the_browser_could_not_take_is_taken_by_the_kernel(
        server: JupyterServer, client: Client) -> None:
    panel = ApprovalPanel(client, widget=True)
    try:
        with assistant(server, "fallback") as bot:
            call = suppress(bot)
            assert wait_for(lambda: panel.pending, 15, poll=0.05)
            approval_id = panel.pending[0]["id"]
            # What the front end sends when the server did not know the call (or no page).
            panel._server._message(panel._server, {
                "event": "decide", "id": approval_id, "decision": "deny",
                "reason": "  decided by the kernel  "}, [])
            result = call.join()
        assert result.is_error and "decided by the kernel" in result.content[0].text
        assert wait_for(lambda: approval_id in panel.decisions, 5)
        assert panel.decisions[approval_id].data["reason"] == "decided by the kernel"
    finally:
        panel.close()


def test_the_feed_shows_a_call_waiting_for_approval_until_it_is_decided(
        server: JupyterServer, client: Client) -> None:
    feed = ActivityFeed(client, widget=True)
    try:
        with assistant(server, "patient") as bot:
            call = suppress(bot)
            approval = waiting(client, "assistant:patient")
            assert wait_for(lambda: [w["approval_id"] for w in feed.waiting]
                            == [approval["id"]], 5)
            (row,) = rows_of(feed._table.value, "suppress_findings")[:1]
            assert "cloudg-waiting-row" in row and ">waiting<" in row
            assert "1 waiting for approval" in feed.caption()
            client.deny(approval["id"], reason="no")
            call.join()
        assert wait_for(lambda: not feed.waiting, 5)
        assert "cloudg-waiting-row" not in feed._table.value
    finally:
        feed.close()


def test_approve_and_deny_from_python_decide_and_an_unknown_id_is_an_error_result(
        server: JupyterServer, client: Client) -> None:
    with assistant(server, "py") as bot:
        call = suppress(bot)
        approval = waiting(client, "assistant:py")
        assert approval["tool"] == "suppress_findings" and approval["expires_in"] > 0
        assert client.status()["approvals_waiting"] == 1
        denied = client.deny(approval["id"], reason="ask me first")
        assert not denied.is_error and denied.data["state"] == "denied"
        assert call.join().is_error
        again = client.approve(approval["id"])
        assert again.is_error and "no longer waiting" in again.error.message
        assert "denied" in again.error.message

        call = suppress(bot)
        approved = client.approve(waiting(client, "assistant:py")["id"])
        assert not approved.is_error and approved.data["state"] == "approved"
        assert not call.join().is_error
    client.call("unsuppress_findings", ids=[FINDING], progress=False)
    unknown = client.approve("no-such-call")
    assert unknown.is_error and "%cloudg approvals" in unknown.error.message
    assert client.last is unknown
    assert client.status()["approvals_waiting"] == 0


def test_the_awaitable_twins_answer_on_another_loop(
        server: JupyterServer, client: Client) -> None:
    async def look() -> tuple:
        feed = await client.aactivity_feed()
        await asyncio.to_thread(feed.close)
        return (await client.aactivity(limit=1), await client.aapprovals(),
                await client.aassistants(), await client.adeny("no-such-call"), feed)

    client.call("list_datasets", progress=False)
    frame, pending, assistants, denied, feed = asyncio.run(look())
    assert frame["name"].tolist() == ["list_datasets"]
    assert pending == [] and "name" in assistants.columns
    assert denied.is_error and feed.closed and feed.latest is not None


# -- assistants ----------------------------------------------------------------------------------


def _initialize(server: JupyterServer, token: str) -> int:
    """The HTTP status of an MCP initialize with ``token``."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}}
    request = urllib.request.Request(server.endpoint, data=json.dumps(body).encode(),
                                     method="POST", headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def test_assistants_lists_credentials_without_tokens_and_revoking_ends_access(
        server: JupyterServer, client: Client) -> None:
    token = mint(server, "leaving")
    assert _initialize(server, token) == 200
    frame = client.assistants()
    row = frame[frame["name"] == "leaving"].iloc[0]
    assert row["principal"] == "assistant:leaving" and row["profile"] == "assistant"
    assert row["server"] == f"{server.base_url} on {server.root_dir.resolve()}"  # bound here
    assert token not in frame.to_json() and token.startswith(str(row["token_hint"])[:5])
    done = client.revoke_assistant("leaving")
    assert not done.is_error
    assert done.data["revoked"] == "leaving" and done.data["principal"] == "assistant:leaving"
    assert "leaving" not in set(client.assistants()["name"])
    assert _initialize(server, token) in (401, 403)
    again = client.revoke_assistant("leaving")
    assert again.is_error and "list_assistants" in again.error.message
