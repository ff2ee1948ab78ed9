"""Serve a layer over stdio (desktop clients that launch ``cloudg-nb serve``).

The SDK's ``stdio_server`` keeps fd 1 for the protocol and points fd 1 at stderr; on top of
that ``sys.stdout`` goes to stderr while serving, so a tool that prints (on the loop or in a
worker thread) cannot corrupt the stream. The caller is ``Principal.local()``.
Stdin is read by a daemon thread, so SIGINT stops the server even while stdin stays open; at
end of input every request already received is answered (within ``eof_grace`` seconds) before
the server stops.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any, BinaryIO

import anyio
import anyio.from_thread
import anyio.lowlevel
import mcp_types as types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from .binding import LayerBinding, bind_layer
from .principal import CustomResolver, PrincipalResolver
from .sdk_internals import from_server_streams, to_server_streams

if TYPE_CHECKING:
    from ..layer.layer import CloudGMCPLayer

__all__ = ["serve_stdio", "run_stdio", "DEFAULT_EOF_GRACE"]

logger = logging.getLogger("cloudg.mcp.protocol")

#: Seconds the server keeps working on requests received before end of input.
DEFAULT_EOF_GRACE = 30.0


class _StdinLines:
    """Lines of a binary stream, read by a daemon thread (never blocks exit or cancellation).

    Iterated by the SDK's ``stdio_server`` in place of its own reader, whose worker thread
    cannot be interrupted while stdin stays open.
    """

    def __init__(self, source: BinaryIO) -> None:
        self._source = source
        self._send, self._receive = anyio.create_memory_object_stream[str](16)
        self._thread: threading.Thread | None = None

    def _read(self, token: Any) -> None:
        send = self._send
        try:
            for raw in iter(self._source.readline, b""):
                line = raw.decode("utf-8", errors="replace")
                anyio.from_thread.run(send.send, line, token=token)
        except Exception:  # stdin closed under us, or the server stopped: nothing to deliver
            logger.debug("stdin reader stopped", exc_info=True)
        finally:
            with contextlib.suppress(Exception):
                anyio.from_thread.run_sync(send.close, token=token)

    async def __aiter__(self) -> AsyncIterator[str]:
        if self._thread is None:
            token = anyio.lowlevel.current_token()
            self._thread = threading.Thread(target=self._read, args=(token,),
                                            name="cloudg-stdin", daemon=True)
            self._thread.start()
        async with self._receive:
            async for line in self._receive:
                yield line


@contextlib.contextmanager
def _claimed_stdin() -> Iterator[BinaryIO]:
    """The protocol's stdin on a private descriptor, with fd 0 pointing at the null device
    (a handler or child reading stdin gets EOF, never protocol bytes); restored on exit."""
    try:
        private = os.dup(0)
        null = os.open(os.devnull, os.O_RDONLY)
    except OSError:
        yield sys.stdin.buffer
        return
    os.dup2(null, 0)
    os.close(null)
    try:
        # closefd=False: the reader thread may still block on it after we return.
        yield os.fdopen(private, "rb", closefd=False)
    finally:
        os.dup2(private, 0)


class _AnswerTracker:
    """Requests received from the client that have not been answered (nor cancelled) yet."""

    def __init__(self) -> None:
        self.pending: set[Any] = set()
        self.settled = anyio.Event()

    def received(self, item: SessionMessage | Exception) -> None:
        if not isinstance(item, SessionMessage):
            return
        message = item.message
        if isinstance(message, types.JSONRPCRequest):
            self.pending.add(message.id)
        elif isinstance(message, types.JSONRPCNotification) and \
                message.method == "notifications/cancelled":
            self._settle((message.params or {}).get("requestId"))

    def sent(self, item: SessionMessage) -> None:
        message = item.message
        if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            self._settle(message.id)

    def _settle(self, request_id: Any) -> None:
        self.pending.discard(request_id)
        if not self.pending:
            self.settled.set()
            self.settled = anyio.Event()

    async def wait(self, timeout: float) -> None:
        with anyio.move_on_after(timeout):
            while self.pending:
                await self.settled.wait()


async def serve_stdio(
    layer: CloudGMCPLayer,
    *,
    resolver: CustomResolver | None = None,
    binding: LayerBinding | None = None,
    eof_grace: float = DEFAULT_EOF_GRACE,
) -> None:
    """Serve ``layer`` on this process's stdin/stdout until the client closes stdin and every
    request it sent has been answered (or ``eof_grace`` seconds have passed), or until
    cancelled (SIGINT)."""
    if binding is None:
        binding = bind_layer(layer, resolver=PrincipalResolver(custom=resolver, transport="stdio"))
    binding.fanout.bind_loop()
    sys.stdout.flush()
    tracker = _AnswerTracker()
    try:
        with _claimed_stdin() as stdin:
            # Claim fd 1 first (the SDK checks that sys.stdout is backed by it), then redirect.
            async with stdio_server(stdin=_StdinLines(stdin)) as (client_in, client_out):  # type: ignore[arg-type]
                server_in_send, server_in = to_server_streams()
                server_out, server_out_receive = from_server_streams()

                async def inbound() -> None:
                    async with server_in_send:
                        async for item in client_in:
                            tracker.received(item)
                            await server_in_send.send(item)
                        await tracker.wait(eof_grace)  # end of input: finish what was asked

                async def outbound() -> None:
                    async with client_out, server_out_receive:
                        async for item in server_out_receive:
                            await client_out.send(item)
                            tracker.sent(item)

                with contextlib.redirect_stdout(sys.stderr):
                    async with anyio.create_task_group() as tg:
                        tg.start_soon(inbound)
                        tg.start_soon(outbound)
                        try:
                            await binding.server.run(
                                server_in, server_out,
                                binding.server.create_initialization_options(),
                            )
                        finally:
                            await server_out.aclose()  # outbound writes what is left, then ends
    finally:
        binding.fanout.close()


def run_stdio(layer: CloudGMCPLayer, *, resolver: CustomResolver | None = None,
              eof_grace: float = DEFAULT_EOF_GRACE) -> None:
    """Blocking entry point for the CLI (SIGINT raises ``KeyboardInterrupt`` once stopped)."""
    anyio.run(lambda: serve_stdio(layer, resolver=resolver, eof_grace=eof_grace))
