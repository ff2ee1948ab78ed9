"""CallLogMiddleware: one line in the Jupyter server's log for each call that did not end
normally because it was cancelled or timed out (the audit log holds every call; the server
log is where an operator looks first). Names the tool and the caller, never arguments."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from cloudg_nb.layer.middleware.outcome import outcome_of

if TYPE_CHECKING:
    from cloudg_nb.layer.calls import CallInfo, Handler

__all__ = ["CallLogMiddleware"]


class CallLogMiddleware:
    """Layer middleware writing cancelled / timed-out calls to ``log`` at INFO."""

    def __init__(self, log: logging.Logger | logging.LoggerAdapter[Any]) -> None:
        self.log = log

    async def __call__(self, info: CallInfo, call_next: Handler) -> Any:
        try:
            result = await call_next(info)
        except BaseException as exc:
            self._note(info, None, exc)
            raise
        self._note(info, result, None)
        return result

    def _note(self, info: CallInfo, result: Any, error: BaseException | None) -> None:
        try:
            reason = getattr(info.context, "cancel_reason", None)
            if reason is None and outcome_of(info, result, error) != "cancelled":
                return
            self.log.info("cloudg: %s %s by %s ended early (%s) after %.1f s", info.kind,
                          info.name, info.principal.id, reason or "cancelled",
                          time.monotonic() - info.started)
        except Exception:  # a log line must never change the call's result
            logging.getLogger("cloudg.jupyter").debug("call log failed", exc_info=True)
