"""An assistant cannot lock the analyst out (issue 36, finding 2), tried as an attacker holding
minted assistant tokens against one real Jupyter server at its default limits (8 calls at once,
4 kept for the analyst, 2 running and 2 waiting per assistant), with 12 sessions per user.

Attacks: one assistant flooding from many connections and sessions in both protocol eras and
retrying at once when refused; more sessions than its cap; several assistants at once; light
and heavy CPU-bound work; an assistant cancelling its waiting calls. Each time the analyst's
calls are answered without waiting behind the assistants' work and are never refused, the
assistant runs at most its share, and a call beyond it is refused at once with a retry hint.
"""

from __future__ import annotations

import contextlib
import json
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import httpx2
import pytest
from mcp.client.streamable_http import streamable_http_client

from tests.protocol.harness import make_client

from .fixture_registry import ALL_ASSISTANTS
from .server import FIXTURE_REGISTRY, JupyterServer, jupyter_server
from .test_auth import mcp

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

ERAS = ("2025", "2026")
#: The default share of one assistant: calls running, calls waiting.
RUNNING, WAITING = 2, 2
#: Slots of the default max_concurrency (8) that assistants may hold together.
ASSISTANT_SLOTS = 4
#: Open MCP sessions one user (or assistant) may hold on the test server.
SESSIONS = 12


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    tmp = tmp_path_factory.mktemp("fair-share")
    with jupyter_server(tmp, extra_args=[
            FIXTURE_REGISTRY, f"--CloudGExtension.max_sessions_per_user={SESSIONS}"]) as started:
        yield started


