"""The assistants' credentials on this server: mint, describe, revoke, authenticate, and the
watcher of the store file.

Credentials live in the ``AssistantStore`` file (token digests only), each bound to the server
that minted it (``server_identity``). Revoking or replacing one ends its holder's open
sessions, requests and waiting calls at once, through the endpoint serving them (``Serving``);
one removed from the file by another process (``cloudg-nb assistants revoke`` with no server
running, or a hand edit) within ``STORE_POLL`` seconds. Each such change is an audit event, and
its watchers hear ``minted`` or ``revoked`` with the assistant's name.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from .assistant_auth import OTHER_SERVER, UNBOUND, UNKNOWN, AssistantRefused

if TYPE_CHECKING:
    from cloudg_nb.assistants import AssistantRecord, AssistantStore
    from cloudg_nb.policy.router import PolicyRouter

    from .identity import Identity

__all__ = ["MAX_REFUSALS_LOGGED", "STORE_POLL", "AssistantCredentials", "Serving"]

#: Seconds between two looks at the assistant store file (one ``stat``, ~2 µs): a credential
#: removed from the file by another process ends its sessions within about this long.
STORE_POLL = 0.1
#: Credentials refused for belonging to another server that the log has named already.
MAX_REFUSALS_LOGGED = 256


class Serving(Protocol):
    """What the credentials need of the endpoint that serves their holders."""

    @property
    def setup_problem(self) -> str | None:
        """Why the endpoint does not serve (None: it does, or is starting)."""

    def sessions_by_owner(self) -> Mapping[str | None, int]:
        """Open MCP sessions by their owner's principal id."""

    async def close_sessions_of(self, principal_id: str) -> int:
        """End the open sessions (and their requests) of ``principal_id``; how many."""

    def cancel_waiting_calls(self, principal_id: str, reason: str) -> int:
        """Deny the calls of ``principal_id`` waiting for approval; how many."""

    def record_event(self, fields: dict[str, Any]) -> None:
        """An audit event (the audit log and the server log)."""

    def run_in_background(self, work: Coroutine[Any, Any, Any]) -> None:
        """Run ``work`` on the serving loop, ended with the endpoint."""


