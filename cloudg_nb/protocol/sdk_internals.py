"""Every use of a private part of the ``mcp`` SDK (and of sse-starlette under it), in one module.

Checked against mcp 2.3.0 and sse-starlette 3.7.1. At import this module checks that each
internal below still has the shape relied on and raises ``SDKInternalsChanged`` naming it and
the installed version when not; ``tests/protocol/test_sdk_internals.py`` has a contract test
per internal and fails when any other module names one. The rest of the package uses public SDK
API and the typed adapters here. The internals, and why no public API does the job:

- ``StreamableHTTPSessionManager._handle_request``: the manager's dispatch below its body-size
  limit; ``LimitedSessionManager`` screens requests in between (the public ``handle_request``
  and ``asgi_app`` include the limit).
- ``StreamableHTTPSessionManager._server_instances`` and ``._session_owners``: the open
  sessions and their credentials. There is no public count or listing of sessions, nor a way
  for the server to end one.
- ``StreamableHTTPSessionManager._session_creation_lock``: admission runs under it, and making
  room for a session (closing an idle one) must happen under the same lock.
- ``StreamableHTTPSessionManager._task_group``: the manager's task group (None outside
  ``run()``), where a session reclaimed to make room is ended in the background.
- ``StreamableHTTPSessionManager._admit_session`` / ``._discard_session`` (overridden): the
  hooks that register and forget a session. The SDK's ``max_sessions`` counts all callers
  together; caps per caller and reclaiming idle sessions need the hooks.
- ``ServerSession._connection``: the connection behind a request's ``ctx.session``, which holds
  connection-scoped state (log level, change subscriptions). The SDK's ``Context.connection``
  exposes it, but handlers are still given a ``ServerRequestContext``.
- ``mcp.shared._context_streams.create_context_streams``: memory streams carrying the sender's
  contextvars, as the SDK's own transports use; stdio relays messages through a pair of them
  (to count unanswered requests) without changing the context handlers run in.
- ``Server.create_initialization_options``, replaced on a server instance: the session manager
  calls it without arguments, and no server setting makes the handshake announce
  ``listChanged`` (the SDK's "rethink capabilities API" TODO).
- sse-starlette's ``_shutdown_watcher``: its per-loop watcher task, found by coroutine name so a
  stopping Jupyter server cancels it rather than waiting for its next poll; no handle to it is
  public.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import inspect
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc
from mcp.server.auth.middleware.bearer_auth import AuthorizationContext
from mcp.server.connection import Connection
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.session import ServerSession
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.message import SessionMessage
from mcp_types.version import LATEST_HANDSHAKE_VERSION
from starlette.types import Receive, Scope, Send

if TYPE_CHECKING:
    from mcp.shared._context_streams import ContextReceiveStream, ContextSendStream

__all__ = [
    "CHECKED_VERSIONS",
    "SDKInternalsChanged",
    "SessionManagerInternals",
    "advertise_list_changes",
    "changed",
    "check",
    "connection_of",
    "from_server_streams",
    "require_attribute",
    "require_method",
    "sse_shutdown_watchers",
    "to_server_streams",
]

#: The versions whose internals this module was written against.
CHECKED_VERSIONS: dict[str, str] = {"mcp": "2.3.0", "sse-starlette": "3.7.1"}
_MISSING = object()


class SDKInternalsChanged(ImportError):
    """A private part of the SDK this package relies on moved or changed shape (an upgrade).

    An ``ImportError``: the protocol edge cannot be used until this module is updated."""


def _installed(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "(not installed)"


def changed(internal: str, what: str, distribution: str = "mcp") -> SDKInternalsChanged:
    """The error for ``internal`` having changed: says which, in which installed version."""
    return SDKInternalsChanged(
        f"{internal} {what} in {distribution} {_installed(distribution)}; cloudg_nb relies on "
        f"it as of {distribution} {CHECKED_VERSIONS[distribution]}. Update "
        "cloudg_nb/protocol/sdk_internals.py for the new SDK (or install the checked version)."
    )


def require_method(owner: type, name: str, params: tuple[str, ...], *, is_async: bool,
                   distribution: str = "mcp") -> None:
    """``owner.name`` exists, is (not) a coroutine function and takes ``self`` + ``params``."""
    internal = f"{owner.__name__}.{name}"
    method = inspect.getattr_static(owner, name, None)
    if not inspect.isfunction(method):
        raise changed(internal, "is gone (or no longer a plain method)", distribution)
    if inspect.iscoroutinefunction(method) != is_async:
        raise changed(internal, "became async" if not is_async else "is no longer async",
                      distribution)
    found = tuple(inspect.signature(method).parameters)
    if found != ("self", *params):
        raise changed(internal, f"takes {found} instead of {('self', *params)}", distribution)


def require_attribute(obj: object, name: str, kind: type | tuple[type, ...], *,
                      owner: str | None = None, distribution: str = "mcp") -> None:
    """``obj.name`` exists and is a ``kind`` (``owner``: the SDK class named in the error)."""
    internal = f"{owner or type(obj).__name__}.{name}"
    value = getattr(obj, name, _MISSING)
    if value is _MISSING:
        raise changed(internal, "is gone", distribution)
    if not isinstance(value, kind):
        raise changed(internal, f"is a {type(value).__name__}, not a {kind}", distribution)


# -- StreamableHTTPSessionManager: session bookkeeping -------------------------------------------


class SessionManagerInternals(StreamableHTTPSessionManager):
    """The SDK's session manager with its private session bookkeeping behind public, typed
    names (``transports``, ``admission_lock``, ``task_group``, ``dispatch``, ``forget_session``)
    and its two session hooks as overridable methods (``admit_session``, ``discard_session``).
    Subclasses use these names only."""

    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        sdk = StreamableHTTPSessionManager.__name__
        require_attribute(self, "_server_instances", dict, owner=sdk)
        require_attribute(self, "_session_owners", dict, owner=sdk)
        require_attribute(self, "_session_creation_lock", anyio.Lock, owner=sdk)
        require_attribute(self, "_task_group", (type(None), anyio.abc.TaskGroup), owner=sdk)

    @property
    def transports(self) -> dict[str, StreamableHTTPServerTransport]:
        """The open sessions' transports by session id (the SDK's own dict: do not keep it)."""
        return self._server_instances

    @property
    def admission_lock(self) -> anyio.Lock:
        """The lock the SDK admits new sessions under (``admit_session`` runs holding it)."""
        return self._session_creation_lock

    @property
    def task_group(self) -> anyio.abc.TaskGroup | None:
        """The manager's task group while ``run()`` is entered, else None."""
        return self._task_group

    async def dispatch(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one request as the SDK does once its body-size limit has passed."""
        await self._handle_request(scope, receive, send)

    def forget_session(self, session_id: str) -> StreamableHTTPServerTransport | None:
        """Stop tracking a session at once (its id answers 404 from now on), without ending
        its transport; returns the transport, to end with ``discard_session``."""
        self._session_owners.pop(session_id, None)
        return self._server_instances.pop(session_id, None)

    def admit_session(
        self, requestor: AuthorizationContext | None
    ) -> StreamableHTTPServerTransport | None:
        """Register a new session (under ``admission_lock``) and return its transport, or None
        to refuse it (503). Override to decide admission; this one is the SDK's."""
        return StreamableHTTPSessionManager._admit_session(self, requestor)

    async def discard_session(self, session_id: str,
                              transport: StreamableHTTPServerTransport) -> None:
        """Forget a session and end its transport (client DELETE, idle expiry, a crash, or
        ours). Override to forget your own records too; this one is the SDK's."""
        await StreamableHTTPSessionManager._discard_session(self, session_id, transport)

    # The SDK's hooks, routed to the public names above.

    def _admit_session(
        self, requestor: AuthorizationContext | None
    ) -> StreamableHTTPServerTransport | None:
        return self.admit_session(requestor)

    async def _discard_session(self, session_id: str,
                               transport: StreamableHTTPServerTransport) -> None:
        await self.discard_session(session_id, transport)


# -- ServerSession: the connection behind a request ---------------------------------------------


def connection_of(sdk_ctx: Any) -> Connection | None:
    """The SDK connection behind a request context (None off a connection, e.g. a test double).

    Connection-scoped state (log level, subscriptions) lives there.
    """
    connection = getattr(getattr(sdk_ctx, "session", None), "_connection", None)
    return connection if isinstance(connection, Connection) else None


# -- context-carrying memory streams (stdio relay) ----------------------------------------------


def _context_streams() -> Any:
    try:
        module = importlib.import_module("mcp.shared._context_streams")
    except ImportError as exc:
        raise changed("mcp.shared._context_streams", "is gone") from exc
    found = getattr(module, "create_context_streams", None)
    if found is None:
        raise changed("mcp.shared._context_streams.create_context_streams", "is gone")
    return found


def to_server_streams() -> tuple[ContextSendStream[SessionMessage | Exception],
                                 ContextReceiveStream[SessionMessage | Exception]]:
    """A (send, receive) pair, no buffer, for messages into ``Server.run`` (its read stream),
    carrying each sender's contextvars as the SDK's transports do."""
    send, receive = _create_context_streams[SessionMessage | Exception](0)
    return send, receive


def from_server_streams() -> tuple[ContextSendStream[SessionMessage],
                                   ContextReceiveStream[SessionMessage]]:
    """A (send, receive) pair, no buffer, for messages out of ``Server.run`` (its write
    stream)."""
    send, receive = _create_context_streams[SessionMessage](0)
    return send, receive


# -- Server: handshake capabilities -------------------------------------------------------------


def advertise_list_changes(server: Server[Any]) -> None:
    """Make the handshake's capabilities say ``listChanged`` (and keep a host's explicit ones).

    The SDK's session manager asks ``create_initialization_options()`` with no arguments.
    """
    original = server.create_initialization_options

    def create_initialization_options(
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> Any:
        options = notification_options or NotificationOptions(
            prompts_changed=True, resources_changed=True, tools_changed=True
        )
        return original(options, experimental_capabilities, extensions)

    server.create_initialization_options = create_initialization_options  # type: ignore[method-assign]


# -- sse-starlette: its shutdown watcher --------------------------------------------------------


def _sse_shutdown_watcher() -> Callable[[], Any]:
    try:
        from sse_starlette.sse import _shutdown_watcher
    except ImportError as exc:
        raise changed("sse_starlette.sse._shutdown_watcher", "is gone", "sse-starlette") from exc
    if not inspect.iscoroutinefunction(_shutdown_watcher):
        raise changed("sse_starlette.sse._shutdown_watcher", "is no longer a coroutine function",
                      "sse-starlette")
    return _shutdown_watcher


def sse_shutdown_watchers() -> list[asyncio.Task[Any]]:
    """sse-starlette's shutdown watcher tasks on the running loop (at most one per loop)."""
    name = _SSE_WATCHER_NAME
    return [task for task in asyncio.all_tasks()
            if getattr(task.get_coro(), "__name__", "") == name]


# -- the import-time check ----------------------------------------------------------------------


def check() -> None:
    """Raise ``SDKInternalsChanged`` unless every internal above has the shape relied on.

    Instance attributes of the session manager are checked when one is built."""
    manager = StreamableHTTPSessionManager
    require_method(manager, "_handle_request", ("scope", "receive", "send"), is_async=True)
    require_method(manager, "_admit_session", ("requestor",), is_async=False)
    require_method(manager, "_discard_session", ("session_id", "transport"), is_async=True)
    require_method(Server, "create_initialization_options",
                   ("notification_options", "experimental_capabilities", "extensions"),
                   is_async=False)
    _check_session_connection()
    _check_context_streams()
    _sse_shutdown_watcher()


def _check_session_connection() -> None:
    probe = types.SimpleNamespace(protocol_version=LATEST_HANDSHAKE_VERSION)
    try:
        session = ServerSession(None, probe)  # type: ignore[arg-type]
    except Exception as exc:
        raise changed("ServerSession._connection",
                      "cannot be checked (ServerSession(outbound, connection) failed)") from exc
    if getattr(session, "_connection", None) is not probe:
        raise changed("ServerSession._connection", "no longer holds the connection")


def _check_context_streams() -> None:
    send, receive = _create_context_streams[object](0)
    try:
        if not hasattr(receive, "last_context"):
            raise changed("mcp.shared._context_streams.create_context_streams",
                          "no longer carries the sender's context (last_context)")
    finally:
        send.close()
        receive.close()


_create_context_streams = _context_streams()
_SSE_WATCHER_NAME: str = _sse_shutdown_watcher().__name__
check()
