"""Forward one tornado request to an ASGI app (the MCP SDK's session manager).

The scope carries method, path, query string (token removed), lower-cased byte headers
(credentials removed), client and server. ``receive`` returns the body once, then waits until
the connection closes and returns ``http.disconnect``. Every body chunk is written and
flushed at once, so SSE events reach the client while a tool runs; event streams get
``X-Accel-Buffering: no``. Ours because no maintained tornado-to-ASGI adapter streams.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode

from tornado.iostream import StreamClosedError
from tornado.web import RequestHandler

from cloudg_nb.layer.wire import INTERNAL_ERROR, error_response

__all__ = ["ASGIApp", "TornadoASGIBridge"]

logger = logging.getLogger("cloudg.jupyter")

Message = MutableMapping[str, Any]
ASGIApp = Callable[
    [MutableMapping[str, Any], Callable[[], Awaitable[Message]],
     Callable[[Message], Awaitable[None]]],
    Awaitable[None],
]

#: Request headers the ASGI app never sees: Jupyter has checked them already.
_HIDDEN_HEADERS = {b"authorization", b"cookie", b"x-xsrftoken", b"x-csrftoken"}
_HIDDEN_QUERY = {"token", "_xsrf"}


def _query_without_credentials(query: str) -> bytes:
    pairs = parse_qsl(query, keep_blank_values=True)
    if not any(key in _HIDDEN_QUERY for key, _ in pairs):
        return query.encode("latin-1")
    return urlencode([(k, v) for k, v in pairs if k not in _HIDDEN_QUERY]).encode("latin-1")


def _server_address(host: str, scheme: str) -> tuple[str, int]:
    name, sep, port = host.rpartition(":")
    if sep and port.isdigit() and (not name.startswith("[") or name.endswith("]")):
        return name, int(port)
    return host, 443 if scheme == "https" else 80


class TornadoASGIBridge:
    """Run an ASGI app for the request ``handler`` is serving, writing its response."""

    def __init__(self, handler: RequestHandler, extra_scope: Mapping[str, Any] | None = None):
        self.handler = handler
        self.extra_scope = dict(extra_scope or {})
        self._body_sent = False
        self._closed = asyncio.Event()
        self._started = False
        self._finished = False

    # -- what the handler tells us ------------------------------------------------------

    def connection_closed(self) -> None:
        """The client went away (``RequestHandler.on_connection_close``)."""
        self._closed.set()

    @property
    def response_started(self) -> bool:
        return self._started

    # -- ASGI ---------------------------------------------------------------------------

    def scope(self) -> dict[str, Any]:
        request = self.handler.request
        headers = [
            (name.lower().encode("latin-1"), value.encode("latin-1"))
            for name, value in request.headers.get_all()
        ]
        return {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": request.version.rpartition("/")[2] or "1.1",
            "method": request.method,
            "scheme": request.protocol,
            "path": unquote(request.path),
            "raw_path": request.path.encode("latin-1"),
            "query_string": _query_without_credentials(request.query),
            "root_path": "",
            "headers": [(k, v) for k, v in headers if k not in _HIDDEN_HEADERS],
            "client": (request.remote_ip or "", 0),
            "server": _server_address(request.host, request.protocol),
            "state": {},
            **self.extra_scope,
        }

    async def receive(self) -> Message:
        if not self._body_sent:
            self._body_sent = True
            return {"type": "http.request", "body": self.handler.request.body or b"",
                    "more_body": False}
        await self._closed.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: Message) -> None:
        kind = message["type"]
        if kind == "http.response.start":
            if self._start(message):
                await self._body(b"", more_body=True)  # a stream opens now, not at its first event
        elif kind == "http.response.body":
            await self._body(message.get("body", b""), bool(message.get("more_body", False)))

    def _start(self, message: Message) -> bool:
        """Set status and headers; True for an event stream."""
        handler = self.handler
        handler.set_status(int(message["status"]))
        handler.clear_header("Content-Type")
        event_stream = False
        for raw_name, raw_value in message.get("headers", ()):
            name, value = raw_name.decode("latin-1"), raw_value.decode("latin-1")
            handler.add_header(name, value)
            if name.lower() == "content-type" and value.startswith("text/event-stream"):
                event_stream = True
        if event_stream:
            handler.set_header("X-Accel-Buffering", "no")
            handler.set_header("Cache-Control", "no-cache, no-transform")
        self._started = True
        return event_stream

    async def _body(self, body: bytes, more_body: bool) -> None:
        if self._finished or self._closed.is_set():
            return  # the client is gone: the app learns it from receive()
        try:
            if body:
                self.handler.write(body)
            if more_body:
                await self.handler.flush()
            else:
                self._finished = True
                await self.handler.finish()
        except StreamClosedError:
            self._closed.set()

    # -- running ------------------------------------------------------------------------

    async def run(self, app: ASGIApp) -> None:
        """Call ``app``; afterwards the response is finished and ``receive`` says
        disconnected (so no helper task of the app waits forever)."""
        try:
            await app(self.scope(), self.receive, self.send)
        finally:
            self._closed.set()
            if not self._finished:
                self._finished = True
                if not self._started:
                    self._internal_error()
                with contextlib.suppress(StreamClosedError):
                    done = self.handler.finish()
                    done.add_done_callback(lambda f: f.cancelled() or f.exception())

    def _internal_error(self) -> None:
        """The app failed before answering: a JSON-RPC error, never a traceback."""
        self.handler.set_status(500)
        self.handler.set_header("Content-Type", "application/json")
        self.handler.write(json.dumps(error_response(
            INTERNAL_ERROR, "The MCP endpoint failed to handle this request; the Jupyter "
            "server log has the details.")))
