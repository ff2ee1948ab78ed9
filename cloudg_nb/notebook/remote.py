"""The remote backend: one MCP session (``mcp.Client``, handshake era) to the cloudg endpoint of
a Jupyter server, authenticated with the server's token, so the notebook shares the server's
workspace with every assistant connected there.

Each session is entered and exited by one long-lived owner task on the client loop; requests
run in other tasks on that loop. Progress arrives over the call's SSE stream; cancelling a
request task makes the SDK send ``notifications/cancelled``; ``resources/subscribe`` plus the
message handler deliver ``notifications/resources/updated``. A session that ends (idle expiry,
a server restart, a network drop) is replaced by a new one: on the next request, or by the
keepalive watcher, which also re-subscribes and tells every listener to read afresh.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from ..layer.wire import (
    CONNECTION_CLOSED,
    INVALID_REQUEST,
    MCP_SESSION_ID_HEADER,
    METHOD_NOT_FOUND,
)
from .backends import ChangeFn, ProgressFn, parse_contents, templates_for_argument
from .result import CloudGError, ErrorInfo, Result, hints_from

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
#: The SDK's answers to a request on a session the server no longer knows (HTTP 404).
SESSION_GONE = frozenset({"Session not found", "Session terminated"})


def _short(exc: BaseException | None) -> str:
    """``ConnectError: All connection attempts failed`` (one line, at most 200 characters)."""
    if exc is None:
        return "no reason given"
    text = " ".join(str(getattr(exc, "message", None) or exc).split())
    return f"{type(exc).__name__}: {text}"[:200] if text else type(exc).__name__


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


async def _resource_request(client: Any, uri: str, subscribe: bool) -> None:
    """Send resources/subscribe (or unsubscribe). The SDK marks its helpers deprecated (the
    2026 era replaced them with listen); this client speaks the handshake era, where they are
    the way to hear about changes, so it sends the request itself."""
    import mcp_types as types

    request: Any = (types.SubscribeRequest(params=types.SubscribeRequestParams(uri=uri))
                    if subscribe else
                    types.UnsubscribeRequest(params=types.UnsubscribeRequestParams(uri=uri)))
    await client.session.send_request(request, types.EmptyResult)


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


#: Request ``_meta`` key naming one attempt of a tool call (so a refused connection can
#: tell which call never left this machine).
ATTEMPT_KEY = "cloudg/attempt"


def _attempt_of(body: bytes) -> str | None:
    """The attempt marker of a tool call's JSON-RPC body, if it has one."""
    try:
        return str(json.loads(body)["params"]["_meta"][ATTEMPT_KEY])
    except (ValueError, KeyError, TypeError):
        return None


def _unsent_log(unsent: set[str]) -> Any:
    """An HTTP transport that adds to ``unsent`` the attempt of every tool call whose
    connection was refused (the request never reached the server, so sending it again on a
    new session is safe). It connects directly: the server is the kernel's own Jupyter."""
    import httpx2

    class UnsentLog(httpx2.AsyncBaseTransport):
        def __init__(self) -> None:
            self.inner = httpx2.AsyncHTTPTransport()

        async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
            try:
                return await self.inner.handle_async_request(request)
            except (httpx2.ConnectError, httpx2.ConnectTimeout):
                if request.method == "POST" and ATTEMPT_KEY.encode() in request.content:
                    unsent.add(_attempt_of(request.content) or "")
                raise

        async def aclose(self) -> None:
            await self.inner.aclose()

    return UnsentLog()


def _refusal(exc: BaseException) -> bool:
    """An answer saying this client may not open a session (retrying cannot help)."""
    message = str(getattr(exc, "message", "") or "")
    return message.startswith("Forbidden") or getattr(exc, "code", None) == METHOD_NOT_FOUND


