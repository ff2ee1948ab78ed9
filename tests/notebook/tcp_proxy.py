"""A TCP proxy on 127.0.0.1 for tests of lost connections: it forwards every connection to a
target port until ``blackout()``, which cuts every open connection and stops listening for a
while, so new connections are refused (a laptop asleep, a network drop, a stopped server), as
the server and the client would both see it."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

__all__ = ["TcpProxy", "tcp_proxy"]


class TcpProxy:
    """Forwards ``127.0.0.1:port`` to ``127.0.0.1:target``, one thread pair per connection."""

    def __init__(self, target: int) -> None:
        self.target = target
        self._listener: socket.socket | None = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._dark_until = 0.0
        self._closed = False
        self.accepted = 0
        self._thread = threading.Thread(target=self._accept, name="tcp-proxy", daemon=True)
        self._thread.start()

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def blackout(self, seconds: float) -> None:
        """Cut every open connection now and refuse new ones for ``seconds``."""
        with self._lock:
            self._dark_until = time.monotonic() + seconds
            doomed, self._open = self._open, set()
            listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        for sock in doomed:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    @property
    def dark(self) -> bool:
        return time.monotonic() < self._dark_until

    def close(self) -> None:
        self._closed = True
        self.blackout(0)
        self._thread.join(5)

    def _listening(self) -> socket.socket | None:
        """The listening socket, made again on the same port once a blackout is over."""
        with self._lock:
            if self._listener is None and not self.dark and not self._closed:
                self._listener = socket.create_server(("127.0.0.1", self.port))
                self._listener.settimeout(0.1)
            return self._listener

    def _accept(self) -> None:
        assert self._listener is not None
        self._listener.settimeout(0.1)
        while not self._closed:
            listener = self._listening()
            if listener is None:
                time.sleep(0.02)
                continue
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                continue  # closed by a blackout
            client.settimeout(None)
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            self.accepted += 1
            with self._lock:
                self._open.update((client, upstream))
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
            with self._lock:
                self._open.discard(source)
                self._open.discard(sink)


@contextlib.contextmanager
def tcp_proxy(target: int) -> Iterator[TcpProxy]:
    proxy = TcpProxy(target)
    try:
        yield proxy
    finally:
        proxy.close()
