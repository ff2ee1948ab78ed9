"""Attacks on the analyst's control of their data, by assistants holding minted tokens against a
real Jupyter server: side effects that equal an unload (snapshots filling the workspace, a
selection followed by a snapshot), replacements, suppressions and unloads of someone else's
dataset, approvals that would hide what a call does, floods of waiting calls, and the state
changing while an approved call waited. The analyst's data must stay as it was unless the
analyst approved exactly that change."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from cloudg_nb.estate import demo, write_inventory_map
from tests.protocol.harness import TIMEOUT, open_session

from .server import JupyterServer, jupyter_server
from .test_assistants import bearer, mint
from .test_auth import browser_login, request

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

BASE = "/user/alice/"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    tmp = tmp_path_factory.mktemp("governance")
    with jupyter_server(tmp, base_url=BASE, extra_args=[
            "--CloudGExtension.approval_timeout=20",
            "--CloudGExtension.datasets=demo=sample:demo",
            "--CloudGExtension.datasets=prod=sample:drifted"]) as started:
        write_inventory_map(demo(), started.root_dir / "estates" / "week1")
        yield started


@pytest.fixture(scope="module")
def analyst(server: JupyterServer) -> Iterator[Any]:
    with open_session(server.endpoint, "2025", headers=server.headers) as session:
        yield session


def _data(result: Any) -> Any:
    assert not result.is_error, result.content[0].text
    return result.structured_content


def _datasets(session: Any) -> dict[str, Any]:
    return _data(session.call_tool("list_datasets", {}))


def _analysts_view(analyst: Any) -> tuple[str | None, dict[str, tuple[int, str]]]:
    """The analyst's active dataset and, per dataset, its version and owner."""
    listed = _datasets(analyst)
    return listed["active"], {d["name"]: (d["version"], d["owner"]) for d in listed["datasets"]}


def _approvals(analyst: Any) -> dict[str, Any]:
    return json.loads(analyst.read_resource("cloudg://approvals").contents[0].text)


def _pending(analyst: Any, principal: str, tool: str) -> dict[str, Any]:
    def find() -> dict[str, Any] | None:
        return next((a for a in _approvals(analyst)["pending"]
                     if a["principal"] == principal and a["tool"] == tool), None)

    return analyst.wait_for(find, timeout=TIMEOUT)


def _decide(analyst: Any, approval: dict[str, Any], decision: str) -> None:
    _data(analyst.call_tool("decide_approval", {"approval_id": approval["id"],
                                                "decision": decision}))


class _Call:
    """A tool call in a background thread (a call that waits for approval blocks there)."""

    def __init__(self, session: Any, tool: str, arguments: dict[str, Any]) -> None:
        self.out: dict[str, Any] = {}
        self.thread = threading.Thread(target=self._run, args=(session, tool, arguments),
                                       daemon=True)
        self.thread.start()

    def _run(self, session: Any, tool: str, arguments: dict[str, Any]) -> None:
        try:
            self.out["result"] = session.call_tool(tool, arguments)
        except BaseException as exc:
            self.out["error"] = exc

    def result(self) -> Any:
        self.thread.join(TIMEOUT)
        assert not self.thread.is_alive()
        if "error" in self.out:
            raise self.out["error"]
        return self.out["result"]


def _text(result: Any) -> str:
    return str(result.content[0].text) if result.content else ""


# -- side effects that equal an unload ---------------------------------------------------------


@pytest.mark.parametrize("era", ["2025", "2026"])
def test_snapshots_never_evict_the_analysts_datasets(
        server: JupyterServer, analyst: Any, era: str) -> None:
    before = _analysts_view(analyst)
    with open_session(server.endpoint, era, headers=bearer(mint(server, f"snap-{era}"))) as bot:
        made, refused = [], []
        for i in range(15):
            result = bot.call_tool("snapshot_dataset", {"dataset": "demo" if i % 2 else "prod"})
            (refused if result.is_error else made).append(result)
        assert len(made) == 4  # the assistant's own share
        data = refused[0].meta["cloudg/error_data"] if refused[0].meta else {}
        assert "nothing was unloaded" in _text(refused[0]) and data.get("reason") == "quota"
        mine = [d["snapshot"] for d in (m.structured_content for m in made)]
        bot.call_tool("select_dataset", {"name": mine[0]})  # its own active dataset
        again = bot.call_tool("snapshot_dataset", {})
        assert again.is_error and "nothing was unloaded" in _text(again)
        for name in mine:  # its own go without asking
            _data(bot.call_tool("unload_dataset", {"name": name}))
    assert _analysts_view(analyst) == before


