"""Bounded HTTP sessions: idle ones expire, a caller's cap makes room by closing its
longest-idle session, busy callers at their cap get a 503 that says what to do, and a flood of
initialize-only sessions neither locks out a new client nor keeps its memory.

Real ``cloudg-nb serve --transport http`` processes on 127.0.0.1, driven with raw HTTP.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cloudg_nb.protocol.sessions import SessionLimits
from tests.lanes import starts

from .harness import ServerProcess, open_session
from .raw_http import (
    INITIALIZE,
    flood_initialize,
    initialize,
    open_get_stream,
    ping,
    post,
    session_headers,
)

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")

FLOOD = 10_000
ALICE = "alice-token-0123"
BOB = "bob-token-4567"


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


# -- idle expiry and caps -----------------------------------------------------------------


@pytest.mark.server
def test_idle_session_expires_and_then_answers_404() -> None:
    with ServerProcess("--session-idle-timeout", "1") as server:
        session_id = initialize(server)
        assert ping(server, session_id) == 200
        time.sleep(2.5)  # no request meanwhile: a ping would keep it alive
        assert ping(server, session_id) == 404


@pytest.mark.server
def test_session_with_an_open_stream_does_not_expire() -> None:
    with ServerProcess("--session-idle-timeout", "1") as server:
        session_id = initialize(server)
        with contextlib.closing(open_get_stream(server, session_id)):
            time.sleep(2.5)
            assert ping(server, session_id) == 200


@pytest.mark.server
def test_caller_at_its_cap_gets_room_by_closing_its_longest_idle_session() -> None:
    with ServerProcess("--max-sessions-per-caller", "2") as server:
        oldest = initialize(server)
        newer = initialize(server)
        newest = initialize(server)
        assert ping(server, oldest) == 404
        assert ping(server, newer) == 200
        assert ping(server, newest) == 200


@pytest.mark.server
def test_caller_whose_sessions_are_all_busy_gets_a_503_saying_what_to_do() -> None:
    with ServerProcess("--max-sessions-per-caller", "2") as server:
        streams = [open_get_stream(server, initialize(server)) for _ in range(2)]
        try:
            status, _, body = post(server, INITIALIZE)
        finally:
            for stream in streams:
                stream.close()
    assert status == 503
    error = json.loads(body)["error"]
    assert "Too many open sessions" in error["message"]
    assert "DELETE" in error["message"]


@pytest.mark.server
def test_one_callers_cap_leaves_other_callers_sessions_alone() -> None:
    with ServerProcess("--auth-token", f"{ALICE}:default:alice",
                       "--auth-token", f"{BOB}:default:bob",
                       "--max-sessions-per-caller", "1") as server:
        bob = {"authorization": f"Bearer {BOB}"}
        alice = {"authorization": f"Bearer {ALICE}"}
        bobs = initialize(server, **bob)
        initialize(server, **alice)
        initialize(server, **alice)
        status, _, _ = post(server, {"jsonrpc": "2.0", "id": 3, "method": "ping"},
                            **session_headers(bobs), **bob)
        assert status == 200


def test_session_limits_refuse_a_nonpositive_cap() -> None:
    with pytest.raises(ValueError, match="per_principal"):
        SessionLimits(per_principal=0)


# -- flood --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
@starts("server")
def flooded() -> Iterator[dict]:
    """One server flooded with 10,000 initialize-only sessions (2 s idle expiry)."""
    with ServerProcess("--session-idle-timeout", "2") as server:
        assert server.proc is not None
        pid = server.proc.pid
        with open_session(server.url, "2025") as warm:  # first-use imports and caches
            warm.call_tool("add_numbers", {"a": 1, "b": 2})
        asyncio.run(flood_initialize(server, 300))
        time.sleep(3)
        figures: dict = {"server": server, "baseline_kib": rss_kib(pid)}
        started = time.monotonic()
        figures["codes"] = asyncio.run(flood_initialize(server, FLOOD))
        figures["flood_seconds"] = time.monotonic() - started
        figures["peak_kib"] = rss_kib(pid)
        yield figures


def test_new_handshake_client_works_after_a_session_flood(flooded: dict) -> None:
    assert flooded["codes"] == {200: FLOOD}
    with open_session(flooded["server"].url, "2025") as client:
        result = client.call_tool("add_numbers", {"a": 2, "b": 3})
    assert result.structured_content == {"sum": 5}


def test_memory_returns_near_baseline_once_flooded_sessions_expire(flooded: dict) -> None:
    server = flooded["server"]
    time.sleep(3)  # past the 2 s idle expiry
    settled = rss_kib(server.proc.pid)
    print(f"\nsession flood: {FLOOD} initializes in {flooded['flood_seconds']:.1f} s; RSS "
          f"baseline {flooded['baseline_kib']} KiB, after flood {flooded['peak_kib']} KiB, "
          f"after expiry {settled} KiB")
    assert settled <= flooded["baseline_kib"] * 1.2
