"""The contract with the ``mcp`` SDK's private parts (``cloudg_nb.protocol.sdk_internals``).

One test per internal, on real SDK objects: it still exists and behaves as relied on. After an
SDK upgrade a failure here names the internal that moved; fix ``sdk_internals.py`` (and only
it). The last test keeps those names out of every other module.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import contextvars
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import pytest
import sse_starlette.sse
from mcp import Client
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.connection import Connection
from mcp.server.lowlevel.server import Server
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import ListToolsResult, PaginatedRequestParams

from cloudg_nb.protocol import sdk_internals
from cloudg_nb.protocol.sdk_internals import (
    CHECKED_VERSIONS,
    SDKInternalsChanged,
    SessionManagerInternals,
    advertise_list_changes,
    connection_of,
    sse_shutdown_watchers,
    to_server_streams,
)
from cloudg_nb.protocol.sessions import LimitedSessionManager

from .raw_http import ACCEPT, INITIALIZE, LEGACY_VERSION, sse_json

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")

ROOT = Path(__file__).resolve().parents[2]
SDK = f"mcp {CHECKED_VERSIONS['mcp']}"
MANAGER = "StreamableHTTPSessionManager"


def moved(internal: str, distribution: str = "mcp") -> str:
    return (f"{internal} no longer behaves as cloudg_nb relies on (checked with "
            f"{distribution} {CHECKED_VERSIONS[distribution]}): update "
            "cloudg_nb/protocol/sdk_internals.py")


# -- helpers: a bare SDK server behind a session manager, driven through ASGI ------------------


def _server() -> Server[Any]:
    async def list_tools(ctx: Any, params: PaginatedRequestParams | None) -> ListToolsResult:
        return ListToolsResult(tools=[])

    return Server("contract", on_list_tools=list_tools)


def _manager(cls: type[StreamableHTTPSessionManager] = SessionManagerInternals,
             server: Server[Any] | None = None) -> Any:
    return cls(server or _server(), security_settings=TransportSecuritySettings(
        enable_dns_rebinding_protection=False))


@contextlib.asynccontextmanager
async def _running(manager: StreamableHTTPSessionManager) -> AsyncIterator[None]:
    async with manager.run():
        yield


async def _request(app: Any, method: str, body: Any = None, *, session_id: str | None = None,
                   user: Any = None) -> tuple[int, dict[str, str], bytes]:
    """One request through an ASGI ``app``; the response's status, headers and body."""
    payload = json.dumps(body).encode() if body is not None else b""
    headers = [(b"accept", ACCEPT.encode()), (b"content-type", b"application/json"),
               (b"host", b"127.0.0.1"), (b"content-length", str(len(payload)).encode())]
    if session_id is not None:
        headers += [(b"mcp-session-id", session_id.encode()),
                    (b"mcp-protocol-version", LEGACY_VERSION.encode())]
    scope: dict[str, Any] = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
        "scheme": "http", "path": "/mcp", "raw_path": b"/mcp", "query_string": b"",
        "root_path": "", "headers": headers, "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80), "state": {},
    }
    if user is not None:
        scope["user"] = user
    done = anyio.Event()
    delivered = False
    status, got, chunks = 0, {}, []

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": payload, "more_body": False}
        await done.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
            got.update({k.decode().lower(): v.decode() for k, v in message["headers"]})
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                done.set()

    with anyio.fail_after(10):
        await app(scope, receive, send)
    return status, got, b"".join(chunks)


async def _initialize(app: Any, **kwargs: Any) -> tuple[str, dict[str, Any]]:
    status, headers, body = await _request(app, "POST", INITIALIZE, **kwargs)
    assert status == 200, (status, body)
    return headers["mcp-session-id"], sse_json(body)[0]


def _user(client_id: str) -> AuthenticatedUser:
    return AuthenticatedUser(AccessToken(token="digest", client_id=client_id, scopes=[]))


class _Recording(SessionManagerInternals):
    """Records the SDK's calls of the session hooks."""

    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        self.admitted: list[tuple[Any, bool]] = []
        self.discarded: list[tuple[str, StreamableHTTPServerTransport]] = []
        self.refuse = False

    def admit_session(self, requestor: Any) -> StreamableHTTPServerTransport | None:
        self.admitted.append((requestor, self.admission_lock.locked()))
        return None if self.refuse else super().admit_session(requestor)

    async def discard_session(self, session_id: str,
                              transport: StreamableHTTPServerTransport) -> None:
        self.discarded.append((session_id, transport))
        await super().discard_session(session_id, transport)


# -- the import-time check ----------------------------------------------------------------------


def test_the_installed_sdk_passes_the_import_time_check() -> None:
    sdk_internals.check()