def test_activating_never_moves_the_analysts_active_dataset(
        server: JupyterServer, analyst: Any) -> None:
    active, _ = _analysts_view(analyst)
    with open_session(server.endpoint, "2026", headers=bearer(mint(server, "mover"))) as bot:
        _data(bot.call_tool("sample_estate", {"name": "drifted", "dataset_name": "mover-ds",
                                              "activate": True}))
        assert _datasets(bot)["active"] == "mover-ds"
        _data(bot.call_tool("select_dataset", {"name": "prod"}))
        assert _datasets(bot)["active"] == "prod"
        summary = json.loads(bot.read_resource("cloudg://findings/summary").contents[0].text)
        assert summary["dataset"] == "prod"
        assert _analysts_view(analyst)[0] == active
        theirs = json.loads(analyst.read_resource("cloudg://findings/summary").contents[0].text)
        assert theirs["dataset"] == active
        _data(bot.call_tool("unload_dataset", {"name": "mover-ds"}))
    assert _analysts_view(analyst)[0] == active


# -- changes to someone else's data wait, and show what they do ---------------------------------


@pytest.mark.parametrize("tool, arguments, shown", [
    ("unload_dataset", {"name": "prod"}, "UNLOADS dataset prod (the analyst's"),
    ("sample_estate", {"name": "demo", "dataset_name": "prod", "replace": True},
     "REPLACES dataset prod (the analyst's"),
    ("suppress_findings", {"ids": ["f-001"], "reason": "accepted", "dataset": "prod"},
     "SUPPRESSES 1 finding(s) in dataset prod (the analyst's"),
    ("unsuppress_findings", {"ids": ["f-001"], "dataset": "prod"},
     "UNSUPPRESSES 1 finding(s) in dataset prod (the analyst's"),
])
def test_a_change_to_the_analysts_data_waits_and_a_denial_changes_nothing(
        server: JupyterServer, analyst: Any, tool: str, arguments: dict[str, Any],
        shown: str) -> None:
    before = _analysts_view(analyst)
    name = f"changer-{tool.replace('_', '-')}"
    with open_session(server.endpoint, "2025", headers=bearer(mint(server, name))) as bot:
        call = _Call(bot, tool, arguments)
        approval = _pending(analyst, f"assistant:{name}", tool)
        assert shown in approval["summary"]
        assert approval["effects"][0]["changes_others_data"] is True
        assert set(approval["arguments"]) >= set(arguments)
        _decide(analyst, approval, "deny")
        assert call.result().is_error
    assert _analysts_view(analyst) == before


def test_one_assistant_cannot_change_anothers_dataset_unasked(
        server: JupyterServer, analyst: Any) -> None:
    with open_session(server.endpoint, "2025", headers=bearer(mint(server, "owner-a"))) as a, \
            open_session(server.endpoint, "2026", headers=bearer(mint(server, "other-b"))) as b:
        _data(a.call_tool("snapshot_dataset", {"dataset": "demo", "name": "a-copy"}))
        call = _Call(b, "suppress_findings", {"ids": ["f-001"], "dataset": "a-copy"})
        approval = _pending(analyst, "assistant:other-b", "suppress_findings")
        assert approval["effects"][0]["owner"] == "assistant:owner-a"
        _decide(analyst, approval, "deny")
        assert call.result().is_error
        _data(a.call_tool("unload_dataset", {"name": "a-copy"}))


def test_the_approval_shows_a_padded_path_resolved_and_every_flag(
        server: JupyterServer, analyst: Any) -> None:
    padded = "./" * 2000 + "estates/week1/inventory-map.json"
    before = _analysts_view(analyst)
    with open_session(server.endpoint, "2025", headers=bearer(mint(server, "padder"))) as bot:
        call = _Call(bot, "load_dataset", {"path": padded, "name": "prod", "replace": True})
        approval = _pending(analyst, "assistant:padder", "load_dataset")
        read, replaced, selected = approval["effects"]
        assert read["path"] == "estates/week1/inventory-map.json"
        assert replaced["effect"] == "replace_dataset" and replaced["dataset"] == "prod"
        assert replaced["owner"] == "analyst" and replaced["changes_others_data"]
        assert selected["effect"] == "select_dataset" and not selected["changes_others_data"]
        assert approval["arguments"]["path"] == read["path"]
        assert approval["arguments"]["replace"] is True
        assert approval["arguments"]["strict"] is False  # every flag, defaults too
        cookies = browser_login(server)
        status, _, page = request(server, "GET", f"{BASE}cloudg/approvals/{approval['id']}",
                                  headers={"Cookie": "; ".join(f"{k}={v}"
                                                               for k, v in cookies.items())})
        assert status == 200
        assert b"REPLACES dataset prod" in page and b"estates/week1/inventory-map.json" in page
        assert b"&quot;replace&quot;: true" in page and b"./././" not in page
        _decide(analyst, approval, "deny")
        assert call.result().is_error
    assert _analysts_view(analyst) == before


