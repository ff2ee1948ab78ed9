"""HostOriginGuard: an ASGI middleware against DNS rebinding, in front of the MCP endpoint.

Unknown ``Host`` -> 421; an ``Origin`` neither allowed nor same-origin -> 403. Ours rather than
the SDK's ``TransportSecuritySettings``: that one has no same-origin rule and runs inside the
transport, after authentication; this answers before anything else runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["HostOriginGuard", "LOOPBACK_HOSTS"]

LOOPBACK_HOSTS: tuple[str, ...] = ("localhost", "127.0.0.1", "[::1]")


def _split_host(value: str) -> tuple[str, str | None]:
    """``host[:port]`` -> (lower-cased host, port or None); IPv6 stays bracketed."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end == -1:
            return value, None
        host, rest = value[: end + 1], value[end + 1 :]
        return host, rest[1:] if rest.startswith(":") else None
    if value.count(":") > 1:  # bare IPv6 literal
        return f"[{value}]", None
    host, _, port = value.partition(":")
    return host, port or None


def _normalise_host_entry(entry: str) -> str:
    host, port = _split_host(entry)
    if host == "::1":
        host = "[::1]"
    return f"{host}:{port}" if port and port != "*" else host


class HostOriginGuard:
    """Reject requests whose Host (421) or Origin (403) is not allowed."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        allowed_hosts: Iterable[str] = (),
        allowed_origins: Iterable[str] = (),
    ) -> None:
        self.app = app
        self.allowed_hosts = {_normalise_host_entry(h) for h in (*LOOPBACK_HOSTS, *allowed_hosts)}
        origins = set()
        for origin in allowed_origins:
            origin = origin.strip().lower().rstrip("/")
            if "://" not in origin:  # a bare host name allows it on http and https, any port
                origins.update({f"http://{origin}:*", f"https://{origin}:*"})
            else:
                origins.add(origin)
        for host in LOOPBACK_HOSTS:
            origins.update({f"http://{host}:*", f"https://{host}:*"})
        self.allowed_origins = origins

    def host_allowed(self, host_header: str | None) -> bool:
        if not host_header:
            return False
        host, port = _split_host(host_header)
        return host in self.allowed_hosts or f"{host}:{port}" in self.allowed_hosts

    def origin_allowed(self, origin: str, host_header: str) -> bool:
        origin = origin.strip().lower().rstrip("/")
        try:
            parts = urlsplit(origin)
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return False  # "null" and other opaque origins
        if parts.netloc == host_header.strip().lower():
            return True  # same origin
        host, port = _split_host(parts.netloc)
        candidates = {origin, f"{parts.scheme}://{host}:*"}
        if port is None:
            candidates.add(f"{parts.scheme}://{host}")
        return bool(candidates & self.allowed_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host")
        if not self.host_allowed(host):
            response = PlainTextResponse(
                "Misdirected request: this server does not answer for that Host. Start it "
                "with --allowed-host NAME to accept another host name.",
                status_code=421,
            )
            await response(scope, receive, send)
            return
        origin = headers.get("origin")
        if origin is not None and not self.origin_allowed(origin, host or ""):
            response = PlainTextResponse(
                "Forbidden: requests from that web origin are not accepted. Start the server "
                "with --allowed-origin ORIGIN to accept it.",
                status_code=403,
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)
