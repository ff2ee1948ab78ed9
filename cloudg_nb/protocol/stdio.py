"""Serve a layer over stdio (desktop clients that launch ``cloudg-nb serve``).

The SDK's ``stdio_server`` keeps fd 1 for the protocol and points fd 1 at stderr; on top of
that ``sys.stdout`` goes to stderr while serving, so a tool that prints (on the loop or in a
worker thread) cannot corrupt the stream. The caller is ``Principal.local()``.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

import anyio
from mcp.server.stdio import stdio_server

from .binding import LayerBinding, bind_layer
from .principal import CustomResolver, PrincipalResolver

__all__ = ["serve_stdio", "run_stdio"]


async def serve_stdio(
    layer: Any,
    *,
    resolver: CustomResolver | None = None,
    binding: LayerBinding | None = None,
) -> None:
    """Serve ``layer`` on this process's stdin/stdout until the client closes stdin."""
    if binding is None:
        binding = bind_layer(layer, resolver=PrincipalResolver(custom=resolver, transport="stdio"))
    binding.fanout.bind_loop()
    sys.stdout.flush()
    try:
        # Claim fd 1 first (the SDK checks that sys.stdout is backed by it), then redirect.
        async with stdio_server() as (read_stream, write_stream):
            with contextlib.redirect_stdout(sys.stderr):
                await binding.server.run(
                    read_stream, write_stream, binding.server.create_initialization_options()
                )
    finally:
        binding.fanout.close()


def run_stdio(layer: Any, *, resolver: CustomResolver | None = None) -> None:
    """Blocking entry point for the CLI."""
    anyio.run(lambda: serve_stdio(layer, resolver=resolver))
