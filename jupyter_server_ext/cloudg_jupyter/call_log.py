"""CallLogMiddleware: one line in the Jupyter server's log for each call that did not end
normally because it was cancelled or timed out (the audit log holds every call; the server
log is where an operator looks first). Names the tool and the caller, never arguments.
A ``CallSink`` of the extension's ``CallRecorder`` (or a middleware on its own)."""

from __future__ import annotations

import logging
from typing import Any

from cloudg_nb.layer.call_record import CallRecord
from cloudg_nb.layer.enums import Outcome
from cloudg_nb.layer.middleware.recorder import RecordingMiddleware

__all__ = ["CallLogMiddleware"]


class CallLogMiddleware(RecordingMiddleware):
    """Writes cancelled / timed-out calls to ``log`` at INFO."""

    def __init__(self, log: logging.Logger | logging.LoggerAdapter[Any]) -> None:
        super().__init__()
        self.log = log

    def record(self, call: CallRecord) -> None:
        reason = call.cancel_reason
        if reason is None and call.outcome != Outcome.CANCELLED:
            return
        self.log.info("cloudg: %s %s by %s ended early (%s) after %.1f s", call.kind,
                      call.name, call.principal.id, reason or "cancelled",
                      call.duration_ms / 1000)
