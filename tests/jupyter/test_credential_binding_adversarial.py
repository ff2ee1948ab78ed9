"""Assistant credentials are bound to their server, kept private, and revoked promptly from the
store file (issue 36, finding 7), on real Jupyter servers sharing one Jupyter data dir.

``alpha`` and ``beta`` share the data dir (so the credential store) and base_url but serve
other folders; ``gamma`` serves alpha's folder under another base_url; ``delta`` has a store
of its own holding a copy of alpha's entries. A token minted on one server opens a session
on no other (raw requests and real MCP clients, header and query, both eras); a credential
minted before binding opens none; names are per server; the store folder is 0700 and its
files 0600; removing a credential from the file by hand ends that assistant's open event
stream, its calls in flight and its waiting calls at once (the figure is in
``bench/revocation.py``), and nobody else's.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.protocol.harness import TIMEOUT, open_session

from .server import FIXTURE_REGISTRY, JupyterServer, jupyter_server
from .test_assistants import _in_background, _pending, bearer, mint, owner
from .test_auth import INITIALIZE, MCP_HEADERS, request
from .test_framing_adversarial import open_stream

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

BASE = "/user/alice/"
ARGS = [FIXTURE_REGISTRY, "--CloudGExtension.approval_timeout=30"]
#: Generous (a loaded 2-core machine): the server's own bound is its 0.1 s look at the file.
ENDS_WITHIN = 1.0


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Jupyter data dir alpha, beta and gamma share; its cloudg folder left 0755, as the
    audit log created it before the store existed."""
    data = tmp_path_factory.mktemp("shared-data")
    (data / "cloudg").mkdir()
    os.chmod(data / "cloudg", 0o755)
    return data


def _server(tmp: Path, data: Path, base_url: str = BASE) -> Iterator[JupyterServer]:
    with jupyter_server(tmp, base_url=base_url, extra_args=ARGS,
                        env={"JUPYTER_DATA_DIR": str(data)}) as started:
        yield started


@pytest.fixture(scope="module")
def alpha_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("alpha")


@pytest.fixture(scope="module")
def alpha(alpha_dir: Path, shared: Path) -> Iterator[JupyterServer]:
    yield from _server(alpha_dir, shared)


@pytest.fixture(scope="module")
def beta(tmp_path_factory: pytest.TempPathFactory, shared: Path) -> Iterator[JupyterServer]:
    yield from _server(tmp_path_factory.mktemp("beta"), shared)


@pytest.fixture(scope="module")
def gamma(alpha_dir: Path, shared: Path) -> Iterator[JupyterServer]:
    yield from _server(alpha_dir, shared, base_url="/other/")