def test_a_call_too_large_to_show_is_refused_not_cut(
        server: JupyterServer, analyst: Any) -> None:
    with open_session(server.endpoint, "2025", headers=bearer(mint(server, "bulk"))) as bot:
        result = bot.call_tool("suppress_findings",
                               {"ids": [f"f-{i:05d}" for i in range(300)], "dataset": "prod"})
        assert result.is_error and "split" in _text(result).lower()
    assert not [a for a in _approvals(analyst)["pending"] if a["principal"] == "assistant:bulk"]


# -- limits on asking -------------------------------------------------------------------------


def test_an_assistant_may_keep_only_three_calls_waiting(
        server: JupyterServer, analyst: Any) -> None:
    token = mint(server, "asker")
    sessions = [open_session(server.endpoint, "2025", headers=bearer(token))
                for _ in range(10)]
    opened = [s.__enter__() for s in sessions]
    try:
        calls = [_Call(s, "unload_dataset", {"name": "demo"}) for s in opened]
        analyst.wait_for(lambda: sum(1 for c in calls if not c.thread.is_alive()) >= 7,
                         timeout=TIMEOUT)
        waiting = [a for a in _approvals(analyst)["pending"]
                   if a["principal"] == "assistant:asker"]
        assert len(waiting) == 3
        refused = [c.result() for c in calls if not c.thread.is_alive()]
        assert len(refused) == 7
        assert all(r.is_error and "3 of your calls already wait" in _text(r) for r in refused)
        with open_session(server.endpoint, "2025",  # another assistant may still ask
                          headers=bearer(mint(server, "asker-2"))) as other:
            one = _Call(other, "unload_dataset", {"name": "demo"})
            _decide(analyst, _pending(analyst, "assistant:asker-2", "unload_dataset"), "deny")
            assert one.result().is_error
        for approval in waiting:
            _decide(analyst, approval, "deny")
        assert all(c.result().is_error for c in calls)
    finally:
        for s in sessions:
            s.__exit__(None, None, None)
    assert "demo" in _analysts_view(analyst)[1]


# -- an approval covers what it showed, not what the state became -------------------------------


def test_an_approved_call_cannot_replace_what_appeared_while_it_waited(
        server: JupyterServer, analyst: Any) -> None:
    with open_session(server.endpoint, "2025", headers=bearer(mint(server, "racer"))) as bot:
        call = _Call(bot, "load_dataset", {"path": "estates/week1", "name": "fresh",
                                           "replace": True, "activate": False})
        approval = _pending(analyst, "assistant:racer", "load_dataset")
        assert [e["effect"] for e in approval["effects"]] == ["read_files", "add_dataset"]
        _data(analyst.call_tool("sample_estate", {"name": "drifted", "dataset_name": "fresh",
                                                  "activate": False}))
        version = _analysts_view(analyst)[1]["fresh"]
        _decide(analyst, approval, "approve")
        result = call.result()
        assert result.is_error and "no approval" in _text(result)
    assert _analysts_view(analyst)[1]["fresh"] == version  # the analyst's, untouched
    _data(analyst.call_tool("unload_dataset", {"name": "fresh"}))


def test_an_approved_change_runs(server: JupyterServer, analyst: Any) -> None:
    _data(analyst.call_tool("sample_estate", {"name": "demo", "dataset_name": "scratch",
                                              "activate": False}))
    with open_session(server.endpoint, "2026", headers=bearer(mint(server, "helper"))) as bot:
        call = _Call(bot, "unload_dataset", {"name": "scratch"})
        _decide(analyst, _pending(analyst, "assistant:helper", "unload_dataset"), "approve")
        assert not call.result().is_error
    assert "scratch" not in _analysts_view(analyst)[1]
