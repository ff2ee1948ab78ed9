"""Middleware around every request: ``async def mw(info, call_next) -> result``.

Middleware runs before the terminal's policy check, sees arguments as received (pseudonyms
not yet reversed) and results after the output transforms. A middleware with an
``attach(layer)`` method is given the layer when it is added (``layer.use``).
"""

from .audit import AuditLogMiddleware
from .caching import CachingMiddleware
from .concurrency import ConcurrencyLimitMiddleware
from .metrics import MetricsMiddleware
from .outcome import outcome_of
from .retry import RetryMiddleware

__all__ = [
    "AuditLogMiddleware",
    "CachingMiddleware",
    "ConcurrencyLimitMiddleware",
    "MetricsMiddleware",
    "RetryMiddleware",
    "outcome_of",
]
