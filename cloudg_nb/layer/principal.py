"""Who is calling: a ``Principal`` (an id, roles, claims), kept apart from the request's
context so that what a policy, a plan or a pipeline says about a caller needs nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Principal"]


@dataclass(frozen=True, slots=True)
class Principal:
    """The caller: an id, a set of roles, and free-form claims (never used for roles)."""

    id: str
    roles: frozenset[str] = frozenset({"default"})
    claims: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.roles, frozenset):
            object.__setattr__(self, "roles", frozenset(self.roles))

    @classmethod
    def local(cls) -> Principal:
        """The in-process / stdio user: id ``local``, roles ``default`` and ``local``."""
        return _LOCAL

    @classmethod
    def anonymous(cls) -> Principal:
        return _ANONYMOUS

    def has_role(self, role: str) -> bool:
        return role in self.roles


_LOCAL = Principal("local", frozenset({"default", "local"}))
_ANONYMOUS = Principal("anonymous", frozenset({"default"}))
