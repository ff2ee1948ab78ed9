"""A small MCP client session over Streamable HTTP (handshake era), without the SDK.

The kernel talks to one server, ours, through a handful of requests; the SDK's client would
cost a fresh kernel about half a second of imports (its pydantic models of every protocol
version, and its server half) and validate every answer into models only to be read as
dicts again. This speaks the wire directly: each request is one POST whose answer comes as
JSON or as an SSE stream (progress notifications first, then the response); one GET stream
carries what the server says unasked (resource updates, list changes); a cancelled request
sends ``notifications/cancelled``; ``close`` sends DELETE. ``tests/notebook/test_mcp_http.py``
holds it to the SDK server's behaviour.

Failures are :class:`RpcError`: a JSON-RPC error as the server sent it, ``INVALID_REQUEST``
"Session not found" for an HTTP 404 on an ended session, ``CONNECTION_CLOSED`` when the
connection failed, with ``sent`` telling whether the request may have reached the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import ssl
from collections.abc import AsyncIterator, Callable
from typing import Any, Final

import httpx2

from ..layer.wire import (
    CONNECTION_CLOSED,
    INTERNAL_ERROR,
    INVALID_REQUEST,
    JSONRPC_VERSION,
    MCP_PROTOCOL_VERSION_HEADER,
    MCP_SESSION_ID_HEADER,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
)

__all__ = ["HANDSHAKE_VERSION", "HttpSession", "RpcError"]

logger = logging.getLogger("cloudg.notebook")

#: The protocol revision this client offers (the newest one reached by ``initialize``).
HANDSHAKE_VERSION: Final = "2025-11-25"
#: The message an ended session's 404 becomes (the remote backend then opens a new one).
SESSION_NOT_FOUND: Final = "Session not found"
#: Seconds a DELETE at close may take (a server that is gone should not hold a close up).
CLOSE_TIMEOUT: Final = 3.0
#: Pause before the GET stream is opened again after the server closed it.
RELISTEN_PAUSE: Final = 0.5

Notify = Callable[[str, dict[str, Any]], None]
Progress = Callable[[float, float | None, str | None], None]


class RpcError(Exception):
    """A request that failed: ``code``, ``message`` and ``data`` as JSON-RPC spells them;
    ``sent``: whether the server may have received the request."""

    def __init__(self, code: int, message: str, data: Any = None, *, sent: bool = True) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data
        self.sent = sent


def short(exc: BaseException | None) -> str:
    """``ConnectError: All connection attempts failed`` (one line, at most 200 characters)."""
    if exc is None:
        return "no reason given"
    text = " ".join(str(getattr(exc, "message", None) or exc).split())
    return f"{type(exc).__name__}: {text}"[:200] if text else type(exc).__name__


async def _events(response: httpx2.Response, limit: int) -> AsyncIterator[Any]:
    """The JSON-RPC messages of an SSE stream (``data`` of ``message`` events). Lines are
    found in each new chunk only, so one large event costs one join."""
    chunks: list[bytes] = []
    pending = 0
    data: list[bytes] = []
    size = 0
    event = b"message"
    async for chunk in response.aiter_bytes():
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            line = chunk[start:end]
            if chunks:
                line = b"".join((*chunks, line))
                chunks.clear()
                pending = 0
            start = end + 1
            if line.endswith(b"\r"):
                line = line[:-1]
            if not line:  # the end of an event
                if data and event == b"message":
                    text = data[0] if len(data) == 1 else b"\n".join(data)
                    try:
                        yield json.loads(text)
                    except ValueError:
                        logger.debug("cloudg: an SSE event was not JSON")
                data.clear()
                size = 0
                event = b"message"
            elif line.startswith(b"data:"):
                value = line[6:] if line.startswith(b"data: ") else line[5:]
                size += len(value)
                if size > limit:
                    raise RpcError(INTERNAL_ERROR, f"An answer was larger than {limit} bytes; "
                                                   "ask for fewer rows.", {"limit": limit})
                data.append(value)
            elif line.startswith(b"event:"):
                event = line[6:].strip()
        if start < len(chunk):
            chunks.append(chunk[start:])
            pending += len(chunk) - start
            if pending > limit:
                raise RpcError(INTERNAL_ERROR, f"An answer was larger than {limit} bytes; "
                                               "ask for fewer rows.", {"limit": limit})


class HttpSession:
    """One MCP session at ``url``. ``open()`` makes the handshake and starts listening;
    ``request`` and ``notify`` may run concurrently; ``on_notification(method, params)``
    hears what the server says unasked, ``on_lost(reason)`` that the session ended."""

    def __init__(self, url: str, *, headers: dict[str, str], client_name: str,
                 client_version: str, on_notification: Notify,
                 on_lost: Callable[[str], None], max_event_bytes: int,
                 timeout: httpx2.Timeout, on_session: Callable[[str], None] | None = None
                 ) -> None:
        self.url = url
        self.client_name = client_name
        self.client_version = client_version
        self.on_notification = on_notification
        self.on_lost = on_lost
        self.on_session = on_session
        self.max_event_bytes = max_event_bytes
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self.server_info: dict[str, Any] = {}
        self.closed = False
        # plain http needs no trust store (loading one costs a fresh kernel ~25 ms); a bare
        # context trusts nothing, so a redirect to https would fail rather than go unchecked
        verify: ssl.SSLContext | bool = True if url.lower().startswith("https:") else \
            ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        self._http = httpx2.AsyncClient(headers=headers, timeout=timeout, verify=verify)
        self._ids = itertools.count(1)
        self._listener: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[Any]] = set()

    # -- lifetime -----------------------------------------------------------------------------

    async def open(self) -> None:
        """``initialize``, ``notifications/initialized``, then the GET stream."""
        try:
            result = await self.request("initialize", {
                "protocolVersion": HANDSHAKE_VERSION, "capabilities": {},
                "clientInfo": {"name": self.client_name, "version": self.client_version}})
            self.protocol_version = str(result.get("protocolVersion") or HANDSHAKE_VERSION)
            self.server_info = dict(result.get("serverInfo") or {})
            await self.notify("notifications/initialized")
        except BaseException:
            await self.close()
            raise
        self._listener = asyncio.get_running_loop().create_task(
            self._listen(), name="cloudg-nb-listen")

    async def close(self) -> None:
        """Stop listening, end the session on the server (when it answers), close sockets."""
        if self.closed:
            return
        self.closed = True
        tasks = [t for t in (self._listener, *self._background) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        if self.session_id is not None:
            with contextlib.suppress(Exception):
                await self._http.delete(self.url, headers=self._headers(),
                                        timeout=CLOSE_TIMEOUT)
        await self._http.aclose()

    def _headers(self) -> dict[str, str]:
        headers = {"accept": "application/json, text/event-stream",
                   "content-type": "application/json"}
        if self.session_id is not None:
            headers[MCP_SESSION_ID_HEADER] = self.session_id
        if self.protocol_version is not None:
            headers[MCP_PROTOCOL_VERSION_HEADER] = self.protocol_version
        return headers

    # -- requests -----------------------------------------------------------------------------

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": JSONRPC_VERSION, "method": method}
        if params is not None:
            message["params"] = params
        await self._post_only(message)

    async def _post_only(self, message: dict[str, Any]) -> None:
        """POST a notification or an answer (no result is read)."""
        try:
            response = await self._http.post(self.url, content=json.dumps(message).encode(),
                                             headers=self._headers())
        except httpx2.HTTPError as exc:
            raise RpcError(CONNECTION_CLOSED, f"The connection failed: {short(exc)}",
                           sent=not isinstance(exc, httpx2.ConnectError)) from None
        if response.status_code >= 400:
            raise self._http_error(response.status_code, response.content,
                                   response.headers.get("content-type", ""))

    async def request(self, method: str, params: dict[str, Any] | None = None, *,
                      progress: Progress | None = None) -> dict[str, Any]:
        """The result of one request; RpcError when it failed. ``progress`` hears the
        request's progress notifications."""
        rid = next(self._ids)
        message: dict[str, Any] = {"jsonrpc": JSONRPC_VERSION, "id": rid, "method": method}
        if progress is not None:
            params = dict(params or {})
            params["_meta"] = {**(params.get("_meta") or {}), "progressToken": rid}
        if params is not None:
            message["params"] = params
        body = json.dumps(message).encode()
        try:
            async with self._http.stream("POST", self.url, content=body,
                                         headers=self._headers()) as response:
                if method == "initialize":
                    self.session_id = response.headers.get(MCP_SESSION_ID_HEADER)
                    if self.session_id and self.on_session is not None:
                        self.on_session(self.session_id)
                return await self._answer(response, rid, progress)
        except asyncio.CancelledError:
            if method != "initialize":
                self._later(self.notify("notifications/cancelled", {
                    "requestId": rid, "reason": "the caller cancelled the request"}))
            raise
        except (httpx2.ConnectError, httpx2.ConnectTimeout) as exc:
            raise RpcError(CONNECTION_CLOSED, f"Could not connect: {short(exc)}",
                           sent=False) from None
        except httpx2.HTTPError as exc:
            raise RpcError(CONNECTION_CLOSED, f"The connection was lost: {short(exc)}",
                           sent=True) from None

    async def _answer(self, response: httpx2.Response, rid: int,
                      progress: Progress | None) -> dict[str, Any]:
        kind = response.headers.get("content-type", "").lower()
        if response.status_code >= 400:
            raise self._http_error(response.status_code, await response.aread(), kind)
        if kind.startswith("application/json"):
            return self._result(json.loads(await response.aread()))
        if not kind.startswith("text/event-stream"):
            raise RpcError(INVALID_REQUEST, "The server answered with neither JSON nor an "
                                            "event stream.", {"status": response.status_code})
        async for message in _events(response, self.max_event_bytes):
            if message.get("id") == rid and "method" not in message:
                return self._result(message)
            params = message.get("params") or {}
            if message.get("method") == "notifications/progress" \
                    and params.get("progressToken") == rid:
                if progress is not None:
                    progress(params.get("progress", 0.0), params.get("total"),
                             params.get("message"))
            else:
                self._dispatch(message)
        raise RpcError(CONNECTION_CLOSED, "The connection closed before the answer came.")

    @staticmethod
    def _result(message: Any) -> dict[str, Any]:
        if not isinstance(message, dict):
            raise RpcError(PARSE_ERROR, "The server's answer was not a JSON-RPC message.")
        error = message.get("error")
        if isinstance(error, dict):
            raise RpcError(int(error.get("code", INTERNAL_ERROR)), str(error.get("message", "")),
                           error.get("data"))
        result = message.get("result")
        return result if isinstance(result, dict) else {}

    def _http_error(self, status: int, body: bytes, kind: str) -> RpcError:
        """An HTTP refusal: the server's JSON-RPC error when it sent one, else by status."""
        if kind.startswith("application/json"):
            with contextlib.suppress(ValueError):
                error = json.loads(body).get("error")
                if isinstance(error, dict) and "code" in error:
                    return RpcError(int(error["code"]), str(error.get("message", "")),
                                    error.get("data"), sent=status >= 500)
        if status == 404:
            if self.session_id is None:
                return RpcError(METHOD_NOT_FOUND, "Not Found: no MCP endpoint here", sent=False)
            return RpcError(INVALID_REQUEST, SESSION_NOT_FOUND, sent=False)
        if status in (401, 403):
            return RpcError(INVALID_REQUEST, f"Forbidden: the server refused this client "
                                             f"(HTTP {status})", {"status": status}, sent=False)
        return RpcError(INTERNAL_ERROR if status >= 500 else INVALID_REQUEST,
                        f"The server answered HTTP {status}.", {"status": status},
                        sent=status >= 500)

    # -- what the server says unasked ---------------------------------------------------------

    def _dispatch(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if not isinstance(method, str):
            return
        if "id" in message:  # a request from the server: ping is answered, nothing else
            answer: dict[str, Any] = {"jsonrpc": JSONRPC_VERSION, "id": message["id"]}
            if method == "ping":
                answer["result"] = {}
            else:
                answer["error"] = {"code": METHOD_NOT_FOUND,
                                   "message": f"This client does not handle {method}."}
            self._later(self._post_only(answer))
            return
        try:
            self.on_notification(method, message.get("params") or {})
        except Exception:
            logger.exception("cloudg: a notification handler failed")

    def _later(self, work: Any) -> None:
        async def run() -> None:
            with contextlib.suppress(Exception):
                await work

        if self.closed:
            work.close()
            return
        task = asyncio.get_running_loop().create_task(run())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _listen(self) -> None:
        """Hold the GET stream open; when the server closes it, open it again. The session
        is lost when the server no longer knows it or cannot be reached."""
        while not self.closed:
            why = "the server closed the event stream"
            try:
                async with self._http.stream("GET", self.url, headers=self._headers()) \
                        as response:
                    if response.status_code == 405:
                        return  # the server offers no stream: requests still work
                    if response.status_code == 409:  # the old stream is still being closed
                        why = "another event stream was still open"
                    elif response.status_code >= 400:
                        error = self._http_error(response.status_code, await response.aread(),
                                                 response.headers.get("content-type", ""))
                        self._lost(error.message if error.message != SESSION_NOT_FOUND else
                                   "the server no longer knew the session: it expired, or "
                                   "the server restarted")
                        return
                    else:
                        async for message in _events(response, self.max_event_bytes):
                            self._dispatch(message)
            except (httpx2.ConnectError, httpx2.ConnectTimeout) as exc:
                self._lost(f"the server could not be reached: {short(exc)}")
                return
            except (httpx2.HTTPError, RpcError) as exc:
                why = f"the event stream broke: {short(exc)}"
            logger.debug("cloudg: %s; listening again", why)
            await asyncio.sleep(RELISTEN_PAUSE)

    def _lost(self, reason: str) -> None:
        if not self.closed:
            self.on_lost(reason)