def test_a_changed_internal_fails_naming_it_the_installed_version_and_the_fix() -> None:
    class Upgraded:
        async def _admit_session(self, requestor: Any) -> None: ...

    with pytest.raises(SDKInternalsChanged) as caught:
        sdk_internals.require_method(Upgraded, "_admit_session", ("requestor",), is_async=False)
    message = str(caught.value)
    assert "Upgraded._admit_session became async" in message
    assert f"as of {SDK}" in message and "in mcp " in message
    assert "cloudg_nb/protocol/sdk_internals.py" in message
    assert isinstance(caught.value, ImportError)


def test_a_missing_instance_attribute_fails_naming_it() -> None:
    with pytest.raises(SDKInternalsChanged, match=r"object\._server_instances is gone"):
        sdk_internals.require_attribute(object(), "_server_instances", dict)


# -- StreamableHTTPSessionManager ---------------------------------------------------------------


async def test_handle_request_dispatches_a_request_below_the_body_limit() -> None:
    manager = _manager()
    async with _running(manager):
        session_id, answer = await _initialize(manager.dispatch)
    assert session_id and answer["result"]["serverInfo"]["name"] == "contract", \
        moved(f"{MANAGER}._handle_request")


async def test_server_instances_holds_every_open_session_by_id() -> None:
    manager = _manager()
    assert manager.transports == {}, moved(f"{MANAGER}._server_instances")
    async with _running(manager):
        first, _ = await _initialize(manager.handle_request)
        second, _ = await _initialize(manager.handle_request)
        transports = dict(manager.transports)
    assert set(transports) == {first, second}, moved(f"{MANAGER}._server_instances")
    assert all(isinstance(t, StreamableHTTPServerTransport) and t.mcp_session_id == sid
               for sid, t in transports.items())


async def test_forgetting_a_session_drops_it_and_its_owner_at_once() -> None:
    manager = _manager()
    async with _running(manager):
        session_id, _ = await _initialize(manager.handle_request, user=_user("alice"))
        owners = dict(manager._session_owners)
        transport = manager.forget_session(session_id)
        status, _, _ = await _request(manager.handle_request, "POST",
                                      {"jsonrpc": "2.0", "id": 2, "method": "ping"},
                                      session_id=session_id, user=_user("alice"))
        assert transport is not None
        await manager.discard_session(session_id, transport)
    assert owners[session_id]["client_id"] == "alice", \
        moved(f"{MANAGER}._session_owners")
    assert manager.transports == {} and manager._session_owners == {}
    assert status == 404, moved(f"{MANAGER}._server_instances")


async def test_session_creation_lock_is_held_while_a_session_is_admitted() -> None:
    manager = _manager(_Recording)
    assert isinstance(manager.admission_lock, anyio.Lock), \
        moved(f"{MANAGER}._session_creation_lock")
    async with _running(manager):
        await _initialize(manager.handle_request)
    assert [locked for _, locked in manager.admitted] == [True], \
        moved(f"{MANAGER}._session_creation_lock")


async def test_task_group_exists_only_while_the_manager_runs() -> None:
    manager = _manager()
    assert manager.task_group is None, moved(f"{MANAGER}._task_group")
    async with _running(manager):
        running = manager.task_group
    assert isinstance(running, anyio.abc.TaskGroup), moved(f"{MANAGER}._task_group")
    assert manager.task_group is None


async def test_admit_session_is_asked_once_per_new_session_and_can_refuse() -> None:
    manager = _manager(_Recording)
    async with _running(manager):
        session_id, _ = await _initialize(manager.handle_request, user=_user("bob"))
        manager.refuse = True
        status, _, body = await _request(manager.handle_request, "POST", INITIALIZE)
        open_ids = set(manager.transports)
    assert [requestor["client_id"] for requestor, _ in manager.admitted[:1]] == ["bob"], \
        moved(f"{MANAGER}._admit_session")
    assert len(manager.admitted) == 2 and open_ids == {session_id}
    assert status == 503 and b"Too many open sessions" in body, \
        moved(f"{MANAGER}._admit_session")


async def test_discard_session_is_called_when_the_client_ends_its_session() -> None:
    manager = _manager(_Recording)
    async with _running(manager):
        session_id, _ = await _initialize(manager.handle_request)
        transport = manager.transports[session_id]
        status, _, _ = await _request(manager.handle_request, "DELETE", session_id=session_id)
        open_ids = set(manager.transports)
    assert status == 200
    assert (session_id, transport) in manager.discarded, \
        moved(f"{MANAGER}._discard_session")
    assert open_ids == set() and transport.is_terminated


def test_our_session_managers_shadow_no_sdk_attribute_but_the_two_hooks() -> None:
    sdk_instance = StreamableHTTPSessionManager(_server())
    sdk_names = set(dir(StreamableHTTPSessionManager)) | set(vars(sdk_instance))
    ours = {name for cls in (SessionManagerInternals, LimitedSessionManager)
            for name in vars(cls) if not (name.startswith("__") and name.endswith("__"))}
    assert ours & sdk_names == {"_admit_session", "_discard_session"}
    ours_instance = _manager(LimitedSessionManager)
    added = set(vars(ours_instance)) - set(vars(sdk_instance))
    assert added and not added & sdk_names


