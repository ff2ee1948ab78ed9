"""The assistant credentials of one server (``cloudg_jupyter.assistant_credentials``,
in-process, over a real store file and a recording endpoint): minting, listing, revoking and
authenticating; a revoked or replaced credential ends its holder's sessions and waiting calls;
a credential removed from the file by another process is noticed. The same, end to end
against a real server, is in ``test_assistants.py``."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Mapping
from pathlib import Path
from typing import Any

import pytest
from cloudg_jupyter.assistant_auth import OTHER_SERVER, UNBOUND, UNKNOWN, AssistantRefused
from cloudg_jupyter.assistant_credentials import AssistantCredentials
from cloudg_jupyter.identity import Identity
from jupyter_server.auth.identity import IdentityProvider

from cloudg_nb.assistants import AssistantStore, AssistantStoreError
from cloudg_nb.policy import Policy
from cloudg_nb.policy.router import PolicyRouter

SERVER = "server-a"


class RecordingEndpoint:
    """The endpoint as the credentials see it (``Serving``): what they asked it to do."""

    def __init__(self) -> None:
        self.setup_problem: str | None = None
        self.sessions: dict[str | None, int] = {"assistant:bot": 2}
        self.closed: list[str] = []
        self.denied: list[tuple[str, str]] = []
        self.events: list[dict[str, Any]] = []
        self.background: list[asyncio.Task[Any]] = []

    def sessions_by_owner(self) -> Mapping[str | None, int]:
        return self.sessions

    async def close_sessions_of(self, principal_id: str) -> int:
        self.closed.append(principal_id)
        return self.sessions.pop(principal_id, 0)

    def cancel_waiting_calls(self, principal_id: str, reason: str) -> int:
        self.denied.append((principal_id, reason))
        return 1

    def record_event(self, fields: dict[str, Any]) -> None:
        self.events.append(fields)

    def run_in_background(self, work: Coroutine[Any, Any, Any]) -> None:
        self.background.append(asyncio.get_running_loop().create_task(work))


@pytest.fixture
def endpoint() -> RecordingEndpoint:
    return RecordingEndpoint()


@pytest.fixture
def store(tmp_path: Path) -> AssistantStore:
    return AssistantStore(tmp_path / "assistants.json")


@pytest.fixture
def identity() -> Identity:
    return Identity(IdentityProvider(token="t"), {}, ["default"])


@pytest.fixture
def credentials(endpoint: RecordingEndpoint, identity: Identity,
                store: AssistantStore) -> AssistantCredentials:
    made = AssistantCredentials(endpoint, identity, logging.getLogger("test"), "assistant")
    made.open(store, SERVER)
    made.profiles = PolicyRouter(Policy.load("standard"))
    return made


def test_minting_before_the_endpoint_is_built_says_why_it_is_not_available(
        endpoint: RecordingEndpoint, identity: Identity) -> None:
    endpoint.setup_problem = "CloudGExtension.policy: no such profile"
    unbuilt = AssistantCredentials(endpoint, identity, logging.getLogger("test"), "assistant")
    with pytest.raises(AssistantStoreError, match=r"not available: CloudGExtension\.policy"):
        unbuilt.mint_assistant("bot")
    assert unbuilt.describe_assistants() == [] and unbuilt.credential_count() == 0


async def test_a_minted_credential_is_bound_to_this_server_and_audited(
        credentials: AssistantCredentials, endpoint: RecordingEndpoint) -> None:
    token, record, replaced = credentials.mint_assistant("bot", client="cursor")
    assert (record.server, replaced) == (SERVER, False)
    assert credentials.authenticate_assistant(token) == record
    assert endpoint.events == [{"event": "assistant.minted", "assistant": "assistant:bot",
                                "client": "cursor", "profile": None, "replaced": False}]


def test_a_profile_that_does_not_load_is_refused_before_minting(
        credentials: AssistantCredentials, store: AssistantStore) -> None:
    with pytest.raises(AssistantStoreError, match=r"^profile: "):
        credentials.mint_assistant("bot", profile="no-such-profile")
    assert store.records() == []


async def test_replacing_a_credential_ends_the_old_holders_sessions_and_waiting_calls(
        credentials: AssistantCredentials, endpoint: RecordingEndpoint,
        identity: Identity) -> None:
    old, record, _ = credentials.mint_assistant("bot")
    scope = identity.assistant_scope(record)
    _, _, replaced = credentials.mint_assistant("bot")
    await asyncio.gather(*endpoint.background)
    assert replaced and endpoint.closed == ["assistant:bot"]
    assert endpoint.denied == [("assistant:bot", "its credential was replaced")]
    assert identity.assistant_scope(record) is not scope
    with pytest.raises(AssistantRefused):
        credentials.authenticate_assistant(old)


def test_an_unknown_token_is_refused_as_unknown(credentials: AssistantCredentials) -> None:
    with pytest.raises(AssistantRefused) as caught:
        credentials.authenticate_assistant("cgat_" + "x" * 43)
    assert caught.value.reason == UNKNOWN


def test_a_credential_of_another_server_is_refused_and_logged_once(
        credentials: AssistantCredentials, store: AssistantStore,
        caplog: pytest.LogCaptureFixture) -> None:
    token, _, _ = store.mint("elsewhere", server="server-b")
    unbound, _, _ = store.mint("old")
    reasons = []
    with caplog.at_level(logging.WARNING, logger="test"):
        for presented in (token, token, unbound):
            with pytest.raises(AssistantRefused) as caught:
                credentials.authenticate_assistant(presented)
            reasons.append(caught.value.reason)
    assert reasons == [OTHER_SERVER, OTHER_SERVER, UNBOUND]
    logged = [r.getMessage() for r in caplog.records]
    assert len(logged) == 2 and "server-b" in logged[0] and token not in "".join(logged)


def test_the_listing_shows_profile_last_use_and_sessions_never_tokens(
        credentials: AssistantCredentials) -> None:
    token, _, _ = credentials.mint_assistant("bot")
    credentials.mint_assistant("quiet", profile="strict")
    credentials.authenticate_assistant(token)
    listed = {a["name"]: a for a in credentials.describe_assistants()}
    assert listed["bot"]["profile"] == "assistant" and listed["quiet"]["profile"] == "strict"
    assert listed["bot"]["last_used"] is not None and listed["quiet"]["last_used"] is None
    assert (listed["bot"]["sessions"], listed["quiet"]["sessions"]) == (2, 0)
    assert token not in str(listed)
    assert credentials.credential_count() == 2


async def test_revoking_ends_sessions_denies_waiting_calls_and_is_audited(
        credentials: AssistantCredentials, endpoint: RecordingEndpoint) -> None:
    token, _, _ = credentials.mint_assistant("bot")
    answer = await credentials.revoke_assistant("bot", "alice")
    assert answer == {"revoked": "bot", "principal": "assistant:bot", "sessions_ended": 2,
                      "calls_denied": 1}
    assert endpoint.events[-1] == {"event": "assistant.revoked", "assistant": "assistant:bot",
                                   "by": "alice", "sessions_ended": 2, "calls_denied": 1}
    with pytest.raises(AssistantRefused):
        credentials.authenticate_assistant(token)


async def test_revoking_a_name_with_no_credential_answers_none(
        credentials: AssistantCredentials) -> None:
    assert await credentials.revoke_assistant("nobody", "alice") is None


async def test_a_credential_removed_from_the_file_by_another_process_ends_its_sessions(
        credentials: AssistantCredentials, endpoint: RecordingEndpoint,
        store: AssistantStore) -> None:
    token, _, _ = credentials.mint_assistant("bot")
    credentials.authenticate_assistant(token)
    watcher = asyncio.create_task(credentials.watch_store(every=0.01))
    try:
        await asyncio.sleep(0.05)
        AssistantStore(store.path).revoke("bot")  # e.g. `cloudg-nb assistants revoke bot`
        for _ in range(200):
            if endpoint.closed:
                break
            await asyncio.sleep(0.01)
    finally:
        watcher.cancel()
    assert endpoint.closed == ["assistant:bot"]
    assert endpoint.events[-1]["by"] == "store file"
