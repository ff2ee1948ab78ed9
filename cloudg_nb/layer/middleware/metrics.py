"""MetricsMiddleware: per ``kind:name`` call counts, errors, refusals and latency.

A ``CallSink`` (of a ``CallRecorder``), or a middleware on its own. Latency figures (avg,
p95, max in ms) cover the last 256 requests of each name. ``attach`` adds the
``cloudg://metrics`` resource to the layer's registry (when it has none).
"""

from __future__ import annotations

import math
import threading
from collections import deque
from typing import TYPE_CHECKING, Any

from ..call_record import REFUSALS, CallRecord
from ..context import ToolContext
from ..enums import Outcome, Sensitivity
from ..specs import ResourceSpec
from ..wire import METRICS_URI
from .recorder import RecordingMiddleware

if TYPE_CHECKING:
    from ..layer import CloudGMCPLayer

__all__ = ["MetricsMiddleware", "METRICS_URI"]

WINDOW = 256


class _Series:
    __slots__ = ("calls", "durations", "errors", "last_call", "rejected")

    def __init__(self) -> None:
        self.calls = 0
        self.errors = 0
        self.rejected = 0
        self.durations: deque[float] = deque(maxlen=WINDOW)
        self.last_call: float | None = None

    def snapshot(self) -> dict[str, Any]:
        ds = sorted(self.durations)
        p95 = ds[min(len(ds) - 1, math.ceil(0.95 * len(ds)) - 1)] if ds else 0.0
        return {
            "calls": self.calls,
            "errors": self.errors,
            "rejected": self.rejected,
            "avg_ms": round(sum(ds) / len(ds), 3) if ds else 0.0,
            "p95_ms": round(p95, 3),
            "max_ms": round(ds[-1], 3) if ds else 0.0,
            "last_call": self.last_call,
        }


class MetricsMiddleware(RecordingMiddleware):
    """Count requests and time them, per kind and name."""

    def __init__(self) -> None:
        super().__init__()
        self._series: dict[str, _Series] = {}
        self._lock = threading.Lock()

    def record(self, call: CallRecord) -> None:
        key = f"{call.kind}:{call.name}"
        outcome = call.outcome
        with self._lock:
            series = self._series.get(key)
            if series is None:
                series = self._series[key] = _Series()
            series.calls += 1
            if outcome in REFUSALS:
                series.rejected += 1
            elif outcome != Outcome.OK:
                series.errors += 1
            series.durations.append(call.duration_ms)
            series.last_call = call.ended_at

    def snapshot(self) -> dict[str, dict[str, Any]]:
        """Figures per ``kind:name``, sorted by key."""
        with self._lock:
            return {k: self._series[k].snapshot() for k in sorted(self._series)}

    def reset(self) -> None:
        with self._lock:
            self._series.clear()

    def resource_spec(self) -> ResourceSpec:
        """The ``cloudg://metrics`` resource serving ``snapshot()``."""

        def metrics(ctx: ToolContext) -> dict[str, Any]:
            return {"metrics": self.snapshot()}

        return ResourceSpec(
            name="metrics",
            uri=METRICS_URI,
            handler=metrics,
            title="Request metrics",
            description="Calls, errors, refusals and latency (avg/p95/max ms) per primitive.",
            category="meta",
            sensitivity=Sensitivity.INTERNAL,
        )

    def attach(self, layer: CloudGMCPLayer) -> None:
        if METRICS_URI not in layer.registry.resources:
            layer.registry.add(self.resource_spec())
