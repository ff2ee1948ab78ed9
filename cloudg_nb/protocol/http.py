"""Serve a layer over Streamable HTTP: Starlette + the SDK's session manager, run by uvicorn.

One endpoint serves both eras with SSE responses (progress and logs stream live), behind the
Host/Origin guard (421/403) and, with tokens, the SDK's bearer auth (401). The session
manager is entered and exited in the app's lifespan task, as the SDK requires.
"""

from __future__ import annotations

import contextlib
import socket
import sys
from collections.abc import AsyncIterator, Iterable
from typing import Any

from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend, RequireAuthMiddleware
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.routing import Route

from .binding import LayerBinding, bind_layer
from .guard import LOOPBACK_HOSTS, HostOriginGuard
from .principal import BearerTokens, CustomResolver, PrincipalResolver

__all__ = ["build_http_app", "run_http", "bind_socket", "session_manager"]

_WILDCARD_HOSTS = {"0.0.0.0", "::", ""}


def session_manager(
    binding: LayerBinding, *, security_settings: TransportSecuritySettings | None = None
) -> StreamableHTTPSessionManager:
    """The SDK session manager for ``binding`` (SSE responses, sessions; both eras).

    Without ``security_settings`` the SDK's own Host/Origin check is off: put
    ``HostOriginGuard`` (or the host server's own checks) in front instead.
    """
    return StreamableHTTPSessionManager(
        app=binding.server,
        security_settings=security_settings
        or TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )


def build_http_app(
    layer: Any,
    *,
    path: str = "/mcp",
    tokens: BearerTokens | None = None,
    allowed_hosts: Iterable[str] = (),
    allowed_origins: Iterable[str] = (),
    resolver: CustomResolver | None = None,
    binding: LayerBinding | None = None,
) -> Starlette:
    """An ASGI app serving ``layer`` at ``path``; ``app.state.binding`` is the binding.

    With ``tokens``, every request needs ``Authorization: Bearer <token>`` (else 401) and runs
    as the token's principal; without, callers are anonymous.
    """
    if binding is None:
        binding = bind_layer(layer, resolver=PrincipalResolver(custom=resolver))
    manager = session_manager(binding)  # the guard below checks Host/Origin before auth
    endpoint: Any = StreamableHTTPASGIApp(manager)
    middleware = [
        Middleware(HostOriginGuard, allowed_hosts=list(allowed_hosts),
                   allowed_origins=list(allowed_origins)),
    ]
    if tokens:
        endpoint = RequireAuthMiddleware(endpoint, required_scopes=[])
        middleware += [
            Middleware(AuthenticationMiddleware, backend=BearerAuthBackend(tokens)),
            Middleware(AuthContextMiddleware),
        ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        binding.fanout.bind_loop()
        async with manager.run():  # entered and exited in this one task
            yield
        binding.fanout.close()

    app = Starlette(routes=[Route(path, endpoint=endpoint)], middleware=middleware,
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
    layer: Any,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    path: str = "/mcp",
    tokens: BearerTokens | None = None,
    allowed_hosts: Iterable[str] = (),
    allowed_origins: Iterable[str] = (),
    resolver: CustomResolver | None = None,
    log_level: str = "warning",
) -> None:
    """Serve until interrupted. Prints the endpoint URL on stderr once the socket listens.

    The bind address is an allowed Host too, unless it is a wildcard (then name the public
    host names with ``allowed_hosts``).
    """
    import uvicorn

    hosts = list(allowed_hosts)
    if host not in _WILDCARD_HOSTS and host not in LOOPBACK_HOSTS:
        hosts.append(host)
    app = build_http_app(layer, path=path, tokens=tokens, allowed_hosts=hosts,
                         allowed_origins=allowed_origins, resolver=resolver)
    sock = bind_socket(host, port)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    print(f"cloudg-nb: serving MCP at http://{shown}:{bound}{path}", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level=log_level, lifespan="on", timeout_graceful_shutdown=5)
    uvicorn.Server(config).run(sockets=[sock])
