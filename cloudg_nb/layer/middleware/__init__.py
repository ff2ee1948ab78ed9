"""Middleware around every request: ``async def mw(info, call_next) -> result``.

Middleware runs before the terminal's policy check, sees arguments as received (pseudonyms
not yet reversed) and results after the output transforms. A middleware with an
``attach(layer)`` method is given the layer when it is added (``layer.use``). The recorders
(audit, metrics) are ``CallSink``s: one ``CallRecorder`` first in the chain records each
request once for all of them, or each records itself where it stands in the chain.
"""

from .audit import AuditLogMiddleware
from .caching import CachingMiddleware
from .concurrency import ConcurrencyLimitMiddleware
from .metrics import MetricsMiddleware
from .outcome import outcome_of
from .recorder import CallRecorder, RecordingMiddleware
from .retry import RetryMiddleware

__all__ = [
    "AuditLogMiddleware",
    "CachingMiddleware",
    "CallRecorder",
    "ConcurrencyLimitMiddleware",
    "MetricsMiddleware",
    "RecordingMiddleware",
    "RetryMiddleware",
    "outcome_of",
]