# -- ServerSession._connection ------------------------------------------------------------------


async def test_a_requests_session_holds_its_connection() -> None:
    seen: list[Connection | None] = []

    async def list_tools(ctx: Any, params: PaginatedRequestParams | None) -> ListToolsResult:
        seen.append(connection_of(ctx))
        return ListToolsResult(tools=[])

    async with Client(Server("contract", on_list_tools=list_tools), mode="legacy") as client:
        await client.list_tools()
        await client.list_tools()
    assert all(isinstance(c, Connection) for c in seen), moved("ServerSession._connection")
    assert seen[0] is seen[1], moved("ServerSession._connection")


# -- mcp.shared._context_streams ----------------------------------------------------------------


async def test_context_streams_carry_the_senders_context() -> None:
    marker: contextvars.ContextVar[str] = contextvars.ContextVar("marker", default="receiver")
    send, receive = to_server_streams()

    async def sender() -> None:
        marker.set("sender")
        await send.send(RuntimeError("probe"))

    async with send, receive, anyio.create_task_group() as tg:
        tg.start_soon(sender)
        item = await receive.receive()
    context = receive.last_context
    assert isinstance(item, RuntimeError)
    assert context is not None and context.get(marker) == "sender", \
        moved("mcp.shared._context_streams.create_context_streams")


# -- Server.create_initialization_options -------------------------------------------------------


async def test_the_session_manager_announces_the_replaced_initialization_options() -> None:
    server = _server()
    advertise_list_changes(server)
    manager = _manager(server=server)
    async with _running(manager):
        _, answer = await _initialize(manager.handle_request)
    assert answer["result"]["capabilities"]["tools"] == {"listChanged": True}, \
        moved("Server.create_initialization_options (called without arguments per session)")


async def test_an_explicit_notification_option_still_wins() -> None:
    from mcp.server.lowlevel.server import NotificationOptions

    server = _server()
    advertise_list_changes(server)
    options = server.create_initialization_options(NotificationOptions(tools_changed=False))
    assert options.capabilities.tools is not None
    assert options.capabilities.tools.list_changed is False


# -- sse-starlette's shutdown watcher -----------------------------------------------------------


async def test_sse_shutdown_watcher_is_found_on_the_running_loop() -> None:
    sse_starlette.sse._ensure_watcher_started_on_this_loop()
    watchers = sse_shutdown_watchers()
    for task in watchers:
        task.cancel()
    if watchers:
        await asyncio.wait(watchers, timeout=1.0)
    assert len(watchers) == 1, moved("sse_starlette.sse._shutdown_watcher", "sse-starlette")


# -- nobody else touches them -------------------------------------------------------------------

#: The SDK's private names used in ``sdk_internals`` (attributes, methods, modules, functions).
SDK_PRIVATE_NAMES = (
    "_server_instances", "_session_owners", "_session_creation_lock", "_task_group",
    "_handle_request", "_admit_session", "_discard_session", "_connection",
    "_context_streams", "_shutdown_watcher",
)
_PRIVATE_NAME = re.compile(r"(?<![\w])(" + "|".join(SDK_PRIVATE_NAMES) + r")\b")
_MONKEYPATCH = re.compile(r"\.create_initialization_options\s*=(?!=)")
SDK_PACKAGES = {"mcp", "mcp_types", "starlette", "anyio", "sse_starlette"}
INTERNALS_MODULE = ROOT / "cloudg_nb" / "protocol" / "sdk_internals.py"


def _sources() -> list[Path]:
    found = [p for top in ("cloudg_nb", "jupyter_server_ext") for p in (ROOT / top).rglob("*.py")]
    return sorted(p for p in found if p != INTERNALS_MODULE)


def _private_imports(tree: ast.AST) -> list[str]:
    """Imports of an SDK module or name that starts with ``_``."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            parts = node.module.split(".")
            if parts[0] in SDK_PACKAGES and (any(p.startswith("_") for p in parts) or any(
                    a.name.startswith("_") for a in node.names)):
                out.append(f"from {node.module} import ...")
        elif isinstance(node, ast.Import):
            out += [f"import {a.name}" for a in node.names
                    if a.name.split(".")[0] in SDK_PACKAGES
                    and any(p.startswith("_") for p in a.name.split("."))]
    return out


def test_sdk_private_names_appear_only_in_sdk_internals() -> None:
    offences = []
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(ROOT)
        for number, line in enumerate(text.splitlines(), 1):
            if _PRIVATE_NAME.search(line) or _MONKEYPATCH.search(line):
                offences.append(f"{where}:{number}: {line.strip()}")
        offences += [f"{where}: {imp}" for imp in _private_imports(ast.parse(text))]
    assert offences == [], (
        "Private parts of the mcp SDK are used outside cloudg_nb/protocol/sdk_internals.py; "
        "add a typed adapter there (with a contract test here) and use it instead, or rename "
        "your own attribute:\n" + "\n".join(offences))
