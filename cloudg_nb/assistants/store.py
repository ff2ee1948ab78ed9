"""AssistantStore: per-assistant MCP credentials, kept as SHA-256 digests in one JSON file.

A token is ``cgat_`` + 256 random bits (URL-safe base64). Only its digest and a short hint
(the first four characters after the prefix) are written, in a 0600 file under the Jupyter
data dir; a copy of the file authenticates nobody. Writers take an ``flock`` and replace the
file atomically; readers (the server, on every request) re-read it when it changed on disk,
so a revocation made by another process takes effect on the next request.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import secrets
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

__all__ = [
    "ASSISTANT_PREFIX",
    "TOKEN_PREFIX",
    "AssistantRecord",
    "AssistantStore",
    "AssistantStoreError",
    "default_store_path",
    "looks_like_assistant_token",
    "valid_name",
]

#: Every assistant token starts with this (so the server tells it from Jupyter's own token
#: without a lookup, and secret scanners can recognise one).
TOKEN_PREFIX = "cgat_"
#: The principal id of assistant NAME is ``assistant:NAME``.
ASSISTANT_PREFIX = "assistant:"
#: Random bytes per token (256 bits; the issue asks for at least 128).
TOKEN_BYTES = 32
STORE_VERSION = 1
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,47}$")
#: The characters a token may contain after its prefix (URL-safe base64).
_TOKEN_BODY = re.compile(r"^[A-Za-z0-9_-]{20,128}$")


class AssistantStoreError(ValueError):
    """A bad name or profile, or a store file that cannot be read or written; the message
    says what to do and never contains a token."""


def valid_name(name: str) -> bool:
    """Lower-case letters, digits, ``.``, ``_`` and ``-``, starting with a letter or digit,
    at most 48 characters (it becomes part of ``assistant:NAME`` and of file names)."""
    return isinstance(name, str) and bool(_NAME.fullmatch(name))


def looks_like_assistant_token(token: str | None) -> bool:
    return bool(token) and token.startswith(TOKEN_PREFIX)  # type: ignore[union-attr]


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def default_store_path() -> Path:
    """``{jupyter data dir}/cloudg/assistants.json`` (``$JUPYTER_DATA_DIR`` is honoured)."""
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "cloudg" / "assistants.json"


@dataclass(frozen=True)
class AssistantRecord:
    """One assistant's credential: who it is, which client it was made for, the policy
    profile its calls run under, and the digest of its token (never the token)."""

    name: str
    client: str
    profile: str  #: the policy profile its calls run under ("": the server's default)
    token_sha256: str
    hint: str  #: ``cgat_AbCd...``: enough to tell tokens apart, useless to an attacker
    created: str  #: UTC, ISO 8601

    @property
    def principal_id(self) -> str:
        return f"{ASSISTANT_PREFIX}{self.name}"

    def public(self) -> dict[str, Any]:
        """What listings show: everything but the digest."""
        return {"name": self.name, "principal": self.principal_id, "client": self.client,
                "profile": self.profile, "token_hint": self.hint, "created": self.created}


class AssistantStore:
    """The credential file at ``path``: mint, list, revoke and verify assistant tokens."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_store_path()
        self._lock = threading.Lock()
        self._stamp: tuple[int, int, int] | None = None
        self._by_digest: dict[str, AssistantRecord] = {}
        self._by_name: dict[str, AssistantRecord] = {}

    def __repr__(self) -> str:
        return f"AssistantStore({str(self.path)!r})"

    # -- reading --------------------------------------------------------------------------

    def _file_stamp(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise AssistantStoreError(
                f"Cannot read the assistant credential store ({exc.strerror}); check the "
                "permissions of the Jupyter data dir.") from None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def _refresh(self) -> None:
        """Re-read the file when it changed on disk (one ``stat`` when it did not)."""
        stamp = self._file_stamp()
        if stamp == self._stamp and (stamp is not None or not self._by_name):
            return
        with self._lock:
            records = self._read() if stamp is not None else []
            self._by_digest = {r.token_sha256: r for r in records}
            self._by_name = {r.name: r for r in records}
            self._stamp = stamp

    def _read(self) -> list[AssistantRecord]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError):
            raise AssistantStoreError(
                f"The assistant credential store {self.path.name} is not readable JSON; "
                "move it away and mint new assistant credentials.") from None
        items = data.get("assistants") if isinstance(data, dict) else None
        records = []
        for item in items or []:
            try:
                records.append(AssistantRecord(**{k: str(item[k]) for k in (
                    "name", "client", "profile", "token_sha256", "hint", "created")}))
            except (KeyError, TypeError):
                continue  # an entry written by hand without its fields authenticates nobody
        return records

    def records(self) -> list[AssistantRecord]:
        """Every assistant with a live credential, by name."""
        self._refresh()
        return sorted(self._by_name.values(), key=lambda r: r.name)

    def get(self, name: str) -> AssistantRecord | None:
        self._refresh()
        return self._by_name.get(name)

    def verify(self, token: str | None) -> AssistantRecord | None:
        """The assistant a token belongs to, or None (unknown, revoked or malformed)."""
        if not looks_like_assistant_token(token):
            return None
        assert token is not None
        if not _TOKEN_BODY.fullmatch(token[len(TOKEN_PREFIX):]):
            return None
        self._refresh()
        return self._by_digest.get(_digest(token))

    # -- writing --------------------------------------------------------------------------

    def mint(self, name: str, *, client: str = "other", profile: str = "",
             ) -> tuple[str, AssistantRecord, bool]:
        """A new token for assistant ``name``: ``(token, record, replaced)``. An existing
        credential of that name is replaced (its token stops working at once). ``profile``
        names the policy its calls run under ("" : the server's default for assistants)."""
        if not valid_name(name):
            raise AssistantStoreError(
                "An assistant name is 1-48 lower-case letters, digits, '.', '_' or '-', "
                "starting with a letter or digit (for example 'claude-code' or 'cursor-2').")
        token = TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)
        record = AssistantRecord(
            name=name, client=str(client)[:40], profile=str(profile)[:200],
            token_sha256=_digest(token), hint=token[:len(TOKEN_PREFIX) + 4] + "...",
            created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        )
        with self._editing() as records:
            replaced = records.pop(name, None) is not None
            records[name] = record
        return token, record, replaced

    def revoke(self, name: str) -> AssistantRecord | None:
        """Remove ``name``'s credential; the removed record, or None when there was none."""
        with self._editing() as records:
            return records.pop(name, None)

    def set_profile(self, name: str, profile: str) -> AssistantRecord | None:
        with self._editing() as records:
            found = records.get(name)
            if found is not None:
                records[name] = found = replace(found, profile=str(profile)[:200])
            return found

    @contextlib.contextmanager
    def _editing(self) -> Iterator[dict[str, AssistantRecord]]:
        """The records by name, under an exclusive lock; written back atomically (0600)."""
        folder = self.path.parent
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            lock_fd = os.open(folder / f".{self.path.name}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise AssistantStoreError(
                f"Cannot write the assistant credential store in {folder.name}/ "
                f"({exc.strerror}).") from None
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_EX)
            records = {r.name: r for r in self._read()}
            yield records
            self._write(sorted(records.values(), key=lambda r: r.name))
        finally:
            os.close(lock_fd)
        self._stamp = None  # read our own write back on next use
        self._refresh()

    def _write(self, records: list[AssistantRecord]) -> None:
        body = {"version": STORE_VERSION,
                "note": "cloudg-nb assistant credentials: SHA-256 digests of the tokens only",
                "assistants": [asdict(r) for r in records]}
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".assistants-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(body, out, indent=1)
                out.write("\n")
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
