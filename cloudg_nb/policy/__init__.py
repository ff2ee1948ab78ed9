"""Access policy: who may list and call what, and which transforms apply to them."""

from .audit import AuditRing
from .document import PolicyError, load_document
from .engine import AccessPlan, Policy

__all__ = ["Policy", "AccessPlan", "PolicyError", "AuditRing", "load_document"]
