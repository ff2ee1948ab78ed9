"""The pseudonym vault: deterministic, format-preserving pseudonyms and their way back.

pseudonym = HMAC-SHA256(key, namespace|entity|value), rendered like the original: account
ids keep their length, ARNs / Azure ids / GCP names are rebuilt part by part, e-mails become
``user-…@d-….example``, private IPs stay private, UUIDs stay UUIDs. The same key gives the
same pseudonym across calls and restarts; the reverse map (pseudonym → original) serves the
input-side depseudonymiser and ``reveal``. A pseudonym is never shared and never equals a value
seen as a real one: on a collision the HMAC is re-derived with a counter (``value|#1``,
``value|#2`` …) until the result is unused. So two values only get the same pseudonyms across
restarts when the vault sees them in the same order (or the map is persisted with ``path``).
With a ``path`` the map persists encrypted (AES-GCM from ``cryptography``), file mode 0600,
written atomically. GCP project and account ids are also learned (``learn``, ``add_source``)
so ``find_known`` finds them as bare words in titles, names, bucket names and group keys.
"""

from __future__ import annotations

import atexit
import hashlib
import hmac
import json
import logging
import os
import re
import secrets
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Hashable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .detectors import GCP_PROJECT_ID
from .pseudonym_formats import FORMATS, generic

if TYPE_CHECKING:
    from ..layer.collaborators import IdentifierSource

__all__ = ["Vault", "VaultError", "KEY_ENV"]

logger = logging.getLogger("cloudg.privacy")

KEY_ENV = "CLOUDG_MCP_VAULT_KEY"
_MAGIC = b"CGVAULT1"
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_PROJECT = re.compile(GCP_PROJECT_ID)
#: Entities whose originals are also found as words in any text (``find_known``), and the
#: shape of such a word: a GCP project id is written bare in titles, names, group keys and
#: ``gke_<project>_<zone>_<cluster>``, an account id inside bucket names
#: (``cdk-…-assets-<account>-<region>``).
KNOWN_SHAPES = {
    "gcp_project": re.compile(
        rf"(?<![A-Za-z0-9-]){GCP_PROJECT_ID}(?![A-Za-z0-9-]|\.[A-Za-z0-9])"),
    "aws_account_id": re.compile(r"(?<!\d)\d{12}(?!\d)"),
}
KNOWN_ENTITIES = tuple(KNOWN_SHAPES)
#: A part of a dotted or hyphenated name (where a known project id is looked for inside a
#: longer name: ``<project>-backups-7d3f9a``, Prowler's finding ids).
_NAME_PART = re.compile(r"[A-Za-z0-9]+")
#: How many re-derivations a colliding pseudonym gets before a long generic id is used.
_MAX_ROUNDS = 64


class VaultError(ValueError):
    """The vault file could not be read or written; the message says what to do."""