class _TracebackToOneLine(logging.Filter):
    """The SDK logs transport failures with a traceback; in a notebook that reads as a crash
    while the call itself returns an error result. Keep the line, drop the traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.exc_info[1] is not None:
            failure = _leaf(record.exc_info[1])
            record.msg = f"{record.getMessage()}: {type(failure).__name__}: {failure}"
            record.args = ()
            record.exc_info = None
            record.exc_text = None
        return True


def _quiet_sdk_tracebacks() -> None:
    sdk = logging.getLogger("mcp.client.streamable_http")
    if not any(isinstance(f, _TracebackToOneLine) for f in sdk.filters):
        sdk.addFilter(_TracebackToOneLine())


def _error_info(exc: Any) -> ErrorInfo:
    """ErrorInfo of an SDK ``MCPError``."""
    if exc.code == CONNECTION_CLOSED:
        return ErrorInfo("connection", _CLOSED_MESSAGE, data={"code": exc.code})
    data = exc.data
    return ErrorInfo(code=exc.code, message=exc.message, hints=hints_from(data),
                     data=data if isinstance(data, dict) else
                     ({} if data is None else {"errors": data}))


def _paged(method: str, cursor: str | None) -> Callable[[Any], Awaitable[Any]]:
    """A request for one page of a list (``list_tools``, ...) at ``cursor``."""
    async def send(client: Any) -> Any:
        return await getattr(client, method)(cursor=cursor)

    return send


def _completion(ref: Any, name: str, value: str,
                context: dict[str, str] | None) -> Callable[[Any], Awaitable[Any]]:
    async def send(client: Any) -> Any:
        return await client.complete(ref, {"name": name, "value": value},
                                     context_arguments=context)

    return send


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
        self._client: Any = None
        self._owner: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
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
        self._unsent: set[str] = set()
        #: Attempts the server answered (response headers came): it received them.
        self._answered: set[str] = set()
        _quiet_sdk_tracebacks()

    @property
    def description(self) -> str:
        return f"remote: Jupyter server {self.server} (found by {self.found_by})"

    @property
    def server(self) -> str:
        return self.url.removesuffix("cloudg/mcp")

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
        """Open one session, held by its own owner task until ``_end_session``."""
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()
        stop = self._stop = asyncio.Event()
        self._owner = loop.create_task(self._own(ready, stop), name="cloudg-nb-session")
        try:
            await ready
        except BaseException:
            self._owner.cancel()
            with contextlib.suppress(BaseException):
                await self._owner
            raise

    async def _own(self, ready: asyncio.Future[None], stop: asyncio.Event) -> None:
        """Enter the session, signal ``ready``, hold it until ``stop``, exit it: all in this
        one task, as anyio's task groups inside the SDK require."""
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client
        from mcp_types import Implementation

        from .. import __version__

        headers = {"Authorization": f"token {self._token}"} if self._token else {}

        async def remember_session(response: httpx2.Response) -> None:
            session = response.headers.get(MCP_SESSION_ID_HEADER)
            if session:
                self.session_id = session
            request = response.request
            if request.method == "POST" and ATTEMPT_KEY.encode() in request.content:
                self._answered.add(_attempt_of(request.content) or "")

        client: Any = None
        try:
            async with httpx2.AsyncClient(
                    headers=headers, timeout=httpx2.Timeout(30, read=READ_TIMEOUT),
                    transport=_unsent_log(self._unsent),
                    event_hooks={"response": [remember_session]}) as http:
                client = Client(streamable_http_client(self.url, http_client=http,
                                                       max_sse_event_size=MAX_EVENT_BYTES),
                                mode="legacy", message_handler=self._on_message,
                                client_info=Implementation(name=CLIENT_NAME,
                                                           version=__version__))
                async with client:
                    self._client = client
                    ready.set_result(None)
                    await stop.wait()
        except BaseException as exc:  # reported to the caller waiting in _open(), or kept
            failure = _leaf(exc)
            if not ready.done():
                ready.set_exception(failure)
            elif not stop.is_set():
                self._ended = self._ended or f"the connection was lost: {_short(failure)}"
                logger.info("cloudg: the MCP session ended: %s", failure)
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            if self._client is client:
                self._client = None
            if self._wake is not None and not stop.is_set():
                self._wake.set()  # the watcher replaces it

    async def _end_session(self) -> None:
        """End the current session's owner task (its server side is told when reachable)."""
        owner, self._owner = self._owner, None
        if self._stop is not None:
            self._stop.set()
        self._client = None
        if owner is not None and not owner.done():
            try:
                await asyncio.wait_for(asyncio.shield(owner), 5)
            except (TimeoutError, Exception):
                owner.cancel()
                with contextlib.suppress(BaseException):
                    await owner

    async def close(self) -> None:
        self._closing = True
        for task in (self._watcher, self._hints):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        self._watcher = self._hints = None
        await self._end_session()
        self._subscribers.clear()

    async def _session(self, wait: float | None = None) -> Any:
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
        return self._client

    async def _reconnect(self, wait: float) -> None:
        """Replace an ended session (one attempt at a time), re-subscribe, and tell the
        listeners to read afresh. CloudGError when the server stays out of reach for
        ``wait`` seconds, or refuses the new session."""
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
                    failure = _leaf(exc)
                    pause = BACKOFF[min(attempt, len(BACKOFF) - 1)]
                    if _refusal(failure):
                        raise CloudGError(ErrorInfo("connection", _REFUSED.format(
                            server=self.server, why=_short(failure)),
                            data={"exception": type(failure).__name__})) from None
                    if loop.time() + pause > deadline:
                        raise CloudGError(ErrorInfo("connection", _UNREACHABLE.format(
                            server=self.server, why=_short(failure)),
                            data={"exception": type(failure).__name__})) from None
                    await asyncio.sleep(pause)
            client = self._client
            for uri in list(self._subscribers):
                with contextlib.suppress(Exception):
                    await _resource_request(client, uri, True)
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
        """Keep a session open: ping an idle one every ``keepalive`` seconds (through the
        session: ``Client.send_ping`` warns that the 2026 era has no ping, but this client
        speaks the handshake era); replace one that ended, trying again with growing pauses
        while the server does not answer."""
        from mcp.shared.exceptions import MCPError

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
                    await asyncio.wait_for(client.session.send_ping(), OPEN_TIMEOUT)
                failures = 0
            except MCPError as exc:
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
        """Whether an SDK error says the session is no longer usable (noting why)."""
        code = getattr(exc, "code", None)
        if code == INVALID_REQUEST and str(getattr(exc, "message", "")) in SESSION_GONE:
            self._ended = self._ended or ("the server no longer knew the session: it expired, "
                                          "or the server restarted")
            return True
        return code == CONNECTION_CLOSED

    async def _request(self, send: Callable[[Any], Awaitable[T]], *, safe: bool,
                       attempt: str | None = None) -> T:
        """``send(session)``; when the session turns out to be gone, again on a new one if
        the request never reached the server (a 404 for the session, or the refused
        connection of ``attempt``) or is ``safe`` to repeat; else SessionLost."""
        from mcp.shared.exceptions import MCPError

        try:
            client = await self._session()
            try:
                return await send(client)
            except MCPError as exc:
                if not self._gone(exc):
                    raise
                # A call never reached the server when its connection was refused, or when
                # the session broke (another request's failure) before any answer to it.
                never_sent = exc.code == INVALID_REQUEST or attempt in self._unsent or (
                    attempt is not None and attempt not in self._answered)
                if self._client is client:
                    await self._end_session()
                if not (never_sent or safe):
                    raise SessionLost(sent=True) from None
            return await send(await self._session())
        finally:
            self._unsent.discard(attempt or "")
            self._answered.discard(attempt or "")

    async def _on_message(self, message: Any) -> None:
        import mcp_types as types

        if isinstance(message, types.ResourceUpdatedNotification):
            uri = str(message.params.uri)
            for fn in list(self._subscribers.get(uri, ())):
                try:
                    fn(uri)
                except Exception:
                    logger.exception("cloudg: a resource change listener failed")
        elif isinstance(message, types.ToolListChangedNotification):
            if self.tools_changed is not None:
                self.tools_changed()
        elif isinstance(message, types.ResourceListChangedNotification):
            self._templates = None
        elif isinstance(message, Exception):
            logger.debug("cloudg: transport error: %s", message)

    # -- requests -------------------------------------------------------------------------

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        progress: ProgressFn | None = None,
                        meta: dict[str, Any] | None = None) -> Result:
        from mcp.shared.exceptions import MCPError

        on_progress = None
        if progress is not None:
            report = progress

            async def on_progress(value: float, total: float | None,
                                  message: str | None) -> None:
                report(value, total, message)

        attempt = secrets.token_hex(8)
        request_meta = {**(meta or {}), ATTEMPT_KEY: attempt}

        async def send(client: Any) -> Any:
            return await client.call_tool(name, arguments, progress_callback=on_progress,
                                          meta=request_meta)

        try:
            try:
                result = await self._request(send, safe=name in self._safe_tools,
                                             attempt=attempt)
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
        except MCPError as exc:
            info = _error_info(exc)
            return Result(tool=name, arguments=dict(arguments), text=info.message,
                          is_error=True, error=info)
        except SessionLost:
            message = _LOST_MID_CALL.format(tool=name)
            return Result(tool=name, arguments=dict(arguments), text=message, is_error=True,
                          error=ErrorInfo("connection", message, data={"sent": True}))
        # Only the parts a Result reads (a full model dump of a 1k-row page costs ~ms).
        wire = {"content": [{"type": "text", "text": block.text} for block in result.content
                            if getattr(block, "type", None) == "text"],
                "structuredContent": result.structured_content,
                "isError": bool(result.is_error), "_meta": dict(result.meta or {})}
        return Result.from_wire(name, arguments, wire)

    async def _read_request(self, send: Callable[[Any], Awaitable[T]]) -> T:
        """A request that only reads (safe to repeat on a new session); SDK errors become
        CloudGError."""
        from mcp.shared.exceptions import MCPError

        try:
            return await self._request(send, safe=True)
        except MCPError as exc:
            raise CloudGError(_error_info(exc)) from None

    async def read_resource(self, uri: str) -> Any:
        result = await self._read_request(lambda client: client.read_resource(uri))
        return parse_contents(c.model_dump(by_alias=True, mode="json", exclude_none=True)
                              for c in result.contents)

    async def get_prompt(self, name: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
        strings = {k: v if isinstance(v, str) else json.dumps(v)
                   for k, v in arguments.items()}
        result = await self._read_request(lambda client: client.get_prompt(name, strings))
        return [{"role": m.role, "text": getattr(m.content, "text", "")}
                for m in result.messages]

    async def _template_uris(self) -> list[str]:
        if self._templates is None:
            uris: list[str] = []
            cursor = None
            for _ in range(100):
                page = await self._read_request(_paged("list_resource_templates", cursor))
                uris.extend(t.uri_template for t in page.resource_templates)
                cursor = page.next_cursor
                if not cursor:
                    break
            self._templates = uris
        return self._templates

    async def complete(self, argument: str, value: str, *, tool: str | None = None,
                       prompt: str | None = None, uri_template: str | None = None,
                       context: dict[str, str] | None = None) -> list[str]:
        from mcp_types import PromptReference, ResourceTemplateReference

        refs: list[tuple[Any, str]]
        if prompt is not None:
            refs = [(PromptReference(type="ref/prompt", name=prompt), argument)]
        elif uri_template is not None:
            refs = [(ResourceTemplateReference(type="ref/resource", uri=uri_template), argument)]
        else:
            refs = [(ResourceTemplateReference(type="ref/resource", uri=template), variable)
                    for template, variable in templates_for_argument(
                        argument, await self._template_uris())]
        arguments = dict(context or {}) or None
        for ref, name in refs:
            done = await self._read_request(_completion(ref, name, value, arguments))
            values = [str(v) for v in done.completion.values]
            if values:
                return values
        return []

    async def list_tools(self) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = []
        cursor = None
        for _ in range(100):
            page = await self._read_request(_paged("list_tools", cursor))
            tools.extend(t.model_dump(by_alias=True, mode="json", exclude_none=True)
                         for t in page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
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
                await self._request(lambda client: _resource_request(client, uri, True),
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
            if not current and self._subscribers.pop(uri, None) is not None \
                    and self._client is not None:
                with contextlib.suppress(Exception):
                    await _resource_request(self._client, uri, False)

        return unsubscribe

    def status(self) -> dict[str, Any]:
        client = self._client
        info = getattr(client, "server_info", None) if client is not None else None
        return {
            "mode": self.mode,
            "description": self.description,
            "url": self.url,
            "connected": client is not None,
            "session_id": self.session_id,
            "protocol_version": client.protocol_version if client is not None else None,
            "server": f"{info.name} {info.version}" if info is not None else None,
            "subscriptions": sorted(self._subscribers),
            "reconnects": self.reconnects,
        }
