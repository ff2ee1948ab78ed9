"""Sessions of guests (assistants) next to an owner's (the analyst's), on ``build_http_app``
served in-process: guests together hold at most ``guest_sessions``; making room for a guest's
new session closes only a guest's idle session, never an owner's; an owner's new session at
the server's cap closes a guest's idle session first. The caller is named by an ``X-Who``
header (the test's ``principal_key``); names starting ``bot`` are guests."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from cloudg_nb.layer import CloudGMCPLayer
from cloudg_nb.protocol import build_http_app
from cloudg_nb.protocol.sessions import SessionLimits

from .fixture_registry import registry
from .harness import serve_app_in_thread
from .raw_http import INITIALIZE, initialize, open_get_stream, ping, post

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")


@dataclass
class Served:
    host_port: str


def _who(scope: dict) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == b"x-who":
            return value.decode()
    return None


@contextlib.contextmanager
def served(max_sessions: int, guest_sessions: int | None) -> Iterator[Served]:
    limits = SessionLimits(max_sessions=max_sessions, per_principal=None,
                           principal_key=_who,
                           is_guest=lambda scope: (_who(scope) or "").startswith("bot"),
                           guest_sessions=guest_sessions)
    app = build_http_app(CloudGMCPLayer(registry=registry, policy="open"),
                         session_limits=limits)
    with serve_app_in_thread(app) as url:
        yield Served(url.split("//", 1)[1].split("/", 1)[0])


def test_guests_together_hold_at_most_their_sessions_and_close_only_their_own() -> None:
    with served(max_sessions=10, guest_sessions=2) as server:
        mine = initialize(server, x_who="analyst")
        first = initialize(server, x_who="bot-a")
        second = initialize(server, x_who="bot-b")
        third = initialize(server, x_who="bot-a")  # at the guests' cap: a guest's idle one goes
        alive = [ping(server, sid) == 200 for sid in (mine, first, second, third)]
    assert alive == [True, False, True, True]


def test_a_guest_whose_sessions_are_all_busy_is_refused_with_what_to_do() -> None:
    with served(max_sessions=10, guest_sessions=2) as server:
        streams = [open_get_stream(server, initialize(server, x_who=f"bot-{n}"))
                   for n in "ab"]
        try:
            status, _, body = post(server, INITIALIZE, x_who="bot-c")
            analyst_status, _, _ = post(server, INITIALIZE, x_who="analyst")
        finally:
            for sock in streams:
                sock.close()
    assert status == 503 and b"Assistants hold their maximum" in body
    assert analyst_status == 200


def test_a_guest_at_the_servers_cap_never_closes_an_owners_session() -> None:
    with served(max_sessions=3, guest_sessions=None) as server:
        mine = initialize(server, x_who="analyst")
        colleague = initialize(server, x_who="colleague")
        guest = initialize(server, x_who="bot-a")
        newer = initialize(server, x_who="bot-b")  # the server is full: the guest's goes
        alive = [ping(server, sid) == 200 for sid in (mine, colleague, guest, newer)]
        stream = open_get_stream(server, newer)
        try:  # now only owners' sessions are idle: the guest is refused, not given one
            status, _, _ = post(server, INITIALIZE, x_who="bot-c")
        finally:
            stream.close()
        still = [ping(server, sid) == 200 for sid in (mine, colleague)]
    assert alive == [True, True, False, True]
    assert status == 503 and still == [True, True]


def test_an_owner_at_the_servers_cap_closes_a_guests_idle_session_first() -> None:
    with served(max_sessions=3, guest_sessions=None) as server:
        older_mine = initialize(server, x_who="analyst")
        guest = initialize(server, x_who="bot-a")
        initialize(server, x_who="analyst")
        initialize(server, x_who="analyst")  # full: the guest's goes, not her older one
        alive = [ping(server, sid) == 200 for sid in (older_mine, guest)]
    assert alive == [True, False]
