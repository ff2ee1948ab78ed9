"""OAuthStore: the OAuth clients and grants of assistants, in one 0600 JSON file.

A grant is what one consent made: an assistant (its name and the digest of its credential in
the ``AssistantStore``), the client it was issued to, the resource (MCP endpoint) it is bound
to, and its current access and refresh tokens, kept as SHA-256 digests only (with their
expiry). Refreshing rotates both; the refresh tokens a grant used before are remembered, so a
replayed one is recognised (and the grant ended). A client the owner registered ahead
(``preregister_client``) is kept until removed: dynamic registrations never push it out.
Writers take an ``flock`` and replace the file atomically; readers re-read it when it changed
on disk. Framework-free.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import secrets
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

__all__ = ["ACCESS_PREFIX", "REFRESH_PREFIX", "Grant", "OAuthStore", "token_digest"]

#: OAuth access tokens start with the assistant-token prefix, so every Jupyter route but the
#: MCP endpoint refuses them as it refuses any assistant credential.
ACCESS_PREFIX = "cgat_oa_"
#: Refresh tokens (presented only to the token endpoint).
REFRESH_PREFIX = "cgrt_"
#: Refresh tokens a grant remembers as spent (a replay of one ends the grant).
SPENT_KEPT = 32
#: Dynamically registered clients kept per server (the oldest go first past it).
MAX_CLIENTS = 500
#: Clients the owner may register ahead per server.
MAX_PREREGISTERED = 100


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Grant:
    """One consent's tokens (digests) and what they are bound to."""

    id: str
    server: str  #: the ``server_identity`` it was issued on
    assistant: str  #: the assistant's name
    credential: str  #: the digest of the assistant's credential it lives and dies with
    client_id: str
    resource: str  #: the MCP endpoint URL (RFC 8707) its tokens are for
    scopes: tuple[str, ...] = ()
    access: str = ""
    access_expires: float = 0.0
    refresh: str = ""
    refresh_expires: float = 0.0
    spent: tuple[str, ...] = field(default=())


