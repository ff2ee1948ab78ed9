"""ActivityFeed: every call to the shared workspace, live: who (assistant or analyst), what,
outcome, duration, redactions, approval; never a value. It follows ``cloudg://activity`` (and
``cloudg://approvals``, whose changes start and end waits), reads only what is new
(``.../since/N``), re-renders at most 4 times a second, keeps 1000 entries in ``.df`` and shows
the calls waiting for approval (``waiting``) on top of the newest 200, as one HTML table, newest
first. It reads on the client's loop, never the kernel's thread, so a busy kernel does not stop
it. In a kernel it is one widget tree updated by ``.value`` assignments; elsewhere HTML / text.
"""

from __future__ import annotations

import html
from collections import deque
from typing import TYPE_CHECKING, Any

from ..layer.wire import INVALID_PARAMS
from .call_result import ErrorInfo
from .follow import Follower
from .oversight import ACTIVITY_URI, APPROVALS_URI, activity_frame, read_oversight, since_uri

if TYPE_CHECKING:
    import pandas

    from .client_api import ClientAPI

__all__ = ["ActivityFeed", "KEEP", "MIN_INTERVAL", "TABLE_ROWS"]

#: Entries kept (the server's log keeps as many by default).
KEEP = 1000
#: Rows the table shows (the rest are in ``.df``).
TABLE_ROWS = 200
#: Seconds between two re-renders at least (4 a second at most).
MIN_INTERVAL = 0.25
#: Rows the text form (outside Jupyter) prints.
TEXT_ROWS = 20

_TAG = ("border-radius:3px;padding:0 4px;font-size:85%;margin-right:4px;"
        "background:{bg};color:{fg}")
_STYLES = {"assistant": _TAG.format(bg="#ede7f6", fg="#4527a0"),
           "analyst": _TAG.format(bg="#e3f2fd", fg="#0d47a1"),
           "server": _TAG.format(bg="#eeeeee", fg="#424242")}
#: The principal of the server's own calls (datasets it loads at start).
SERVER_PRINCIPAL = "local"
_TABLE_STYLE = ("<style>.cloudg-activity-table th,.cloudg-activity-table td"
                "{padding:1px 8px;text-align:left}</style>")
_OUTCOME = {"ok": "#2e7d32", "error": "#c62828", "denied": "#c62828", "cancelled": "#8a6d00",
            "exception": "#c62828", "timeout": "#8a6d00", "waiting": "#8a6d00"}
HEADERS = ["time", "who", "what", "outcome", "duration", "redacted", "approval"]


def _clock(text: Any) -> str:
    """``21:29:18.403`` of ``2026-12-04T21:29:18Z.403`` (else the text itself)."""
    value = str(text or "")
    if len(value) >= 19 and value[10] == "T":
        millis = value.partition("Z.")[2] or value.partition(".")[2].rstrip("Z")
        return value[11:19] + (f".{millis[:3]}" if millis else "")
    return value


def _duration(ms: Any) -> str:
    if not isinstance(ms, int | float):
        return ""
    if ms >= 1000:
        return f"{ms / 1000:.1f} s"
    return f"{ms:.0f} ms" if ms >= 10 else f"{ms:.1f} ms"


def _what(entry: dict[str, Any]) -> str:
    kind, name = entry.get("kind"), str(entry.get("name") or "")
    return name if kind == "tool" else f"{kind} {name}"


def _outcome(entry: dict[str, Any]) -> str:
    """``error (invalid_arguments / not_found)``: the outcome and the error's README name
    (an entry has no error data to tell those two apart), once when they say the same."""
    outcome, code = str(entry.get("outcome") or ""), entry.get("error_code")
    if code is None or outcome == "ok":
        return outcome
    name = ("invalid_arguments / not_found" if code == INVALID_PARAMS
            else ErrorInfo(code, "").name)
    same = {"denied": "access_denied", "rate_limited": "rate_limited", "cancelled": "cancelled"}
    return outcome if same.get(outcome) == name else f"{outcome} ({name})"


