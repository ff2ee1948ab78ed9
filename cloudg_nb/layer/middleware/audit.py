"""AuditLogMiddleware: one JSON line per request, argument values only as keyed hashes.

A ``CallSink`` (of a ``CallRecorder``), or a middleware on its own. Lines go to a JSONL file
(created with mode 0600), a text stream, or the ``cloudg.audit`` logger. A write failure is
logged at DEBUG and never breaks the request. The line of a request with large arguments
(``CallRecord.large``) is made in a worker thread, its hashes fed piece by piece (the C
encoder would hold the GIL, and so the loop, for the whole value).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import logging
import os
import secrets
import threading
import time
from pathlib import Path
from typing import IO, Any, ClassVar

from ..call_record import CallRecord
from .recorder import RecordingMiddleware

__all__ = ["AuditLogMiddleware", "SALT_ENV"]

logger = logging.getLogger("cloudg.mcp")
audit_logger = logging.getLogger("cloudg.audit")

#: Environment variable holding the audit HMAC salt (stable hashes across restarts).
SALT_ENV = "CLOUDG_MCP_AUDIT_SALT"


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), default=str)
_LINE = json.JSONEncoder(default=str)
_stamp: tuple[int, str] = (0, "")


def _timestamp(at: float | None = None) -> str:
    """UTC ISO-8601 to the second of ``at`` (epoch seconds; default now), formatted once per
    second (audit lines are frequent)."""
    global _stamp
    now = int(time.time() if at is None else at)
    if _stamp[0] != now:
        _stamp = (now, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)))
    return _stamp[1]


@functools.lru_cache(maxsize=256)
def _roles_sorted(roles: frozenset[str]) -> tuple[str, ...]:
    return tuple(sorted(roles))


def _sorted_roles(roles: Any) -> tuple[str, ...]:
    """Sorted roles, cached per role set (the same few sets recur on every line)."""
    return _roles_sorted(roles) if isinstance(roles, frozenset) else tuple(sorted(roles))


class AuditLogMiddleware(RecordingMiddleware):
    """Write an audit line for every tool, resource, prompt and completion request."""

    grows_with_arguments: ClassVar[bool] = True  # the keyed hashes of every argument

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        stream: IO[str] | None = None,
        salt: str | bytes | None = None,
        hash_values: bool = True,
    ) -> None:
        super().__init__()
        salt = salt if salt is not None else os.environ.get(SALT_ENV)
        if salt is None:
            salt = secrets.token_bytes(32)
        self._salt = salt.encode() if isinstance(salt, str) else bytes(salt)
        self._mac = hmac.new(self._salt, digestmod=hashlib.sha256)
        self.hash_values = hash_values
        self.path = Path(path) if path is not None else None
        self.stream = stream
        self._lock = threading.Lock()
        self._file: IO[str] | None = None
        if self.path is not None:
            self._file = self._open(self.path)

    @staticmethod
    def _open(path: Path) -> IO[str]:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.chmod(path, 0o600)  # an existing file keeps no wider permissions
        return os.fdopen(fd, "a", encoding="utf-8", buffering=1)

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None

    def hash_value(self, value: Any, *, in_pieces: bool = False) -> str:
        """16 hex characters of HMAC-SHA256 over the canonical JSON of ``value``;
        ``in_pieces``: encode it with the pure-Python encoder, piece by piece (the same text,
        slower, but other threads run in between: for large values off the loop)."""
        mac = self._mac.copy()  # keyed once; copying skips the per-value key schedule
        if in_pieces and type(value) is not int:
            for piece in _CANONICAL.iterencode(value):  # not one-shot: the Python encoder
                mac.update(piece.encode())
            return mac.hexdigest()[:16]
        # The common scalar, int, is its own canonical JSON (repr); the rest go through JSON.
        canonical = repr(value) if type(value) is int else _CANONICAL.encode(value)
        mac.update(canonical.encode())
        return mac.hexdigest()[:16]

    def record(self, call: CallRecord) -> None:
        """Write the line of one finished request."""
        try:
            line = self._line(call)
        except Exception:
            logger.debug("audit write failed", exc_info=True)
            return
        self._emit(line)

    def _line(self, call: CallRecord) -> dict[str, Any]:
        args = call.arguments
        principal = call.principal
        line: dict[str, Any] = {
            "ts": _timestamp(call.ended_at),
            "event": "mcp.call",
            "kind": call.kind,
            "name": call.name,
            "principal": {"id": principal.id, "roles": _sorted_roles(principal.roles)},
            "request_id": call.request_id,
            "argument_keys": sorted(str(k) for k in args),
            "duration_ms": round(call.duration_ms, 3),
            "outcome": call.outcome,
            "sensitivity": call.sensitivity,  # a StrEnum: written as its value
        }
        if self.hash_values:
            large = call.large
            line["argument_hashes"] = {str(k): self.hash_value(v, in_pieces=large)
                                       for k, v in args.items()}
        if call.error_type is not None:
            line["error"] = {"type": call.error_type, "code": call.error_code}
        elif call.error_result:
            line["error"] = {"code": call.error_code}
        if call.transforms:
            line["transforms"] = call.transforms
        return line

    def record_event(self, fields: dict[str, Any]) -> None:
        """Write one line that is not a request (an approval decision, a revoked credential):
        ``fields`` plus the time; names and ids only, never argument values."""
        self._emit({"ts": _timestamp(), **fields})

    def _emit(self, line: dict[str, Any]) -> None:
        try:
            text = _LINE.encode(line)
            with self._lock:
                if self._file is not None:
                    self._file.write(text + "\n")
                elif self.stream is not None:
                    self.stream.write(text + "\n")
                    self.stream.flush()
                else:
                    audit_logger.info(text)
        except Exception:
            logger.debug("audit write failed", exc_info=True)
