"""Test harness: real ``cloudg-nb serve`` processes and official-SDK clients driven synchronously.

``ServerProcess`` starts ``python -m cloudg_nb serve --transport http --port 0`` (or any
command that prints ``serving MCP at <url>`` on stderr: the benches' peer servers) and reads the
URL it prints. ``ClientSession`` runs an ``mcp.Client`` (stdio subprocess or HTTP URL, either
protocol era) inside an anyio blocking portal, so one connection serves several sync tests and
is entered and closed in the same task, and records every notification it receives.
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import httpx2
from mcp import Client, MCPDeprecationWarning, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_REGISTRY = "tests.protocol.fixture_registry:registry"
MODERN = "2026-07-28"
#: Generous: the suite runs on a loaded 2-core machine.
TIMEOUT = 30.0


def serve_argv(transport: str, *extra: str, registry: str | None = FIXTURE_REGISTRY,
               policy: str | None = "open") -> list[str]:
    argv = [sys.executable, "-m", "cloudg_nb"]
    if policy:
        argv += ["--policy", policy]
    argv += ["serve", "--transport", transport]
    if registry:
        argv += ["--registry", registry]
    return [*argv, *extra]


class ServerProcess:
    """A ``cloudg-nb serve --transport http`` subprocess on a free 127.0.0.1 port (``argv``:
    another server command that prints its URL the same way). ``timeout``: seconds to wait
    for the URL, and for the process to end once terminated."""

    def __init__(self, *extra: str, registry: str | None = FIXTURE_REGISTRY,
                 policy: str | None = "open", argv: list[str] | None = None,
                 timeout: float = TIMEOUT) -> None:
        self.argv = argv if argv is not None else serve_argv(
            "http", "--port", "0", *extra, registry=registry, policy=policy)
        self.timeout = timeout
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""
        self.stderr_lines: list[str] = []

    def __enter__(self) -> ServerProcess:
        self.proc = subprocess.Popen(self.argv, cwd=ROOT, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        lines: queue.Queue[str] = queue.Queue()

        def drain() -> None:
            assert self.proc is not None and self.proc.stderr is not None
            for line in self.proc.stderr:
                self.stderr_lines.append(line)
                lines.put(line)

        threading.Thread(target=drain, daemon=True).start()
        try:
            while True:
                line = lines.get(timeout=self.timeout)
                found = re.search(r"serving MCP at (http://\S+)", line)
                if found:
                    self.url = found.group(1)
                    return self
        except queue.Empty:
            self.__exit__(None, None, None)
            raise RuntimeError("server did not start:\n" + "".join(self.stderr_lines)) from None

    def __exit__(self, *exc: Any) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=self.timeout)

    @property
    def host_port(self) -> str:
        return self.url.split("//", 1)[1].split("/", 1)[0]


class ClientSession:
    """One SDK client connection, usable from synchronous test code."""

    def __init__(self, portal: anyio.from_thread.BlockingPortal, client: Client,
                 notes: list[Any]) -> None:
        self.portal = portal
        self.client = client
        self.notes = notes

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self.client, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            async def run() -> Any:
                with anyio.fail_after(TIMEOUT), warnings.catch_warnings():
                    warnings.simplefilter("ignore", MCPDeprecationWarning)
                    return await method(*args, **kwargs)

            return self.portal.call(run)

        return call

    @property
    def protocol_version(self) -> str:
        return self.client.protocol_version

    def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run ``async fn(client, *args)`` on the client's loop."""
        async def run() -> Any:
            with anyio.fail_after(TIMEOUT):
                return await fn(self.client, *args)

        return self.portal.call(run)

    def notifications(self, kind: type) -> list[Any]:
        return [n for n in list(self.notes) if isinstance(n, kind)]

    def wait_for(self, predicate: Callable[[], Any], timeout: float = TIMEOUT) -> Any:
        """Poll ``predicate`` on the test thread until it returns something truthy."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"condition not met within {timeout:g} s")
            time.sleep(0.02)


def make_client(target: Any, era: str, **kwargs: Any) -> Client:
    """A client for ``target`` ("stdio", an HTTP URL or a transport) speaking ``era``
    ("2025" or "2026")."""
    server: Any = target
    if target == "stdio":
        argv = serve_argv("stdio")
        server = StdioServerParameters(command=argv[0], args=argv[1:], cwd=str(ROOT))
    return Client(server, mode="legacy" if era == "2025" else "auto", **kwargs)


@contextlib.contextmanager
def serve_app_in_thread(app: Any, path: str = "/mcp") -> Iterator[str]:
    """Serve the ASGI ``app`` with uvicorn in a daemon thread on 127.0.0.1 (a free port);
    yield its MCP URL and stop it afterwards. For tests that reach into the server's objects."""
    import uvicorn

    from cloudg_nb.protocol.http import bind_socket

    sock = bind_socket("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        while not server.started:
            thread.join(0.02)
            assert thread.is_alive(), "the server thread stopped while starting"
        yield f"http://127.0.0.1:{sock.getsockname()[1]}{path}"
    finally:
        server.should_exit = True
        thread.join(TIMEOUT)
        sock.close()


@contextlib.contextmanager
def open_session(target: str, era: str, *, headers: dict[str, str] | None = None,
                 **kwargs: Any) -> Iterator[ClientSession]:
    """Connect, check the negotiated era, yield a sync session, disconnect.

    ``headers`` (HTTP only) go with every request, e.g. ``Authorization``.
    """
    notes: list[Any] = []

    async def on_message(message: Any) -> None:
        notes.append(message)

    with anyio.from_thread.start_blocking_portal() as portal, warnings.catch_warnings(), \
            contextlib.ExitStack() as stack:
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        server: Any = target
        if headers:
            http = stack.enter_context(
                portal.wrap_async_context_manager(
                httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300))))
            server = streamable_http_client(target, http_client=http)
        client = make_client(server, era, message_handler=on_message, **kwargs)
        with portal.wrap_async_context_manager(client):
            session = ClientSession(portal, client, notes)
            modern = session.protocol_version == MODERN
            assert modern == (era == "2026"), session.protocol_version
            yield session
