"""ApprovalPanel: assistants' waiting calls (who, tool, redacted arguments, time left) with
Approve / Deny buttons that send ``decide_approval`` on the client loop, never blocking the
kernel. Threading: ipywidgets takes no locks, so every widget (a fixed pool of ``slots`` rows)
is made up front on the constructing thread, then changed only on the loop by trait assignment;
clicks (on the kernel's thread) only hand the decision over. Elsewhere it renders HTML / text.
"""

from __future__ import annotations

import html
import json
import time
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from ..effect_text import effect_lines
from .follow import Follower
from .oversight import APPROVALS_URI, decide, read_oversight

if TYPE_CHECKING:
    import asyncio

    from .client_api import ClientAPI
    from .result import Result

__all__ = ["ApprovalPanel", "RECENT_SHOWN", "SLOTS"]

#: Waiting calls shown with buttons at once (more are listed with their ids).
SLOTS = 8
#: Decided calls the "recent" list shows.
RECENT_SHOWN = 5
#: Seconds between updates of the time left.
TICK = 1.0
_ROW_STYLE = ("border-left:3px solid #f9a825;padding:2px 8px;margin:2px 0;"
              "background:rgba(249,168,37,.06)")


def _left(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds} s left" if seconds < 120 else f"{seconds // 60} min {seconds % 60} s left"


def _arguments(value: Any) -> str:
    """Every argument (the server summarised long values; nothing is cut here)."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _effects(approval: dict[str, Any]) -> str:
    """What the call will do: the server's sentence, then a line per effect."""
    lines = [str(approval["summary"])] if approval.get("summary") else []
    lines.extend(effect_lines(approval.get("effects")))
    return "\n".join(lines)


def pending_html(approval: dict[str, Any], left: float, note: str = "") -> str:
    """One waiting call: who, tool, time left, what it will do, every argument (as its
    policy shows them)."""
    aid = html.escape(str(approval.get("id")))
    link = approval.get("url")
    page = (f' · <a href="{html.escape(str(link))}" target="_blank">approval page</a>'
            if link else "")
    extra = f'<div class="cloudg-note"><i>{html.escape(note)}</i></div>' if note else ""
    return (f'<div class="cloudg-approval" data-approval="{aid}" style="{_ROW_STYLE}">'
            f"<b>{html.escape(str(approval.get('principal')))}</b> wants to run "
            f"<code>{html.escape(str(approval.get('tool')))}</code> · "
            f'<span class="cloudg-left">{_left(left)}</span> · <small>id {aid}{page}</small>'
            f'<pre class="cloudg-effects" style="margin:2px 0;font-size:85%;'
            f'white-space:pre-wrap">{html.escape(_effects(approval))}</pre>'
            f'<details><summary style="font-size:85%">every argument</summary>'
            f'<pre class="cloudg-arguments" style="margin:2px 0;font-size:85%">'
            f"{html.escape(_arguments(approval.get('arguments')))}</pre></details>"
            f"{extra}</div>")


def decided_text(approval: dict[str, Any]) -> str:
    """``approved · suppress_findings · assistant:bot · by alice (reason)``."""
    parts = [str(approval.get("state")), str(approval.get("tool")),
             str(approval.get("principal"))]
    if approval.get("decided_by"):
        parts.append(f"by {approval['decided_by']}")
    text = " · ".join(parts)
    return text + (f" ({approval['reason']})" if approval.get("reason") else "")


@dataclass
class _Row:
    box: Any
    info: Any
    reason: Any
    approve: Any
    deny: Any


class ApprovalPanel(Follower):
    """Calls waiting for approval, following the server. ``pending`` and ``recent`` (the
    resource's dicts), ``decisions`` (the Result of each click, by approval id),
    ``approve_button(id)`` / ``deny_button(id)`` (the buttons shown for a call),
    ``refresh()``, ``close()``. Build it with ``client.approval_panel()`` or
    ``%cloudg approvals``."""

    uri = APPROVALS_URI
    remake = "client.approval_panel()"

    def __init__(self, client: ClientAPI, *, slots: int = SLOTS, min_interval: float = 0.1,
                 widget: bool | None = None, start: bool = True) -> None:
        self.slots = max(1, slots)
        self.pending: list[dict[str, Any]] = []
        self.recent: list[dict[str, Any]] = []
        self.decisions: dict[str, Result] = {}
        self._deadlines: dict[str, float] = {}
        self._notes: dict[str, str] = {}
        self._deciding: set[str] = set()
        self._slot_ids: list[str | None] = [None] * self.slots
        self._rows: list[_Row] = []
        self._header: Any = None
        self._overflow: Any = None
        self._recent: Any = None
        self._tick: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        super().__init__(client, min_interval=min_interval, widget=widget, start=start)

    # -- reading ---------------------------------------------------------------------------

    async def _read(self) -> None:
        value = await read_oversight(self.client, APPROVALS_URI)
        if not isinstance(value, dict):
            raise TypeError(f"{APPROVALS_URI} did not answer with approvals")
        now = time.monotonic()
        self.pending = [a for a in value.get("pending") or () if isinstance(a, dict)]
        self.recent = [a for a in value.get("recent") or () if isinstance(a, dict)]
        ids = {str(a.get("id")) for a in self.pending}
        for approval in self.pending:
            left = approval.get("expires_in")
            self._deadlines[str(approval.get("id"))] = now + (
                float(left) if isinstance(left, int | float) else 0.0)
        self._deadlines = {k: v for k, v in self._deadlines.items() if k in ids}
        self._notes = {k: v for k, v in self._notes.items() if k in ids}
        self._place()
        self._schedule_tick()

    def _place(self) -> None:
        """A waiting call keeps its slot; new ones take free slots in order."""
        ids = [str(a.get("id")) for a in self.pending]
        kept = [i if i in ids else None for i in self._slot_ids]
        placed = {i for i in kept if i is not None}
        for aid in ids:
            if aid in placed:
                continue
            if None not in kept:
                break
            kept[kept.index(None)] = aid
            placed.add(aid)
        self._slot_ids = kept

    def _by_id(self) -> dict[str, dict[str, Any]]:
        return {str(a.get("id")): a for a in self.pending}

    def _time_left(self, approval_id: str) -> float:
        return self._deadlines.get(approval_id, 0.0) - time.monotonic()

    # -- deciding --------------------------------------------------------------------------

    def approve_button(self, approval_id: str) -> Any:
        """The Approve button shown for ``approval_id`` (None: not shown, or no widgets)."""
        row = self._row_of(approval_id)
        return row.approve if row is not None else None

    def deny_button(self, approval_id: str) -> Any:
        """The Deny button shown for ``approval_id`` (None: not shown, or no widgets)."""
        row = self._row_of(approval_id)
        return row.deny if row is not None else None

    def reason_box(self, approval_id: str) -> Any:
        """The reason text box shown for ``approval_id`` (told to the assistant)."""
        row = self._row_of(approval_id)
        return row.reason if row is not None else None

    def _row_of(self, approval_id: str) -> _Row | None:
        if not self._rows or approval_id not in self._slot_ids:
            return None
        return self._rows[self._slot_ids.index(approval_id)]

    def _clicked(self, slot: int, decision: str, button: Any) -> None:
        """A button's click (on the kernel's thread): hand the decision to the loop."""
        approval_id = self._slot_ids[slot]
        if approval_id is None or self._closed:
            return
        row = self._rows[slot]
        reason = str(row.reason.value or "").strip() or None
        row.reason.value = ""  # the kernel's thread is the one that syncs this box
        self._loop.call_soon(self._start_decision, approval_id, decision, reason)

    def _start_decision(self, approval_id: str, decision: str, reason: str | None) -> None:
        if approval_id in self._deciding or self._closed:
            return
        self._deciding.add(approval_id)
        self._notes[approval_id] = ("approving …" if decision == "approve" else "denying …")
        self._render()
        task = self._loop.loop.create_task(self._decide(approval_id, decision, reason))
        self._tasks.add(task)  # the loop keeps only weak references to tasks
        task.add_done_callback(self._tasks.discard)

    async def _decide(self, approval_id: str, decision: str, reason: str | None) -> None:
        try:
            result = await decide(self.client, approval_id, decision, reason)
        finally:
            self._deciding.discard(approval_id)
        self.decisions[approval_id] = result
        if result.is_error:
            message = result.error.message if result.error is not None else result.text
            self._notes[approval_id] = f"could not {decision}: {message}"
        else:
            self._notes.pop(approval_id, None)
        self._render()
        self._changed(self.uri)  # the notice will come too; do not wait for it

    # -- showing ---------------------------------------------------------------------------

    def caption(self) -> str:
        n = len(self.pending)
        what = (f"{n} assistant call{'s' if n != 1 else ''} waiting for your approval"
                if n else "no assistant call is waiting for approval")
        return " · ".join(p for p in (self.state(), what) if p)

    def recent_html(self) -> str:
        shown = list(reversed(self.recent))[:RECENT_SHOWN]
        if not shown:
            return ""
        items = "".join(f"<li>{html.escape(decided_text(a))}</li>" for a in shown)
        return f'<div class="cloudg-recent"><small>recent:</small><ul>{items}</ul></div>'

    def _overflow_html(self) -> str:
        extra = [a for a in self.pending if str(a.get("id")) not in self._slot_ids]
        if not extra:
            return ""
        items = "".join(
            f"<li><code>{html.escape(str(a.get('id')))}</code> {html.escape(str(a.get('tool')))}"
            f" · {html.escape(str(a.get('principal')))}</li>" for a in extra)
        return (f"<div class='cloudg-note'>{len(extra)} more waiting (decide them with "
                f"<code>%cloudg approve ID</code> / <code>%cloudg deny ID</code>):"
                f"<ul>{items}</ul></div>")

    def html(self) -> str:
        """The panel as static HTML (outside a kernel): waiting calls, how to decide them."""
        rows = "".join(pending_html(a, self._time_left(str(a.get("id"))),
                                    self._notes.get(str(a.get("id")), ""))
                       for a in self.pending)
        hint = ("<div class='cloudg-note'>decide with <code>client.approve(ID)</code> / "
                "<code>client.deny(ID, reason)</code> or <code>%cloudg approve ID</code></div>"
                if self.pending else "")
        return (f'<div class="cloudg-approvals"><b>{html.escape(self.caption())}</b>'
                f"{rows}{hint}{self.recent_html()}</div>")

    def text(self) -> str:
        lines = [self.caption()]
        for approval in self.pending:
            aid = str(approval.get("id"))
            lines.append(f"  {aid}  {approval.get('principal')} wants {approval.get('tool')} "
                         f"({_left(self._time_left(aid))})")
            lines.extend(f"    {line}" for line in _effects(approval).splitlines())
            lines.append(f"    arguments: {json.dumps(approval.get('arguments'), default=str)}")
        if self.pending:
            lines.append("  decide: client.approve(ID) / client.deny(ID, reason) or "
                         "%cloudg approve ID")
        lines.extend(f"  recent: {decided_text(a)}"
                     for a in list(reversed(self.recent))[:RECENT_SHOWN])
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<ApprovalPanel {self.caption()}>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        if self.widget is not None:
            bundle = self.widget._repr_mimebundle_()
            bundle = bundle[0] if isinstance(bundle, tuple) else bundle
            return {**bundle, "text/plain": self.text()}
        return {"text/html": self.html(), "text/plain": self.text()}

    # -- widgets: the pool, made on the constructing thread ---------------------------------

    def _make_widgets(self) -> None:
        """Why a pool: ipywidgets and traitlets keep their registry, ``hold_sync`` state and
        property locks without locks, and the kernel's thread handles comm messages (clicks,
        typed reasons) meanwhile; making widgets on the loop would race with that, and a
        widget per call would pile up models in the frontend. The comm sends themselves are
        thread-safe (ipykernel queues iopub messages to its IO thread). A call keeps its row
        while it waits, so rows never shift under the pointer."""
        import ipywidgets as widgets

        self._header = widgets.HTML(value="")
        self._overflow = widgets.HTML(value="")
        self._recent = widgets.HTML(value="")
        for slot in range(self.slots):
            info = widgets.HTML(value="", layout=widgets.Layout(flex="1 1 auto"))
            reason = widgets.Text(value="", placeholder="reason (told to the assistant)",
                                  layout=widgets.Layout(width="16em"))
            approve = widgets.Button(description="Approve", button_style="success",
                                     icon="check")
            approve.add_class("cloudg-approve")
            deny = widgets.Button(description="Deny", button_style="danger", icon="times")
            deny.add_class("cloudg-deny")
            approve.on_click(partial(self._clicked, slot, "approve"))
            deny.on_click(partial(self._clicked, slot, "deny"))
            box = widgets.HBox([info, widgets.VBox([approve, deny, reason])],
                               layout=widgets.Layout(display="none", align_items="flex-start"))
            box.add_class("cloudg-approval-row")
            self._rows.append(_Row(box, info, reason, approve, deny))
        rows = widgets.VBox([row.box for row in self._rows])
        self.widget = widgets.VBox([self._header, rows, self._overflow, self._recent])
        self.widget.add_class("cloudg-approvals")

    # -- on the client loop: trait assignments only -----------------------------------------

    def _render(self) -> None:
        if self._header is None:
            return
        self._header.value = f"<b>{html.escape(self.caption())}</b>"
        self._render_rows()
        self._overflow.value = self._overflow_html()
        self._recent.value = self.recent_html()

    def _render_rows(self) -> None:
        by_id = self._by_id()
        for slot, row in enumerate(self._rows):
            aid = self._slot_ids[slot]
            approval = by_id.get(aid) if aid is not None else None
            if approval is None or aid is None:
                row.box.layout.display = "none"
                row.approve.disabled = row.deny.disabled = True
                continue
            row.info.value = pending_html(approval, self._time_left(aid),
                                          self._notes.get(aid, ""))
            tool, who = approval.get("tool"), approval.get("principal")
            row.approve.tooltip = f"Approve {tool} for {who} ({aid})"
            row.deny.tooltip = f"Deny {tool} for {who} ({aid})"
            row.approve.disabled = row.deny.disabled = self._closed or aid in self._deciding
            row.box.layout.display = "flex"

    def _schedule_tick(self) -> None:
        """Count the time left down once a second while calls wait (rows only)."""
        if self._tick is not None or self._closed or not self.pending or not self._rows:
            return

        def tick() -> None:
            self._tick = None
            if self._closed:
                return
            self._render_rows()
            self._schedule_tick()

        self._tick = self._loop.loop.call_later(TICK, tick)

    async def _stop(self) -> None:
        if self._tick is not None:
            self._tick.cancel()
            self._tick = None
        await super()._stop()
