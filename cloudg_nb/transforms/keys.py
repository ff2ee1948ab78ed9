"""Key-name rules: what a mapping key says about the value under it.

``password``, ``DBPassword``, ``client_secret``, ``user_data``, ``Authorization`` ... mark the
whole value as a secret; ``hostname`` or ``account_id`` hint at an identifier a pattern might
miss; ``name``, ``description``, ``tags`` and ``labels`` mark untrusted free text that anyone
in the estate could have written. Keys are split into words (snake, kebab, camel case) and
matched on their trailing words, so ``password_last_used`` is not a password (trailing
digits and encoding words such as ``value`` or ``pem`` are skipped first). ``CodeSha256``,
``tls.crt``, ``ssh_public_key``, ``valueFrom`` or ``*Arn`` name public material or references:
random-looking text under them is not a secret. Decisions are cached per key.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from ..layer.wire import URI_SCHEME

__all__ = ["KeyDecision", "KeyRules", "REFERENCE", "SECRET_ENTITIES", "key_words"]

#: A whole value that only refers to a secret (an ARN, a Secrets Manager / SSM / Key Vault /
#: Secret Manager reference, a cloudg:// URI): under a secret key name it is still not one.
REFERENCE = re.compile(
    r"(?:arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:(?:\d{12})?:\S+"
    r"|(?://secretmanager\.googleapis\.com/)?projects/[a-z0-9-]{4,30}/secrets/[A-Za-z0-9_-]+"
    r"(?:/versions/[A-Za-z0-9_-]+)?"
    r"|@Microsoft\.KeyVault\([^()\s]+\)|https://[a-z0-9-]+\.vault\.azure\.net/secrets/\S+"
    r"|\{\{resolve:(?:ssm|ssm-secure|secretsmanager):[^\s{}]+\}\}"
    r"|" + re.escape(URI_SCHEME) + r"\S+)"
)

_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")

#: Trailing words of a key → secret entity.
_SECRET_SUFFIXES: dict[tuple[str, ...], str] = {
    ("password",): "password", ("passwd",): "password", ("pwd",): "password",
    ("pass",): "password", ("passphrase",): "password", ("passcode",): "password",
    ("pw",): "password", ("password", "hash"): "password",
    ("secret",): "secret", ("secrets",): "secret",
    ("token",): "token", ("tokens",): "token",
    ("api", "key"): "api_key", ("apikey",): "api_key", ("access", "key"): "access_key",
    ("secret", "key"): "secret_key", ("private", "key"): "private_key",
    ("account", "key"): "account_key", ("shared", "key"): "shared_key",
    ("master", "key"): "secret_key", ("signing", "key"): "secret_key",
    ("storage", "key"): "account_key",
    ("credentials",): "credentials", ("credential",): "credentials", ("creds",): "credentials",
    ("user", "data"): "user_data", ("userdata",): "user_data",
    ("connection", "string"): "connection_string", ("connectionstring",): "connection_string",
    ("conn", "str"): "connection_string", ("conn", "string"): "connection_string",
    ("connstr",): "connection_string", ("dsn",): "connection_string",
    ("authorization",): "authorization", ("auth", "header"): "authorization",
    ("cookie",): "cookie", ("cookies",): "cookie",
    ("sas",): "token", ("sas", "token"): "token", ("webhook", "url"): "secret",
    ("client", "key", "data"): "private_key", ("key", "data"): "private_key",
    ("app", "key"): "api_key", ("license", "key"): "api_key", ("licence", "key"): "api_key",
    ("pat",): "token", ("auth", "key"): "api_key", ("encryption", "key"): "secret_key",
    ("client", "key"): "private_key",
}
#: The entities key rules report (a Kubernetes Secret's data values: ``secret_data``).
SECRET_ENTITIES: tuple[str, ...] = (*dict.fromkeys(_SECRET_SUFFIXES.values()), "secret_data")
#: Trailing words of a key naming public material, digests or references (ids, ARNs).
_PUBLIC_SUFFIXES: frozenset[tuple[str, ...]] = frozenset((
    ("sha",), ("digest",), ("digests",), ("hash",), ("checksum",), ("fingerprint",),
    ("etag",), ("e", "tag"), ("crt",), ("cert",), ("certs",), ("certificate",),
    ("certificates",), ("certificate", "body"), ("certificate", "chain"), ("authority", "data"),
    ("certificate", "data"), ("ca", "data"), ("ca", "bundle"), ("ca", "cert"), ("public", "key"),
    ("publickey",), ("pub", "key"), ("public", "keys"), ("authorized", "keys"), ("value", "from"),
    ("arn",), ("arns",), ("id",), ("ids",), ("uri",), ("self", "link"),
))
_PUBLIC = dict.fromkeys(_PUBLIC_SUFFIXES, True)
#: Trailing words that say how a value is written, not what it is: ``client_secret_value``,
#: ``ssh_private_key_pem`` and ``PASSWORD1`` are decided on the words before them.
_ENCODING_WORDS = frozenset(
    ("value", "val", "pem", "der", "b64", "base64", "hex", "encoded", "raw", "plain",
     "plaintext", "str", "txt")
)
#: Words before ``token`` that make it a cursor or an idempotency key, not a secret.
_NOT_SECRET_TOKENS = frozenset(
    (
        "next", "page", "pagination", "continuation", "continue", "sync", "idempotency",
        "client", "request", "cursor", "marker", "resume",
    )
)
#: Trailing words of a key → (identifier entity, kind) for values patterns cannot recognise.
_IDENTIFIER_SUFFIXES: dict[tuple[str, ...], tuple[str, str]] = {
    ("account",): ("aws_account_id", "identifier"),
    ("account", "id"): ("aws_account_id", "identifier"),
    ("owner", "id"): ("aws_account_id", "identifier"),
    ("account", "number"): ("aws_account_id", "identifier"),
    ("project", "id"): ("gcp_project", "identifier"), ("gcp", "project"): ("gcp_project",
                                                                            "identifier"),
    ("hostname",): ("hostname", "network"), ("host", "name"): ("hostname", "network"),
    ("host",): ("hostname", "network"), ("fqdn",): ("hostname", "network"),
    ("dns", "name"): ("hostname", "network"), ("computer", "name"): ("hostname", "network"),
    ("email",): ("email", "pii"), ("email", "address"): ("email", "pii"),
    ("username",): ("username", "pii"), ("user", "name"): ("username", "pii"),
    ("login",): ("username", "pii"), ("principal", "name"): ("username", "pii"),
}
_UNTRUSTED_LAST = frozenset(
    (
        "name", "title", "description", "desc", "summary", "comment", "comments", "note",
        "notes", "message", "text", "body", "reason", "remarks",
    )
)
_UNTRUSTED_SUBTREE = frozenset(
    ["tags", "tag", "labels", "label", "annotations", "tagset", "tag_set"]
)


def key_words(key: str) -> tuple[str, ...]:
    return tuple(w.lower() for w in _WORDS.findall(key))


@dataclass(frozen=True, slots=True)
class KeyDecision:
    """What a key implies: a secret entity for its whole value, an identifier hint, or that
    the text under it is untrusted."""

    secret: str | None = None
    identifier: tuple[str, str] | None = None
    untrusted: bool = False
    public: bool = False


_PLAIN = KeyDecision()


class KeyRules:
    """Decides keys once and remembers (bounded) the answer."""

    def __init__(
        self,
        *,
        secrets: bool = True,
        identifiers: bool = False,
        extra: Mapping[str, str] | None = None,
        untrusted: Iterable[str] = (),
        max_cache: int = 8192,
    ) -> None:
        self.secrets = secrets
        self.identifiers = identifiers
        self.extra = dict(extra or {})
        self.untrusted = tuple(p.lower() for p in untrusted)
        self._cache: dict[str, KeyDecision] = {}
        self._max = max_cache

    def decide(self, key: str) -> KeyDecision:
        found = self._cache.get(key)
        if found is not None:
            return found
        found = self._decide(key)
        if len(self._cache) >= self._max:
            self._cache.clear()
        self._cache[key] = found
        return found

    def _decide(self, key: str) -> KeyDecision:
        words = key_words(key)
        lowered = key.lower()
        secret: str | None = None
        for pattern, entity in self.extra.items():
            if fnmatch.fnmatchcase(lowered, pattern.lower()):
                secret = entity
                break
        if secret is None and self.secrets and words:
            core = words
            while len(core) > 1 and (core[-1] in _ENCODING_WORDS or core[-1].isdigit()):
                core = core[:-1]
            secret = _suffix_match(core, _SECRET_SUFFIXES)
            if (
                secret == "token" and len(core) > 1 and core[-2] in _NOT_SECRET_TOKENS
            ):
                secret = None
        identifier = None
        if secret is None and self.identifiers and words:
            identifier = _suffix_match(words, _IDENTIFIER_SUFFIXES)
        untrusted = bool(words) and (
            words[-1] in _UNTRUSTED_LAST or lowered in _UNTRUSTED_SUBTREE
        )
        if not untrusted and self.untrusted:
            untrusted = any(fnmatch.fnmatchcase(lowered, p) for p in self.untrusted)
        public = False
        if secret is None and words:
            core = words
            while len(core) > 1 and core[-1].isdigit():
                core = core[:-1]
            public = _suffix_match(core, _PUBLIC) is not None
        if secret is None and identifier is None and not untrusted and not public:
            return _PLAIN
        return KeyDecision(secret, identifier, untrusted, public)


_Hit = TypeVar("_Hit")


def _suffix_match(
    words: tuple[str, ...], table: Mapping[tuple[str, ...], _Hit]
) -> _Hit | None:
    for size in (3, 2, 1):
        if len(words) >= size:
            hit = table.get(words[-size:])
            if hit is not None:
                return hit
    return None
