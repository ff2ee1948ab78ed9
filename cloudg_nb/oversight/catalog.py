"""The oversight catalog: the activity feed and approvals as resources, the analyst's tools.

``cloudg://activity`` (and ``cloudg://activity/since/{seq}`` for what is new) and
``cloudg://approvals`` change as calls happen; an assistant reads only its own entries.
``decide_approval``, ``list_assistants`` and ``revoke_assistant`` are tagged owner-only:
assistants neither see nor call them (``PolicyRouter``), and each handler checks again.
Handlers are coroutines: the log and the desk live on the serving loop.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Protocol

from pydantic import Field

from ..assistants import is_assistant
from ..layer.context import ToolContext
from ..layer.enums import Capability, Sensitivity
from ..layer.errors import AccessDeniedError, InvalidArgumentsError, NotFoundError
from ..layer.registry import Registry
from ..layer.wire import ACTIVITY_SINCE_TEMPLATE, ACTIVITY_URI, APPROVALS_URI
from ..policy.router import OWNER_ONLY
from .activity import ActivityLog
from .approvals import ApprovalDesk

__all__ = ["ManagesAssistants", "register"]

CATEGORY = "oversight"
#: The most entries one read returns (the log holds at most its size anyway).
MAX_READ = 1000


class ManagesAssistants(Protocol):
    """What the credential tools need from their host (the Jupyter extension)."""

    def describe_assistants(self) -> list[dict[str, Any]]: ...

    async def revoke_assistant(self, name: str, by: str) -> dict[str, Any] | None: ...


def _own(ctx: ToolContext) -> str | None:
    """The principal whose entries the caller may read: its own for an assistant, else all."""
    return ctx.principal.id if is_assistant(ctx.principal) else None


def _owner_only(ctx: ToolContext, what: str) -> None:
    if is_assistant(ctx.principal):
        raise AccessDeniedError(f"Only the analyst may {what}.",
                                data={"reason": "owner-only", "kind": "tool"})


def register(registry: Registry, *, activity: ActivityLog, desk: ApprovalDesk,
             assistants: ManagesAssistants | None = None) -> Registry:
    """Add the oversight resources and tools (the credential tools only with ``assistants``)."""

    def feed(ctx: ToolContext, since: int) -> dict[str, Any]:
        own = _own(ctx)
        entries = activity.entries(since=since, principal=own, limit=MAX_READ)
        return {"latest": activity.latest, "scope": "own" if own else "all",
                "kept": activity.size, "entries": [e.to_dict() for e in entries]}

    async def activity_resource(ctx: ToolContext) -> dict[str, Any]:
        """Every call by any caller, newest last (an assistant sees its own): time, who,
        what, outcome, duration, how many values were redacted, the approval decision."""
        return feed(ctx, 0)

    async def activity_since(ctx: ToolContext, seq: str) -> dict[str, Any]:
        """The activity entries after entry number ``seq`` (``latest`` of the last read)."""
        try:
            after = int(seq)
        except ValueError:
            raise InvalidArgumentsError("seq is an entry number, e.g. the 'latest' of the "
                                        "last read", data={"argument": "seq"}) from None
        return feed(ctx, after)

    async def approvals_resource(ctx: ToolContext) -> dict[str, Any]:
        """Assistant calls waiting for the analyst's approval, and recent decisions."""
        own = _own(ctx)
        return {"pending": [a.public() for a in desk.pending(own)],
                "recent": [a.public() for a in desk.recent(own)]}

    async def decide_approval(
        ctx: ToolContext,
        approval_id: Annotated[str, Field(min_length=1, max_length=64, description=(
            f"The id of a waiting call ({APPROVALS_URI} lists them)"))],
        decision: Annotated[Literal["approve", "deny"], Field(description=(
            "approve lets the call run; deny ends it with an error"))],
        reason: Annotated[str | None, Field(max_length=300, description=(
            "Told to the assistant with a denial"))] = None,
    ) -> dict[str, Any]:
        """Approve or deny an assistant's call that waits for the analyst (analyst only)."""
        _owner_only(ctx, "decide approvals")
        approval = desk.decide(approval_id, decision == "approve", ctx.principal.id, reason)
        return approval.public()

    registry.resource(ACTIVITY_URI, name="activity", title="Activity feed",
                      category=CATEGORY, sensitivity=Sensitivity.INTERNAL)(activity_resource)
    registry.resource_template(ACTIVITY_SINCE_TEMPLATE, name="activity-since",
                               title="New activity", category=CATEGORY,
                               sensitivity=Sensitivity.INTERNAL)(activity_since)
    registry.resource(APPROVALS_URI, name="approvals", title="Calls waiting for approval",
                      category=CATEGORY, sensitivity=Sensitivity.INTERNAL)(approvals_resource)
    owner = {"category": CATEGORY, "tags": {OWNER_ONLY}, "sensitivity": Sensitivity.INTERNAL}
    registry.tool(decide_approval, title="Decide an assistant's call",
                  capabilities={Capability.WRITE_STATE},
                  annotations={"destructive": False, "idempotent": False}, **owner)
    if assistants is None:
        return registry

    async def list_assistants(ctx: ToolContext) -> dict[str, Any]:
        """The assistants with a live credential on this server: name, client, policy
        profile, token hint, when made and last used, the server it is bound to (None: minted
        before binding, accepted nowhere; mint it again) (analyst only; tokens themselves are
        never stored)."""
        _owner_only(ctx, "list assistant credentials")
        found = assistants.describe_assistants()
        return {"total": len(found), "assistants": found}

    async def revoke_assistant(
        ctx: ToolContext,
        name: Annotated[str, Field(min_length=1, max_length=48, description=(
            "The assistant's name (list_assistants shows them)"))],
    ) -> dict[str, Any]:
        """Revoke an assistant's credential: its next request is refused, its open MCP
        sessions end and its calls waiting for approval are denied (analyst only)."""
        _owner_only(ctx, "revoke assistant credentials")
        revoked = await assistants.revoke_assistant(name, ctx.principal.id)
        if revoked is None:
            raise NotFoundError("No assistant has that name; list_assistants shows them.",
                                data={"kind": "assistant"})
        return revoked

    registry.tool(list_assistants, title="List assistant credentials",
                  annotations={"read_only": True, "idempotent": True}, **owner)
    registry.tool(revoke_assistant, title="Revoke an assistant's credential",
                  capabilities={Capability.WRITE_STATE},
                  annotations={"destructive": True, "idempotent": True}, **owner)
    return registry