@pytest.fixture(scope="module")
def delta(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    tmp = tmp_path_factory.mktemp("delta")
    yield from _server(tmp, tmp / "own-data")


def store_of(server: JupyterServer) -> Path:
    return Path(server.env["JUPYTER_DATA_DIR"]) / "cloudg" / "assistants.json"


def identity(server: JupyterServer) -> str:
    return f"{server.base_url} on {server.root_dir.resolve()}"


def initialize(server: JupyterServer, headers: dict[str, str], query: str = "",
               ) -> tuple[int, dict[str, Any], bytes]:
    status, _, raw = request(server, "POST", f"{server.base_url}cloudg/mcp{query}", INITIALIZE,
                             {**MCP_HEADERS, **headers})
    return status, (json.loads(raw) if status != 200 else {}), raw


def edit_by_hand(store: Path, keep: Any) -> None:
    """Rewrite the store file in place, as an editor does, keeping the entries ``keep`` likes."""
    data = json.loads(store.read_text())
    data["assistants"] = [e for e in data["assistants"] if keep(e)]
    store.write_text(json.dumps(data, indent=1) + "\n")


def remove_by_hand(store: Path, name: str, server: JupyterServer) -> None:
    edit_by_hand(store, lambda e: not (e["name"] == name and e.get("server") == identity(server)))


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


# -- a token works on the server that minted it, and on no other ------------------------------


@pytest.mark.parametrize("era", ["2025", "2026"])
def test_a_token_works_on_the_server_that_minted_it(alpha: JupyterServer, era: str) -> None:
    with open_session(alpha.endpoint, era, headers=bearer(mint(alpha, f"home-{era}"))) as s:
        assert s.call_tool("who_am_i", {}).structured_content["id"] == f"assistant:home-{era}"


@pytest.mark.parametrize("other", ["beta", "gamma"])
@pytest.mark.parametrize("how", ["header", "query"])
def test_a_token_is_refused_by_another_server_sharing_the_data_dir(
        request_fixture: Any, alpha: JupyterServer, other: str, how: str) -> None:
    server = request_fixture(other)
    token = mint(alpha, f"roamer-{other}-{how}")
    headers, query = (bearer(token), "") if how == "header" else ({}, f"?token={token}")
    status, body, raw = initialize(server, headers, query)
    assert status == 403
    assert "minted for another Jupyter server" in body["error"]["message"]
    assert "cloudg-nb config" in body["error"]["message"]
    assert body["error"]["data"] == {"reason": "assistant_token_of_another_server"}
    assert token.encode() not in raw and token[5:15].encode() not in raw
    assert initialize(alpha, headers, query)[0] == 200  # still good where it was minted


@pytest.mark.parametrize("other", ["beta", "gamma"])
@pytest.mark.parametrize("era", ["2025", "2026"])
def test_a_real_client_gets_nothing_from_another_server(
        request_fixture: Any, alpha: JupyterServer, other: str, era: str) -> None:
    server = request_fixture(other)
    token = mint(alpha, f"client-{other}-{era}")
    with pytest.raises(Exception) as refused, \
            open_session(server.endpoint, era, headers=bearer(token)) as session:
        session.call_tool("list_datasets", {})
    said = [str(e) for e in _leaves(refused.value)]
    assert any("minted for another Jupyter server" in text for text in said), said
    assert not any(token in text for text in said)


def _leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


def test_a_store_entry_copied_to_another_servers_store_authenticates_nothing(
        alpha: JupyterServer, delta: JupyterServer) -> None:
    token = mint(alpha, "copied")
    store_of(delta).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(store_of(alpha), store_of(delta))
    status, body, _ = initialize(delta, bearer(token))
    assert status == 403 and body["error"]["data"]["reason"] == (
        "assistant_token_of_another_server")
    listed = json.loads(request(delta, "GET", f"{BASE}cloudg/api/assistants",
                                headers=owner(delta))[2])["assistants"]
    assert "copied" not in {a["name"] for a in listed}


def test_one_name_on_two_servers_is_two_credentials(alpha: JupyterServer,
                                                    beta: JupyterServer) -> None:
    on_alpha, on_beta = mint(alpha, "twin"), mint(beta, "twin")
    assert initialize(alpha, bearer(on_alpha))[0] == 200
    assert initialize(beta, bearer(on_beta))[0] == 200
    assert initialize(alpha, bearer(on_beta))[0] == 403
    assert initialize(beta, bearer(on_alpha))[0] == 403
    for server in (alpha, beta):
        listed = json.loads(request(server, "GET", f"{BASE}cloudg/api/assistants",
                                    headers=owner(server))[2])["assistants"]
        (twin,) = [a for a in listed if a["name"] == "twin"]
        assert twin["server"] == identity(server)
    assert request(beta, "DELETE", f"{BASE}cloudg/api/assistants/twin",
                   headers=owner(beta))[0] == 200
    assert initialize(alpha, bearer(on_alpha))[0] == 200  # alpha's twin lives on


def test_a_server_neither_lists_nor_revokes_another_servers_credentials(
        alpha: JupyterServer, beta: JupyterServer) -> None:
    token = mint(alpha, "alphas-own")
    listed = json.loads(request(beta, "GET", f"{BASE}cloudg/api/assistants",
                                headers=owner(beta))[2])["assistants"]
    assert "alphas-own" not in {a["name"] for a in listed}
    status, _, _ = request(beta, "DELETE", f"{BASE}cloudg/api/assistants/alphas-own",
                           headers=owner(beta))
    assert status == 404
    assert initialize(alpha, bearer(token))[0] == 200


# -- credentials minted before binding --------------------------------------------------------


def _cli(server: JupyterServer, *args: str, runtime: Path | None = None,
         ) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in server.env.items() if not k.startswith("JUPYTERHUB_")}
    if runtime is not None:
        env["JUPYTER_RUNTIME_DIR"] = str(runtime)  # no server to discover: the store file
    return subprocess.run([sys.executable, "-m", "cloudg_nb", *args], cwd=server.root_dir,
                          env=env, capture_output=True, text=True, timeout=120)


