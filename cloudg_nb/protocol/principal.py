"""Who is calling: bearer tokens mapped to principals, and the resolution order for a request.

``BearerTokens`` keeps sha256 digests only, compares in constant time, and is the SDK bearer
middleware's ``TokenVerifier``. ``PrincipalResolver``: custom hook, fixed principal, token,
``Principal.local()`` off HTTP, else anonymous. Roles never come from ``clientInfo``.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken

from ..layer.context import Principal
from ..layer.wire import MCP_SESSION_ID_HEADER

__all__ = ["BearerTokens", "RequestInfo", "PrincipalResolver", "parse_token_spec"]

logger = logging.getLogger("cloudg.mcp.protocol")

_ROLE_SEPARATORS = ",+"


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


def parse_token_spec(spec: str) -> tuple[str, Principal]:
    """Parse ``TOKEN:ROLES:ID`` (roles separated by ``,`` or ``+``; ID optional).

    Raises ValueError with a message that never repeats the token.
    """
    token, sep, rest = spec.partition(":")
    if not token or not sep:
        raise ValueError(
            "An auth token is given as TOKEN:ROLES:ID, for example s3cret:analyst,default:alice"
        )
    roles_part, _, principal_id = rest.partition(":")
    roles = {r.strip() for r in roles_part.replace("+", ",").split(",") if r.strip()}
    principal_id = principal_id.strip() or f"token-{hashlib.sha256(token.encode()).hexdigest()[:8]}"
    return token, Principal(principal_id, frozenset(roles or {"default"}))


class BearerTokens:
    """Static bearer tokens, each mapped to a principal; only sha256 digests are kept.

    Implements the SDK's ``TokenVerifier`` protocol (``verify_token``), so the SDK's
    ``BearerAuthBackend`` / ``RequireAuthMiddleware`` answer 401 for missing or wrong tokens.
    """

    def __init__(self, tokens: Mapping[str, Principal] | Iterable[tuple[str, Principal]] = ()):
        self._entries: list[tuple[bytes, Principal]] = []
        items = tokens.items() if isinstance(tokens, Mapping) else tokens
        for token, principal in items:
            self.add(token, principal)

    @classmethod
    def from_specs(cls, specs: Iterable[str]) -> BearerTokens:
        """Tokens from ``TOKEN:ROLES:ID`` strings (the CLI's ``--auth-token``)."""
        return cls(parse_token_spec(s) for s in specs)

    def __len__(self) -> int:
        return len(self._entries)

    def __bool__(self) -> bool:
        return bool(self._entries)

    def add(self, token: str, principal: Principal) -> None:
        if not token:
            raise ValueError("A bearer token must not be empty")
        self._entries.append((_digest(token), principal))

    def lookup(self, token: str) -> Principal | None:
        """The principal for ``token``; every entry is compared, in constant time."""
        probe = _digest(token)
        found: Principal | None = None
        for digest, principal in self._entries:
            if hmac.compare_digest(digest, probe) and found is None:
                found = principal
        return found

    async def verify_token(self, token: str) -> AccessToken | None:
        """SDK ``TokenVerifier``: an ``AccessToken`` whose client id and scopes carry the
        principal's id and roles. The token itself is not kept: its digest stands in."""
        principal = self.lookup(token)
        if principal is None:
            return None
        return AccessToken(
            token=_digest(token).hex(),
            client_id=principal.id,
            scopes=sorted(principal.roles),
            subject=principal.id,
        )


@dataclass(frozen=True)
class RequestInfo:
    """What the edge knows about one request, for resolving its principal."""

    transport: str  # stdio | http | memory
    headers: Mapping[str, str] = field(default_factory=dict)
    access_token: AccessToken | None = None
    session_id: str | None = None
    protocol_version: str | None = None
    #: The SDK's per-request context (``ServerRequestContext``); never used for roles.
    request_context: Any = None


CustomResolver = Callable[[RequestInfo], "Principal | None"]


def _access_token_of(request: Any) -> AccessToken | None:
    scope = getattr(request, "scope", None)
    user = scope.get("user") if isinstance(scope, Mapping) else None
    return user.access_token if isinstance(user, AuthenticatedUser) else None


class PrincipalResolver:
    """Resolve a request's principal.

    Order: ``custom(info)`` (when it returns a Principal), then ``principal`` (fixed for every
    request), then the bearer/OAuth token's principal (client id, scopes as roles), then
    ``Principal.local()`` on stdio / in-memory transports, else ``Principal.anonymous()``.
    """

    def __init__(
        self,
        *,
        custom: CustomResolver | None = None,
        principal: Principal | None = None,
        transport: str | None = None,
    ) -> None:
        self.custom = custom
        self.principal = principal
        #: Label for requests that carry no HTTP request (``stdio`` when serving stdio).
        self.transport = transport

    def request_info(self, sdk_ctx: Any) -> RequestInfo:
        """Describe the SDK request context ``sdk_ctx`` (a ``ServerRequestContext``)."""
        request = getattr(sdk_ctx, "request", None)
        headers: Mapping[str, str] = getattr(request, "headers", None) or {}
        session_id = headers.get(MCP_SESSION_ID_HEADER) if headers else None
        return RequestInfo(
            transport="http" if request is not None else (self.transport or "memory"),
            headers=headers,
            access_token=_access_token_of(request),
            session_id=session_id,
            protocol_version=getattr(sdk_ctx, "protocol_version", None),
            request_context=sdk_ctx,
        )

    def resolve(self, info: RequestInfo) -> Principal:
        if self.custom is not None:
            try:
                found = self.custom(info)
            except Exception:
                logger.exception("custom principal resolver failed; falling back")
                found = None
            if isinstance(found, Principal):
                return found
        if self.principal is not None:
            return self.principal
        token = info.access_token
        if token is not None:
            return Principal(token.client_id, frozenset(token.scopes or ("default",)))
        if info.transport != "http":
            return Principal.local()
        return Principal.anonymous()

    def __call__(self, sdk_ctx: Any) -> Principal:
        return self.resolve(self.request_info(sdk_ctx))