class AssistantCredentials:
    """This server's assistant credentials, served by ``serving``; ``identity`` holds the
    scope entries a credential's requests reuse. Until ``open`` names the store, nothing is
    known and minting fails saying the endpoint is not available."""

    def __init__(self, serving: Serving, identity: Identity,
                 log: logging.Logger | logging.LoggerAdapter[Any], default_profile: str) -> None:
        self.serving = serving
        self.identity = identity
        self.log = log
        #: The profile of a credential that names none (``CloudGExtension.assistant_policy``).
        self.default_profile = default_profile
        self.store: AssistantStore | None = None
        #: Which server this is, for binding assistant credentials (``server_identity``).
        self.server_identity = ""
        #: Checks a profile a credential names (set once the layer's policy is built).
        self.profiles: PolicyRouter | None = None
        self._last_used: dict[str, float] = {}
        self._known: set[str] = set()
        self._refusals_logged: set[str] = set()
        self._watchers: list[Callable[[str, str], None]] = []

    def watch(self, watcher: Callable[[str, str], None]) -> Callable[[], None]:
        """Call ``watcher(action, name)`` (``minted`` or ``revoked``) for every credential
        minted or revoked from now on; returns the function that stops."""
        self._watchers.append(watcher)
        return lambda: self._watchers.remove(watcher) if watcher in self._watchers else None

    def _changed(self, action: str, name: str) -> None:
        for watcher in list(self._watchers):
            try:
                watcher(action, name)
            except Exception:
                self.log.warning("cloudg: a credential watcher failed", exc_info=True)

    def open(self, store: AssistantStore, server_identity: str) -> None:
        """Use ``store``, for the server ``server_identity``."""
        self.store = store
        self.server_identity = server_identity

    # -- a request's credential --------------------------------------------------------------

    def authenticate_assistant(self, token: str) -> AssistantRecord:
        """The assistant a token belongs to, minted for this server; notes its use. Raises
        ``AssistantRefused``: unknown or revoked, minted for another server, or minted
        before credentials were bound to a server."""
        store = self.store
        record = store.verify(token) if store is not None else None
        if record is None:
            raise AssistantRefused(UNKNOWN)
        if not record.bound_to(self.server_identity):
            self._log_refusal(record)
            raise AssistantRefused(OTHER_SERVER if record.server else UNBOUND)
        self.note_use(record)
        return record

    def note_use(self, record: AssistantRecord) -> None:
        """``record`` authenticated a request (its last use; watched for revocation)."""
        self._last_used[record.name] = time.time()
        self._known.add(record.name)

    def _log_refusal(self, record: AssistantRecord) -> None:
        """Tell the analyst, once per credential, why an assistant's token is refused."""
        if record.token_sha256 in self._refusals_logged:
            return
        if len(self._refusals_logged) < MAX_REFUSALS_LOGGED:
            self._refusals_logged.add(record.token_sha256)
        where = (f"was minted for the server {record.server}" if record.server else
                 "was minted before credentials were bound to a server")
        self.log.warning("cloudg: refused assistant %s (token %s): its credential %s, not "
                         "this one (%s); mint one here: cloudg-nb config --client %s "
                         "--jupyter --name %s", record.name, record.hint, where,
                         self.server_identity, record.client, record.name)

    # -- the analyst's operations ------------------------------------------------------------

    def mint_assistant(self, name: str, *, client: str = "other", profile: str | None = None,
                       ) -> tuple[str, AssistantRecord, bool]:
        """A new credential for assistant ``name`` (replacing one of that name); raises
        AssistantStoreError for a bad name or a profile that does not load."""
        from cloudg_nb.assistants import AssistantStoreError
        from cloudg_nb.policy import PolicyError

        if self.store is None or self.profiles is None:
            raise AssistantStoreError("The cloudg endpoint is not available: "
                                      f"{self.serving.setup_problem or 'not started'}.")
        if profile:
            try:
                self.profiles.check_profile(profile)
            except PolicyError as exc:
                raise AssistantStoreError(f"profile: {exc}") from None
        token, record, replaced = self.store.mint(name, client=client, profile=profile or "",
                                                  server=self.server_identity)
        if replaced:
            self.serving.run_in_background(
                self._end_assistant(record.name, "its credential was replaced"))
        self._known.add(record.name)
        self.serving.record_event({"event": "assistant.minted",
                                   "assistant": record.principal_id, "client": record.client,
                                   "profile": record.profile or None, "replaced": replaced})
        self._changed("minted", record.name)
        return token, record, replaced

    def describe_assistants(self) -> list[dict[str, Any]]:
        """This server's credentials (no tokens): profile, last use, open sessions."""
        store = self.store
        if store is None:
            return []
        sessions = self.serving.sessions_by_owner()
        out = []
        for record in store.records(self.server_identity):
            item = record.public()
            item["profile"] = record.profile or self.default_profile
            used = self._last_used.get(record.name)
            item["last_used"] = (time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(used))
                                 if used else None)
            item["sessions"] = sessions.get(record.principal_id, 0)
            out.append(item)
        return out

    async def revoke_assistant(self, name: str, by: str) -> dict[str, Any] | None:
        """Revoke ``name``: its token is refused from the next request on, its open sessions
        and requests end, its calls waiting for approval are denied."""
        store = self.store
        removed = store.revoke(name, self.server_identity) if store is not None else []
        if not removed:
            return None
        record = removed[0]
        ended, denied = await self._end_assistant(record.name, "its credential was revoked")
        self.serving.record_event({"event": "assistant.revoked",
                                   "assistant": record.principal_id, "by": by,
                                   "sessions_ended": ended, "calls_denied": denied})
        self._changed("revoked", record.name)
        return {"revoked": record.name, "principal": record.principal_id,
                "sessions_ended": ended, "calls_denied": denied}

    def credential_count(self) -> int | None:
        """This server's live credentials (None: the store cannot be read; it says why when
        one is minted or used)."""
        from cloudg_nb.assistants import AssistantStoreError

        if self.store is None:
            return 0
        try:
            records = self.store.records(self.server_identity)
        except AssistantStoreError:
            return None
        return sum(r.bound_to(self.server_identity) for r in records)

    # -- ending a credential's use -----------------------------------------------------------

    async def _end_assistant(self, name: str, reason: str) -> tuple[int, int]:
        from cloudg_nb.assistants import assistant_id

        principal_id = assistant_id(name)
        self.identity.forget(principal_id)
        denied = self.serving.cancel_waiting_calls(principal_id, reason)
        ended = await self.serving.close_sessions_of(principal_id)
        self._known.discard(name)
        return ended, denied

    async def watch_store(self, every: float = STORE_POLL) -> None:
        """End the sessions, requests in flight and waiting calls of assistants whose
        credential disappeared from the store file (revoked by ``cloudg-nb assistants
        revoke`` with no server running, or by a hand edit), within ``every`` seconds.

        A ``stat`` of the file per look (about 2 µs; the file is read again only when it
        changed), rather than inotify: no dependency, and it works on every file system (on
        a network one, the client's attribute cache may delay it)."""
        from cloudg_nb.assistants import assistant_id

        seen = -1
        while True:
            await asyncio.sleep(every)
            store = self.store
            if store is None:
                continue
            try:
                generation = store.generation()
                if generation == seen:
                    continue
                seen = generation
                live = {r.name for r in store.records(self.server_identity)
                        if r.bound_to(self.server_identity)}
            except Exception:
                self.log.debug("cloudg: reading the assistant store failed", exc_info=True)
                continue
            for name in sorted(self._known - live):
                ended, denied = await self._end_assistant(name, "its credential was revoked")
                self.serving.record_event({"event": "assistant.revoked",
                                           "assistant": assistant_id(name),
                                           "by": "store file", "sessions_ended": ended,
                                           "calls_denied": denied})
                self._changed("revoked", name)
