"""ActivityLog: what every caller did, live — one entry per finished request, never a value.

``ActivityMiddleware`` (a ``CallRecorder``'s sink) records each tool call, resource read and
prompt: when, who, what, outcome, duration, how many values the policy redacted, and the
analyst's approval decision when one was needed. Entries hold names and counts only, never
arguments or results. The log keeps the last ``size`` entries and tells the layer that
``cloudg://activity`` changed at most ``1 / min_interval`` times a second, however busy.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..layer.call_record import CallRecord
from ..layer.enums import ChangeKind, Outcome, RequestKind
from ..layer.middleware.recorder import RecordingMiddleware
from ..layer.wire import ACTIVITY_URI, APPROVALS_URI

if TYPE_CHECKING:
    from ..layer.layer import CloudGMCPLayer

__all__ = ["ACTIVITY_URI", "ActivityEntry", "ActivityLog", "ActivityMiddleware",
           "redaction_count"]

#: Resources whose reads are not recorded (reading the feed must not feed the feed).
QUIET_URIS = frozenset({ACTIVITY_URI, APPROVALS_URI})
#: So are reads of the feed's templates (``cloudg://activity/since/{seq}``).
QUIET_PREFIX = ACTIVITY_URI + "/"
#: Report keys of the privacy transforms that replaced a value (``transforms.strategies``).
REPLACING_KEYS = ("redacted", "masked", "hashed", "pseudonymized", "generalized", "dropped")


def redaction_count(report: Any) -> int:
    """How many values a transforms report (``_meta["cloudg/transforms"]``) says were
    replaced: redacted, masked, hashed, pseudonymised, generalised or dropped."""
    if not isinstance(report, dict):
        return 0
    total = 0
    for key in REPLACING_KEYS:
        counts = report.get(key)
        if isinstance(counts, dict):
            total += sum(v for v in counts.values() if isinstance(v, int))
        elif isinstance(counts, int):
            total += counts
    return total


@dataclass(frozen=True, slots=True)
class ActivityEntry:
    """One finished request."""

    seq: int
    at: float  #: epoch seconds when it finished
    principal: str
    assistant: bool
    kind: str
    name: str
    outcome: str
    duration_ms: float
    redacted: int
    approval: str | None = None  #: approved | denied | timed out | cancelled (None: not asked)
    error_code: str | int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.at))
            + f".{int(self.at * 1000) % 1000:03d}",
            "principal": self.principal, "assistant": self.assistant, "kind": self.kind,
            "name": self.name, "outcome": self.outcome, "duration_ms": self.duration_ms,
            "redacted": self.redacted, "approval": self.approval,
            "error_code": self.error_code,
        }


class ActivityLog:
    """The last ``size`` entries, numbered; change notices throttled to ``min_interval``."""

    def __init__(self, size: int = 1000, *, min_interval: float = 0.25,
                 notify: Callable[[], None] | None = None) -> None:
        if size < 1:
            raise ValueError("The activity log needs room for at least one entry")
        self.size = size
        self.min_interval = min_interval
        self.notify = notify
        self._entries: deque[ActivityEntry] = deque(maxlen=size)
        self._seq = 0
        self._last_notice = 0.0
        self._pending: asyncio.TimerHandle | None = None
        #: How many change notices were sent (the throttle's effect is measurable).
        self.notices = 0

    def attach(self, layer: CloudGMCPLayer) -> None:
        """Send change notices as ``resource`` events for ``cloudg://activity``."""
        self.notify = lambda: layer.notify_change(ChangeKind.RESOURCE, ACTIVITY_URI)

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def latest(self) -> int:
        """The number of the newest entry (0 before the first)."""
        return self._seq

    def add(self, **fields: Any) -> ActivityEntry:
        self._seq += 1
        entry = ActivityEntry(seq=self._seq, at=time.time(), **fields)
        self._entries.append(entry)
        self._changed()
        return entry

    def entries(self, *, since: int = 0, principal: str | None = None,
                limit: int | None = None) -> list[ActivityEntry]:
        """Entries after number ``since`` (oldest first), of one principal when given; the
        newest ``limit`` of them."""
        found: Iterable[ActivityEntry] = (e for e in self._entries if e.seq > since)
        if principal is not None:
            found = (e for e in found if e.principal == principal)
        out = list(found)
        return out[-limit:] if limit is not None and limit >= 0 else out

    # -- throttled notices ------------------------------------------------------------------

    def _changed(self) -> None:
        if self.notify is None or self._pending is not None:
            return
        wait = self._last_notice + self.min_interval - time.monotonic()
        if wait <= 0:
            self._send()
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a sync caller): tell at once
            self._send()
            return
        self._pending = loop.call_later(wait, self._send)

    def _send(self) -> None:
        self._pending = None
        self._last_notice = time.monotonic()
        self.notices += 1
        if self.notify is not None:
            self.notify()

    def close(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None


class ActivityMiddleware(RecordingMiddleware):
    """Record every finished tool call, resource read and prompt in ``log``.

    ``is_assistant(principal)`` marks entries made by assistants. A ``CallSink`` of the
    ``CallRecorder`` first in the chain, or, on its own, put first in the chain
    (``layer.middleware.insert(0, ...)``), so durations include any wait for approval.
    """

    def __init__(self, log: ActivityLog,
                 is_assistant: Callable[[Any], bool] = lambda principal: False) -> None:
        super().__init__()
        self.log = log
        self.is_assistant = is_assistant

    def attach(self, layer: CloudGMCPLayer) -> None:
        if self.log.notify is None:
            self.log.attach(layer)

    def record(self, call: CallRecord) -> None:
        if call.kind == RequestKind.COMPLETION or (call.kind == RequestKind.RESOURCE and (
                call.name in QUIET_URIS or call.name.startswith(QUIET_PREFIX))):
            return
        outcome = str(call.outcome)
        if call.outcome == Outcome.EXCEPTION and call.layer_error:
            outcome = "error"  # a layer error the caller gets as an error result
        code = call.error_code
        self.log.add(
            principal=call.principal.id,
            assistant=bool(self.is_assistant(call.principal)),
            kind=str(call.kind),
            name=call.name,
            outcome=outcome,
            duration_ms=round(call.duration_ms, 1),
            redacted=redaction_count(call.transforms),
            approval=call.approval,
            error_code=code if isinstance(code, str | int) else None,
        )
