"""Token-bucket rate limits: ``2/minute`` per principal, per tool, per both, or global.

A bucket starts full at ``burst`` tokens and refills at ``rate`` per ``period``; every call
(completions included) takes one whole token from each bucket that applies, and only when
all of them have one, so a refused call costs nothing. A refusal says when to retry.
"""

from __future__ import annotations

import fnmatch
import re
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["RateLimit", "RateLimiter", "parse_rate", "SCOPES"]

SCOPES = ("principal", "tool", "principal_tool", "global")
_UNITS = {
    "s": 1.0, "sec": 1.0, "second": 1.0, "seconds": 1.0,
    "m": 60.0, "min": 60.0, "minute": 60.0, "minutes": 60.0,
    "h": 3600.0, "hr": 3600.0, "hour": 3600.0, "hours": 3600.0,
    "d": 86400.0, "day": 86400.0, "days": 86400.0,
}
_RATE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(?:/|per)\s*(\d+(?:\.\d+)?)?\s*([a-z]+)\s*$", re.I)
_LIMIT_KEYS = {"rate", "burst", "scope", "tools", "kinds", "name"}
_KINDS = {"tool", "resource", "template", "prompt", "completion"}


def parse_rate(text: Any, place: str) -> tuple[float, float]:
    """``"2/minute"`` → (2.0, 60.0); ValueError names ``place`` and the accepted forms."""
    m = _RATE.match(text) if isinstance(text, str) else None
    unit = _UNITS.get(m.group(3).lower()) if m else None
    if m is None or unit is None or float(m.group(1)) <= 0:
        raise ValueError(
            f"{place}: {text!r} is not a rate; write N/second, N/minute, N/hour or N/day "
            "(for example 30/minute or 5/10s)"
        )
    count = float(m.group(1))
    period = unit * (float(m.group(2)) if m.group(2) else 1.0)
    if period <= 0:
        raise ValueError(f"{place}: the period of {text!r} must be positive")
    return count, period


@dataclass(frozen=True)
class RateLimit:
    """One limit: ``count`` calls per ``period`` seconds, bursts up to ``burst``."""

    count: float
    period: float
    burst: float
    scope: str
    tools: tuple[str, ...]
    kinds: tuple[str, ...]
    label: str

    @classmethod
    def parse(cls, entry: Any, place: str) -> RateLimit:
        if isinstance(entry, str):
            entry = {"rate": entry}
        if not isinstance(entry, dict):
            raise ValueError(f"{place}: give a rate such as '30/minute' or a mapping with 'rate'")
        unknown = set(entry) - _LIMIT_KEYS
        if unknown:
            raise ValueError(
                f"{place}: unknown key {sorted(unknown)[0]!r}; known keys: "
                f"{', '.join(sorted(_LIMIT_KEYS))}"
            )
        if "rate" not in entry:
            raise ValueError(f"{place}: 'rate' is required (for example '30/minute')")
        count, period = parse_rate(entry["rate"], f"{place}.rate")
        burst = entry.get("burst", count)
        if not isinstance(burst, (int, float)) or isinstance(burst, bool) or burst < 1:
            raise ValueError(f"{place}.burst: must be a number of calls, at least 1")
        scope = entry.get("scope", "principal")
        if scope not in SCOPES:
            raise ValueError(f"{place}.scope: {scope!r} is not a scope; use {', '.join(SCOPES)}")
        tools = entry.get("tools", [])
        if not isinstance(tools, list) or not all(isinstance(t, str) and t for t in tools):
            raise ValueError(f"{place}.tools: must be a list of name globs")
        for t in tools:
            if t.count("[") != t.count("]"):
                raise ValueError(f"{place}.tools: malformed glob (unbalanced [])")
        kinds = entry.get("kinds", [])
        if not isinstance(kinds, list) or any(k not in _KINDS for k in kinds):
            raise ValueError(f"{place}.kinds: use any of {', '.join(sorted(_KINDS))}")
        return cls(count, period, float(burst), scope, tuple(tools), tuple(kinds),
                   str(entry["rate"]).strip())

    def applies(self, names: Sequence[str], kind: str) -> bool:
        if self.kinds and kind not in self.kinds:
            return False
        if not self.tools:
            return True
        return any(fnmatch.fnmatchcase(n, p) for n in names for p in self.tools)

    def bucket_key(self, principal_id: str, name: str) -> tuple[Any, ...]:
        if self.scope == "principal":
            return (self, principal_id)
        if self.scope == "tool":
            return (self, name)
        if self.scope == "principal_tool":
            return (self, principal_id, name)
        return (self,)


class RateLimiter:
    """Buckets for a policy's limits; thread-safe."""

    def __init__(self, max_buckets: int = 50_000) -> None:
        self._buckets: dict[tuple[Any, ...], list[float]] = {}
        self._lock = threading.Lock()
        self._max = max_buckets

    def take(
        self, limits: Iterable[RateLimit], principal_id: str, name: str, now: float | None = None
    ) -> tuple[RateLimit, float] | None:
        """Take one token from every bucket, or none: returns (limit, retry_after) on refusal."""
        now = time.monotonic() if now is None else now
        with self._lock:
            states = []
            refused: tuple[RateLimit, float] | None = None
            for lim in limits:
                key = lim.bucket_key(principal_id, name)
                bucket = self._buckets.get(key)
                if bucket is None:
                    tokens = lim.burst
                else:
                    tokens = min(lim.burst, bucket[0] + (now - bucket[1]) * lim.count / lim.period)
                states.append((key, tokens))
                if tokens < 1.0:
                    wait = (1.0 - tokens) * lim.period / lim.count
                    if refused is None or wait > refused[1]:
                        refused = (lim, wait)
            if len(self._buckets) > self._max:
                self._buckets.clear()
            for key, tokens in states:
                self._buckets[key] = [tokens if refused else tokens - 1.0, now]
            return refused
