"""JupyterLab's view of oversight: approvals and the activity feed as the analyst's JSON API.

``GET {base_url}cloudg/api/approvals`` lists the pending approvals (oldest first) and the
recent decisions (newest first); ``POST …/approvals/ID`` ``{"decision": "approve"|"deny",
"reason"?}`` decides one on the server's loop at once (no kernel in the path): 404 for an id
never seen, 409 for one no longer waiting. ``GET cloudg/api/activity?since=SEQ&limit=N``
gives the feed's entries after ``SEQ`` (oldest first, at most ``N``) and the calls waiting
for approval now. The analyst only (``owner_api``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tornado import web

from .owner_api import OwnerAPIHandler

if TYPE_CHECKING:  # the oversight package (and the catalog below it) loads with the layer
    from cloudg_nb.oversight import Approval

__all__ = ["ACTIVITY_LIMIT", "MAX_ACTIVITY_LIMIT", "MAX_REASON", "ActivityHandler",
           "ApprovalsHandler"]

#: Entries one activity read returns unless ``limit`` says otherwise, and at most.
ACTIVITY_LIMIT = 200
MAX_ACTIVITY_LIMIT = 2000
#: The longest reason a decision may carry (the assistant is told it).
MAX_REASON = 300
DECISION_USAGE = ('Send JSON: {"decision": "approve" or "deny", "reason": TEXT} (reason '
                  f'optional, at most {MAX_REASON} characters; told to the assistant).')
UNKNOWN = ("No call waits for approval under that id, and none ended under it recently: it "
           "may have ended long ago. GET .../cloudg/api/approvals lists the waiting ones.")
NOT_AVAILABLE = ("The cloudg endpoint is not available ({problem}), so there are no approvals "
                 "or activity to show; the server log says how to fix it.")


def _how_it_ended(approval: Approval) -> str:
    by = f" by {approval.decided_by}" if approval.decided_by else ""
    why = f" ({approval.reason})" if approval.reason else ""
    return f"{approval.state}{by}{why}"


class _Oversight(OwnerAPIHandler):
    def _unavailable(self) -> bool:
        """True after answering 503 when the endpoint was not built."""
        if self.endpoint.desk is not None and self.endpoint.activity is not None:
            return False
        problem = self.endpoint.setup_problem or "not started"
        self._send(503, {"message": NOT_AVAILABLE.format(problem=problem)})
        return True


class ApprovalsHandler(_Oversight):
    """The approvals (GET), and one decision (POST ``…/approvals/ID``)."""

    @web.authenticated
    def get(self, approval_id: str | None = None) -> None:
        self._refuse_assistants()
        if self._unavailable():
            return
        desk = self.endpoint.desk
        assert desk is not None
        if approval_id is not None:
            found = desk.get(approval_id)
            if found is None:
                self._send(404, {"message": UNKNOWN})
                return
            self._send(200, {"approval": found.public()})
            return
        self._send(200, {"pending": [a.public() for a in desk.pending()],
                         "recent": [a.public() for a in reversed(desk.recent())]})

    @web.authenticated
    def post(self, approval_id: str | None = None) -> None:
        self._refuse_assistants()
        if approval_id is None:
            self._send(400, {"message": "Name the call: POST .../approvals/ID (GET "
                                        ".../approvals lists the waiting ones)."})
            return
        body = self._json_body(DECISION_USAGE)
        if body is None or self._unavailable():
            return
        decision, reason = body.get("decision"), body.get("reason")
        if decision not in ("approve", "deny") or not isinstance(reason, str | None) or (
                isinstance(reason, str) and len(reason) > MAX_REASON):
            self._send(400, {"message": DECISION_USAGE})
            return
        from cloudg_nb.oversight.approvals import PENDING

        desk = self.endpoint.desk
        assert desk is not None
        approval = desk.get(approval_id)
        if approval is None:
            self._send(404, {"message": UNKNOWN})
            return
        if approval.state != PENDING:
            self._send(409, {"message": f"That call is no longer waiting: it was "
                                        f"{_how_it_ended(approval)}. Nothing was changed.",
                             "approval": approval.public()})
            return
        told = (reason.strip() or None) if isinstance(reason, str) else None
        decided = desk.decide(approval_id, decision == "approve", self._who(), told)
        self._send(200, {"approval": decided.public()})


class ActivityHandler(_Oversight):
    """The activity feed after ``since`` (GET), with the calls waiting for approval now."""

    @web.authenticated
    def get(self) -> None:
        self._refuse_assistants()
        try:
            since = int(self.get_query_argument("since", "0"))
            limit = int(self.get_query_argument("limit", str(ACTIVITY_LIMIT)))
        except ValueError:
            self._send(400, {"message": "since and limit are whole numbers: since is the seq "
                                        "of the last entry you have (0: from the start), "
                                        f"limit at most {MAX_ACTIVITY_LIMIT}."})
            return
        if self._unavailable():
            return
        from cloudg_nb.oversight.activity import waiting_entry

        log, desk = self.endpoint.activity, self.endpoint.desk
        assert log is not None and desk is not None
        limit = min(max(1, limit), MAX_ACTIVITY_LIMIT)
        entries = log.entries(since=max(0, since))[:limit]
        self._send(200, {"entries": [e.to_dict() for e in entries], "seq": log.latest,
                         "waiting": [waiting_entry(a) for a in desk.pending()]})
