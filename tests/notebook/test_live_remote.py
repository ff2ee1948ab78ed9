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
