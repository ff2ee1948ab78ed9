"""AssistantStore: per-assistant MCP credentials, kept as SHA-256 digests in one JSON file.

A token is ``cgat_`` + 256 random bits (URL-safe base64). Only its digest, a short hint (the
first four characters after the prefix) and the server it was minted for are written, in a
0600 file in a 0700 folder under the Jupyter data dir; a copy of the file authenticates nobody.
Writers take an ``flock`` and replace the file atomically; readers (the server, on every
request) re-read it when it changed on disk, so a revocation made by another process takes
effect on the next request. Names are unique per server (``server_identity``).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import secrets
import stat
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
    "assistant_id",
    "default_store_path",
    "looks_like_assistant_token",
    "server_identity",
    "valid_name",
]

#: Every assistant token starts with this (so the server tells it from Jupyter's own token
#: without a lookup, and secret scanners can recognise one).
TOKEN_PREFIX = "cgat_"
#: The principal id of assistant NAME is ``assistant:NAME`` (a name for people: activity and
#: audit show it; whether a principal is an assistant is its role's to say).
ASSISTANT_PREFIX = "assistant:"
#: Random bytes per token (256 bits; the issue asks for at least 128).
TOKEN_BYTES = 32
#: 2: records name the server they were minted for (``server``).
STORE_VERSION = 2
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


def assistant_id(name: str) -> str:
    """The principal id of assistant ``name``: ``assistant:NAME``."""
    return f"{ASSISTANT_PREFIX}{name}"


def looks_like_assistant_token(token: str | None) -> bool:
    return bool(token) and token.startswith(TOKEN_PREFIX)  # type: ignore[union-attr]


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def server_identity(root_dir: str | os.PathLike[str], base_url: str) -> str:
    """The server a credential belongs to: its ``base_url`` and resolved ``root_dir``.

    The same for every restart of one server (whatever its port), different for two servers
    that share a Jupyter data dir (they serve another folder, or under another base_url).
    Readable, since ``cloudg-nb assistants list`` shows it: ``/user/alice/ on /home/alice``.
    """
    parts = [part for part in str(base_url).split("/") if part]
    base = "/" + "".join(f"{part}/" for part in parts)
    return f"{base} on {Path(root_dir).expanduser().resolve()}"


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
    #: ``server_identity`` of the server it was minted for; "" for a credential minted before
    #: credentials were bound to a server, which authenticates on no server.
    server: str = ""

    @property
    def principal_id(self) -> str:
        return assistant_id(self.name)

    def bound_to(self, server: str) -> bool:
        """Whether this credential may authenticate on ``server``."""
        return bool(self.server) and self.server == server

    def public(self) -> dict[str, Any]:
        """What listings show: everything but the digest."""
        return {"name": self.name, "principal": self.principal_id, "client": self.client,
                "profile": self.profile, "token_hint": self.hint, "created": self.created,
                "server": self.server or None}


#: One credential's key in the store: (server, name).
_Key = tuple[str, str]


class AssistantStore:
    """The credential file at ``path``: mint, list, revoke and verify assistant tokens.

    Its folder is created 0700. ``private_folder`` (default: when ``path`` is the default,
    ``{data dir}/cloudg/``, which holds only cloudg's private files) also tightens an existing
    folder to 0700; a folder named in configuration keeps the mode its owner gave it.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *,
                 private_folder: bool | None = None) -> None:
        self.path = Path(path) if path is not None else default_store_path()
        self.private_folder = path is None if private_folder is None else private_folder
        self._lock = threading.Lock()
        self._stamp: tuple[int, int, int, int] | None = None
        self._generation = 0
        self._by_digest: dict[str, AssistantRecord] = {}
        self._by_key: dict[_Key, AssistantRecord] = {}

    def __repr__(self) -> str:
        return f"AssistantStore({str(self.path)!r})"

    # -- reading --------------------------------------------------------------------------

    def _file_stat(self) -> os.stat_result | None:
        try:
            return os.stat(self.path)
        except (FileNotFoundError, NotADirectoryError):  # no store yet (or none can be)
            return None
        except OSError as exc:
            raise AssistantStoreError(
                f"Cannot read the assistant credential store ({exc.strerror}); check the "
                "permissions of the Jupyter data dir.") from None

    def _refresh(self) -> None:
        """Re-read the file when it changed on disk (one ``stat`` when it did not). A file
        left readable by others (a hand edit) is made 0600 again."""
        st = self._file_stat()
        stamp = None if st is None else (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
        if stamp == self._stamp and (stamp is not None or not self._by_key):
            return
        if st is not None and stat.S_IMODE(st.st_mode) & 0o077:
            with contextlib.suppress(OSError):
                os.chmod(self.path, 0o600)
        with self._lock:
            records = self._read() if stamp is not None else []
            self._by_digest = {r.token_sha256: r for r in records}
            self._by_key = {(r.server, r.name): r for r in records}
            self._stamp = stamp
            self._generation += 1

    def generation(self) -> int:
        """A number that changes whenever the file is read again (it changed on disk): one
        ``stat`` when it did not. For watchers that act on revocations made elsewhere."""
        self._refresh()
        return self._generation

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
                records.append(AssistantRecord(
                    **{k: str(item[k]) for k in (
                        "name", "client", "profile", "token_sha256", "hint", "created")},
                    server=str(item.get("server") or "")))
            except (KeyError, TypeError, AttributeError):
                continue  # an entry written by hand without its fields authenticates nobody
        return records

    def records(self, server: str | None = None) -> list[AssistantRecord]:
        """Every live credential (by server, then name); with ``server``, those bound to it
        and those bound to none (minted before binding: listed so they can be revoked)."""
        self._refresh()
        found = [r for r in self._by_key.values()
                 if server is None or r.server in (server, "")]
        return sorted(found, key=lambda r: (r.server, r.name))

    def get(self, name: str, server: str = "") -> AssistantRecord | None:
        """The credential of ``name`` bound to ``server`` ("": one bound to no server)."""
        self._refresh()
        return self._by_key.get((server, name))

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

    def mint(self, name: str, *, client: str = "other", profile: str = "", server: str = "",
             ) -> tuple[str, AssistantRecord, bool]:
        """A new token for assistant ``name`` on ``server`` (a ``server_identity``; "" makes
        a credential no server accepts): ``(token, record, replaced)``. That server's
        credential of that name, and one of that name bound to no server, are replaced (their
        tokens stop working at once); other servers' credentials are kept. ``profile`` names
        the policy its calls run under ("" : the server's default for assistants)."""
        if not valid_name(name):
            raise AssistantStoreError(
                "An assistant name is 1-48 lower-case letters, digits, '.', '_' or '-', "
                "starting with a letter or digit (for example 'claude-code' or 'cursor-2').")
        token = TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)
        record = AssistantRecord(
            name=name, client=str(client)[:40], profile=str(profile)[:200],
            token_sha256=_digest(token), hint=token[:len(TOKEN_PREFIX) + 4] + "...",
            created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), server=server,
        )
        with self._editing() as records:
            replaced = records.pop((server, name), None) is not None
            replaced = records.pop(("", name), None) is not None or replaced
            records[(server, name)] = record
        return token, record, replaced

    def revoke(self, name: str, server: str | None = None) -> list[AssistantRecord]:
        """Remove ``name``'s credentials: the one bound to ``server`` and one bound to no
        server (``server`` None: on every server). The removed records (empty: none)."""
        with self._editing() as records:
            keys = [key for key in records if key[1] == name
                    and (server is None or key[0] in (server, ""))]
            return sorted((records.pop(key) for key in keys),
                          key=lambda r: (r.server != server, r.server))

    def set_profile(self, name: str, profile: str, server: str = "") -> AssistantRecord | None:
        with self._editing() as records:
            found = records.get((server, name))
            if found is not None:
                records[(server, name)] = found = replace(found, profile=str(profile)[:200])
            return found

    def secure_folder(self) -> None:
        """Create the store's folder 0700 (and, for a ``private_folder``, make an existing
        one 0700); AssistantStoreError when that fails."""
        folder = self.path.parent
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            if self.private_folder and stat.S_IMODE(folder.stat().st_mode) != 0o700:
                os.chmod(folder, 0o700)
        except OSError as exc:
            raise AssistantStoreError(
                f"Cannot create the assistant credential store's folder {folder.name}/ "
                f"({exc.strerror}); check the permissions of the Jupyter data dir.") from None

    @contextlib.contextmanager
    def _editing(self) -> Iterator[dict[_Key, AssistantRecord]]:
        """The records by (server, name), under an exclusive lock; written back atomically
        (0600)."""
        self.secure_folder()
        folder = self.path.parent
        try:
            lock_fd = os.open(folder / f".{self.path.name}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise AssistantStoreError(
                f"Cannot write the assistant credential store in {folder.name}/ "
                f"({exc.strerror}).") from None
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_EX)
            records = {(r.server, r.name): r for r in self._read()}
            yield records
            self._write(sorted(records.values(), key=lambda r: (r.server, r.name)))
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