class OAuthStore:
    """The file at ``path``: clients by id, grants by id, looked up by token digest."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._stamp: tuple[int, int, int] | None = None
        self._clients: dict[str, dict[str, Any]] = {}
        self._grants: dict[str, Grant] = {}
        self._by_access: dict[str, str] = {}
        self._by_refresh: dict[str, str] = {}
        self._by_spent: dict[str, str] = {}

    # -- reading --------------------------------------------------------------------------

    def _refresh(self) -> None:
        try:
            st = os.stat(self.path)
            stamp: tuple[int, int, int] | None = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            stamp = None
        if stamp == self._stamp and stamp is not None:
            return
        with self._lock:
            clients, grants = self._read() if stamp is not None else ({}, {})
            self._clients, self._grants = clients, grants
            self._by_access = {g.access: g.id for g in grants.values() if g.access}
            self._by_refresh = {g.refresh: g.id for g in grants.values() if g.refresh}
            self._by_spent = {d: g.id for g in grants.values() for d in g.spent}
            self._stamp = stamp

    def _read(self) -> tuple[dict[str, dict[str, Any]], dict[str, Grant]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}, {}
        clients = data.get("clients") if isinstance(data, dict) else None
        grants: dict[str, Grant] = {}
        for item in (data.get("grants") if isinstance(data, dict) else None) or []:
            try:
                grant = Grant(**{**item, "scopes": tuple(item.get("scopes") or ()),
                                 "spent": tuple(item.get("spent") or ())})
            except TypeError:
                continue  # a hand-edited entry without its fields grants nothing
            grants[grant.id] = grant
        return (clients if isinstance(clients, dict) else {}), grants

    def client(self, client_id: str, server: str) -> dict[str, Any] | None:
        """The registered client's metadata (as registered on ``server``), or None."""
        self._refresh()
        entry = self._clients.get(client_id)
        if not isinstance(entry, dict) or entry.get("server") != server:
            return None
        info = entry.get("info")
        return info if isinstance(info, dict) else None

    def preregistered(self, server: str) -> dict[str, dict[str, Any]]:
        """The clients the owner registered ahead on ``server``: id -> their metadata."""
        self._refresh()
        return {k: dict(v["info"]) for k, v in self._clients.items()
                if isinstance(v, dict) and v.get("server") == server
                and v.get("preregistered") is True and isinstance(v.get("info"), dict)}

    def by_access(self, token: str) -> Grant | None:
        self._refresh()
        grant_id = self._by_access.get(token_digest(token))
        return self._grants.get(grant_id) if grant_id else None

    def by_refresh(self, token: str) -> Grant | None:
        self._refresh()
        grant_id = self._by_refresh.get(token_digest(token))
        return self._grants.get(grant_id) if grant_id else None

    def spent_refresh(self, token: str) -> Grant | None:
        """The grant a refresh token was spent on before (a replay), or None."""
        self._refresh()
        grant_id = self._by_spent.get(token_digest(token))
        return self._grants.get(grant_id) if grant_id else None

    def grants(self, server: str | None = None) -> list[Grant]:
        self._refresh()
        return [g for g in self._grants.values() if server is None or g.server == server]

    # -- writing --------------------------------------------------------------------------

    def add_client(self, client_id: str, server: str, info: dict[str, Any]) -> None:
        """A dynamically registered client (past ``MAX_CLIENTS`` on ``server`` the oldest
        such goes; clients the owner registered ahead never do)."""
        with self._editing() as (clients, _grants):
            mine = [k for k, v in clients.items()
                    if v.get("server") == server and not v.get("preregistered")]
            for stale in mine[:max(0, len(mine) - MAX_CLIENTS + 1)]:
                clients.pop(stale, None)
            if clients.get(client_id, {}).get("preregistered"):
                raise ValueError("that client id is taken")  # an issued uuid never is
            clients[client_id] = {"server": server, "info": info, "added": time.time()}

    def preregister_client(self, client_id: str, server: str, info: dict[str, Any]) -> str:
        """Register a client ahead for ``server``, kept until removed: ``"added"``, or why
        not: ``"taken"`` (a client has that id) or ``"full"`` (``MAX_PREREGISTERED``)."""
        with self._editing() as (clients, _grants):
            if client_id in clients:
                return "taken"
            if sum(v.get("server") == server and bool(v.get("preregistered"))
                   for v in clients.values()) >= MAX_PREREGISTERED:
                return "full"
            clients[client_id] = {"server": server, "info": info, "added": time.time(),
                                  "preregistered": True}
            return "added"

    def remove_client(self, client_id: str, server: str) -> int | None:
        """Remove a client registered ahead on ``server`` and end its grants (their tokens
        stop at once): how many grants ended, or None (no such client)."""
        with self._editing() as (clients, grants):
            entry = clients.get(client_id)
            if not entry or entry.get("server") != server or not entry.get("preregistered"):
                return None
            del clients[client_id]
            ended = [k for k, g in grants.items()
                     if g.client_id == client_id and g.server == server]
            for key in ended:
                del grants[key]
            return len(ended)

    def issue(self, grant: Grant, access_lifetime: float, refresh_lifetime: float,
              ) -> tuple[Grant, str, str]:
        """Give ``grant`` a new access and refresh token (the old refresh token becomes
        spent): ``(grant, access, refresh)``, the tokens in clear this once."""
        access = ACCESS_PREFIX + secrets.token_urlsafe(32)
        refresh = REFRESH_PREFIX + secrets.token_urlsafe(32)
        now = time.time()
        spent = ((grant.refresh, *grant.spent) if grant.refresh else grant.spent)[:SPENT_KEPT]
        issued = replace(grant, access=token_digest(access), access_expires=now + access_lifetime,
                         refresh=token_digest(refresh),
                         refresh_expires=now + refresh_lifetime if refresh_lifetime > 0 else 0.0,
                         spent=spent)
        with self._editing() as (_clients, grants):
            grants[issued.id] = issued
        return issued, access, refresh

    def end(self, grant_ids: list[str]) -> int:
        """Remove grants (their tokens stop working at once); how many were there."""
        if not grant_ids:
            return 0
        with self._editing() as (_clients, grants):
            return sum(grants.pop(g, None) is not None for g in grant_ids)

    @contextlib.contextmanager
    def _editing(self) -> Iterator[tuple[dict[str, dict[str, Any]], dict[str, Grant]]]:
        folder = self.path.parent
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        lock_fd = os.open(folder / f".{self.path.name}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_EX)
            clients, grants = self._read()
            yield clients, grants
            self._write(clients, grants)
        finally:
            os.close(lock_fd)
        self._stamp = None
        self._refresh()

    def _write(self, clients: dict[str, dict[str, Any]], grants: dict[str, Grant]) -> None:
        body = {"version": 1,
                "note": "cloudg-nb OAuth grants: SHA-256 digests of the tokens only",
                "clients": clients,
                "grants": [{**asdict(g), "scopes": list(g.scopes), "spent": list(g.spent)}
                           for g in grants.values()]}
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".oauth-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(body, out, indent=1)
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def new_grant_id() -> str:
    return secrets.token_urlsafe(12)
