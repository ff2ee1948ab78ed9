"""Bounded Streamable HTTP sessions: idle expiry in minutes, caps per caller, oldest idle reclaimed.

``LimitedSessionManager`` is the SDK's session manager with ``SessionLimits``: a handshake-era
session idle for ``idle_timeout`` seconds ends; a caller (token principal, or all anonymous
callers together) holds at most its cap of open sessions, guests (assistants) together at most
``guest_sessions``, and the server at most ``max_sessions``. At a cap the caller's (else a
guest's, else anyone's but a guest never closes an owner's) longest-idle session is closed to
make room; only when every session in the way is busy is the new one refused, with a 503 that
says what to do. It also screens each request before the SDK sees it: a body with too many
values, or a JSON-RPC ``id`` that is not a string or an integer, is refused (``body_screen``);
an owner's POSTs are read in turns (``intake``); a body cut short ends quietly, nothing is sent
after a completed response, and ``close_all()`` ends every session (server shutdown).
"""

from __future__ import annotations

import contextvars
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import pydantic_core
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, AuthorizationContext
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.server.transport_security import RequestBodyLimitMiddleware
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.types import Message, Receive, Scope, Send

from ..layer.wire import (
    INTERNAL_ERROR,
    MCP_PROTOCOL_VERSION_HEADER,
    MCP_SESSION_ID_HEADER,
    REQUEST_CANCELLED,
    error_response,
)
from .body_screen import screen_body
from .intake import DEFAULT_TURNS_PER_CALLER, Intake
from .sdk_internals import SessionManagerInternals

__all__ = [
    "DEFAULT_SESSION_IDLE_TIMEOUT",
    "LimitedSessionManager",
    "SessionLimits",
    "token_principal_key",
]

logger = logging.getLogger("cloudg.mcp.protocol")

#: Seconds without any request in flight (no call, no open GET stream) before a session ends.
DEFAULT_SESSION_IDLE_TIMEOUT = 10 * 60.0

_SHUTTING_DOWN = "The server is shutting down; reconnect and retry once it is back."



def token_principal_key(scope: Scope) -> str | None:
    """The session owner of a request: the bearer/OAuth client id, or None (anonymous)."""
    user = scope.get("user")
    if isinstance(user, AuthenticatedUser):
        return f"client:{user.access_token.client_id}"
    return None