def test_a_credential_minted_before_binding_is_refused_everywhere_and_shown_for_reminting(
        alpha: JupyterServer, beta: JupyterServer, tmp_path: Path) -> None:
    token = mint(alpha, "old-timer")

    def unbind(entry: dict[str, Any]) -> bool:
        if entry["name"] == "old-timer":
            entry.pop("server", None)  # as cloudg-nb wrote entries before binding
        return True

    edit_by_hand(store_of(alpha), unbind)
    for server in (alpha, beta):
        status, body, _ = initialize(server, bearer(token))
        assert status == 403
        assert "before credentials were bound" in body["error"]["message"]
        assert body["error"]["data"] == {"reason": "assistant_token_of_no_server"}
    listed = json.loads(_cli(alpha, "assistants", "list", "--json", "--url", alpha.url,
                             "--token", alpha.token).stdout)["assistants"]
    (old,) = [a for a in listed if a["name"] == "old-timer"]
    assert old["server"] is None
    (tmp_path / "runtime").mkdir()
    table = _cli(alpha, "assistants", "list", runtime=tmp_path / "runtime")
    (row,) = [line for line in table.stdout.splitlines() if line.startswith("old-timer ")]
    assert row.endswith("(none: mint again)") and "mint a new one" in table.stderr
    again = mint(alpha, "old-timer")  # minting again replaces it
    assert initialize(alpha, bearer(again))[0] == 200
    entries = json.loads(store_of(alpha).read_text())["assistants"]
    assert [e["server"] for e in entries if e["name"] == "old-timer"] == [identity(alpha)]


def test_the_offline_listing_names_every_credentials_server(
        alpha: JupyterServer, beta: JupyterServer, tmp_path: Path) -> None:
    mint(alpha, "listed-a")
    mint(beta, "listed-b")
    (tmp_path / "runtime").mkdir()
    listed = json.loads(_cli(alpha, "assistants", "list", "--json",
                             runtime=tmp_path / "runtime").stdout)["assistants"]
    servers = {a["name"]: a["server"] for a in listed}
    assert servers["listed-a"] == identity(alpha) and servers["listed-b"] == identity(beta)


# -- a private store ----------------------------------------------------------------------------


def test_the_store_folder_is_private_and_its_files_are_the_owners(
        alpha: JupyterServer, shared: Path) -> None:
    mint(alpha, "private")
    folder = shared / "cloudg"
    assert mode(folder) == 0o700  # it was 0755 before the server started
    assert mode(folder / "assistants.json") == 0o600
    assert mode(folder / ".assistants.json.lock") == 0o600
    assert mode(folder / "audit.jsonl") == 0o600
    assert not [p.name for p in folder.iterdir() if mode(p) & 0o077]


def test_a_store_file_made_readable_by_a_hand_edit_is_made_private_again(
        alpha: JupyterServer) -> None:
    token = mint(alpha, "chmodded")
    os.chmod(store_of(alpha), 0o644)
    edit_by_hand(store_of(alpha), lambda e: True)
    assert initialize(alpha, bearer(token))[0] == 200
    assert mode(store_of(alpha)) == 0o600


# -- revoking in the file ends what is open ------------------------------------------------------


def _read_until_closed(response: Any, ended: dict[str, float]) -> None:
    try:
        while response.read1(65536):
            pass
    except Exception:  # a reset connection ends the stream too
        pass
    ended["at"] = time.monotonic()


