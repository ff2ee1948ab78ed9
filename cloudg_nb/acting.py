"""Who the current call changes the workspace for, and which changes to others' data it may make.

The governance middleware (``oversight.approvals.ApprovalGate``) sets ``Acting`` around every
request of an assistant; the ``Workspace`` reads it at each change. Without one (the analyst,
in-process use, the CLI) nothing is restricted. An assistant owns what it creates; a change
to data another principal owns goes through only when ``permitted`` names it (the effects the
analyst approved), so no side path — caps, replacements, a tool without an effect entry —
changes the analyst's data unseen.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum

from .layer.errors import AccessDeniedError

__all__ = ["ANALYST", "Acting", "Change", "acting", "current", "owner_label", "refuse"]

#: How results and approvals name data owned by the analyst side (owner key None).
ANALYST = "analyst"


class Change(StrEnum):
    """The changes to a dataset another principal owns that the workspace guards."""

    REPLACE = "replace_dataset"
    UNLOAD = "unload_dataset"
    SUPPRESSIONS = "change_suppressions"
    CONTENT = "change_dataset"
    OVERWRITE = "overwrite_file"


@dataclass(frozen=True, slots=True)
class Acting:
    """The principal a call acts as (``owner``: its id) and the changes to others' data it may
    make: what the analyst approved for this one call, as (change, dataset name, dataset
    epoch) — the epoch pins the very dataset shown, so one loaded under that name while the
    call waited is not covered."""

    owner: str
    permitted: frozenset[tuple[str, str, int]] = frozenset()

    def may(self, change: str, dataset: str, epoch: int) -> bool:
        return (change, dataset, epoch) in self.permitted


_ACTING: contextvars.ContextVar[Acting | None] = contextvars.ContextVar(
    "cloudg_acting", default=None)


def current() -> Acting | None:
    """The governed principal of the running call (None: the analyst side, ungoverned)."""
    return _ACTING.get()


@contextlib.contextmanager
def acting(owner: str, permitted: frozenset[tuple[str, str, int]] = frozenset(),
           ) -> Iterator[Acting]:
    """Run the block as ``owner`` (a governed principal), allowed ``permitted`` changes to
    others' data. Worker threads started inside inherit it (their context is copied)."""
    value = Acting(owner, permitted)
    token = _ACTING.set(value)
    try:
        yield value
    finally:
        _ACTING.reset(token)


def owner_label(owner: str | None) -> str:
    """``analyst`` for the analyst side, else the principal id (``assistant:NAME``)."""
    return owner or ANALYST


_VERBS = {Change.REPLACE: "replace", Change.UNLOAD: "unload",
          Change.SUPPRESSIONS: "change the suppressions of", Change.CONTENT: "change"}


def refuse(change: Change, dataset: str, owner: str | None) -> AccessDeniedError:
    """The error for a change to another principal's data that no approval covers."""
    if change is Change.OVERWRITE:
        return AccessDeniedError(
            "This call would overwrite a file in the output folder that no approval of the "
            "analyst covers (it was not there, or not the same, when the call was approved), "
            "so nothing was written. Write into a new folder, or ask again.",
            data={"reason": "not-approved", "change": str(change), "file": dataset})
    return AccessDeniedError(
        f"This call would {_VERBS[change]} a dataset that the {owner_label(owner)} owns, and "
        "no approval of the analyst covers that change, so nothing was changed. Work on a "
        "dataset of your own (snapshot_dataset copies one), or make the change in a call "
        "the analyst approves.",
        data={"reason": "not-approved", "change": str(change), "dataset": dataset,
              "owner": owner_label(owner)})