class Vault:
    """Issues pseudonyms and remembers which original each one stands for."""

    def __init__(
        self,
        key: bytes | str | None = None,
        *,
        namespace: str = "cloudg",
        path: str | os.PathLike[str] | None = None,
        max_entries: int = 1_000_000,
        save_interval: float = 2.0,
    ) -> None:
        self.ephemeral = key is None or key == b"" or key == ""
        raw = secrets.token_bytes(32) if self.ephemeral else _as_bytes(key)  # type: ignore[arg-type]
        self._key = hashlib.sha256(b"cloudg-vault-key\x00" + raw).digest()
        self.namespace = namespace
        self.path = Path(path).expanduser() if path else None
        self.max_entries = max(1, int(max_entries))
        self.save_interval = save_interval
        self._reverse: dict[str, tuple[str, str]] = {}
        #: (entity, original) → pseudonym: the exact inverse of ``_reverse``.
        self._forward: dict[tuple[str, str], str] = {}
        #: How many entries hold each original value (whatever the entity).
        self._originals: dict[str, int] = {}
        #: Real values of the batch being rewritten (no pseudonym may equal one of them).
        self._reserved: dict[str, int] = {}
        #: (value, round) while a pseudonym of ``value`` is re-derived after a collision.
        self._salt: tuple[str, int] | None = None
        #: entity → originals to find as words in any text, and the pattern built from them.
        self._known: dict[str, set[str]] = {}
        #: (how many project ids were known, a pattern of their first parts): see find_known.
        self._heads: tuple[int, re.Pattern[str]] = (0, _first_parts(set()))
        #: Providers of identifier sources, and the source keys already learned from.
        self._sources: list[IdentifierSource] = []
        self._learned_from: dict[Hashable, None] = {}
        self._lock = threading.RLock()
        self._dirty = False
        self._last_save = float("-inf")  # the first flush always saves
        self._warned = False
        if self.path is not None:
            self._load()
            atexit.register(_flush_at_exit, weakref.ref(self))

    def __repr__(self) -> str:
        return (
            f"Vault(entries={len(self)}, ephemeral_key={self.ephemeral}, "
            f"persisted={self.path is not None})"
        )

    def __len__(self) -> int:
        return len(self._reverse)

    @classmethod
    def from_config(cls, config: Mapping[str, Any] | None = None) -> Vault:
        """A vault from a policy's ``vault`` mapping: key, key_env, path, namespace.

        The key comes from ``key``, else the variable named by ``key_env``, else
        ``$CLOUDG_MCP_VAULT_KEY``; with none, a random key is used and pseudonyms change at
        every restart (a warning is logged when the first pseudonym is issued).
        """
        cfg = dict(config or {})
        key = cfg.get("key") or os.environ.get(str(cfg.get("key_env") or KEY_ENV)) or None
        return cls(
            key,
            namespace=str(cfg.get("namespace") or "cloudg"),
            path=cfg.get("path"),
            max_entries=int(cfg.get("max_entries") or 1_000_000),
        )

    def status(self) -> dict[str, Any]:
        return {
            "entries": len(self),
            "ephemeral_key": self.ephemeral,
            "persisted": self.path is not None,
            "namespace": self.namespace,
        }

    # -- keyed hashes ----------------------------------------------------------------------

    def digest(self, entity: str, value: str) -> bytes:
        salt = self._salt
        if salt is not None and salt[0] == value:  # a re-derivation after a collision
            msg = f"{self.namespace}|{entity}|{value}|#{salt[1]}".encode()
        else:
            msg = f"{self.namespace}|{entity}|{value}".encode()
        return hmac.new(self._key, msg, hashlib.sha256).digest()

    def hash(self, entity: str, value: str, length: int = 12) -> str:
        """A keyed hash of ``value`` (hex), stable for the key; not reversible."""
        return self.digest("hash:" + entity, value).hex()[:length]

    # -- pseudonyms ------------------------------------------------------------------------

    def pseudonymize(self, entity: str, value: str) -> str:
        """The pseudonym of ``value``; remembered so it can be reversed."""
        if entity == "aws_account_id" and not value.isdigit():
            # an "account" that is a GCP project or an Azure subscription gets the pseudonym
            # it has inside resource names (projects/<p>/…, /subscriptions/<uuid>/…)
            if _UUID.fullmatch(value):
                entity = "uuid"
            elif _PROJECT.fullmatch(value):
                entity = "gcp_project"
        if not self._warned and self.ephemeral:
            self._warned = True
            logger.warning(
                "The pseudonym vault has no key (set %s or the policy's vault.key): "
                "pseudonyms will change when the server restarts.", KEY_ENV,
            )
        known = self._forward.get((entity, value))
        if known is not None:
            return known
        with self._lock:
            # An issued pseudonym passes unchanged (pseudonymising is idempotent), unless
            # the same text has also been seen as a real value: then it is pseudonymised.
            if value in self._reverse and value not in self._originals:
                return value
            fmt = FORMATS.get(entity, generic)
            return self._issue(entity, value, lambda: fmt(self, entity, value))

    def _issue(self, entity: str, value: str, make: Callable[[], str]) -> str:
        """The pseudonym ``make()`` derives for ``value``, re-derived with a counter while it
        is taken by another value or equals a value seen as real; then remembered."""
        with self._lock:
            known = self._forward.get((entity, value))
            if known is not None:
                return known
            saved = self._salt
            token = value
            try:
                for n in range(_MAX_ROUNDS):
                    self._salt = (value, n) if n else None
                    token = make()
                    owner = self._reverse.get(token)
                    if token != value and owner is None and token not in self._originals and (
                            token not in self._reserved):
                        break
                else:
                    token = f"id-{self.digest('overflow:' + entity, value).hex()[:24]}"
            finally:
                self._salt = saved
            self._remember(token, entity, value)
            return token

    def reserve(self, values: Iterable[str]) -> list[str]:
        """Mark ``values`` (real values about to be pseudonymised) as taken until
        ``release``; values that are issued pseudonyms are left out. Returns those marked."""
        marked: list[str] = []
        with self._lock:
            reserved = self._reserved
            for v in set(values):
                if v not in self._reverse:
                    reserved[v] = reserved.get(v, 0) + 1
                    marked.append(v)
        return marked

    def release(self, marked: list[str]) -> None:
        with self._lock:
            reserved = self._reserved
            for v in marked:
                left = reserved.get(v, 0) - 1
                if left > 0:
                    reserved[v] = left
                else:
                    reserved.pop(v, None)

    # -- identifiers written bare ----------------------------------------------------------

    def learn(self, entity: str, values: Iterable[object]) -> None:
        """Remember ``values`` as originals of ``entity`` to find as words in any text (see
        ``find_known``); values not shaped like one (``KNOWN_SHAPES``) are left out."""
        shape = KNOWN_SHAPES[entity]
        with self._lock:
            known = self._known.setdefault(entity, set())
            for v in values:
                if type(v) is str and v not in self._reverse and shape.fullmatch(v):
                    known.add(v)

    def add_source(self, provider: IdentifierSource) -> None:
        """Register ``provider() -> [(key, entity, values), ...]``: places (e.g. the datasets
        of a workspace) whose identifiers are learned before words are looked for, so a
        project id is found bare even in the first answer that names it. ``values()`` runs
        once per hashable ``key`` (e.g. a dataset version), and only for policies that look
        for known words (those that pseudonymise): others never pay."""
        if provider not in self._sources:
            self._sources.append(provider)

    def learned(self) -> int:
        """How many identifiers have been learned so far (after learning from the sources
        added): it only grows, so a value transformed when it was smaller may need doing
        again (``cloudg_nb.layer.column_results`` keys its memo on it)."""
        if self._sources:
            self._drain()
        with self._lock:
            return sum(len(values) for values in self._known.values())

    def find_known(self, entity: str, text: str) -> list[tuple[int, int]]:
        """Spans of the learned originals of ``entity`` written as whole words in ``text``:
        a project id also as whole parts of a hyphenated or dotted name
        (``<project>-backups-…``, Prowler's ``…-<project>-EU-…`` finding ids), never inside
        a longer part; an account id also inside names, never inside a longer number. Each
        candidate is looked up in a set (for projects, only where a first part stands)."""
        if self._sources:
            self._drain()
        known = self._known.get(entity)
        if not known:
            return []
        if entity == "gcp_project":
            heads = self._heads
            if heads[0] != len(known):  # learned values are only ever added
                heads = self._heads = (len(known), _first_parts(known))
            return _parts_in_names(text, known, heads[1])
        return [m.span() for m in KNOWN_SHAPES[entity].finditer(text) if m.group() in known]

    def _drain(self) -> None:
        learned = self._learned_from
        for provider in self._sources:
            for key, entity, values in provider():
                if key in learned:
                    continue
                self.learn(entity, values())
                with self._lock:
                    if len(learned) >= 1024:
                        learned.clear()
                    learned[key] = None

    def _remember(self, token: str, entity: str, value: str) -> None:
        with self._lock:
            if self._reverse.get(token) is not None:  # only the overflow id can get here
                return
            if len(self._reverse) >= self.max_entries:
                old = next(iter(self._reverse))
                self._forget(old, *self._reverse[old])
            self._reverse[token] = (entity, value)
            self._forward[(entity, value)] = token
            self._originals[value] = self._originals.get(value, 0) + 1
            self._dirty = True
            shape = KNOWN_SHAPES.get(entity)
            if shape is not None and shape.fullmatch(value):
                self._known.setdefault(entity, set()).add(value)

    def _forget(self, token: str, entity: str, value: str) -> None:
        del self._reverse[token]
        self._forward.pop((entity, value), None)
        left = self._originals.get(value, 0) - 1
        if left > 0:
            self._originals[value] = left
        else:
            self._originals.pop(value, None)

    def _part(self, entity: str, value: str, prefix: str, size: int = 10) -> str:
        """A pseudonym for one part of a compound value (also reversible on its own)."""
        return self._issue(
            entity, value, lambda: f"{prefix}-{self.digest(entity, value).hex()[:size]}")

    def lookup(self, token: str) -> tuple[str, str] | None:
        """(entity, original) for a pseudonym this vault issued, else None."""
        return self._reverse.get(token)

    def reveal(self, token: str) -> str | None:
        """The original value behind ``token``, or None when it is not a known pseudonym."""
        found = self._reverse.get(token)
        return found[1] if found else None

    # -- persistence -----------------------------------------------------------------------

    def _file_key(self) -> bytes:
        return hmac.new(self._key, b"cloudg-vault-file-v1", hashlib.sha256).digest()

    def _load(self) -> None:
        assert self.path is not None
        if not self.path.exists():
            return
        from cryptography.exceptions import InvalidTag
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        blob = self.path.read_bytes()
        if not blob.startswith(_MAGIC) or len(blob) < len(_MAGIC) + 12 + 16:
            raise VaultError(
                f"Vault file {self.path.name!r} is not a cloudg vault; move it away or "
                "choose another vault.path"
            )
        nonce = blob[len(_MAGIC):len(_MAGIC) + 12]
        try:
            plain = AESGCM(self._file_key()).decrypt(nonce, blob[len(_MAGIC) + 12:], _MAGIC)
        except InvalidTag:
            raise VaultError(
                f"Vault file {self.path.name!r} cannot be decrypted with this key: set "
                f"{KEY_ENV} (or vault.key) to the key it was written with, or move the file "
                "away to start a new vault"
            ) from None
        entries = json.loads(plain.decode())["entries"]
        with self._lock:
            for token, entity, value in entries:
                self._reverse[token] = (entity, value)
                self._forward[(entity, value)] = token
                self._originals[value] = self._originals.get(value, 0) + 1
                shape = KNOWN_SHAPES.get(entity)
                if shape is not None and shape.fullmatch(value):
                    self._known.setdefault(entity, set()).add(value)

    def save(self) -> None:
        """Write the map now (encrypted, 0600, via a temporary file and os.replace)."""
        if self.path is None:
            return
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        with self._lock:
            entries = [[t, e, v] for t, (e, v) in self._reverse.items()]
            self._dirty = False
            self._last_save = time.monotonic()
        plain = json.dumps({"entries": entries}, separators=(",", ":")).encode()
        nonce = secrets.token_bytes(12)
        blob = _MAGIC + nonce + AESGCM(self._file_key()).encrypt(nonce, plain, _MAGIC)
        folder = self.path.parent
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".vault-", suffix=".tmp", dir=folder)
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(blob)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with _suppress_os_error():
                os.unlink(tmp)
            raise

    def flush(self, *, force: bool = False) -> None:
        """Save when there are new entries and ``save_interval`` has passed (or ``force``)."""
        if self.path is None or not self._dirty:
            return
        if force or time.monotonic() - self._last_save >= self.save_interval:
            try:
                self.save()
            except OSError:
                logger.warning("Could not write the pseudonym vault file", exc_info=True)


