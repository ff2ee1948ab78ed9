"""Analyst approval of an assistant's calls: the desk of pending requests and the gate.

``ApprovalGate`` (middleware, inside the audit and outside the concurrency limit) runs every
request of a governed principal (an assistant) as that principal (``acting``), so the
workspace knows whose data a change touches. Before a tool call it works out the call's
effects (``catalog.effects``); a call that changes data another principal owns, or that its
caller's ``ApprovalRule`` names, waits: it shows on the ``ApprovalDesk`` (what it will do, as
the caller's policy shows it), reports progress "waiting for analyst approval" (saying where
the analyst decides), offers a client that declared URL mode the approval page (MCP URL-mode
elicitation; its answer is informational, never a decision), and waits — on the loop,
holding no worker thread or concurrency slot. An approval lets the call through allowed
exactly the changes shown; a denial, a timeout, a cancelled call or a revoked credential ends
it as an error result; a caller with ``max_pending`` calls waiting is refused at once. Every
decision is written to the audit hook, and every change (requested, decided, expired,
cancelled) goes to the desk's watchers (the Jupyter extension's events and log lines).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from ..acting import acting
from ..catalog.effects import EffectNotShowable, EffectPlan, plan_call, plans_effects
from ..effect_text import effect_lines
from ..layer.calls import CallInfo, Handler, argument_work
from ..layer.enums import ChangeKind
from ..layer.errors import AccessDeniedError, MCPLayerError, NotFoundError, RateLimitedError
from ..layer.jsonable import to_jsonable
from ..layer.schema import validate_arguments
from ..layer.wire import APPROVALS_URI

if TYPE_CHECKING:
    from ..layer.context import Principal
    from ..layer.layer import CloudGMCPLayer
    from ..policy.approval import ApprovalRule

__all__ = ["APPROVALS_URI", "Approval", "ApprovalDesk", "ApprovalGate", "DEFAULT_MAX_PENDING",
           "DEFAULT_TIMEOUT", "Watcher", "waiting_message"]

logger = logging.getLogger("cloudg.oversight")

#: Seconds a call waits for the analyst unless the profile or the server says otherwise.
DEFAULT_TIMEOUT = 120.0
#: Decided requests the desk still shows (newest last).
RECENT = 50
#: Calls of one principal that may wait for the analyst at once; more are refused at once.
DEFAULT_MAX_PENDING = 3
#: The most characters of JSON an approval shows; a call whose effect needs more is refused
#: (an approval is never cut).
MAX_SHOWN_CHARS = 100_000

PENDING, APPROVED, DENIED, EXPIRED, CANCELLED = (
    "pending", "approved", "denied", "expired", "cancelled")
#: What happened to an approval, as the desk's watchers are told: put on the desk, decided
#: (approved or denied by someone), expired (no decision in time), cancelled (the call ended,
#: or its credential was revoked, while it waited).
REQUESTED, DECIDED = "requested", "decided"


@dataclass(eq=False)
class Approval:
    """One call waiting for (or decided by) the analyst."""

    id: str
    principal: str
    tool: str
    arguments: Any  #: every argument, long values summarised, as the caller's policy shows them
    timeout: float
    #: What the call will do: ``summary`` (a sentence) and ``effects`` (one entry each).
    effect: dict[str, Any] = field(default_factory=dict)
    created: float = field(default_factory=time.time)
    state: str = PENDING
    decided_by: str | None = None
    decided_at: float | None = None
    reason: str | None = None
    url: str | None = None
    _decided: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    @property
    def waited(self) -> float:
        return round((self.decided_at or time.time()) - self.created, 3)

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id, "principal": self.principal, "tool": self.tool,
            "summary": self.effect.get("summary"), "effects": self.effect.get("effects", []),
            "arguments": self.arguments, "state": self.state,
            "created": _iso(self.created), "timeout_seconds": self.timeout,
            "expires_in": max(0.0, round(self.created + self.timeout - time.time(), 1))
            if self.state == PENDING else 0.0,
            "decided_by": self.decided_by, "reason": self.reason, "url": self.url,
            "decided_at": _iso(self.decided_at) if self.decided_at is not None else None,
        }

    @property
    def change(self) -> str:
        """What last happened to it: requested, decided, expired or cancelled."""
        if self.state == PENDING:
            return REQUESTED
        if self.state in (EXPIRED, CANCELLED):
            return self.state
        return DECIDED if self.decided_by else CANCELLED  # denied by a revocation


def _iso(at: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))


def _shown(view: dict[str, Any]) -> dict[str, Any]:
    """The view as JSON values; a view too large to show in full refuses the call."""
    value = to_jsonable(view)
    size = len(json.dumps(value, default=str, ensure_ascii=False))
    if size > MAX_SHOWN_CHARS:
        raise EffectNotShowable(
            "What this call would do is too large to show the analyst in full for approval "
            f"({size:,} characters), so it was refused. Split it into smaller calls.",
            data={"reason": "effect-too-large", "characters": size,
                  "max_characters": MAX_SHOWN_CHARS})
    return value if isinstance(value, dict) else {"arguments": value}


def _with_text(effects: Any) -> Any:
    """Each effect with its ``text``: the line(s) every front end shows for it."""
    if not isinstance(effects, list):
        return effects
    out = []
    for effect in effects:
        if isinstance(effect, dict):
            lines = effect_lines([effect])
            if lines:
                lines[0] = lines[0][2:]  # the "! " / "· " mark: changes_others_data says it
            effect = {**effect, "text": "\n".join(lines)}
        out.append(effect)
    return out


#: ``watcher(change, approval)``: told of every change of an approval, on the loop.
Watcher = Callable[[str, "Approval"], None]


class ApprovalDesk:
    """Pending and recently decided approvals; the analyst decides them here.

    ``on_change()`` is called (on the loop) whenever the set of pending approvals or a
    decision changes; ``audit(event)`` receives one dict per decision; each ``watch``-er is
    told what changed (``Approval.change``) and of which approval.
    """

    def __init__(self, *, on_change: Callable[[], None] | None = None,
                 audit: Callable[[dict[str, Any]], None] | None = None,
                 max_pending: int = DEFAULT_MAX_PENDING) -> None:
        if max_pending < 1:
            raise ValueError("max_pending must be at least 1")
        self.on_change = on_change
        self.audit = audit
        self.max_pending = max_pending
        self._pending: dict[str, Approval] = {}
        self._recent: deque[Approval] = deque(maxlen=RECENT)
        self._watchers: list[Watcher] = []

    def watch(self, watcher: Watcher) -> Callable[[], None]:
        """Tell ``watcher`` of every change from now on; returns the function that stops."""
        self._watchers.append(watcher)
        return lambda: self._watchers.remove(watcher) if watcher in self._watchers else None

    def attach(self, layer: CloudGMCPLayer) -> None:
        if self.on_change is None:
            self.on_change = lambda: layer.notify_change(ChangeKind.RESOURCE, APPROVALS_URI)

    # -- reading ----------------------------------------------------------------------------

    def get(self, approval_id: str) -> Approval | None:
        found = self._pending.get(approval_id)
        if found is not None:
            return found
        return next((a for a in self._recent if a.id == approval_id), None)

    def pending(self, principal: str | None = None) -> list[Approval]:
        return [a for a in self._pending.values() if principal in (None, a.principal)]

    def recent(self, principal: str | None = None) -> list[Approval]:
        return [a for a in self._recent if principal in (None, a.principal)]

    # -- the call's side --------------------------------------------------------------------

    def open(self, principal: str, tool: str, view: dict[str, Any], timeout: float
             ) -> Approval:
        """Put a call on the desk: ``view`` holds ``summary``, ``effects`` and
        ``arguments``. RateLimitedError when ``principal`` has ``max_pending`` waiting;
        EffectNotShowable when the view is too large to show in full."""
        waiting = sum(1 for a in self._pending.values() if a.principal == principal)
        if waiting >= self.max_pending:
            raise RateLimitedError(
                f"{waiting} of your calls already wait for the analyst's approval (at most "
                f"{self.max_pending} may), so this one was refused without asking. Wait until "
                f"the analyst decides them ({APPROVALS_URI} lists yours), then call again.",
                data={"reason": "approvals-pending", "pending": waiting,
                      "max_pending": self.max_pending, "retry_after": 10.0})
        shown = _shown(view)
        effect = {k: v for k, v in shown.items() if k != "arguments"}
        if "effects" in effect:
            effect["effects"] = _with_text(effect["effects"])
        approval = Approval(id=secrets.token_hex(9), principal=principal, tool=tool,
                            arguments=shown.get("arguments", {}), timeout=timeout,
                            effect=effect)
        self._pending[approval.id] = approval
        self._changed(approval)
        return approval

    async def wait(self, approval: Approval) -> str:
        """The decision (approved, denied, expired or cancelled)."""
        try:
            await asyncio.wait_for(approval._decided.wait(), approval.timeout)
        except TimeoutError:
            self._close(approval, EXPIRED, None, f"no decision within {approval.timeout:g} s")
        except asyncio.CancelledError:
            self._close(approval, CANCELLED, None, "the call was cancelled")
            raise
        return approval.state

    # -- the analyst's side -----------------------------------------------------------------

    def decide(self, approval_id: str, approve: bool, by: str, reason: str | None = None,
               ) -> Approval:
        """Approve or deny a pending call. Unknown or already decided: NotFoundError."""
        approval = self._pending.get(approval_id)
        if approval is None:
            done = self.get(approval_id)
            if done is not None:
                raise NotFoundError(
                    f"That call is no longer waiting: it was {done.state}"
                    + (f" by {done.decided_by}" if done.decided_by else "") + ".",
                    data={"kind": "approval", "state": done.state})
            raise NotFoundError("No call waits for approval under that id; %cloudg approvals "
                                "lists the waiting ones.", data={"kind": "approval"})
        self._close(approval, APPROVED if approve else DENIED, by,
                    (reason or "")[:300] or None)
        return approval

    def cancel_for(self, principal: str, reason: str) -> int:
        """Deny every pending call of ``principal`` (its credential was revoked)."""
        mine = [a for a in self._pending.values() if a.principal == principal]
        for approval in mine:
            self._close(approval, DENIED, None, reason)
        return len(mine)

    def _close(self, approval: Approval, state: str, by: str | None, reason: str | None,
               ) -> None:
        if approval.state != PENDING:
            return
        approval.state, approval.decided_by, approval.reason = state, by, reason
        approval.decided_at = time.time()
        self._pending.pop(approval.id, None)
        self._recent.append(approval)
        approval._decided.set()
        if self.audit is not None:
            try:
                self.audit({"event": "approval.decision", "approval": approval.id,
                            "principal": approval.principal, "tool": approval.tool,
                            "decision": state, "decided_by": by, "reason": reason,
                            "waited_s": approval.waited})
            except Exception:
                logger.debug("auditing an approval decision failed", exc_info=True)
        self._changed(approval)

    def _changed(self, approval: Approval) -> None:
        if self.on_change is not None:
            try:
                self.on_change()
            except Exception:
                logger.debug("approval change listener failed", exc_info=True)
        change = approval.change
        for watcher in list(self._watchers):
            try:
                watcher(change, approval)
            except Exception:
                logger.warning("an approval watcher failed", exc_info=True)


#: ``url_for(approval, principal) -> str | None``: the approval page for one request.
UrlFor = Callable[["Approval", "Principal"], "str | None"]


class ApprovalGate:
    """Run a governed caller's requests as that caller, and hold its calls that change
    another principal's data, or that its rule names, until the analyst decides them.

    ``rule_for(principal)`` gives the caller's ``ApprovalRule`` (None: the caller is not
    governed — the analyst); ``timeout`` is the wait when the rule sets none; ``url_for``
    names the approval page sent in progress messages and URL-mode elicitations.
    """

    def __init__(self, desk: ApprovalDesk, rule_for: Callable[[Principal], ApprovalRule | None],
                 *, timeout: float = DEFAULT_TIMEOUT, url_for: UrlFor | None = None) -> None:
        self.desk = desk
        self.rule_for = rule_for
        self.timeout = timeout
        self.url_for = url_for

    def attach(self, layer: CloudGMCPLayer) -> None:
        self.desk.attach(layer)

    async def __call__(self, info: CallInfo, call_next: Handler) -> Any:
        rule = self.rule_for(info.principal)
        if rule is None:  # the analyst's side: nothing governed
            return await call_next(info)
        who = info.principal.id
        if info.kind != "tool":
            with acting(who):
                return await call_next(info)
        access = info.plan.access if info.plan is not None else None
        if getattr(access, "deny", None) is not None:
            with acting(who):  # the policy refuses it anyway: nothing for the analyst
                return await call_next(info)
        named = rule.applies(info.spec.name, info.spec.capabilities)
        if not named and not plans_effects(info.spec.name):  # reads: no thread hop, no plan
            with acting(who):
                return await call_next(info)
        plan = await self._effects(info)
        if not named and (plan is None or not plan.others):
            with acting(who):
                return await call_next(info)
        approval = await self._open(info, plan, rule)
        decision = await self._decision(info, approval)
        if decision == APPROVED:
            with acting(who, plan.permitted() if plan is not None else frozenset()):
                return await call_next(info)
        raise AccessDeniedError(_refusal(approval), data={
            "approval": approval.id, "decision": decision, "tool": info.name,
            **({"reason": approval.reason} if approval.reason else {})})

    async def _effects(self, info: CallInfo) -> EffectPlan | None:
        """The call's effects on the workspace as it is now (arguments are validated on the
        way; large ones in a worker thread, so they never hold the loop). None when the
        arguments fail (the call then fails the same way in the layer) or the layer has no
        workspace."""
        layer = info.context.layer
        workspace = getattr(layer, "workspace", None)
        if layer is None or workspace is None or info.plan is None:
            return None
        plan, spec, who = info.plan, info.spec, info.principal.id
        model = getattr(spec, "arguments_model", None)

        def work() -> EffectPlan | None:
            try:
                arguments, _ = plan.transform(dict(info.arguments or {}), "input")
                kwargs = validate_arguments(model, arguments) if model is not None \
                    else dict(arguments)
            except MCPLayerError:
                return None
            with acting(who):
                return plan_call(workspace, spec.name, kwargs, who)

        return cast("EffectPlan | None", await argument_work(info, work))

    async def _open(self, info: CallInfo, plan: EffectPlan | None, rule: ApprovalRule
                    ) -> Approval:
        """Put the call on the desk, showing its effects as the caller's policy shows them
        (large arguments are transformed off the loop)."""
        if plan is not None:
            view: dict[str, Any] = plan.view()
        else:
            view = {"summary": f"{info.name}: its arguments could not be read, so the call "
                               "will fail if approved.",
                    "effects": [], "arguments": dict(info.arguments or {})}
        transform = info.plan.transform if info.plan is not None else None
        if transform is not None:
            view, _ = await argument_work(info, transform, view)
        approval = self.desk.open(info.principal.id, info.name, view,
                                  rule.timeout or self.timeout)
        info.approval = approval
        if self.url_for is not None:
            with contextlib.suppress(Exception):
                approval.url = self.url_for(approval, info.principal)
        return approval

    async def _decision(self, info: CallInfo, approval: Approval) -> str:
        await info.context.report_progress(0, None, waiting_message(approval))
        offered: list[bool] = []
        asking = self._elicit(info, approval, offered)
        try:
            decision = await self.desk.wait(approval)
        finally:
            if asking is not None and not asking.done():
                asking.cancel()
        if offered:
            await self._elicitation_done(info, approval)
        return decision

    def _elicit(self, info: CallInfo, approval: Approval, offered: list[bool]
                ) -> asyncio.Task[None] | None:
        """Offer the approval page to a client that declared URL-mode elicitation (``offered``
        gets an entry once the offer is on its way). What the client answers — accept,
        decline or cancel — is only logged: the client (an assistant, or a user who is not
        the analyst) never decides a call; the analyst does, on the server."""
        elicit = info.context.elicit_url
        if elicit is None or not approval.url:
            return None

        async def ask() -> None:
            what = approval.effect.get("summary") or info.name
            offered.append(True)
            try:
                action = await elicit(
                    f"{info.principal.id} wants to run {what} The analyst approves or denies "
                    "it on this page (Jupyter login needed); answering here decides nothing.",
                    approval.url or "", approval.id)
            except Exception:
                logger.debug("URL elicitation failed", exc_info=True)
                return
            logger.info("%s's client answered the approval page offer for %s with %r; only "
                        "the analyst's decision counts", info.principal.id, approval.id,
                        str(action)[:20])

        return asyncio.get_running_loop().create_task(ask(), name="cloudg-approval-elicit")

    @staticmethod
    async def _elicitation_done(info: CallInfo, approval: Approval) -> None:
        """Tell the client the page it was offered is done with (the analyst decided, or the
        wait ended), where its protocol version has ``notifications/elicitation/complete``."""
        done = info.context.elicit_complete
        if done is not None:
            with contextlib.suppress(Exception):
                await done(approval.id)


def waiting_message(approval: Approval) -> str:
    """The progress text of a waiting call: how long it may wait and where the analyst
    decides (the approval page's address last, so a client can pick it out)."""
    where = f", or at {approval.url}" if approval.url else ""
    return (f"waiting for analyst approval (up to {approval.timeout:g} s): the analyst approves "
            "or denies it in JupyterLab (the cloudg sidebar or its notification), in the "
            f"notebook (%cloudg approvals){where}")


def _refusal(approval: Approval) -> str:
    if approval.state == EXPIRED:
        page = f" or at {approval.url}" if approval.url else ""
        return (f"The analyst did not approve {approval.tool} within {approval.timeout:g} s, "
                "so it did not run. Ask the analyst to watch for the approval in JupyterLab's "
                f"cloudg sidebar, the notebook (%cloudg approvals){page}, and call it again.")
    if approval.state == CANCELLED:
        return f"The call of {approval.tool} was cancelled while it waited for approval."
    by = "The analyst" if approval.decided_by else "cloudg"
    why = f" ({approval.reason})" if approval.reason else ""
    return (f"{by} denied this call of {approval.tool}{why}, so it did not run. Do not retry "
            "it unchanged; ask the analyst what to do instead.")
