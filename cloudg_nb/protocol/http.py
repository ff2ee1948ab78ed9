"""Serve a layer over Streamable HTTP: Starlette + the SDK's session manager, run by uvicorn.

One endpoint serves both eras with SSE responses (progress and logs stream live), behind the
Host/Origin guard (421/403) and, with tokens, the SDK's bearer auth (401). Sessions are bounded
(``SessionLimits``); the manager is entered and exited in the app's lifespan task, as the SDK
requires. On SIGTERM/SIGINT every session and stream ends and calls in flight are cancelled
before uvicorn stops its connections, so the process exits promptly and quietly.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
from collections.abc import AsyncIterator, Iterable
from types import FrameType
from typing import TYPE_CHECKING, Any

import anyio
import uvicorn
from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend, RequireAuthMiddleware
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.routing import Route

from .binding import LayerBinding, bind_layer
from .host_origin_guard import LOOPBACK_HOSTS, HostOriginGuard
from .principal import BearerTokens, CustomResolver, PrincipalResolver
from .sessions import LimitedSessionManager, SessionLimits

if TYPE_CHECKING:
    from ..layer.layer import CloudGMCPLayer
    from .http_oauth import ServeOAuth

__all__ = ["build_http_app", "run_http", "bind_socket", "session_manager", "SessionLimits"]

_WILDCARD_HOSTS = {"0.0.0.0", "::", ""}


def session_manager(
    binding: LayerBinding,
    *,
    security_settings: TransportSecuritySettings | None = None,
    limits: SessionLimits | None = None,
) -> LimitedSessionManager:
    """The session manager for ``binding`` (SSE responses, sessions; both eras), bounded by
    ``limits`` (default ``SessionLimits()``: 10 min idle expiry, 100 sessions per token
    principal, 200 for anonymous callers, 1000 in all). Call ``await manager.close_all()``
    before stopping the host server, so open streams end and calls in flight are cancelled.

    Without ``security_settings`` the SDK's own Host/Origin check is off: put
    ``HostOriginGuard`` (or the host server's own checks) in front instead.
    """
    return LimitedSessionManager(
        binding.server,
        limits=limits,
        security_settings=security_settings
        or TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )


def build_http_app(
    layer: CloudGMCPLayer,
    *,
    path: str = "/mcp",
    tokens: BearerTokens | None = None,
    allowed_hosts: Iterable[str] = (),
    allowed_origins: Iterable[str] = (),
    resolver: CustomResolver | None = None,
    binding: LayerBinding | None = None,
    session_limits: SessionLimits | None = None,
    oauth: ServeOAuth | None = None,
) -> Starlette:
    """An ASGI app serving ``layer`` at ``path``; ``app.state.binding`` is the binding and
    ``app.state.session_manager`` the (bounded) session manager.

    With ``tokens``, every request needs ``Authorization: Bearer <token>`` (else 401) and runs
    as the token's principal; without, callers are anonymous. With ``oauth`` (built over the
    same tokens, the owners'), OAuth access tokens are accepted too, the 401 points at the
    protected-resource metadata, and the OAuth routes and consent page are served.
    """
    if binding is None:
        binding = bind_layer(layer, resolver=PrincipalResolver(custom=resolver))
    # the guard below checks Host/Origin before auth
    manager = session_manager(binding, limits=session_limits)
    endpoint: Any = StreamableHTTPASGIApp(manager)
    middleware = [
        Middleware(HostOriginGuard, allowed_hosts=list(allowed_hosts),
                   allowed_origins=list(allowed_origins)),
    ]
    verifier: Any = oauth if oauth is not None else tokens
    if verifier:
        endpoint = RequireAuthMiddleware(
            endpoint, required_scopes=[],
            resource_metadata_url=AnyHttpUrl(oauth.paths.resource_metadata_url)
            if oauth is not None else None)
        middleware += [
            Middleware(AuthenticationMiddleware, backend=BearerAuthBackend(verifier)),
            Middleware(AuthContextMiddleware),
        ]
    routes: list[Any] = oauth.routes() if oauth is not None else []

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        binding.fanout.bind_loop()
        async with manager.run():  # entered and exited in this one task
            yield
        binding.fanout.close()

    app = Starlette(routes=[*routes, Route(path, endpoint=endpoint)], middleware=middleware,
                    lifespan=lifespan)
    app.state.binding = binding
    app.state.session_manager = manager
    return app


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0 picks a free one)."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM
    )[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(address)
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def run_http(
    layer: CloudGMCPLayer,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    path: str = "/mcp",
    tokens: BearerTokens | None = None,
    allowed_hosts: Iterable[str] = (),
    allowed_origins: Iterable[str] = (),
    resolver: CustomResolver | None = None,
    log_level: str = "warning",
    session_limits: SessionLimits | None = None,
    oauth: bool = False,
) -> None:
    """Serve until SIGTERM/SIGINT. Prints the endpoint URL on stderr once the socket listens.
    ``oauth``: MCP authorization too, the owners being the holders of ``tokens``.

    The bind address is an allowed Host too, unless it is a wildcard (then name the public
    host names with ``allowed_hosts``). As with uvicorn, the signal is raised again once the
    server has stopped (SIGINT: ``KeyboardInterrupt``).
    """
    hosts = list(allowed_hosts)
    if host not in _WILDCARD_HOSTS and host not in LOOPBACK_HOSTS:
        hosts.append(host)
    sock = bind_socket(host, port)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    serve_oauth = None
    if oauth and tokens:
        from .http_oauth import ServeOAuth

        serve_oauth = ServeOAuth(f"http://{shown}:{bound}", path, tokens)
    app = build_http_app(layer, path=path, tokens=tokens, allowed_hosts=hosts,
                         allowed_origins=allowed_origins, resolver=resolver,
                         session_limits=session_limits, oauth=serve_oauth)
    print(f"cloudg-nb: serving MCP at http://{shown}:{bound}{path}", file=sys.stderr, flush=True)
    # The drain ends every stream first; the graceful timeout is only a backstop.
    config = uvicorn.Config(app, log_level=log_level, lifespan="on", timeout_graceful_shutdown=1)
    _DrainingServer(config, app.state.session_manager).run(sockets=[sock])


class _DrainingServer(uvicorn.Server):
    """uvicorn's server that, on the first SIGTERM/SIGINT, ends all sessions, streams and calls
    in flight (``close_all``) before it starts its own shutdown; a second SIGINT forces exit as
    usual. Without the drain uvicorn waits for open SSE streams until its timeout and then
    cancels them mid-response (ERROR lines)."""

    def __init__(self, config: uvicorn.Config, manager: LimitedSessionManager) -> None:
        super().__init__(config)
        self._manager = manager
        self._loop: asyncio.AbstractEventLoop | None = None
        self._draining = False
        self._drain_task: asyncio.Task[None] | None = None

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        self._loop = asyncio.get_running_loop()
        await super().serve(sockets)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self._draining or self._loop is None:
            super().handle_exit(sig, frame)
            return
        self._draining = True
        self._loop.call_soon_threadsafe(self._start_drain, sig, frame)

    def _start_drain(self, sig: int, frame: FrameType | None) -> None:
        assert self._loop is not None
        self._drain_task = self._loop.create_task(self._drain(sig, frame))

    async def _drain(self, sig: int, frame: FrameType | None) -> None:
        try:
            with anyio.move_on_after(1.0):
                await self._manager.close_all()
        finally:
            super().handle_exit(sig, frame)
