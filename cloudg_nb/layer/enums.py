"""Sensitivity levels (ordered) and capabilities that specs declare and policies check; the
kinds of request the layer serves, the outcomes audit and metrics record for them, and the
kinds of change the layer's listeners receive.

All are ``StrEnum``: a member equals (and hashes, formats and serialises like) its value.
"""

from __future__ import annotations

from enum import StrEnum

from .wire import META_PREFIX  # its home is ``wire``; kept importable from here

__all__ = ["Sensitivity", "Capability", "RequestKind", "Outcome", "ChangeKind", "META_PREFIX"]


class Sensitivity(StrEnum):
    """How sensitive a primitive's output is: public < internal < confidential < restricted."""

    PUBLIC = "public"
    INTERNAL = "internal"
    CONFIDENTIAL = "confidential"
    RESTRICTED = "restricted"

    @property
    def rank(self) -> int:
        return _SENSITIVITY_ORDER.index(self)

    # Ordered by rank, not alphabetically (StrEnum would compare the strings).
    def __lt__(self, other: object) -> bool:
        return self.rank < other.rank if isinstance(other, Sensitivity) else NotImplemented

    def __le__(self, other: object) -> bool:
        return self.rank <= other.rank if isinstance(other, Sensitivity) else NotImplemented

    def __gt__(self, other: object) -> bool:
        return self.rank > other.rank if isinstance(other, Sensitivity) else NotImplemented

    def __ge__(self, other: object) -> bool:
        return self.rank >= other.rank if isinstance(other, Sensitivity) else NotImplemented

    __hash__ = StrEnum.__hash__

    @classmethod
    def parse(cls, value: str | Sensitivity) -> Sensitivity:
        """Read a level case-insensitively; ValueError names the accepted values."""
        if isinstance(value, Sensitivity):
            return value
        try:
            return cls(str(value).strip().lower())
        except ValueError:
            names = ", ".join(s.value for s in cls)
            raise ValueError(f"Unknown sensitivity level; use one of: {names}") from None


_SENSITIVITY_ORDER = list(Sensitivity)


class Capability(StrEnum):
    """What a primitive may do; policies deny or grant these."""

    READ_STATE = "read_state"
    WRITE_STATE = "write_state"
    READ_FS = "read_fs"
    WRITE_FS = "write_fs"
    CLOUD_ACCESS = "cloud_access"
    EXEC = "exec"
    REVEAL = "reveal"

    @classmethod
    def parse(cls, value: str | Capability) -> Capability:
        if isinstance(value, Capability):
            return value
        try:
            return cls(str(value).strip().lower())
        except ValueError:
            names = ", ".join(c.value for c in cls)
            raise ValueError(f"Unknown capability; use one of: {names}") from None


class RequestKind(StrEnum):
    """The four kinds of request that go through the layer's one door."""

    TOOL = "tool"
    RESOURCE = "resource"
    PROMPT = "prompt"
    COMPLETION = "completion"


class Outcome(StrEnum):
    """How a request ended, as audit lines and metrics record it.

    The terminal sets ``DENIED``, ``RATE_LIMITED`` or ``REJECTED`` on the request when it
    refuses it; the rest are read off the result or the exception (``outcome_of``).
    """

    OK = "ok"
    ERROR = "error"
    DENIED = "denied"
    RATE_LIMITED = "rate_limited"
    REJECTED = "rejected"
    CANCELLED = "cancelled"
    EXCEPTION = "exception"


class ChangeKind(StrEnum):
    """What changed, as ``layer.notify_change(kind, uri)`` reports it to the layer's listeners
    (the protocol edge turns each into its MCP notification): a list of tools, prompts or
    resources, or one resource's content (``RESOURCE``, with its URI)."""

    TOOLS = "tools"
    PROMPTS = "prompts"
    RESOURCES = "resources"
    RESOURCE = "resource"
