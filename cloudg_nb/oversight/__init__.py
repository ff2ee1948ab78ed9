"""Oversight of assistants: the live activity feed and the analyst's approval of their
sensitive calls (framework-free; the Jupyter extension wires them into its layer)."""

from .activity import ACTIVITY_URI, ActivityEntry, ActivityLog, ActivityMiddleware
from .approvals import APPROVALS_URI, Approval, ApprovalDesk, ApprovalGate

__all__ = [
    "ACTIVITY_URI", "APPROVALS_URI", "ActivityEntry", "ActivityLog", "ActivityMiddleware",
    "Approval", "ApprovalDesk", "ApprovalGate",
]
