"""The remote backend: one MCP session (:class:`~.mcp_http.HttpSession`, handshake era) to the
cloudg endpoint of a Jupyter server, authenticated with the server's token, so the notebook
shares the server's workspace with every assistant connected there.

Requests run as tasks on the client loop. Progress arrives over the call's SSE stream;
cancelling a request task sends ``notifications/cancelled``; ``resources/subscribe`` plus the
session's GET stream deliver ``notifications/resources/updated``. A session that ends (idle
expiry, a server restart, a network drop) is replaced by a new one: on the next request, or by
the keepalive watcher, which also re-subscribes and tells every listener to read afresh.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ..layer.wire import CONNECTION_CLOSED, ENDPOINT_PATH, INVALID_REQUEST, METHOD_NOT_FOUND
from .backends import ChangeFn, ProgressFn, parse_contents, templates_for_argument
from .call_result import CloudGError, ErrorInfo, Result, hints_from

if TYPE_CHECKING:
    from .mcp_http import HttpSession, RpcError

__all__ = ["CLIENT_NAME", "RemoteBackend"]

logger = logging.getLogger("cloudg.notebook")
T = TypeVar("T")

#: The clientInfo name this client sends (the server's status page lists sessions by it).
CLIENT_NAME = "cloudg-nb-kernel"
#: Seconds to wait for a request or an idle read on the HTTP connection (calls that run
#: longer keep their stream open; an interrupt cancels them at any time).
READ_TIMEOUT = 3600.0
#: Seconds between the watcher's checks of an idle session (a ping). A session the server
#: ended is replaced then, so LiveFrames follow again without anything asked of the user.
KEEPALIVE = 5.0
#: The largest answer read (one SSE event): a result sent as columns holds up to a million
#: rows (the SDK's default, 1 MiB, holds a few thousand).
MAX_EVENT_BYTES = 1 << 30
#: How long a request waits for an unreachable server (a restart) before it fails.
RECONNECT_WAIT = 10.0
#: Pauses between attempts to reach a server that does not answer (the last one repeats).
BACKOFF = (0.25, 0.5, 1.0, 2.0, 4.0)
#: Seconds one attempt to open a session may take.
OPEN_TIMEOUT = 30.0
#: Answers to a request on a session the server no longer knows (HTTP 404 without a body
#: is the first; the SDK's server sends the others).
SESSION_GONE = frozenset({"Session not found", "Session terminated"})


_CLOSED_MESSAGE = ("The connection to the Jupyter server was closed (did the server stop or "
                   "restart?); reconnect with %cloudg connect (or cloudg_nb.connect()).")
_LOST_MID_CALL = ("The connection to the Jupyter server was lost while {tool} ran (the server "
                  "stopped or restarted, or the network dropped), so it may or may not have "
                  "taken effect. The client reconnects by itself: check the workspace, then "
                  "call it again.")
_UNREACHABLE = ("The Jupyter server at {server} does not answer ({why}). If it is restarting, "
                "calls resume by themselves once it is back; if it stopped, start it again, or "
                "use %cloudg connect for another server.")
_REFUSED = ("The Jupyter server at {server} refused this client's new session ({why}). It may "
            "have restarted with another token: %cloudg connect URL --token TOKEN.")


class SessionLost(Exception):
    """The session a request was sent on ended before it was answered; ``sent``: whether the
    server may have received it (a 404 or a refused connection means it did not)."""

    def __init__(self, sent: bool) -> None:
        super().__init__("session lost")
        self.sent = sent


def _refusal(exc: BaseException) -> bool:
    """An answer saying this client may not open a session (retrying cannot help)."""
    message = str(getattr(exc, "message", "") or "")
    return message.startswith("Forbidden") or getattr(exc, "code", None) == METHOD_NOT_FOUND


def _error_info(exc: RpcError) -> ErrorInfo:
    """ErrorInfo of a failed request."""
    if exc.code == CONNECTION_CLOSED:
        return ErrorInfo("connection", _CLOSED_MESSAGE, data={"code": exc.code})
    data = exc.data
    return ErrorInfo(code=exc.code, message=exc.message, hints=hints_from(data),
                     data=data if isinstance(data, dict) else
                     ({} if data is None else {"errors": data}))


class RemoteBackend:
    """An MCP session to ``url`` (``{server}cloudg/mcp``) with ``token``, replaced by a new one
    whenever it ends. ``reconnects`` counts the replacements; ``reconnected(reason)`` (set by
    the Client) hears of each."""

    mode = "remote"

    def __init__(self, url: str, token: str | None, *, found_by: str = "the URL given",
                 keepalive: float = KEEPALIVE, reconnect_wait: float = RECONNECT_WAIT) -> None:
        self.url = url
        self._token = token
        self.found_by = found_by
        self.keepalive = keepalive
        self.reconnect_wait = reconnect_wait
        self.tools_changed: Callable[[], None] | None = None
        self.reconnected: Callable[[str], None] | None = None
        self.reconnects = 0
        self.session_id: str | None = None
        self._client: HttpSession | None = None
        self._retiring: set[asyncio.Task[None]] = set()
        #: Why the last session ended, for the note on the next reconnection.
        self._ended: str | None = None
        self._closing = False
        self._open_lock: asyncio.Lock | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._hints: asyncio.Task[None] | None = None
        self._wake: asyncio.Event | None = None
        self._subscribers: dict[str, list[ChangeFn]] = {}
        self._templates: list[str] | None = None
        self._safe_tools: set[str] = set()
        self._hints_known = False

    @property
    def description(self) -> str:
        return f"remote: Jupyter server {self.server} (found by {self.found_by})"

    @property
    def server(self) -> str:
        return self.url.removesuffix(ENDPOINT_PATH)

    def __repr__(self) -> str:  # never shows the token
        return f"RemoteBackend({self.url!r})"

    # -- session lifetime -----------------------------------------------------------------

    async def start(self) -> None:
        """Open the first session (its failure is the caller's) and start the watcher."""
        self._open_lock = asyncio.Lock()
        self._wake = asyncio.Event()
        await self._open()
        loop = asyncio.get_running_loop()
        self._watcher = loop.create_task(self._watch(), name="cloudg-nb-keepalive")
        self._hints = loop.create_task(self._learn_hints(), name="cloudg-nb-tool-hints")

    async def _learn_hints(self) -> None:
        """List the tools once in the background, so a call cut off later knows whether it
        may be sent again (its ``readOnlyHint``) without asking a server that may be gone."""
        with contextlib.suppress(Exception):
            await self.list_tools()

    async def _open(self) -> None:
        """Open one session (the handshake and its event stream)."""
        import httpx2

        from ..layer.version import __version__
        from .mcp_http import HttpSession

        def remember(session_id: str) -> None:
            self.session_id = session_id

        session: HttpSession

        def lost(reason: str) -> None:
            if self._client is session:
                self._client = None
                self._ended = self._ended or f"the connection was lost: {reason}"
                logger.info("cloudg: the MCP session ended: %s", reason)
                self._retire(session)
                if self._wake is not None:
                    self._wake.set()  # the watcher replaces it

        session = HttpSession(
            self.url, headers={"Authorization": f"token {self._token}"} if self._token else {},
            client_name=CLIENT_NAME, client_version=__version__,
            on_notification=self._on_notification, on_lost=lost, on_session=remember,
            max_event_bytes=MAX_EVENT_BYTES, timeout=httpx2.Timeout(30, read=READ_TIMEOUT))
        await session.open()
        self._client = session

    def _retire(self, session: HttpSession) -> None:
        """Close an ended session in the background (its server side is told if it is
        reachable)."""
        task = asyncio.get_running_loop().create_task(session.close())
        self._retiring.add(task)
        task.add_done_callback(self._retiring.discard)

    async def _end_session(self) -> None:
        """Close the current session (its server side is told when reachable)."""
        session, self._client = self._client, None
        if session is not None:
            with contextlib.suppress(Exception):
                await session.close()

    async def close(self) -> None:
        self._closing = True
        for task in (self._watcher, self._hints):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        self._watcher = self._hints = None
        await self._end_session()
        for task in list(self._retiring):
            with contextlib.suppress(BaseException):
                await task
        self._subscribers.clear()

    async def _session(self, wait: float | None = None) -> HttpSession:
        """The live session; when the last one ended, a new one (waiting up to ``wait``
        seconds, default ``reconnect_wait``, for a server that does not answer)."""
        client = self._client
        if client is not None:
            return client
        if self._closing or self._open_lock is None:
            raise CloudGError(ErrorInfo(
                "connection", "This client is closed; connect again with %cloudg connect "
                              "(or cloudg_nb.connect())."))
        await self._reconnect(self.reconnect_wait if wait is None else wait)
        assert self._client is not None
        return self._client

    async def _reconnect(self, wait: float) -> None:
        """Replace an ended session (one attempt at a time), re-subscribe, and tell the
        listeners to read afresh. CloudGError when the server stays out of reach for
        ``wait`` seconds, or refuses the new session."""
        from .mcp_http import short

        assert self._open_lock is not None
        async with self._open_lock:
            if self._client is not None:
                return  # another request replaced it meanwhile
            loop = asyncio.get_running_loop()
            deadline = loop.time() + wait
            for attempt in itertools.count():
                await self._end_session()
                try:
                    await asyncio.wait_for(self._open(), OPEN_TIMEOUT)
                    break
                except Exception as exc:
                    failure = exc
                    pause = BACKOFF[min(attempt, len(BACKOFF) - 1)]
                    if _refusal(failure):
                        raise CloudGError(ErrorInfo("connection", _REFUSED.format(
                            server=self.server, why=short(failure)),
                            data={"exception": type(failure).__name__})) from None
                    if loop.time() + pause > deadline:
                        raise CloudGError(ErrorInfo("connection", _UNREACHABLE.format(
                            server=self.server, why=short(failure)),
                            data={"exception": type(failure).__name__})) from None
                    await asyncio.sleep(pause)
            client = self._client
            assert client is not None
            for uri in list(self._subscribers):
                with contextlib.suppress(Exception):
                    await client.request("resources/subscribe", {"uri": uri})
            self._templates = None
            self.reconnects += 1
            reason, self._ended = self._ended or "the previous session ended", None
        logger.info("cloudg: reconnected to %s: %s", self.server, reason)
        if self.tools_changed is not None:
            self.tools_changed()
        if self.reconnected is not None:
            self.reconnected(reason)
        for uri, listeners in list(self._subscribers.items()):
            for fn in list(listeners):  # what changed meanwhile is unknown: read afresh
                try:
                    fn(uri)
                except Exception:
                    logger.exception("cloudg: a resource change listener failed")

    async def _watch(self) -> None:
        """Keep a session open: ping an idle one every ``keepalive`` seconds; replace one
        that ended, trying again with growing pauses while the server does not answer."""
        from .mcp_http import RpcError

        assert self._wake is not None
        failures = 0
        while not self._closing:
            pause = self.keepalive if failures == 0 else BACKOFF[min(failures - 1,
                                                                      len(BACKOFF) - 1)]
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), pause)
            self._wake.clear()
            if self._closing:
                return
            client = self._client
            try:
                if client is None:
                    await self._reconnect(0.0)
                else:
                    await asyncio.wait_for(client.request("ping"), OPEN_TIMEOUT)
                failures = 0
            except RpcError as exc:
                if self._gone(exc) and self._client is client:
                    await self._end_session()
                    self._wake.set()
            except CloudGError:
                failures += 1
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.debug("cloudg: keepalive failed", exc_info=True)
                failures += 1

    def _gone(self, exc: Any) -> bool:
        """Whether an error says the session is no longer usable (noting why)."""
        code = getattr(exc, "code", None)
        if code == INVALID_REQUEST and str(getattr(exc, "message", "")) in SESSION_GONE:
            self._ended = self._ended or ("the server no longer knew the session: it expired, "
                                          "or the server restarted")
            return True
        return code == CONNECTION_CLOSED

    async def _request(self, send: Callable[[HttpSession], Awaitable[T]], *,
                       safe: bool) -> T:
        """``send(session)``; when the session turns out to be gone, again on a new one if
        the request never reached the server (a 404 for the session, a refused connection)
        or is ``safe`` to repeat; else SessionLost."""
        from .mcp_http import RpcError

        client = await self._session()
        try:
            return await send(client)
        except RpcError as exc:
            if not self._gone(exc):
                raise
            if self._client is client:
                await self._end_session()
            if exc.sent and not safe:
                raise SessionLost(sent=True) from None
        return await send(await self._session())

    def _on_notification(self, method: str, params: dict[str, Any]) -> None:
        if method == "notifications/resources/updated":
            uri = str(params.get("uri", ""))
            for fn in list(self._subscribers.get(uri, ())):
                try:
                    fn(uri)
                except Exception:
                    logger.exception("cloudg: a resource change listener failed")
        elif method == "notifications/tools/list_changed":
            if self.tools_changed is not None:
                self.tools_changed()
        elif method == "notifications/resources/list_changed":
            self._templates = None

    # -- requests -------------------------------------------------------------------------

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        progress: ProgressFn | None = None,
                        meta: dict[str, Any] | None = None) -> Result:
        from .mcp_http import RpcError

        params: dict[str, Any] = {"name": name, "arguments": arguments}
        if meta:
            params["_meta"] = dict(meta)

        async def send(client: HttpSession) -> dict[str, Any]:
            return await client.request("tools/call", params, progress=progress)

        try:
            try:
                result = await self._request(send, safe=name in self._safe_tools)
            except SessionLost:
                if self._hints_known or name in self._safe_tools:
                    raise
                try:  # learn which tools only read, on a new session
                    await self.list_tools()
                except CloudGError:
                    raise SessionLost(sent=True) from None
                if name not in self._safe_tools:
                    raise
                result = await self._request(send, safe=True)
        except RpcError as exc:
            info = _error_info(exc)
            return Result(tool=name, arguments=dict(arguments), text=info.message,
                          is_error=True, error=info)
        except SessionLost:
            message = _LOST_MID_CALL.format(tool=name)
            return Result(tool=name, arguments=dict(arguments), text=message, is_error=True,
                          error=ErrorInfo("connection", message, data={"sent": True}))
        return Result.from_wire(name, arguments, result)

    async def _read(self, method: str, params: dict[str, Any] | None = None
                    ) -> dict[str, Any]:
        """A request that only reads (safe to repeat on a new session); its errors become
        CloudGError."""
        from .mcp_http import RpcError

        try:
            return await self._request(lambda client: client.request(method, params),
                                       safe=True)
        except RpcError as exc:
            raise CloudGError(_error_info(exc)) from None

    async def _pages(self, method: str, key: str) -> list[dict[str, Any]]:
        """Every item of a paged list (``tools/list``, ...)."""
        items: list[dict[str, Any]] = []
        cursor = None
        for _ in range(100):
            page = await self._read(method, {"cursor": cursor} if cursor else None)
            items.extend(item for item in page.get(key) or () if isinstance(item, dict))
            cursor = page.get("nextCursor")
            if not cursor:
                break
        return items

    async def read_resource(self, uri: str) -> Any:
        result = await self._read("resources/read", {"uri": uri})
        return parse_contents(c for c in result.get("contents") or () if isinstance(c, dict))

    async def get_prompt(self, name: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
        strings = {k: v if isinstance(v, str) else json.dumps(v)
                   for k, v in arguments.items()}
        result = await self._read("prompts/get", {"name": name, "arguments": strings})
        return [{"role": m.get("role"), "text": (m.get("content") or {}).get("text", "")}
                for m in result.get("messages") or ()]

    async def _template_uris(self) -> list[str]:
        if self._templates is None:
            templates = await self._pages("resources/templates/list", "resourceTemplates")
            self._templates = [str(t.get("uriTemplate")) for t in templates]
        return self._templates

    async def complete(self, argument: str, value: str, *, tool: str | None = None,
                       prompt: str | None = None, uri_template: str | None = None,
                       context: dict[str, str] | None = None) -> list[str]:
        refs: list[tuple[dict[str, str], str]]
        if prompt is not None:
            refs = [({"type": "ref/prompt", "name": prompt}, argument)]
        elif uri_template is not None:
            refs = [({"type": "ref/resource", "uri": uri_template}, argument)]
        else:
            refs = [({"type": "ref/resource", "uri": template}, variable)
                    for template, variable in templates_for_argument(
                        argument, await self._template_uris())]
        for ref, name in refs:
            params: dict[str, Any] = {"ref": ref, "argument": {"name": name, "value": value}}
            if context:
                params["context"] = {"arguments": dict(context)}
            done = await self._read("completion/complete", params)
            values = [str(v) for v in (done.get("completion") or {}).get("values") or ()]
            if values:
                return values
        return []

    async def list_tools(self) -> list[dict[str, Any]]:
        tools = await self._pages("tools/list", "tools")
        # Tools that only read (or repeat harmlessly) are sent again on a new session when
        # the connection drops while they run.
        self._safe_tools = {str(t.get("name")) for t in tools
                            if (t.get("annotations") or {}).get("readOnlyHint")
                            or (t.get("annotations") or {}).get("idempotentHint")}
        self._hints_known = True
        return tools

    async def subscribe(self, uri: str, fn: ChangeFn) -> Callable[[], Awaitable[None]]:
        listeners = self._subscribers.setdefault(uri, [])
        first = not listeners
        listeners.append(fn)
        if first:
            try:
                await self._request(
                    lambda client: client.request("resources/subscribe", {"uri": uri}),
                    safe=True)
            except BaseException:
                listeners.remove(fn)
                if not listeners:
                    self._subscribers.pop(uri, None)
                raise

        async def unsubscribe() -> None:
            current = self._subscribers.get(uri, [])
            if fn in current:
                current.remove(fn)
            client = self._client
            if not current and self._subscribers.pop(uri, None) is not None \
                    and client is not None:
                with contextlib.suppress(Exception):
                    await client.request("resources/unsubscribe", {"uri": uri})

        return unsubscribe

    def status(self) -> dict[str, Any]:
        client = self._client
        info = client.server_info if client is not None else {}
        return {
            "mode": self.mode,
            "description": self.description,
            "url": self.url,
            "connected": client is not None,
            "session_id": self.session_id,
            "protocol_version": client.protocol_version if client is not None else None,
            "server": f"{info.get('name')} {info.get('version')}" if info else None,
            "subscriptions": sorted(self._subscribers),
            "reconnects": self.reconnects,
        }
