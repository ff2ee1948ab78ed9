"""Issue 23 acceptance with a real kernel started by a real Jupyter server: an assistant's
sensitive call waits until the analyst's kernel approves it (Python API or the panel's
Approve button, clicked over the kernel websocket as a browser does), a denial ends it with
an error, and other clients' calls flow meanwhile."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.jupyter.server import JupyterServer
from tests.notebook.kernel import ServerKernel, WidgetModel, server_kernel
from tests.protocol.harness import ClientSession

from .assistants import Background, assistant

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")


@pytest.fixture(scope="module")
def kernel(kernel_server: JupyterServer) -> Iterator[ServerKernel]:
    """One server-started kernel with the extension loaded and ``c``, its (remote) client."""
    with server_kernel(kernel_server) as started:
        ready = started.execute("%load_ext cloudg_nb\n"
                                "from cloudg_nb.notebook.client import default_client\n"
                                "c = default_client()\nassert c.mode == 'remote', c")
        assert ready.ok, ready.text
        yield started


@pytest.fixture(scope="module")
def busy(kernel_server: JupyterServer) -> Iterator[ClientSession]:
    """Another assistant whose ordinary calls must flow while a call waits."""
    with assistant(kernel_server, "busy", era="2026") as session:
        yield session


def waiting_id(kernel: ServerKernel, principal: str, timeout: float = 20.0) -> str:
    """The id of ``principal``'s call waiting for approval, as the kernel's client sees it."""
    deadline = time.monotonic() + timeout
    while True:
        ids = kernel.value(f"[a['id'] for a in c.approvals() if a['principal'] == "
                           f"{principal!r}]")
        if ids:
            return str(ids[0])
        assert time.monotonic() < deadline, f"no call of {principal} waits"
        time.sleep(0.1)


def others_flow(busy: ClientSession, kernel: ServerKernel, call: Background) -> None:
    for _ in range(5):
        assert not busy.call_tool("count_assets", {"group_by": "provider"}).is_error
    assert kernel.value("c.call('list_datasets', progress=False).is_error") is False
    assert call.running, "the sensitive call did not wait"


def dataset_names(kernel: ServerKernel) -> list[str]:
    return list(kernel.value("sorted(c.datasets()['name'])"))


def test_an_assistants_unload_waits_until_the_kernel_approves_while_others_flow(
        kernel_server: JupyterServer, kernel: ServerKernel, busy: ClientSession) -> None:
    loaded = kernel.execute("c.call('sample_estate', name='drifted', dataset_name='spare', "
                            "progress=False)\nc.call('select_dataset', name='demo', "
                            "progress=False)")
    assert loaded.ok, loaded.text
    assert "spare" in dataset_names(kernel)
    with assistant(kernel_server, "tidy") as bot:
        call = Background(lambda: bot.call_tool("unload_dataset", {"name": "spare"}))
        approval_id = waiting_id(kernel, "assistant:tidy")
        others_flow(busy, kernel, call)
        assert kernel.value("c.status()['approvals_waiting']") == 1
        assert kernel.value(f"c.approve({approval_id!r}).data['state']") == "approved"
        result = call.join()
    assert not result.is_error, result.content
    assert result.structured_content["unloaded"] == "spare"
    assert "spare" not in dataset_names(kernel)
    feed = kernel.value("c.activity(limit=50).query(\"name == 'unload_dataset'\")"
                        "[['principal', 'assistant', 'approval']].to_dict('records')")
    assert feed[-1] == {"principal": "assistant:tidy", "assistant": True,
                        "approval": "approved"}


def test_a_denied_unload_is_an_error_for_the_assistant_and_unloads_nothing(
        kernel_server: JupyterServer, kernel: ServerKernel, busy: ClientSession) -> None:
    with assistant(kernel_server, "eager") as bot:
        call = Background(lambda: bot.call_tool("unload_dataset", {"name": "demo"}))
        approval_id = waiting_id(kernel, "assistant:eager")
        others_flow(busy, kernel, call)
        denied = kernel.value(f"c.deny({approval_id!r}, reason='keep demo').data")
        assert denied["state"] == "denied" and denied["reason"] == "keep demo"
        result = call.join()
    assert result.is_error and "keep demo" in result.content[0].text
    assert "demo" in dataset_names(kernel)
    again = kernel.value(f"c.approve({approval_id!r}).error.message")
    assert "no longer waiting" in again


def approve_button_for(kernel: ServerKernel, approval_id: str, since: int,
                       timeout: float = 10.0) -> WidgetModel:
    """The Approve button model whose tooltip names ``approval_id``, as the frontend sees it."""
    deadline = time.monotonic() + timeout
    while True:
        for model in kernel.widget_models(since).values():
            state = model.state
            if model.model_name == "ButtonModel" and "cloudg-approve" in state.get(
                    "_dom_classes", ()) and approval_id in str(state.get("tooltip")):
                return model
        assert time.monotonic() < deadline, "no Approve button shows the call"
        time.sleep(0.1)


def test_the_panels_approve_button_clicked_from_the_frontend_lets_the_call_run(
        kernel_server: JupyterServer, kernel: ServerKernel, busy: ClientSession) -> None:
    since = kernel.mark()
    shown = kernel.execute("%cloudg approvals -o panel")
    assert shown.ok and "Traceback" not in shown.text, shown.text
    made = set(kernel.widget_models(since))
    panels = [m for m in kernel.widget_models(since).values()
              if "cloudg-approvals" in m.state.get("_dom_classes", ())]
    assert len(panels) == 1
    try:
        with assistant(kernel_server, "clicked") as bot:
            call = Background(lambda: bot.call_tool(
                "suppress_findings", {"ids": ["f-003"], "reason": "accepted risk"}))
            approval_id = waiting_id(kernel, "assistant:clicked")
            button = approve_button_for(kernel, approval_id, since)
            assert set(kernel.widget_models(since)) == made, "a widget was made after display"
            others_flow(busy, kernel, call)
            kernel.send("comm_msg", {"comm_id": button.comm_id, "data": {
                "method": "custom", "content": {"event": "click"}}})
            result = call.join()
        assert not result.is_error, result.content
        decided = kernel.value(f"panel.decisions[{approval_id!r}].data['decided_by']")
        assert decided and decided != "assistant:clicked"
    finally:
        kernel.execute("panel.close()\nc.call('unsuppress_findings', ids=['f-003'], "
                       "progress=False)")
