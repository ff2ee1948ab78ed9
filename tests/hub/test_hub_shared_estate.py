"""The team's estate files under JupyterHub: one shared folder (read-only for everyone), named
by ``CloudGExtension.allowed_roots`` and loaded at start by ``CloudGExtension.datasets`` (the
documented config): alice and bob both open the same scans, read estate files from that folder
only (no path, ``..`` or link leads out of it), and no tool writes into it: exports land in
each analyst's own output folder."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.protocol.harness import open_session

from .hub import Hub

pytestmark = [pytest.mark.hub, pytest.mark.server,
              pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]


def snapshot(folder: Path) -> dict[str, tuple[int, str]]:
    """Every file under ``folder``: (size, sha256)."""
    return {str(path.relative_to(folder)): (path.stat().st_size,
                                            hashlib.sha256(path.read_bytes()).hexdigest())
            for path in sorted(folder.rglob("*")) if path.is_file()}


@pytest.fixture(scope="module")
def estate(hub: Hub) -> Iterator[Path]:
    """The shared folder; the module checks at its end that nothing in it changed."""
    folder = hub.folder / "estate"
    before = snapshot(folder)
    yield folder
    assert snapshot(folder) == before


@pytest.fixture(scope="module")
def tokens(hub: Hub) -> dict[str, str]:
    return {user: hub.user_token(user, [f"access:servers!user={user}"])
            for user in ("alice", "bob")}


def call(hub: Hub, token: str, user: str, tool: str, arguments: dict[str, Any],
         scheme: str = "token") -> Any:
    with open_session(f"{hub.server_url(user)}cloudg/mcp", "2026",
                      headers={"Authorization": f"{scheme} {token}"}) as mcp:
        return mcp.call_tool(tool, arguments)


def text_of(result: Any) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


def test_alice_and_bob_open_the_same_team_scans_at_start(
        hub: Hub, estate: Path, tokens: dict[str, str]) -> None:
    seen = {}
    for user in ("alice", "bob"):
        answered = requests.get(f"{hub.server_url(user)}cloudg/api/status",
                                headers={"Authorization": f"token {tokens[user]}"}, timeout=30)
        (team,) = [d for d in answered.json()["datasets"] if d["name"] == "team"]
        counted = call(hub, tokens[user], user, "count_assets", {"group_by": "provider"})
        seen[user] = ({k: team[k] for k in ("assets", "edges", "findings")},
                      counted.structured_content)
    assert seen["alice"] == seen["bob"]
    assert seen["alice"][0]["assets"] > 0


def test_an_analyst_loads_more_scans_from_the_shared_folder(
        hub: Hub, estate: Path, tokens: dict[str, str]) -> None:
    loaded = call(hub, tokens["bob"], "bob", "load_dataset",
                  {"path": "inventory-map.json", "name": "team-again"})
    assert not loaded.is_error, text_of(loaded)


@pytest.mark.parametrize("path", [
    "/etc/passwd",
    "../home/bob/audit.jsonl",
    "{hub}/home/bob/audit.jsonl",
    "{hub}/jupyterhub_config.py",
    "link-out/audit.jsonl",
])
def test_estate_files_are_read_from_the_shared_folder_only(
        hub: Hub, estate: Path, tokens: dict[str, str], path: str) -> None:
    link = estate / "link-out"
    if path.startswith("link-out") and not link.exists():
        link.symlink_to(hub.folder / "home" / "bob")  # a link someone left in the folder
    try:
        refused = call(hub, tokens["alice"], "alice", "load_dataset",
                       {"path": path.format(hub=hub.folder), "name": "escaped"})
    finally:
        link.unlink(missing_ok=True)
    assert refused.is_error
    assert "allowed" in text_of(refused).lower() or "outside" in text_of(refused).lower(), \
        text_of(refused)


def test_an_assistant_cannot_read_outside_the_shared_folder_even_when_approved(
        hub: Hub, estate: Path, tokens: dict[str, str]) -> None:
    owner = {"Authorization": f"token {tokens['alice']}"}
    api = f"{hub.server_url('alice')}cloudg/api/"
    minted = requests.post(f"{api}assistants", headers=owner,
                           json={"name": "reader", "client": "other"}, timeout=30)
    assert minted.status_code == 201
    out: dict[str, Any] = {}

    def load() -> None:
        out["result"] = call(hub, minted.json()["token"], "alice", "load_dataset",
                             {"path": f"{hub.folder}/home/bob/audit.jsonl", "name": "peek"},
                             "Bearer")

    reader = threading.Thread(target=load, daemon=True)
    reader.start()
    deadline = time.monotonic() + 15  # its file read waits for alice: she approves it
    while reader.is_alive() and time.monotonic() < deadline:
        pending = requests.get(f"{api}approvals", headers=owner, timeout=30).json()["pending"]
        for waiting in pending:
            if waiting["principal"] == "assistant:reader":
                requests.post(f"{api}approvals/{waiting['id']}", headers=owner, timeout=30,
                              json={"decision": "approve"})
        time.sleep(0.2)
    reader.join(60)
    refused = out["result"]
    assert refused.is_error
    assert "allowed" in text_of(refused).lower(), text_of(refused)


def test_exports_land_in_the_analysts_own_output_folder(
        hub: Hub, estate: Path, tokens: dict[str, str]) -> None:
    exported = call(hub, tokens["alice"], "alice", "export_dataset",
                    {"dataset": "team", "folder": "team-copy"})
    assert not exported.is_error, text_of(exported)
    mine = hub.folder / "home" / "alice" / "cloudg-output" / "team-copy"
    assert sorted(p.name for p in mine.iterdir()) == sorted(
        exported.structured_content["files"])


@pytest.mark.parametrize("folder", ["{estate}", "{estate}/more", "../../estate",
                                    "../../../estate"])
def test_no_export_writes_into_the_shared_folder(
        hub: Hub, estate: Path, tokens: dict[str, str], folder: str) -> None:
    refused = call(hub, tokens["alice"], "alice", "export_dataset",
                   {"dataset": "team", "folder": folder.format(estate=estate)})
    assert refused.is_error, text_of(refused)
    assert "output" in text_of(refused).lower(), text_of(refused)
