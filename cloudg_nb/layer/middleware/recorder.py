"""CallRecorder: one ``CallRecord`` per request, handed to every sink (audit, metrics, ...).

Put it first in the chain (``middleware[0]``), so its record has the final outcome and a
duration that includes any wait in later middleware. Sinks get the record in order; one that
raises is logged once (later failures at DEBUG) and the others, and the call, go on. A sink
that ``grows_with_arguments`` (the audit log's hashes) gets a large request's record in a
worker thread (``argument_work``; a cancelled request's without waiting for it).
``RecordingMiddleware`` is a sink that, added to a layer on its own, records itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any, ClassVar

from ..call_record import CallRecord, CallSink
from ..calls import CallInfo, Handler, argument_work

if TYPE_CHECKING:
    from ..layer import CloudGMCPLayer

__all__ = ["CallRecorder", "RecordingMiddleware"]

logger = logging.getLogger("cloudg.mcp")


class CallRecorder:
    """Middleware recording every request once, to each of ``sinks`` in order.

    A sink with ``attach(layer)`` is attached with the recorder (``layer.use``).
    """

    def __init__(self, *sinks: CallSink) -> None:
        self.sinks: tuple[CallSink, ...] = sinks
        #: Per sink: whether it gets a large request's record in a worker thread.
        self._heavy = tuple(bool(getattr(s, "grows_with_arguments", False)) for s in sinks)
        self._any_heavy = any(self._heavy)
        self._failing: set[int] = set()

    def attach(self, layer: CloudGMCPLayer) -> None:
        for sink in self.sinks:
            attach = getattr(sink, "attach", None)
            if sink is not self and callable(attach):
                attach(layer)

    async def __call__(self, info: CallInfo, call_next: Handler) -> Any:
        try:
            result = await call_next(info)
        except Exception as exc:
            if info.large and self._any_heavy:
                await self._deliver_large(info, None, exc)
            else:
                self._deliver(info, None, exc)
            raise
        except BaseException as exc:  # cancelled: recorded without awaiting anything
            self._deliver(info, None, exc, wait=False)
            raise
        if info.large and self._any_heavy:
            await self._deliver_large(info, result, None)
        else:
            self._deliver(info, result, None)
        return result

    def _record_of(self, info: CallInfo, result: Any, error: BaseException | None
                   ) -> CallRecord | None:
        try:
            return CallRecord.of(info, result, error)
        except Exception:  # a record must never change the call's result
            self._failed(self, "building the call record")
            return None

    def _deliver(self, info: CallInfo, result: Any, error: BaseException | None, *,
                 wait: bool = True) -> None:
        """Hand the record to every sink now (a heavy sink's large record goes to the loop's
        executor, not awaited, when ``wait`` is False)."""
        call = self._record_of(info, result, error)
        if call is None:
            return
        for sink, heavy in zip(self.sinks, self._heavy, strict=True):
            if heavy and call.large and not wait:
                with contextlib.suppress(RuntimeError):  # the loop's executor has shut down
                    asyncio.get_running_loop().run_in_executor(None, self._record, sink, call)
            else:
                self._record(sink, call)

    async def _deliver_large(self, info: CallInfo, result: Any,
                             error: BaseException | None) -> None:
        """Hand a large request's record to every sink, the heavy ones in a worker thread."""
        call = self._record_of(info, result, error)
        if call is None:
            return
        for sink, heavy in zip(self.sinks, self._heavy, strict=True):
            if not heavy:
                self._record(sink, call)
                continue
            try:
                await argument_work(info, self._record, sink, call)
            except Exception:  # no worker to run it (the layer is shutting down)
                self._failed(sink, "handing over the record")

    def _record(self, sink: CallSink, call: CallRecord) -> None:
        try:
            sink.record(call)
        except Exception:
            self._failed(sink, "recording")

    def _failed(self, sink: object, doing: str) -> None:
        """Log a sink's failure: the first with its traceback, later ones at DEBUG."""
        if id(sink) in self._failing:
            logger.debug("call recorder: %s failed in %r", doing, sink, exc_info=True)
            return
        self._failing.add(id(sink))
        logger.warning("call recorder: %s failed in %r (calls go on; later failures are "
                       "logged at DEBUG)", doing, sink, exc_info=True)


class RecordingMiddleware(CallRecorder):
    """A ``CallSink`` that is also a middleware: added to a layer on its own, it records each
    request at its place in the chain (a ``CallRecorder`` of itself). Subclasses define
    ``record(call)`` and call ``super().__init__()``."""

    #: Whether ``record`` does work that grows with the arguments (a large request's record
    #: is then handed to it in a worker thread).
    grows_with_arguments: ClassVar[bool] = False

    def __init__(self) -> None:
        super().__init__(self)

    def record(self, call: CallRecord) -> None:
        raise NotImplementedError