def _first_parts(known: set[str]) -> re.Pattern[str]:
    """The first hyphen-separated parts of ``known`` as whole parts of a name."""
    heads = sorted({v.split("-", 1)[0] for v in known}, key=len, reverse=True)
    alternatives = "|".join(map(re.escape, heads)) or "(?!)"
    return re.compile(rf"(?<![A-Za-z0-9])(?:{alternatives})(?![A-Za-z0-9])")


def _parts_in_names(text: str, known: set[str], heads: re.Pattern[str]
                    ) -> list[tuple[int, int]]:
    """Spans of ``known`` project ids written as whole hyphen-separated parts of a word or of
    a dotted or hyphenated name (``<project>``, ``<project>-backups-7d3f9a``,
    ``…-<project>-EU-…``, ``<project>.analytics``), never inside a longer part. Only where a
    known id's first part (``heads``) stands are longer windows of parts tried: a regex of
    those first parts (few: one per project) finds them faster than a lookup per word."""
    spans: list[tuple[int, int]] = []
    part = _NAME_PART.match
    pos = 0
    for m in heads.finditer(text):
        start, end = m.span()
        if start < pos:
            continue
        while True:
            if text[start:end] in known:
                spans.append((start, end))
                pos = end
                break
            if text[end:end + 1] != "-" or (nxt := part(text, end + 1)) is None or (
                    nxt.end() - start > 30):
                break
            end = nxt.end()
    return spans


class _suppress_os_error:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> bool:
        return exc[0] is not None and issubclass(exc[0], OSError)


def _flush_at_exit(ref: weakref.ref[Vault]) -> None:
    vault = ref()
    if vault is not None:
        vault.flush(force=True)


def _as_bytes(key: bytes | str) -> bytes:
    return key if isinstance(key, bytes) else str(key).encode()
