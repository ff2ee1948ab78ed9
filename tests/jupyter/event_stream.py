"""Jupyter's event bus as JupyterLab reads it: a websocket on ``{base_url}api/events/subscribe``
(tornado's client, with the server token), read on a loop of its own in a daemon thread.

``subscribe(server)`` yields an ``EventStream``: ``events`` (each message parsed, with the
monotonic time it arrived as ``_received``), ``raw`` (the texts as sent) and ``wait_for``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from tornado.httpclient import HTTPRequest
from tornado.websocket import WebSocketClientConnection, websocket_connect

from .server import JupyterServer

Event = dict[str, Any]


class EventStream:
    """The messages of one subscription, as they arrive."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.raw: list[str] = []
        self._lock = threading.Lock()

    def add(self, text: str) -> None:
        event = json.loads(text)
        event["_received"] = time.monotonic()
        with self._lock:
            self.raw.append(text)
            self.events.append(event)

    def of(self, schema_id: str) -> list[Event]:
        with self._lock:
            return [e for e in self.events if e.get("schema_id") == schema_id]

    def wait_for(self, predicate: Callable[[Event], bool], timeout: float = 10.0,
                 what: str = "an event") -> Event:
        """The first event (from the start) for which ``predicate`` holds."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                found = next((e for e in self.events if predicate(e)), None)
            if found is not None:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"no {what} within {timeout:g} s; got {self.events}")
            time.sleep(0.01)


def subscribe_request(server: JupyterServer, headers: dict[str, str] | None = None,
                      query: str = "") -> HTTPRequest:
    url = server.url.replace("http://", "ws://") + "api/events/subscribe" + query
    return HTTPRequest(url, headers=headers if headers is not None else {
        "Authorization": f"token {server.token}"})


@contextlib.contextmanager
def subscribe(server: JupyterServer, headers: dict[str, str] | None = None,
              ) -> Iterator[EventStream]:
    """Subscribe to the server's events (with the server token unless ``headers`` say
    otherwise) until the block ends."""
    stream = EventStream()
    loop = asyncio.new_event_loop()
    opened: dict[str, Any] = {}
    ready = threading.Event()

    async def read() -> None:
        try:
            socket: WebSocketClientConnection = await websocket_connect(
                subscribe_request(server, headers))
        except BaseException as exc:
            opened["error"] = exc
            ready.set()
            return
        opened["socket"] = socket
        ready.set()
        while True:
            text = await socket.read_message()
            if text is None:
                return
            stream.add(text if isinstance(text, str) else text.decode())

    thread = threading.Thread(target=loop.run_until_complete, args=(read(),), daemon=True)
    thread.start()
    assert ready.wait(30), "the event websocket did not open"
    if "error" in opened:
        thread.join(5)
        raise opened["error"]
    try:
        yield stream
    finally:
        loop.call_soon_threadsafe(opened["socket"].close)
        thread.join(10)
        loop.close()
