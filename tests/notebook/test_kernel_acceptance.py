"""Issue 10 acceptance, with real kernels started by a real Jupyter server (REST API + kernel
websocket, as a browser does) and a separate MCP client standing in for an AI assistant:
remote mode on the server's workspace, error rendering, progress over the widget comm,
LiveFrames following another client's changes, and the stop button during a long call."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.jupyter.server import JupyterServer
from tests.notebook.kernel import (
    ServerKernel,
    WidgetModel,
    server_kernel,
    widget_view_ids,
)
from tests.protocol.harness import ClientSession, open_session

#: What the kernel's MCP client calls itself (``clientInfo.name``), shown in /cloudg/api/status.
KERNEL_CLIENT = "cloudg-nb-kernel"
PROGRESS_MODELS = ("FloatProgressModel", "IntProgressModel")


@pytest.fixture(scope="module")
def assistant(kernel_server: JupyterServer) -> Iterator[ClientSession]:
    """A separate mcp.Client on the same kernel_server, as an AI assistant would connect."""
    with open_session(kernel_server.endpoint, "2025", headers=kernel_server.headers) as session:
        yield session


@pytest.fixture
def kernel(kernel_server: JupyterServer) -> Iterator[ServerKernel]:
    """A fresh server-started kernel with ``%load_ext cloudg_nb`` run."""
    with server_kernel(kernel_server) as started:
        loaded = started.execute("%load_ext cloudg_nb")
        assert loaded.ok, loaded.text
        yield started


def structured(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    result = session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return result.structured_content


def assert_no_traceback(result: Any) -> None:
    assert result.error is None, result.error
    assert result.reply.get("status") == "ok", result.reply
    assert "Traceback" not in result.text, result.text


def test_call_magic_in_a_server_kernel_stores_the_servers_exposed_assets(
        kernel: ServerKernel, assistant: ClientSession, kernel_server: JupyterServer) -> None:
    expected = structured(assistant, "find_assets", internet_exposed=True)
    result = kernel.execute("%cloudg call find_assets internet_exposed=true -o df")
    assert_no_traceback(result)
    facts = kernel.value("{'type': type(df).__module__.split('.')[0] + '.' + type(df).__name__,"
                         " 'ids': sorted(df['id']), 'exposed': bool(df['internet_exposed'].all())}")
    assert facts["type"] == "pandas.DataFrame"
    assert facts["ids"] == sorted(item["id"] for item in expected["items"])
    assert facts["ids"] and facts["exposed"]


def test_server_status_shows_the_kernels_mcp_session(kernel: ServerKernel,
                                                     kernel_server: JupyterServer) -> None:
    result = kernel.execute("%cloudg call find_assets internet_exposed=true -o df")
    assert_no_traceback(result)
    mine = kernel.value("__import__('cloudg_nb.notebook.client', fromlist=['x'])"
                        ".default_client().status()")
    assert mine["mode"] == "remote" and mine["session_id"], mine
    status, body = kernel_server.get_json(kernel_server.status_url)
    assert status == 200
    sessions = [(c["client"], c["session"]) for c in body["clients"]]
    assert (KERNEL_CLIENT, mine["session_id"][:8]) in sessions, (mine, body["clients"])


def test_unknown_tool_prints_a_clear_message_with_close_matches(kernel: ServerKernel) -> None:
    result = kernel.execute("%cloudg call find_asets internet_exposed=true")
    assert_no_traceback(result)
    assert re.search(r"unknown tool|no tool|not found", result.text, re.IGNORECASE), result.text
    assert "find_asets" in result.text
    assert "find_assets" in result.text.replace("find_asets", ""), result.text


def test_bad_argument_value_names_the_argument(kernel: ServerKernel) -> None:
    result = kernel.execute("%cloudg call find_assets internet_exposed=sometimes")
    assert_no_traceback(result)
    assert "internet_exposed" in result.text, result.text


def test_output_variable_of_an_error_stores_nothing(kernel: ServerKernel) -> None:
    assert kernel.execute("kept = 'before'").ok
    bad_value = kernel.execute("%cloudg call find_assets internet_exposed=sometimes -o kept")
    unknown = kernel.execute("%cloudg call find_asets -o fresh")
    assert_no_traceback(bad_value)
    assert_no_traceback(unknown)
    assert kernel.value("[kept, 'fresh' in globals()]") == ["before", False]


def progress_percentages(model: WidgetModel) -> list[float]:
    """Each value the bar showed, as a percentage of its max at that moment."""
    out: list[float] = []
    low, high = model.updates[0].get("min", 0), model.updates[0].get("max", 100)
    for update in model.updates:
        low, high = update.get("min", low), update.get("max", high)
        if "value" in update and high != low:
            out.append(round((update["value"] - low) * 100 / (high - low), 6))
    return out


def test_progress_widget_gets_intermediate_values_ending_at_100_percent(
        kernel: ServerKernel) -> None:
    since = kernel.mark()
    result = kernel.execute("%cloudg call progress_steps steps=5 interval=0.3 -o steps")
    assert_no_traceback(result)
    assert kernel.value("steps") == {"steps": 5}
    bars = [m for m in kernel.widget_models(since).values() if m.model_name in PROGRESS_MODELS]
    assert bars, [m.model_name for m in kernel.widget_models(since).values()]
    assert len(bars) == 1, [b.updates for b in bars]
    shown = progress_percentages(bars[0])
    intermediate = {p for p in shown if 0 < p < 100}
    assert len(intermediate) >= 3, shown
    assert shown[-1] == 100, shown


def descendants(models: dict[str, WidgetModel], root: str) -> set[str]:
    seen, todo = set(), [root]
    while todo:
        comm_id = todo.pop()
        if comm_id in seen or comm_id not in models:
            continue
        seen.add(comm_id)
        todo.extend(models[comm_id].children())
    return seen


def test_live_frame_follows_a_suppression_by_another_client_in_place(
        kernel: ServerKernel, assistant: ClientSession) -> None:
    since = kernel.mark()
    shown = kernel.execute('%cloudg live list_findings severities=["HIGH"] -o lf')
    assert_no_traceback(shown)
    # the LiveFrame's one widget tree (after a progress display when the load was slow)
    views = list(dict.fromkeys(widget_view_ids(shown.displays)))
    assert 1 <= len(views) <= 2, shown.displays
    ids = kernel.value("sorted(lf.df['id'])")
    assert len(ids) >= 2, ids
    target = ids[0]
    opened_before = set(kernel.widget_models(since))
    try:
        structured(assistant, "suppress_findings", ids=[target], reason="accepted risk")
        changed_at = time.monotonic()
        while kernel.value(f"{target!r} in set(lf.df['id'])"):
            assert time.monotonic() - changed_at <= 1.0, "lf.df still lists the finding after 1 s"
            time.sleep(0.02)
        remaining = kernel.value("sorted(lf.df['id'])")
    finally:
        structured(assistant, "unsuppress_findings", ids=[target])
    assert remaining == [i for i in ids if i != target]

    models = kernel.widget_models(since)
    assert set(models) == opened_before, "a widget was created for the update"
    shown = descendants(models, views[-1])
    grids = [m for m in models.values() if m.state.get("table_name")]
    assert len(grids) == 1, [(m.model_name, m.comm_id) for m in grids]
    assert all(grids[0].comm_id not in descendants(models, v) for v in views[:-1])
    grid = grids[0]
    assert grid.comm_id in shown, "the grid is not the displayed one"
    # one table all along (named once, after the model opened): its rows were replaced
    assert [n for n in grid.values("table_name") if n] == [grid.state["table_name"]]
    assert kernel.value("sorted(r['id'] for r in lf._grid.rows())") == remaining
    captions = [m for c, m in models.items() if c in shown and "rows" in str(
        m.state.get("value", ""))]
    assert captions and f"{len(remaining)} rows" in str(captions[0].state["value"])


def audit_lines(kernel_server: JupyterServer) -> list[dict[str, Any]]:
    path = Path(kernel_server.env["JUPYTER_DATA_DIR"]) / "cloudg" / "audit.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def wait_for(predicate: Any, timeout: float = 15.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        assert time.monotonic() < deadline, "condition not met"
        time.sleep(0.05)
    return value


def test_interrupt_cancels_a_long_call_within_2_s_and_the_next_call_works(
        kernel: ServerKernel, kernel_server: JupyterServer, tmp_path: Path) -> None:
    warm = kernel.execute("%cloudg call find_assets internet_exposed=true")
    assert_no_traceback(warm)
    started, marker = tmp_path / "started", tmp_path / "marker"
    msg_id = kernel.start_execute(f"%cloudg call work_until_cancelled marker={marker} "
                                  f"started={started} seconds=30")
    wait_for(started.exists, timeout=30)
    interrupted_at = time.monotonic()
    assert kernel.interrupt() == 204
    stopped = kernel.wait_execute(msg_id, timeout=30, started=interrupted_at)
    assert stopped.seconds <= 2.0, f"control came back after {stopped.seconds:.2f} s"

    wait_for(lambda: marker.exists() and marker.read_text(encoding="utf-8") == "cancelled")
    logged = wait_for(lambda: [line for line in audit_lines(kernel_server)
                               if line["name"] == "work_until_cancelled"])
    assert [line["outcome"] for line in logged] == ["cancelled"]
    assert wait_for(lambda: "cloudg: tool work_until_cancelled by " in kernel_server.log()
                    and "ended early" in kernel_server.log())

    after = kernel.execute("%cloudg call find_assets internet_exposed=true -o df")
    assert_no_traceback(after)
    assert kernel.value("len(df)") == 4


def test_tab_completion_of_ref_values_offers_the_servers_asset_refs(
        kernel: ServerKernel) -> None:
    warm = kernel.execute("%cloudg call find_assets internet_exposed=true")
    assert_no_traceback(warm)
    reply = kernel.complete("%cloudg call get_asset ref=aws-ec2-b")
    assert reply["status"] == "ok", reply
    matches = reply["matches"]
    assert any(m.endswith("aws-ec2-bastion") for m in matches), matches
    assert all("aws-ec2-b" in m for m in matches), matches