def mint(server: JupyterServer, name: str) -> str:
    request = urllib.request.Request(
        f"{server.url}cloudg/api/assistants", method="POST",
        data=json.dumps({"name": name, "client": "other"}).encode(),
        headers={"Authorization": f"token {server.token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 201
        return str(json.loads(response.read())["token"])


@contextlib.asynccontextmanager
async def connect(server: JupyterServer, token: str, era: str) -> AsyncIterator[Any]:
    """An official-SDK client over HTTP holding ``token``, speaking ``era``."""
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"},
                                  timeout=httpx2.Timeout(30, read=60)) as http:
        transport = streamable_http_client(server.endpoint, http_client=http)
        async with make_client(transport, era) as client:
            yield client


async def peaks(server: JupyterServer, reset: bool = False) -> dict[str, Any]:
    async with connect(server, server.token, "2025") as client:
        result = await client.call_tool("running_peaks", {"reset": reset})
    return dict(result.structured_content)


def busy(result: Any) -> bool:
    return bool(result.is_error) and result.content[0].text.startswith("Server busy")


class Flood:
    """Connections of one assistant looping a call, retrying at once when refused."""

    def __init__(self) -> None:
        self.done = 0
        self.refused: list[dict[str, Any]] = []
        self.errors: list[str] = []

    async def loop(self, server: JupyterServer, token: str, era: str, tool: str,
                   arguments: dict[str, Any], stop: anyio.Event) -> None:
        async with connect(server, token, era) as client:
            while not stop.is_set():
                result = await client.call_tool(tool, arguments)
                if busy(result):
                    self.refused.append(result.meta["cloudg/error_data"])
                elif result.is_error:
                    self.errors.append(result.content[0].text)
                else:
                    self.done += 1


async def analyst_calls(server: JupyterServer, era: str, tool: str, arguments: dict[str, Any],
                        count: int) -> list[tuple[float, Any]]:
    """``count`` of the analyst's calls one after another: (seconds, result) each."""
    out = []
    async with connect(server, server.token, era) as client:
        for _ in range(count):
            started = time.monotonic()
            result = await client.call_tool(tool, arguments)
            out.append((time.monotonic() - started, result))
    return out


# -- one assistant, many connections --------------------------------------------------------


async def test_analyst_is_answered_while_one_assistant_floods_from_many_connections(
        server: JupyterServer) -> None:
    token = mint(server, "flood-light")
    flood, stop = Flood(), anyio.Event()
    burn = {"seconds": 2.5}
    async with anyio.create_task_group() as group:
        for i in range(16):
            group.start_soon(flood.loop, server, token, ERAS[i % 2], "counted_burn", burn,
                             stop)
        await anyio.sleep(1.0)  # every connection looping, the assistant's share full
        answered = {era: await analyst_calls(server, era, "list_datasets", {}, 8)
                    for era in ERAS}
        stop.set()
    for era, calls in answered.items():
        assert not [r for _, r in calls if r.is_error], era
        took = [round(seconds, 3) for seconds, _ in calls]
        assert max(took) < 2.5, (era, took)  # never behind one of the assistant's calls
    assert flood.refused and not flood.errors, flood.errors
    assert all(1.0 <= r["retry_after"] <= 10.0 for r in flood.refused)
    assert (await peaks(server))["peaks"]["assistant:flood-light"] == RUNNING


@pytest.mark.parametrize("era", ERAS)
async def test_assistant_beyond_its_share_is_refused_at_once_whatever_its_sessions(
        server: JupyterServer, era: str) -> None:
    token = mint(server, f"many-sessions-{era}")
    results: list[tuple[float, Any]] = []

    async def one(tag: str) -> None:
        async with connect(server, token, era) as client:
            started = time.monotonic()
            result = await client.call_tool("counted_sleep", {"seconds": 2.0, "tag": tag})
            results.append((time.monotonic() - started, result))

    async with anyio.create_task_group() as group:
        for i in range(8):  # eight sessions (connections), one call each
            group.start_soon(one, f"s{i}")
    refused = [(seconds, r) for seconds, r in results if busy(r)]
    done = [r for _, r in results if not r.is_error]
    assert len(done) == RUNNING + WAITING
    assert len(refused) == 8 - RUNNING - WAITING
    for seconds, result in refused:
        data = result.meta["cloudg/error_data"]
        assert data["scope"] == "principal" and data["limit"] == RUNNING
        assert data["retry_after"] >= 1.0
        assert "retry" in result.content[0].text.lower()
        assert seconds < 1.5  # at once, not after the running calls' 2 s
    counted = await peaks(server)
    assert counted["peaks"][f"assistant:many-sessions-{era}"] == RUNNING


async def test_refusals_to_an_assistant_retrying_at_once_are_paced(
        server: JupyterServer) -> None:
    token = mint(server, "impatient")
    flood, stop = Flood(), anyio.Event()
    async with connect(server, token, "2026") as client, anyio.create_task_group() as group:
        for i in range(RUNNING + WAITING):  # its share, held for the whole attack
            group.start_soon(client.call_tool, "counted_sleep", {"seconds": 4.0,
                                                                 "tag": f"h{i}"})
        await anyio.sleep(0.3)
        started = time.monotonic()
        for i in range(8):
            group.start_soon(flood.loop, server, token, ERAS[i % 2], "counted_sleep",
                             {"seconds": 0.1}, stop)
        await anyio.sleep(2.0)
        stop.set()
        elapsed = time.monotonic() - started
    hint = min(r["retry_after"] for r in flood.refused)
    # a burst of 8 at once, then 8 per retry_after: not one refusal per round trip
    assert len(flood.refused) <= 8 + 8 * (elapsed + 1.0) / hint, (len(flood.refused), hint)
    assert flood.done == 0 and not flood.errors


async def test_sessions_beyond_an_assistants_cap_close_only_its_own(
        server: JupyterServer) -> None:
    token = mint(server, "session-hoarder")
    async with connect(server, server.token, "2025") as analyst:
        assert not (await analyst.call_tool("list_datasets", {})).is_error
        opened = [mcp(server, Authorization=f"Bearer {token}")[0]
                  for _ in range(3 * SESSIONS)]  # initialize-only sessions, left open
        status, listing = server.get_json(f"{server.url}cloudg/api/assistants")
        after = await analyst.call_tool("list_datasets", {})  # her idle session lives on
    assert opened == [200] * (3 * SESSIONS)  # each made room by closing its own oldest
    assert status == 200
    held = {a["name"]: a["sessions"] for a in listing["assistants"]}  # type: ignore[index]
    assert held["session-hoarder"] == SESSIONS
    assert not after.is_error


# -- several assistants -------------------------------------------------------------------


async def test_several_assistants_share_their_slots_in_turn_and_the_analyst_keeps_hers(
        server: JupyterServer) -> None:
    tokens = [mint(server, f"crowd-{i}") for i in range(3)]
    await peaks(server, reset=True)
    floods = [Flood() for _ in tokens]
    stop = anyio.Event()
    analyst: list[Any] = []

    async def analyst_call(client: Any, tag: str) -> None:
        analyst.append(await client.call_tool("counted_sleep", {"seconds": 1.0, "tag": tag}))

    async with connect(server, server.token, "2025") as client, \
            anyio.create_task_group() as group:
        for flood, token in zip(floods, tokens, strict=True):
            for i in range(3):
                group.start_soon(flood.loop, server, token, ERAS[i % 2], "counted_sleep",
                                 {"seconds": 0.4}, stop)
        await anyio.sleep(1.0)
        started = time.monotonic()
        async with anyio.create_task_group() as burst_group:
            for i in range(ASSISTANT_SLOTS):
                burst_group.start_soon(analyst_call, client, f"a{i}")
        burst = time.monotonic() - started
        await anyio.sleep(1.5)
        stop.set()
    assert len(analyst) == ASSISTANT_SLOTS and not [r for r in analyst if r.is_error]
    assert burst < 1.9  # all four ran at once in the analyst's kept slots
    counted = await peaks(server)
    assert counted["peaks"][ALL_ASSISTANTS] <= ASSISTANT_SLOTS
    assert all(flood.done >= 2 for flood in floods), [f.done for f in floods]  # none starved
    assert not any(flood.errors for flood in floods)


async def test_heavy_work_of_two_assistants_leaves_the_analyst_a_heavy_thread(
        server: JupyterServer) -> None:
    # The graph the analyst's call reads is built first: this is about waiting for a heavy
    # thread, not about a cold build sharing the interpreter with CPU-bound threads.
    await analyst_calls(server, "2026", "graph_stats", {}, 1)
    tokens = [mint(server, f"heavy-{i}") for i in range(2)]
    floods = [Flood() for _ in tokens]
    stop = anyio.Event()
    async with anyio.create_task_group() as group:
        for flood, token in zip(floods, tokens, strict=True):
            for era in ERAS:
                group.start_soon(flood.loop, server, token, era, "counted_heavy_burn",
                                 {"seconds": 1.5}, stop)
        await anyio.sleep(1.0)
        calls = await analyst_calls(server, "2026", "graph_stats", {}, 3)  # the heavy lane
        stop.set()
    assert not [r for _, r in calls if r.is_error]
    assert max(seconds for seconds, _ in calls) < 1.5  # not behind a 1.5 s heavy call
    assert sum(flood.done for flood in floods) >= 1


# -- cancelled calls -------------------------------------------------------------------------


async def test_waiting_calls_an_assistant_cancels_give_their_places_back(
        server: JupyterServer) -> None:
    token = mint(server, "canceller")
    async with connect(server, token, "2025") as client, anyio.create_task_group() as group:
        for i in range(RUNNING):
            group.start_soon(client.call_tool, "counted_sleep", {"seconds": 2.5,
                                                                 "tag": f"run{i}"})
        await anyio.sleep(0.3)
        for i in range(WAITING):  # wait, then give up (the client cancels them)
            with anyio.move_on_after(0.5):
                await client.call_tool("counted_sleep", {"seconds": 0.1,
                                                         "tag": f"gave-up{i}"})
        later = await client.call_tool("counted_sleep", {"seconds": 0.1, "tag": "later"})
    assert not later.is_error  # queued in a freed place, not refused
    started = (await peaks(server))["started"]["assistant:canceller"]
    assert sorted(started) == ["later", "run0", "run1"]  # the cancelled ones never ran