def _who(entry: dict[str, Any]) -> tuple[str, str]:
    """(tag, name): ``assistant`` + the assistant's name, ``analyst`` + the user, or
    ``server`` for the server's own calls."""
    principal = str(entry.get("principal") or "")
    if entry.get("assistant"):
        return "assistant", principal.partition(":")[2] or principal
    return ("server" if principal == SERVER_PRINCIPAL else "analyst"), principal


def row_html(entry: dict[str, Any]) -> str:
    """One entry as a table row (no argument values: the entries hold none)."""
    tag, name = _who(entry)
    who = (f'<span class="cloudg-tag cloudg-{tag}" style="{_STYLES[tag]}">{tag}</span>'
           f'<span title="{html.escape(str(entry.get("principal") or ""))}">'
           f"{html.escape(name)}</span>")
    outcome = str(entry.get("outcome") or "")
    colour = _OUTCOME.get(outcome, "inherit")
    redacted = entry.get("redacted") or 0
    cells = [
        html.escape(_clock(entry.get("time"))), who, f"<code>{html.escape(_what(entry))}</code>",
        f'<span style="color:{colour}">{html.escape(_outcome(entry))}</span>',
        _duration(entry.get("duration_ms")), str(redacted) if redacted else "",
        html.escape(str(entry.get("approval") or "")),
    ]
    row = f"cloudg-{tag}-row" + (" cloudg-waiting-row" if outcome == "waiting" else "")
    return f'<tr class="{row}">' + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"


def row_text(entry: dict[str, Any]) -> str:
    tag, name = _who(entry)
    redacted = entry.get("redacted") or 0
    parts = [_clock(entry.get("time")), f"{tag} {name}", _what(entry), _outcome(entry),
             _duration(entry.get("duration_ms")),
             f"redacted {redacted}" if redacted else "", str(entry.get("approval") or "")]
    return "  ".join(p for p in parts if p)


