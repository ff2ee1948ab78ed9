"""CallRecorder: one ``CallRecord`` per request, handed to every sink (audit, metrics, ...).

Put it first in the chain (``middleware[0]``), so its record has the final outcome and a
duration that includes any wait in later middleware. Sinks get the record in order; one that
raises is logged once (later failures at DEBUG) and the others, and the call, go on. A sink
that ``grows_with_arguments`` (the audit log's hashes) gets a large request's record in a
worker thread (``argument_work``; a cancelled request's without waiting for it).
``RecordingMiddleware`` is a sink that, added to a layer on its own, records itself; the layer
makes adjacent recorders in its chain one (``fuse_recorders``), so a request is recorded once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from typing import Any, ClassVar

from ..call_record import CallRecord, CallSink
from ..calls import CallInfo, Handler, Middleware, argument_work

__all__ = ["CallRecorder", "RecordingMiddleware", "fuse_recorders"]

logger = logging.getLogger("cloudg.mcp")
_record_of = CallRecord.of


class CallRecorder:
    """Middleware recording every request once, to each of ``sinks`` in order.

    A sink with ``attach(layer)`` is attached with the recorder (``layer.use``).
    """

    def __init__(self, *sinks: CallSink) -> None:
        self.sinks: tuple[CallSink, ...] = sinks
        self._records = tuple(sink.record for sink in sinks)  # bound once: the hot path
        #: Per sink: whether it gets a large request's record in a worker thread.
        self._heavy = tuple(bool(getattr(s, "grows_with_arguments", False)) for s in sinks)
        self._any_heavy = any(self._heavy)
        self._failing: set[int] = set()

    def attach(self, layer: Any) -> None:
        """Attach each sink that has ``attach(layer)`` to ``layer`` (a ``CloudGMCPLayer``)."""
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
            self._deliver_cancelled(info, exc)
            raise
        if info.large and self._any_heavy:
            await self._deliver_large(info, result, None)
        else:
            self._deliver(info, result, None)
        return result

    def _built(self, info: CallInfo, result: Any, error: BaseException | None
               ) -> CallRecord | None:
        try:
            return _record_of(info, result, error)
        except Exception:  # a record must never change the call's result
            self._failed(self, "building the call record")
            return None

    def _deliver(self, info: CallInfo, result: Any, error: BaseException | None) -> None:
        """Hand the record to every sink, now (the common case: kept to one frame)."""
        try:
            call = _record_of(info, result, error)
        except Exception:  # a record must never change the call's result
            self._failed(self, "building the call record")
            return
        for record in self._records:
            try:
                record(call)
            except Exception:
                self._failed(getattr(record, "__self__", record), "recording")

    def _deliver_cancelled(self, info: CallInfo, error: BaseException) -> None:
        """Hand a cancelled request's record to every sink without waiting: a heavy sink gets
        a large request's record in the loop's executor."""
        call = self._built(info, None, error)
        if call is None:
            return
        for sink, heavy in zip(self.sinks, self._heavy, strict=True):
            if heavy and call.large:
                with contextlib.suppress(RuntimeError):  # the loop's executor has shut down
                    asyncio.get_running_loop().run_in_executor(None, self._record, sink, call)
            else:
                self._record(sink, call)

    async def _deliver_large(self, info: CallInfo, result: Any,
                             error: BaseException | None) -> None:
        """Hand a large request's record to every sink, the heavy ones in a worker thread."""
        call = self._built(info, result, error)
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


def fuse_recorders(middleware: Sequence[Middleware]) -> list[Middleware]:
    """``middleware`` with each run of adjacent recorders made one ``CallRecorder`` of all
    their sinks, the innermost recorder's first: the order in which the separate recorders
    would have recorded a request. Nothing runs between adjacent recorders, so each would
    have seen the same outcome; now one record is built for all. A recorder whose class
    has its own ``__call__`` is left as it is."""
    out: list[Middleware] = []
    run: list[CallRecorder] = []

    def close_run() -> None:
        if len(run) == 1:
            out.append(run[0])
        elif run:
            out.append(CallRecorder(*(sink for rec in reversed(run) for sink in rec.sinks)))
        run.clear()

    for mw in middleware:
        if isinstance(mw, CallRecorder) and type(mw).__call__ is CallRecorder.__call__:
            run.append(mw)
            continue
        close_run()
        out.append(mw)
    close_run()
    return out
