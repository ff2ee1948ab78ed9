"""cloudg's events on Jupyter's event bus, and the approval lines of the server log.

``OversightEvents`` registers the ``jupyter_events`` schemas shipped in ``event_schemas/``
with the server's ``event_logger`` (JupyterLab reads them from ``/api/events/subscribe``) and
emits: every change of an approval (``APPROVALS_EVENT_SCHEMA``, with the pending count), the
activity feed's growth and the waiting count (``ACTIVITY_EVENT_SCHEMA``, coalesced to at most
one per ``ACTIVITY_INTERVAL``), credentials minted or revoked (``ASSISTANTS_EVENT_SCHEMA``),
OAuth connection requests waiting for consent and their answers (``CONNECTIONS_EVENT_SCHEMA``).
It writes ``approval requested: …`` / ``approval decided: …`` at INFO. Events and lines hold
ids, names, states and counts, never an argument value or a token: the schemas allow no other
key, and the event logger validates each event against its schema.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cloudg_nb.layer.wire import (
    ACTIVITY_EVENT_SCHEMA,
    APPROVALS_EVENT_SCHEMA,
    ASSISTANTS_EVENT_SCHEMA,
    CONNECTIONS_EVENT_SCHEMA,
)

if TYPE_CHECKING:
    from jupyter_events import EventLogger

    from cloudg_nb.oversight import ActivityLog, Approval, ApprovalDesk
    from cloudg_nb.protocol.oauth_provider import AssistantOAuthProvider, PendingConsent

    from .assistant_credentials import AssistantCredentials

__all__ = ["ACTIVITY_INTERVAL", "SCHEMA_FILES", "OversightEvents"]

#: The schemas, shipped beside this module.
SCHEMA_DIR = Path(__file__).parent / "event_schemas"
SCHEMA_FILES = {
    APPROVALS_EVENT_SCHEMA: SCHEMA_DIR / "approvals-v1.yaml",
    ACTIVITY_EVENT_SCHEMA: SCHEMA_DIR / "activity-v1.yaml",
    ASSISTANTS_EVENT_SCHEMA: SCHEMA_DIR / "assistants-v1.yaml",
    CONNECTIONS_EVENT_SCHEMA: SCHEMA_DIR / "connections-v1.yaml",
}
#: Seconds between two activity events at least (4 a second at most, however busy).
ACTIVITY_INTERVAL = 0.25

Log = logging.Logger | logging.LoggerAdapter[Any]


class OversightEvents:
    """Tell Jupyter's event bus (``event_logger``; None: only the log lines) and the server
    ``log`` what happens to approvals, the activity feed and assistant credentials."""

    def __init__(self, event_logger: EventLogger | None, log: Log) -> None:
        self.event_logger = event_logger
        self.log = log
        self._desk: ApprovalDesk | None = None
        self._activity: ActivityLog | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._last_activity = -math.inf
        self._sent_seq = 0
        self._stops: list[Callable[[], None]] = []
        self._oauth: AssistantOAuthProvider | None = None

    def register(self) -> None:
        """Register the schemas with the event logger (once per process)."""
        logger = self.event_logger
        if logger is None:
            return
        for schema_id, path in SCHEMA_FILES.items():
            if schema_id not in logger.schemas:
                logger.register_event_schema(path)

    def attach(self, desk: ApprovalDesk, activity: ActivityLog,
               credentials: AssistantCredentials) -> None:
        """Follow the desk, the feed and the credentials from now on."""
        self._desk, self._activity = desk, activity
        self._sent_seq = activity.latest
        self._stops += [desk.watch(self._approval_changed), activity.watch(self.activity_changed),
                        credentials.watch(self._credential_changed)]

    def attach_connections(self, provider: AssistantOAuthProvider) -> None:
        """Follow the OAuth connection requests of ``provider`` from now on."""
        self._oauth = provider
        self._stops.append(provider.watch(self._consent_changed))

    def start(self) -> None:
        """Emit on the running loop (the server's) from now on."""
        self._loop = asyncio.get_running_loop()

    def close(self) -> None:
        for stop in self._stops:
            stop()
        self._stops.clear()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    # -- approvals ---------------------------------------------------------------------------

    def _approval_changed(self, change: str, approval: Approval) -> None:
        from cloudg_nb.oversight.approvals import REQUESTED

        public = approval.public()
        if change == REQUESTED:
            self.log.info("cloudg: approval requested: %s wants %s (id %s, expires in %g s)",
                          approval.principal, approval.tool, approval.id, public["expires_in"])
        else:
            self.log.info("cloudg: approval decided: %s %s by %s after %g s", approval.id,
                          approval.state, approval.decided_by or "nobody",
                          round(approval.waited, 1))
        data: dict[str, Any] = {
            "action": change, "id": approval.id, "principal": approval.principal,
            "tool": approval.tool, "state": approval.state,
            "expires_in": float(public["expires_in"]),
            "pending": len(self._desk.pending()) if self._desk is not None else 0}
        if approval.decided_by:
            data["decided_by"] = approval.decided_by
        if approval.reason:
            data["reason"] = approval.reason
        self._emit(APPROVALS_EVENT_SCHEMA, data)
        self.activity_changed()  # the calls waiting changed with it

    # -- activity (coalesced) ----------------------------------------------------------------

    def activity_changed(self) -> None:
        """The feed grew or the waiting calls changed: an event now, or when the last one is
        ``ACTIVITY_INTERVAL`` old (one for everything that happened meanwhile)."""
        loop = self._loop
        if loop is None or self._timer is not None or loop.is_closed():
            return
        try:
            here = asyncio.get_running_loop()
        except RuntimeError:
            here = None
        if here is not loop:  # a worker thread's record: hop to the server's loop
            loop.call_soon_threadsafe(self.activity_changed)
            return
        wait = self._last_activity + ACTIVITY_INTERVAL - loop.time()
        if wait <= 0:
            self._emit_activity()
        else:
            self._timer = loop.call_later(wait, self._emit_activity)

    def _emit_activity(self) -> None:
        self._timer = None
        if self._loop is not None:
            self._last_activity = self._loop.time()
        latest = self._activity.latest if self._activity is not None else 0
        count, self._sent_seq = max(0, latest - self._sent_seq), latest
        waiting = len(self._desk.pending()) if self._desk is not None else 0
        self._emit(ACTIVITY_EVENT_SCHEMA, {"seq": latest, "count": count, "waiting": waiting})

    # -- assistants --------------------------------------------------------------------------

    def _credential_changed(self, action: str, name: str) -> None:
        self._emit(ASSISTANTS_EVENT_SCHEMA, {"action": action, "name": name})

    # -- connection requests (OAuth consent) ------------------------------------------------

    def _consent_changed(self, action: str, consent: PendingConsent) -> None:
        self.log.info("cloudg: connection request %s: %s (%s), id %s", action,
                      consent.client_name, consent.redirect_host, consent.id)
        waiting = len(self._oauth.pending()) if self._oauth is not None else 0
        self._emit(CONNECTIONS_EVENT_SCHEMA, {
            "action": action, "id": consent.id, "client": consent.client_name,
            "redirect_host": consent.redirect_host, "pending": waiting})

    # -- the bus -----------------------------------------------------------------------------

    def _emit(self, schema_id: str, data: dict[str, Any]) -> None:
        """Emit on the loop (the event logger starts its listeners as tasks there)."""
        logger = self.event_logger
        if logger is None:
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no loop here (a sync caller before the server started)
            return
        try:
            logger.emit(schema_id=schema_id, data=data)
        except Exception:
            self.log.warning("cloudg: emitting the event %s failed", schema_id, exc_info=True)
            return