@dataclass(frozen=True)
class SessionLimits:
    """How many handshake-era sessions may be open, and how long an idle one lives.

    ``idle_timeout`` (seconds; None: never) ends a session with no request in flight;
    ``max_sessions`` bounds the whole server, ``per_principal`` each token principal and
    ``anonymous`` all anonymous callers together (None: no cap). ``principal_key`` names a
    request's owner (None for anonymous); the default reads the bearer token's client id.
    ``is_guest(scope)`` picks the requests of guests (assistants; None: nobody): together
    they hold at most ``guest_sessions``, and making room for one never closes another
    owner's session.
    ``turns_per_caller``: how many of one owner's POSTs are read and routed at once (``Intake``).
    """

    idle_timeout: float | None = DEFAULT_SESSION_IDLE_TIMEOUT
    max_sessions: int | None = 1000
    per_principal: int | None = 100
    anonymous: int | None = 200
    principal_key: Callable[[Scope], str | None] = token_principal_key
    is_guest: Callable[[Scope], bool] | None = None
    guest_sessions: int | None = None
    turns_per_caller: int = DEFAULT_TURNS_PER_CALLER

    def __post_init__(self) -> None:
        timeout = self.idle_timeout
        if timeout is not None and not (math.isfinite(timeout) and timeout > 0):
            raise ValueError("idle_timeout must be a positive number of seconds, or None")
        if self.turns_per_caller < 1:
            raise ValueError("turns_per_caller must be a positive number of requests")
        for name in ("max_sessions", "per_principal", "anonymous", "guest_sessions"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be a positive number of sessions, or None")


@dataclass
class _RequestNote:
    """What the screen knows about the request being handled (read by ``admit_session``)."""

    owner: str | None
    #: The request's ASGI scope, for ``guest`` (asked only of requests that open a session).
    scope: Scope = field(default_factory=dict, repr=False)
    session_id: str | None = None
    _guest: bool | None = field(default=None, repr=False)

    def guest(self, limits: SessionLimits) -> bool:
        """Whether the request's caller is a guest (``limits.is_guest``; anonymous: never)."""
        if self._guest is None:
            test = limits.is_guest
            self._guest = self.owner is not None and test is not None and bool(test(self.scope))
        return self._guest


@dataclass
class _SessionBook:
    """Owner, last activity and requests in flight of every open session."""

    owner: dict[str, str | None] = field(default_factory=dict)
    last_active: dict[str, float] = field(default_factory=dict)
    busy: dict[str, int] = field(default_factory=dict)
    by_owner: dict[str | None, set[str]] = field(default_factory=dict)
    #: The sessions opened by guests.
    guests: set[str] = field(default_factory=set)

    def add(self, session_id: str, owner: str | None, guest: bool = False) -> None:
        self.owner[session_id] = owner
        self.last_active[session_id] = time.monotonic()
        self.by_owner.setdefault(owner, set()).add(session_id)
        if guest:
            self.guests.add(session_id)

    def remove(self, session_id: str) -> None:
        if session_id not in self.owner:
            return
        owner = self.owner.pop(session_id)
        self.last_active.pop(session_id, None)
        self.busy.pop(session_id, None)
        self.guests.discard(session_id)
        members = self.by_owner.get(owner)
        if members is not None:
            members.discard(session_id)
            if not members:
                del self.by_owner[owner]

    def enter(self, session_id: str) -> None:
        if session_id in self.owner:
            self.busy[session_id] = self.busy.get(session_id, 0) + 1
            self.last_active[session_id] = time.monotonic()

    def leave(self, session_id: str) -> None:
        count = self.busy.get(session_id, 0) - 1
        if count > 0:
            self.busy[session_id] = count
        else:
            self.busy.pop(session_id, None)
        if session_id in self.owner:
            self.last_active[session_id] = time.monotonic()

    def longest_idle(self, candidates: set[str] | None = None) -> str | None:
        pool = self.owner.keys() if candidates is None else candidates
        idle = [sid for sid in pool if not self.busy.get(sid)]
        return min(idle, key=self.last_active.__getitem__) if idle else None


_current: contextvars.ContextVar[_RequestNote | None] = contextvars.ContextVar(
    "cloudg_session_request", default=None
)


class LimitedSessionManager(SessionManagerInternals):
    """The SDK session manager with ``SessionLimits`` and request screening (see module doc).

    Built on the SDK's private session bookkeeping, reached through ``SessionManagerInternals``
    (``sdk_internals``, where the contract with the SDK is checked).
    """

    def __init__(self, app: Any, *, limits: SessionLimits | None = None, **kwargs: Any) -> None:
        self.limits = limits or SessionLimits()
        super().__init__(app, session_idle_timeout=self.limits.idle_timeout,
                         max_sessions=None, **kwargs)
        self.asgi_app = RequestBodyLimitMiddleware(self._screen_request, self.max_request_body_size)
        self._book = _SessionBook()
        self.intake = Intake(self.limits.turns_per_caller)
        self._closing = False
        self._in_flight: set[_InFlight] = set()

    # -- public ---------------------------------------------------------------------------

    @property
    def open_sessions(self) -> int:
        return len(self.transports)

    def sessions_by_owner(self) -> dict[str | None, int]:
        """Open sessions per owner key (None: anonymous)."""
        return {owner: len(ids) for owner, ids in self._book.by_owner.items()}

    async def close_all(self, grace: float = 0.3) -> None:
        """Refuse new requests, end every session and every request in flight, within about
        ``grace`` + a fraction of a second. Open streams end as complete responses and calls
        in flight are cancelled. For server shutdown: call before the ASGI server stops."""
        self._closing = True
        for flight in [f for f in self._in_flight if f.body]:
            await flight.end()  # calls in flight: answered "cancelled", then cancelled
        for session_id, transport in list(self.transports.items()):
            await self.discard_session(session_id, transport)
        with anyio.move_on_after(grace):  # ended sessions let their streams finish
            while self._in_flight:
                await anyio.sleep(0.02)
        for flight in list(self._in_flight):
            await flight.end()

    async def close_sessions_of(self, owner: str) -> int:
        """End every session and request in flight of ``owner`` (a revoked credential):
        open streams end, calls in flight are answered "cancelled". Returns how many
        sessions and requests were ended."""
        ended = 0
        for flight in [f for f in self._in_flight if f.owner == owner]:
            await flight.end()
            ended += 1
        for session_id in list(self._book.by_owner.get(owner, ())):
            transport = self.transports.get(session_id)
            if transport is not None:
                await self.discard_session(session_id, transport)
                ended += 1
            else:
                self._book.remove(session_id)
        return ended

    # -- screening ------------------------------------------------------------------------

    async def _screen_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.dispatch(scope, receive, send)
            return
        first = await receive()
        if first["type"] == "http.disconnect" or (
            first["type"] == "http.request" and first.get("more_body", False)
        ):
            # The body limit middleware reads to the end: more to come means the client left.
            logger.debug("request body cut short; the client disconnected")
            return
        replayed = [first]

        async def replay() -> Message:
            return replayed.pop() if replayed else await receive()

        send = _CompletionGuard(send)
        body = first.get("body", b"") if scope.get("method") == "POST" else b""
        refused = await screen_body(body)
        if refused is not None:
            await _json_error(send, refused.status, refused.code, refused.message)
            return
        session_id = _header(scope, MCP_SESSION_ID_HEADER)
        if self._closing:
            await _json_error(send, 503, INTERNAL_ERROR, _SHUTTING_DOWN)
            return
        note = _RequestNote(owner=self.limits.principal_key(scope), scope=scope)
        if session_id is None and _opens_session(scope):
            async with self.admission_lock:
                refusal = self._make_room(note.owner, note.guest(self.limits))
            if refusal is not None:
                logger.warning("Refusing a new session: %s", refusal)
                await _json_error(send, 503, INTERNAL_ERROR, refusal)
                return
        token = _current.set(note)
        if session_id is not None:
            self._book.enter(session_id)
        flight = _InFlight(send, body, note.owner)
        self._in_flight.add(flight)
        try:
            with flight.scope:
                if body:  # a POST: read in turn with the owner's other requests
                    async with self.intake.turn(note.owner) as turn:
                        send.on_start = turn.leave
                        await self.dispatch(scope, replay, send)
                else:
                    await self.dispatch(scope, replay, send)
        finally:
            self._in_flight.discard(flight)
            _current.reset(token)
            for sid in {session_id, note.session_id} - {None}:
                self._book.leave(sid)  # type: ignore[arg-type]

    # -- admission ------------------------------------------------------------------------

    def admit_session(
        self, requestor: AuthorizationContext | None
    ) -> StreamableHTTPServerTransport | None:
        note = _current.get()
        owner = note.owner if note is not None else None
        guest = note.guest(self.limits) if note is not None else False
        if self._make_room(owner, guest) is not None:  # lost a race with other new sessions
            return None
        transport = super().admit_session(requestor)
        if transport is not None and transport.mcp_session_id is not None:
            self._book.add(transport.mcp_session_id, owner, guest)
            if note is not None:
                note.session_id = transport.mcp_session_id
                self._book.enter(transport.mcp_session_id)
        return transport

    def _make_room(self, owner: str | None, guest: bool = False) -> str | None:
        """Make room for one more session of ``owner`` (a ``guest``, or not): at its cap (or
        the guests', or the server's) close the longest-idle session in the way — for a guest
        only guests' sessions, for anyone else a guest's first. None when there is room, else
        why not."""
        limits = self.limits
        cap = limits.anonymous if owner is None else limits.per_principal
        who = "anonymous callers" if owner is None else "this caller"
        mine = self._book.by_owner.get(owner, set())
        if cap is not None and len(mine) >= cap and not self._reclaim(mine):
            return (f"Too many open sessions for {who} ({cap}, all busy). Close sessions you "
                    "no longer use (HTTP DELETE with their Mcp-Session-Id), or wait for a "
                    "call to finish, then initialize again.")
        guests = set(self._book.guests)
        if guest and limits.guest_sessions is not None and \
                len(guests) >= limits.guest_sessions and not self._reclaim(guests):
            return (f"Assistants hold their maximum of {limits.guest_sessions} sessions, all "
                    "busy. Close sessions you no longer use (HTTP DELETE with their "
                    "Mcp-Session-Id), or retry in a minute.")
        total = limits.max_sessions
        if total is not None and len(self.transports) >= total and not (
                (guests and self._reclaim(guests)) or (not guest and self._reclaim())):
            return (f"The server has its maximum of {total} sessions open, all busy. Retry "
                    "in a minute; close sessions you no longer use (HTTP DELETE).")
        return None

    def _reclaim(self, candidates: set[str] | None = None) -> bool:
        session_id = self._book.longest_idle(candidates)
        group = self.task_group
        if session_id is None or group is None:
            return False
        self._book.remove(session_id)
        transport = self.forget_session(session_id)
        if transport is not None:
            logger.info("Closing idle session %s to make room for a new one", session_id)
            group.start_soon(self.discard_session, session_id, transport)
        return True

    async def discard_session(self, session_id: str,
                              transport: StreamableHTTPServerTransport) -> None:
        self._book.remove(session_id)
        await super().discard_session(session_id, transport)


def _opens_session(scope: Scope) -> bool:
    """A request without a session id opens one unless it is a 2026-era (stateless) request."""
    version = _header(scope, MCP_PROTOCOL_VERSION_HEADER)
    return version is None or version in HANDSHAKE_PROTOCOL_VERSIONS


def _header(scope: Scope, name: str) -> str | None:
    wanted = name.lower().encode("latin-1")
    for key, value in scope.get("headers", ()):
        if key.lower() == wanted:
            return value.decode("latin-1")
    return None


class _CompletionGuard:
    """An ASGI ``send`` that drops (and logs at debug) messages after the response completed,
    and can complete the response itself (``finish``) for a shutdown."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self._lock = anyio.Lock()
        #: Called when the response starts (the request leaves its intake turn).
        self.on_start: Callable[[], None] | None = None
        self.started = False
        self.streaming = False
        self.completed = False

    async def __call__(self, message: Message) -> None:
        async with self._lock:
            kind = message["type"]
            if self.completed or (kind == "http.response.start" and self.started):
                logger.debug("dropped %s sent after the response was complete", kind)
                return
            if kind == "http.response.start":
                self.started = True
                if self.on_start is not None:
                    self.on_start()
                self.streaming = any(
                    key.lower() == b"content-type" and value.startswith(b"text/event-stream")
                    for key, value in message.get("headers", ()))
            elif kind == "http.response.body" and not message.get("more_body", False):
                self.completed = True
            await self._send(message)

    async def finish(self, answer: bytes | None = None) -> None:
        """End the response: on an open event stream ``answer`` (an event) then its last
        chunk; if nothing was sent yet, a 503."""
        if self.completed:
            return
        if not self.started:
            await _json_error(self, 503, INTERNAL_ERROR, _SHUTTING_DOWN)
            return
        if answer is not None and self.streaming:
            await self({"type": "http.response.body", "body": answer, "more_body": True})
        await self({"type": "http.response.body", "body": b"", "more_body": False})


class _InFlight:
    """One request being served: its response guard, its body (a POST's), and the scope that
    cancels it."""

    def __init__(self, send: _CompletionGuard, body: bytes, owner: str | None = None) -> None:
        self.send = send
        self.body = body
        self.owner = owner
        self.scope = anyio.CancelScope()

    def _shutdown_answer(self) -> bytes | None:
        """An SSE event answering this POST's JSON-RPC request with a "cancelled" error."""
        if not self.body:
            return None
        try:
            message = pydantic_core.from_json(self.body)
        except ValueError:
            return None
        if not (isinstance(message, dict) and "method" in message and "id" in message):
            return None
        error = error_response(REQUEST_CANCELLED, _SHUTTING_DOWN, request_id=message["id"])
        return b"event: message\r\ndata: " + pydantic_core.to_json(error) + b"\r\n\r\n"

    async def end(self) -> None:
        """Answer the request (cancelled: the server is shutting down), end the response,
        cancel its handling."""
        with anyio.move_on_after(0.2, shield=True):
            await self.send.finish(self._shutdown_answer())
        self.scope.cancel()


async def _json_error(send: Send, status: int, code: int, message: str) -> None:
    body = pydantic_core.to_json(error_response(code, message))
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body, "more_body": False})

