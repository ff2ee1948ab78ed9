"""The policy's in-memory audit ring: recent decisions, argument values only as keyed hashes.

Not a sink of the layer's call record (``layer.call_record``): the policy writes a decision
where it makes it, for requests that never become calls too (unknown names), and an allowed
call's entry before its handler runs (``privacy_audit_log`` reads the ring during a call).

Names a caller chose freely are stored only when they are identifier-like: an argument name,
an unknown tool/prompt name or a resource URI that is not becomes a keyed hash (``#…``; a URI
keeps its scheme and first segment), so nothing a caller typed is kept verbatim.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import threading
import time
from collections import deque
from typing import TYPE_CHECKING, Any

from ..layer.bounds import within_loop_budget

if TYPE_CHECKING:
    from ..layer.context import Principal

__all__ = ["AuditRing", "keyed_hash"]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}")
_URI = re.compile(r"([a-z][a-z0-9+.-]{0,15}://[A-Za-z0-9_.-]{0,40})(/.*)?", re.DOTALL)
_URI_REST = re.compile(r"(?:/[A-Za-z0-9_{}-]{1,40}){0,4}")
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), default=str)


def keyed_hash(key: bytes, value: Any, length: int = 12) -> str:
    """HMAC-SHA256 over the canonical JSON of ``value``, first ``length`` hex characters.

    A value over the loop budget (``within_loop_budget``; its request is then checked in a
    worker thread) is encoded piece by piece by the pure-Python encoder: the same text, but
    the C encoder would hold the GIL, and so the serving loop, for the whole value."""
    if within_loop_budget(value):
        return hmac.new(key, _CANONICAL.encode(value).encode(), hashlib.sha256
                        ).hexdigest()[:length]
    mac = hmac.new(key, digestmod=hashlib.sha256)
    for piece in _CANONICAL.iterencode(value):  # not one-shot: the Python encoder
        mac.update(piece.encode())
    return mac.hexdigest()[:length]


class AuditRing:
    """A bounded, thread-safe list of recent policy decisions."""

    def __init__(self, size: int = 1000, *, key: bytes | None = None) -> None:
        self._entries: deque[dict[str, Any]] = deque(maxlen=max(1, int(size)))
        self._key = key or secrets.token_bytes(32)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def record(
        self,
        decision: str,
        kind: str,
        name: str,
        principal: Principal | None,
        arguments: dict[str, Any] | None = None,
        reason: str | None = None,
    ) -> dict[str, Any]:
        entry = {
            "ts": time.time(),
            "decision": decision,
            "kind": kind,
            "name": self.safe_name(name),
            "principal": getattr(principal, "id", None),
            "roles": sorted(getattr(principal, "roles", ()) or ()),
            "arguments": {
                self.safe_name(str(k)): keyed_hash(self._key, v)
                for k, v in (arguments or {}).items()
            },
            "reason": reason,
        }
        with self._lock:
            self._entries.append(entry)
        return entry

    def safe_name(self, name: str) -> str:
        """``name`` when identifier-like (``find_assets``, ``cloudg://findings/{id}``), else a
        keyed hash of it (a URI keeps its scheme and first segment)."""
        if _IDENTIFIER.fullmatch(name):
            return name
        m = _URI.fullmatch(name)
        if m is not None:
            rest = m.group(2) or ""
            if _URI_REST.fullmatch(rest):
                return name
            return f"{m.group(1)}/#{keyed_hash(self._key, rest)}"
        return f"#{keyed_hash(self._key, name)}"

    def entries(self, limit: int | None = None) -> list[dict[str, Any]]:
        """The most recent entries, oldest first (all of them when ``limit`` is None)."""
        with self._lock:
            items = list(self._entries)
        return items[-limit:] if limit else items

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