class ActivityFeed(Follower):
    """The activity feed, following the server. ``df`` (every kept entry, newest last),
    ``latest`` (the newest entry's number), ``entries``, ``waiting`` (the calls waiting for
    approval now, as entries with outcome ``waiting``), ``pause()``, ``resume()``,
    ``refresh()``, ``close()``. Build it with ``client.activity_feed()`` or
    ``%cloudg activity``."""

    uri = ACTIVITY_URI
    remake = "client.activity_feed()"

    def __init__(self, client: ClientAPI, *, keep: int = KEEP, rows: int = TABLE_ROWS,
                 min_interval: float = MIN_INTERVAL, widget: bool | None = None,
                 start: bool = True) -> None:
        self.keep = max(1, keep)
        self.rows = max(1, rows)
        self.entries: deque[dict[str, Any]] = deque(maxlen=self.keep)
        self.waiting: list[dict[str, Any]] = []
        self.latest: int | None = None
        self.scope: str | None = None
        self._added = 0  #: entries added so far (the cached frame says how many it holds)
        self._frame: tuple[int, pandas.DataFrame] | None = None
        self._caption: Any = None
        self._table: Any = None
        super().__init__(client, min_interval=min_interval, widget=widget, start=start)

    # -- reading ---------------------------------------------------------------------------

    async def _subscribe(self) -> None:
        await self._follow([ACTIVITY_URI, APPROVALS_URI])

    async def _read(self) -> None:
        seen = self.latest
        value = await read_oversight(self.client, ACTIVITY_URI if seen is None
                                     else since_uri(seen))
        latest = value.get("latest") if isinstance(value, dict) else None
        if not isinstance(latest, int):
            raise TypeError(f"{ACTIVITY_URI} did not answer with entries")
        if seen is not None and latest < seen:  # the server started over: read it all
            self.entries.clear()
            self.latest = None
            await self._read()
            return
        self._add(value, seen or 0)

    def _reconnected(self) -> None:
        """The server may have restarted (its numbering with it): read the whole feed next."""
        self.latest = None
        self.entries.clear()

    def _add(self, value: dict[str, Any], after: int) -> None:
        new = [e for e in value.get("entries") or () if isinstance(e, dict)
               and isinstance(e.get("seq"), int) and e["seq"] > after]
        self.entries.extend(new)
        self._added += len(new)
        self.latest = int(value["latest"])
        self.scope = str(value.get("scope") or "") or None
        self.waiting = [w for w in value.get("waiting") or () if isinstance(w, dict)]

    @property
    def df(self) -> pandas.DataFrame:
        """Every kept entry, newest last (``client.activity()``'s columns)."""
        added, entries = self._added, list(self.entries)  # a snapshot (the loop adds)
        cached = self._frame
        if cached is None or cached[0] != added:
            cached = self._frame = (added, activity_frame(entries))
        return cached[1]

    # -- showing ---------------------------------------------------------------------------

    def caption(self) -> str:
        """``activity · 1000 calls (412 by assistants) · latest #1234 at 21:29:18``."""
        entries = list(self.entries)  # a snapshot: the loop adds while others read
        parts = [self.state()] if self.state() else []
        by_assistants = sum(1 for e in entries if e.get("assistant"))
        what = f"activity · {len(entries)} calls ({by_assistants} by assistants)"
        if self.scope == "own":
            what += " · your own calls only"
        if self.waiting:
            what += f" · {len(self.waiting)} waiting for approval"
        parts.append(what)
        if entries:
            parts.append(f"latest #{self.latest} at {_clock(entries[-1].get('time'))}")
        return " · ".join(parts)

    def table_html(self) -> str:
        """The newest ``rows`` entries as one HTML table, newest first, and a note of the
        rest (in ``.df``)."""
        entries, waiting = list(self.entries), list(self.waiting)
        newest = entries[-self.rows:]
        head = "".join(f"<th>{h}</th>" for h in HEADERS)
        body = "".join(row_html(e) for e in [*reversed(waiting), *reversed(newest)])
        out = (f'{_TABLE_STYLE}<table class="cloudg-activity-table"><thead><tr>{head}</tr></thead>'
               f"<tbody>{body}</tbody></table>")
        if not newest and not waiting:
            out += "<div class='cloudg-note'>no calls yet</div>"
        more = len(entries) - len(newest)
        if more > 0:
            out += (f"<div class='cloudg-note'>{more} more in <code>.df</code> (showing the "
                    f"newest {len(newest)} of {len(entries)})</div>")
        return out

    def text(self) -> str:
        entries = list(self.entries)
        newest = entries[-TEXT_ROWS:]
        lines = [self.caption(), *(row_text(e) for e in reversed(self.waiting)),
                 *(row_text(e) for e in reversed(newest))]
        more = len(entries) - len(newest)
        if more > 0:
            lines.append(f"... {more} more in .df")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<ActivityFeed {self.caption()}>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        if self.widget is not None:
            bundle = self.widget._repr_mimebundle_()
            bundle = bundle[0] if isinstance(bundle, tuple) else bundle
            return {**bundle, "text/plain": self.text()}
        caption = f"<div class='cloudg-caption'><small>{html.escape(self.caption())}</small></div>"
        return {"text/html": caption + self.table_html(), "text/plain": self.text()}

    # -- widgets (made on the constructing thread, changed by .value on the loop) -----------

    def _make_widgets(self) -> None:
        import ipywidgets as widgets

        self._caption = widgets.HTML(value="")
        self._table = widgets.HTML(value="")
        self.widget = widgets.VBox([self._caption, self._table])
        self.widget.add_class("cloudg-activity")

    def _render_caption(self) -> None:
        if self._caption is not None:
            self._caption.value = f"<small>{html.escape(self.caption())}</small>"

    def _render(self) -> None:
        if self._table is not None:
            self._table.value = self.table_html()
        self._render_caption()