def test_removing_a_credential_from_the_file_ends_its_open_event_stream(
        alpha: JupyterServer) -> None:
    token = mint(alpha, "streamer")
    conn = open_stream(alpha, token)
    ended: dict[str, float] = {}
    reader = threading.Thread(target=_read_until_closed,
                              args=(conn.last_response, ended), daemon=True)  # type: ignore[attr-defined]
    reader.start()
    try:
        time.sleep(0.3)
        assert reader.is_alive()  # the stream is open
        removed_at = time.monotonic()
        remove_by_hand(store_of(alpha), "streamer", alpha)
        reader.join(10)
        assert "at" in ended
        assert ended["at"] - removed_at < ENDS_WITHIN
    finally:
        conn.close()
    assert initialize(alpha, bearer(token))[0] == 403


@pytest.mark.parametrize("era", ["2025", "2026"])
def test_removing_a_credential_from_the_file_ends_its_call_in_flight(
        alpha: JupyterServer, era: str) -> None:
    name = f"in-flight-{era}"
    started: list[str] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        started.append(message or "")

    with open_session(alpha.endpoint, era, headers=bearer(mint(alpha, name))) as bot:
        thread, out = _in_background(lambda: bot.call_tool(
            "progress_then_sleep", {"seconds": 30}, progress_callback=on_progress))
        bot.wait_for(lambda: started)
        removed_at = time.monotonic()
        remove_by_hand(store_of(alpha), name, alpha)
        thread.join(10)
        ended_after = time.monotonic() - removed_at
    assert not thread.is_alive() and ended_after < ENDS_WITHIN + 0.5
    assert "error" in out or out["result"].is_error


def test_removing_a_credential_from_the_file_denies_its_waiting_call(
        alpha: JupyterServer) -> None:
    with open_session(alpha.endpoint, "2025", headers=bearer(mint(alpha, "asker"))) as bot, \
            open_session(alpha.endpoint, "2025", headers=alpha.headers) as analyst:
        thread, out = _in_background(lambda: bot.call_tool(
            "suppress_findings", {"ids": ["f-001"], "reason": "r"}))
        waiting = _pending(analyst, "suppress_findings")
        remove_by_hand(store_of(alpha), "asker", alpha)
        thread.join(10)
        assert not thread.is_alive()

        def decided() -> Any:
            seen = json.loads(analyst.read_resource("cloudg://approvals").contents[0].text)
            return [a for a in seen["recent"] if a["id"] == waiting["id"]]

        (closed,) = analyst.wait_for(decided, timeout=TIMEOUT)
    assert closed["state"] != "approved"
    assert "error" in out or out["result"].is_error


def test_removing_one_servers_credential_leaves_anothers_of_that_name_running(
        alpha: JupyterServer, beta: JupyterServer) -> None:
    on_alpha, on_beta = mint(alpha, "pair"), mint(beta, "pair")
    with open_session(beta.endpoint, "2025", headers=bearer(on_beta)) as kept:
        conn = open_stream(alpha, on_alpha)
        ended: dict[str, float] = {}
        reader = threading.Thread(target=_read_until_closed,
                                  args=(conn.last_response, ended), daemon=True)  # type: ignore[attr-defined]
        reader.start()
        try:
            remove_by_hand(store_of(alpha), "pair", alpha)
            reader.join(10)
            assert "at" in ended
        finally:
            conn.close()
        time.sleep(0.3)  # several looks at the file by beta's watcher
        assert not kept.call_tool("list_datasets", {}).is_error
    assert initialize(beta, bearer(on_beta))[0] == 200


@pytest.fixture
def request_fixture(request: pytest.FixtureRequest) -> Any:
    """Look a server fixture up by name (for parametrised tests)."""
    return request.getfixturevalue


def test_a_store_that_cannot_be_written_leaves_the_analysts_endpoint_up(tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")  # the data dir would sit under a file: nothing can be created
    with jupyter_server(tmp_path, extra_args=[*ARGS, "--CloudGExtension.audit_log="],
                        env={"JUPYTER_DATA_DIR": str(blocked / "data")}) as server:
        with open_session(server.endpoint, "2025", headers=server.headers) as analyst:
            assert not analyst.call_tool("list_datasets", {}).is_error
        status, _, raw = request(server, "POST", "/cloudg/api/assistants", {"name": "x"},
                                 {**owner(server), "Content-Type": "application/json"})
        assert status == 400 and "assistant credential store" in json.loads(raw)["message"]
        assert "CloudGExtension.assistant_store" in server.log()
