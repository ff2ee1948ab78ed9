"""LiveFrame over a real Jupyter server with the extension: an assistant's suppression (a
separate MCP client) reaches a notebook client's LiveFrame through resources/updated."""

from __future__ import annotations

import time

from cloudg_nb.notebook.client import Client
from cloudg_nb.notebook.live import LiveFrame
from tests.jupyter.server import JupyterServer
from tests.protocol.harness import open_session


def test_an_assistants_suppression_reaches_a_remote_live_frame_within_a_second(
    server: JupyterServer, client: Client,
) -> None:
    lf = LiveFrame(client, "list_findings", {"severities": ["HIGH"]}, widget=True)
    try:
        gone = str(lf.df["id"].iloc[0])
        version = lf.version
        with open_session(server.endpoint, "2025", headers=server.headers) as assistant:
            done = assistant.call_tool("suppress_findings", {"ids": [gone], "reason": "ok"})
            assert not done.is_error
            sent = time.monotonic()
            while gone in set(lf.df["id"]) and time.monotonic() - sent < 1.0:
                time.sleep(0.01)
        assert gone not in set(lf.df["id"])
        assert version is not None and lf.version == version + 1
        assert gone not in lf._table.value
    finally:
        lf.close()
        client.call("unsuppress_findings", ids=[gone], progress=False)


def test_a_remote_refresh_reads_only_the_changed_rows_and_matches_a_fresh_read(
    server: JupyterServer, client: Client,
) -> None:
    lf = LiveFrame(client, "find_assets", {"has_findings": True, "sort_by": "risk"},
                   widget=False)
    try:
        assert lf.last_read == "full"
        finding = client.frame("list_findings", progress=False)["id"].iloc[0]
        with open_session(server.endpoint, "2025", headers=server.headers) as assistant:
            assert not assistant.call_tool("suppress_findings", {"ids": [finding]}).is_error
        refreshes = lf.refreshes
        deadline = time.monotonic() + 5
        while lf.refreshes == refreshes and time.monotonic() < deadline:
            time.sleep(0.01)
        assert lf.last_read == "changes"
        fresh = client.frame("find_assets", has_findings=True, sort_by="risk", progress=False)
        assert lf.df["id"].tolist() == fresh["id"].tolist()
        assert lf.df["open_findings"].tolist() == fresh["open_findings"].tolist()
    finally:
        lf.close()
        client.call("unsuppress_findings", ids=[finding], progress=False)


def test_an_assistant_activating_its_own_dataset_never_switches_the_analysts_live_frame(
    server: JupyterServer, client: Client,
) -> None:
    from tests.notebook.assistants import assistant

    lf = LiveFrame(client, "list_findings", {}, widget=False)  # follows the active dataset
    try:
        shown, rows = lf.dataset, lf.df["id"].tolist()
        with assistant(server, "switcher") as bot:
            done = bot.call_tool("sample_estate", {"name": "drifted", "activate": True,
                                                   "dataset_name": "switcher-ds"})
            assert not done.is_error
            assert not bot.call_tool("select_dataset", {"name": "switcher-ds"}).is_error
            refreshes = lf.refreshes
            deadline = time.monotonic() + 5  # the workspace changed: the frame re-reads
            while lf.refreshes == refreshes and time.monotonic() < deadline:
                time.sleep(0.01)
            assert lf.refreshes > refreshes
            assert lf.dataset == shown and lf.df["id"].tolist() == rows
            assert not bot.call_tool("unload_dataset", {"name": "switcher-ds"}).is_error
    finally:
        lf.close()
