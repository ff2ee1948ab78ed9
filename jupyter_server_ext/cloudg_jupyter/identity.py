"""Who a request to the endpoint acts as: its principal, and the ASGI scope entries carrying it.

Under Jupyter's built-in identity providers (one shared secret: token or password) every
caller is the server's owner, named by the OS account; other providers (JupyterHub's) name
real users. An assistant acts as its credential's principal. Scope entries (the principal for
the binding's resolver, an SDK user that binds MCP sessions to it) are built once per user or
credential, and dropped with ``forget`` when a credential ends.
"""

from __future__ import annotations

import functools
import getpass
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from jupyter_server.auth.identity import IdentityProvider, PasswordIdentityProvider, User

if TYPE_CHECKING:
    from cloudg_nb.assistants import AssistantRecord
    from cloudg_nb.layer import Principal
    from cloudg_nb.protocol import RequestInfo

__all__ = ["PRINCIPAL_SCOPE_KEY", "Identity", "owner_name", "scope_is_assistant", "scope_owner",
           "scope_principal", "shared_secret_auth"]

#: ASGI scope key carrying the caller's ``Principal`` to the binding's resolver.
PRINCIPAL_SCOPE_KEY = "cloudg.principal"
#: Users whose request scope entries are kept (a Hub server has one user; a few to spare).
MAX_CACHED_USERS = 64


def shared_secret_auth(provider: Any) -> bool:
    """Whether ``provider`` is one of Jupyter's built-in identity providers, which guard the
    server with one shared secret (token or password): every caller they admit is its owner."""
    return type(provider) in (IdentityProvider, PasswordIdentityProvider)


@functools.cache
def owner_name() -> str:
    """The OS account the server runs as (``jovyan`` on Binder): the owner's principal id."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return f"uid-{os.getuid()}"


def scope_owner(scope: Any) -> str | None:
    """Whose session a request opens (session caps count per Jupyter user)."""
    principal = scope.get(PRINCIPAL_SCOPE_KEY) if isinstance(scope, dict) else None
    return getattr(principal, "id", None)


def scope_is_assistant(scope: Any) -> bool:
    """Whether a request is an assistant's (its principal has the assistant role): assistants
    share a cap of sessions of their own."""
    from cloudg_nb.assistants import is_assistant
    from cloudg_nb.layer.principal import Principal

    principal = scope.get(PRINCIPAL_SCOPE_KEY) if isinstance(scope, dict) else None
    return isinstance(principal, Principal) and is_assistant(principal)


def scope_principal(info: RequestInfo) -> Principal | None:
    """The binding's custom resolver: the principal the handler put into the ASGI scope."""
    request = getattr(info.request_context, "request", None)
    scope = getattr(request, "scope", None)
    return scope.get(PRINCIPAL_SCOPE_KEY) if isinstance(scope, dict) else None


class Identity:
    """Principals and scope entries for the server's identity ``provider``, with policy
    ``roles`` by Jupyter user name (``default_roles`` for users not listed)."""

    def __init__(self, provider: Any, roles: Mapping[str, Sequence[str]],
                 default_roles: Sequence[str]) -> None:
        self.provider = provider
        self.roles = roles
        self.default_roles = default_roles
        self._scopes: dict[str, dict[str, Any]] = {}

    def user_name(self, user: Any) -> str:
        """The principal id for a Jupyter ``user``.

        Jupyter's built-in identity providers guard the server with one shared secret
        (token or password) and invent a random anonymous user per cookie-less request, so
        every caller they admit is the server's owner: the OS account name (``jovyan`` on
        Binder). Other providers (JupyterHub's) name real users: their user name.
        """
        if shared_secret_auth(self.provider):
            return owner_name()
        return str(getattr(user, "username", None) or user)

    @functools.cached_property
    def owner_user(self) -> User:
        """The Jupyter user that requests with the server's own token act as."""
        name = owner_name()
        return User(username=name, name=name, display_name=name)

    def principal_for(self, user: Any) -> Principal:
        from cloudg_nb.layer.context import Principal

        name = self.user_name(user)
        return Principal(name, frozenset(self.roles.get(name) or self.default_roles or
                                         ["default"]))

    def request_scope(self, user: Any) -> dict[str, Any]:
        """ASGI scope entries for a request by Jupyter ``user``: the principal for the
        binding, and an SDK user so an MCP session stays bound to who opened it (built once
        per user name)."""
        name = self.user_name(user)
        cached = self._scopes.get(name)
        if cached is not None:
            return cached
        from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
        from mcp.server.auth.provider import AccessToken

        principal = self.principal_for(user)
        token = AccessToken(token=f"jupyter-user:{principal.id}", client_id=principal.id,
                            scopes=sorted(principal.roles), subject=principal.id)
        entries = {PRINCIPAL_SCOPE_KEY: principal, "user": AuthenticatedUser(token)}
        if len(self._scopes) < MAX_CACHED_USERS:
            self._scopes[name] = entries
        return entries

    def assistant_scope(self, record: AssistantRecord) -> dict[str, Any]:
        """ASGI scope entries for a request by assistant ``record``: its principal and an SDK
        user that binds its MCP sessions to it."""
        key = f"{record.token_sha256}|{record.profile}"
        cached = self._scopes.get(key)
        if cached is not None:
            return cached
        from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
        from mcp.server.auth.provider import AccessToken

        from cloudg_nb.assistants import assistant_principal

        principal = assistant_principal(record)
        token = AccessToken(token=f"assistant:{record.token_sha256[:16]}",
                            client_id=principal.id, scopes=sorted(principal.roles),
                            subject=principal.id)
        entries = {PRINCIPAL_SCOPE_KEY: principal, "user": AuthenticatedUser(token)}
        if len(self._scopes) >= 4 * MAX_CACHED_USERS:
            self._scopes.clear()
        self._scopes[key] = entries
        return entries

    def forget(self, principal_id: str) -> None:
        """Drop the scope entries of ``principal_id`` (its credential was revoked or
        replaced: the next request builds them afresh, if it is let in at all)."""
        self._scopes = {k: v for k, v in self._scopes.items()
                        if getattr(v.get(PRINCIPAL_SCOPE_KEY), "id", None) != principal_id}
