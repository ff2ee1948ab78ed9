"""Detectors: what a secret, credential, identifier, PII or network value looks like in text.

A ``Detector`` is a compiled pattern with a kind, the entity it reports, cheap literal
triggers (a string without any trigger is never regex-scanned) and an optional validator that
refines or rejects a match. ``BUILTIN_DETECTORS`` is the catalogue; policies add their own
with ``custom_detector`` and switch built-ins off by name. Written on the stdlib ``re``: the
patterns are small and the scanner (``scan.py``) keeps them off most strings.
"""

from __future__ import annotations

import ipaddress
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..layer.wire import URI_SCHEME
from .kinds import KINDS
from .strategies import STRATEGIES
from .vendor_tokens import LOWER, LOWER_TRIGGERS, MIXED, vendors

__all__ = [
    "KINDS",
    "Detector",
    "Finding",
    "BUILTIN_DETECTORS",
    "SHIELDS",
    "detector_names",
    "custom_detector",
    "looks_high_entropy",
    "aws_service_host",
    "GCP_PROJECT_ID",
    "RANDOM_RUN",
]

#: Characters a match may never span: the scanner joins strings with NUL.
_SEP = "\x00"

Validator = Callable[[str], "str | None"]


@dataclass(frozen=True)
class Detector:
    """One kind of sensitive value: a pattern, its entity and how to find it cheaply.

    ``group`` names the part of the match that is sensitive (``0``: all of it), so
    ``postgres://app:<password>@host`` loses only the password. ``triggers`` are literal
    substrings one of which every match contains (lower-case when ``lower``); an empty tuple
    means the pattern itself is cheap enough to run over all text. ``validate`` returns the
    entity to report (e.g. ``ipv4_private``) or None to drop a false match.
    """

    name: str
    kind: str
    pattern: re.Pattern[str]
    description: str
    group: int = 0
    triggers: tuple[str, ...] = ()
    lower: bool = False
    #: Literal substrings every match contains, all of them (lower-case when ``lower``):
    #: a string holding a trigger but not these is not searched (``scheme://`` is common in
    #: cloud data; ``scheme://user:password@`` is not).
    requires: tuple[str, ...] = ()
    validate: Validator | None = None
    entities: tuple[str, ...] = ()
    builtin: bool = True
    strategy: str | None = None  # a custom detector's own strategy, beating the policy's
    #: Most matches are false (``validate`` rejects them): the scanner filters match texts
    #: in bulk and locates only the survivors.
    rare: bool = False
    #: The pattern starts with a literal: scanning all text with it is cheap.
    literal: bool = False
    #: A cheap pattern (starting with a literal) found in every match: only the strings it
    #: finds are searched with the full pattern.
    anchor: re.Pattern[str] | None = None
    #: Every match has an upper-case letter: only strings that are not all lower case are
    #: searched (joined, in one pass).
    mixed: bool = False
    #: Matches are ids or public material (ARNs, cloud resource names, cloudg:// URIs,
    #: public keys, certificates): secret findings inside one are dropped (see ``scan``).
    shield: bool = False
    #: Only a shield: its own matches are never reported or rewritten.
    shield_only: bool = False
    #: A guess from the look of a value (high entropy), not from its format: dropped inside
    #: shields it overlaps and under keys that name public material.
    weak: bool = False
    #: The sensitive part is a free value (a password after ``password=``, a flag's value)
    #: that ends where the text clearly moves on: the scanner carries a match over
    #: punctuation inside the value (``p@ss,w0rd;x``) so a redaction never leaves a tail.
    open_end: bool = False

    def __post_init__(self) -> None:
        if not self.entities:
            object.__setattr__(self, "entities", (self.name,))

    @property
    def priority(self) -> int:
        return KINDS.index(self.kind) if self.kind in KINDS else 0

    def info(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "entities": list(self.entities),
            "description": self.description,
            "builtin": self.builtin,
        }


@dataclass(slots=True)
class Finding:
    """Where ``detector`` matched: ``[start, end)`` of a string, the entity it found, and the
    detector's rank (priority: lower wins where findings overlap)."""

    start: int
    end: int
    entity: str
    detector: Detector
    rank: int


# -- validators ------------------------------------------------------------------------------


def _entropy(text: str) -> float:
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


def looks_high_entropy(token: str) -> bool:
    """Whether ``token`` looks like a random secret rather than a word, id, path or hash.

    Random base62/base64 strings mix upper case, lower case and digits throughout, switch
    character class at most positions and use many distinct characters. Lower-case ids
    (``i-0abc…``), hex digests, UUIDs and CamelCase names fail at least one test.
    """
    n = len(token)
    if n < 20 or token.lower() == token or token.upper() == token:
        return False
    if len(_CAMEL_WORD.findall(token)) >= 3:
        return False  # CamelCase words: a generated name (OrdersApiLambdaServiceRole…)
    upper = lower = digit = switches = 0
    prev = 0
    for ch in token:
        if "a" <= ch <= "z":
            cls = 1
            lower += 1
        elif "A" <= ch <= "Z":
            cls = 2
            upper += 1
        elif "0" <= ch <= "9":
            cls = 3
            digit += 1
        else:
            cls = 4
        if prev and cls != prev and cls != 4 and prev != 4:
            switches += 1  # switches inside pieces: separators join words, not noise
        prev = cls
    if digit < 2 or upper < n * 0.15 or lower < n * 0.15:
        return False
    pieces = _PIECE_SEPARATORS.split(token)
    if switches < sum(len(p) - 1 for p in pieces if p) * 0.42:
        return False
    return _entropy(token) >= 0.82 * math.log2(min(n, 64))


_CAMEL_WORD = re.compile(r"[A-Z][a-z]{4,}")
_PIECE_SEPARATORS = re.compile(r"[-_.]")


def _high_entropy(token: str) -> str | None:
    return "high_entropy_string" if looks_high_entropy(token.strip("=")) else None


def ipv4_octets(text: str) -> tuple[int, int, int, int] | None:
    """The four octets of a dotted-quad IPv4 address (no leading zeros), else None."""
    parts = text.split(".")
    if len(parts) != 4:
        return None
    out = []
    for part in parts:
        if not part.isdigit() or (len(part) > 1 and part[0] == "0"):
            return None
        n = int(part)
        if n > 255:
            return None
        out.append(n)
    return out[0], out[1], out[2], out[3]


def _ipv4(text: str) -> str | None:
    octets = ipv4_octets(text)
    if octets is None:
        return None
    a, b = octets[0], octets[1]
    if a in (0, 127) or octets == (255, 255, 255, 255):
        return None  # unspecified, loopback, broadcast: not identifying
    if a == 10 or (a == 172 and 16 <= b <= 31) or (a == 192 and b == 168):
        return "ipv4_private"
    private = ipaddress.IPv4Address(text).is_private  # the rarer reserved ranges
    return "ipv4_private" if private else "ipv4_public"


def _ipv6(text: str) -> str | None:
    if text.count(":") < 2:
        return None
    try:
        ip = ipaddress.IPv6Address(text)
    except ValueError:
        return None
    if ip.is_unspecified or ip.is_loopback:
        return None
    # Short all-decimal forms ("12:30:45") are times, not addresses.
    if all(part.isdigit() for part in text.split(":") if part) and len(text) < 16:
        return None
    return "ipv6_private" if (ip.is_private or ip.is_link_local) else "ipv6_public"


_PUBLIC_SUFFIXES = (
    "amazonaws.com", "amazon.com", "aws.amazon.com", "cloudfront.net", "azure.com",
    "windows.net", "microsoft.com", "azurewebsites.net", "googleapis.com", "google.com",
    "gcr.io", "pkg.dev", "docker.io", "github.com", "githubusercontent.com", "example.com",
    "example.org", "example.net", "example", "w3.org", "schema.org", "json-schema.org",
    "core.windows.net",
)
_FILE_EXTENSIONS = frozenset((
    "py", "js", "ts", "json", "yaml", "yml", "txt", "md", "csv", "tsv", "html", "css", "xml",
    "sh", "ps1", "tf", "tfvars", "cfg", "ini", "toml", "log", "gz", "zip", "tar", "jar", "war",
    "exe", "dll", "so", "png", "jpg", "jpeg", "gif", "svg", "pdf", "ipynb", "parquet",
))


#: Endpoints AWS names after a customer's resource (``<db>.<id>.<region>.rds.amazonaws.com``):
#: the labels before the service's public part identify the customer's database, cache,
#: cluster or load balancer.
_AWS_REGION = r"[a-z]{2}(?:-gov|-iso[a-z]?)?-[a-z]+-\d"
_AWS_SERVICE_HOST = re.compile(
    rf"(?P<own>[a-z0-9.-]+?)\.(?P<public>(?:(?:{_AWS_REGION}\.)?"
    r"(?:rds|cache|redshift|redshift-serverless|es|aoss|docdb|neptune|elb|memorydb|dax)"
    rf"|(?:kafka|mq|efs|fsx)\.{_AWS_REGION})\.amazonaws\.com(?:\.cn)?)"
)


def aws_service_host(host: str) -> tuple[str, str] | None:
    """(customer part, public part) of an AWS service endpoint such as an RDS host name."""
    m = _AWS_SERVICE_HOST.fullmatch(host.lower())
    return (m.group("own"), m.group("public")) if m else None


def _hostname(text: str) -> str | None:
    host = text.lower().rstrip(".")
    if host.rsplit(".", 1)[-1] in _FILE_EXTENSIONS:
        return None
    if any(host == s or host.endswith("." + s) for s in _PUBLIC_SUFFIXES):
        return "hostname" if aws_service_host(host) is not None else None
    return "hostname"


def _ip_host(text: str) -> str | None:
    """``ip-10-42-7-19``: an EC2 / EKS node name that spells a private address."""
    octets = ipv4_octets(text[3:].replace("-", "."))
    return "hostname" if octets is not None and _ipv4(".".join(map(str, octets))) == (
        "ipv4_private") else None


def _account(text: str) -> str | None:
    return None if len(set(text)) == 1 else "aws_account_id"


def _not_a_word(text: str) -> str | None:
    """Prose continues with words (“the password is required”); a credential is not one."""
    word = text.rstrip(".!?:")
    if word.isalpha() and (word.islower() or word.istitle() or word.isupper()):
        return None
    return "prose_password"


def _timestamp(text: str) -> str | None:
    return "timestamp"


_PLACEHOLDER = re.compile(
    r"\$\{[^{}]*\}|\$\([^()]*\)|\{\{[^{}]*\}\}|%\([^()]*\)s|<[^<>]*>|\*{3,}|x{4,}|X{4,}"
    r"|\[REDACTED[^\]]*\]"
)


def _not_a_placeholder(entity: str) -> Validator:
    """A value, unless it is a template placeholder (``${DB_PASSWORD}``, ``{{ .token }}``,
    ``<password>``, ``****``) or an earlier redaction."""
    def check(text: str) -> str | None:
        return None if _PLACEHOLDER.fullmatch(text.strip()) else entity
    return check


_PORT = re.compile(r"\d{1,5}(?:[/?#]|$)")


def _not_a_port(entity: str) -> Validator:
    """A URL's password, unless it is the port of a URL whose path holds an ``@``
    (``https://host:8080/@scope/pkg``)."""
    def check(text: str) -> str | None:
        return None if _PORT.match(text) else entity
    return check


_HEX_DIGEST = re.compile(r"[0-9a-fA-F]{40}|[0-9a-fA-F]{64}|[0-9a-fA-F]{128}")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _token_like(text: str) -> str | None:
    """A generated key (letters and digits mixed), not a word, a digest, a path or an id."""
    if _HEX_DIGEST.fullmatch(text) or _UUID.fullmatch(text) or text.count(".") > 1:
        return None
    if "/" in text and not looks_high_entropy(text):
        return None  # a path, not a base64 key
    digits = sum(c.isdigit() for c in text)
    letters = sum(c.isalpha() for c in text)
    if digits < 2 or letters < 2:
        return None
    return "named_key_assignment"


# -- the catalogue ---------------------------------------------------------------------------


def _d(
    name: str, kind: str, pattern: str, description: str, *, flags: int = 0,
    anchor: str | None = None, **kw: Any,
) -> Detector:
    compiled_anchor = re.compile(anchor) if anchor else None
    return Detector(name, kind, re.compile(pattern, flags), description, anchor=compiled_anchor,
                    **kw)


# Character classes never include NUL, so no match spans two joined strings. Patterns marked
# ``literal`` start with a literal (a word boundary, where needed, is a look-behind *after*
# it), which lets the regex engine skip ahead: scanning all text with them is as cheap as
# looking for a trigger.
_TOKEN = r"A-Za-z0-9._~+/=\-"
#: A run of base64 / token characters at least ``%d`` long (``RANDOM_RUN % n``): the
#: high-entropy detector's matches, and the runs the scanner tries to decode as base64.
RANDOM_RUN = r"(?<![A-Za-z0-9+/=_\-])[A-Za-z0-9+/=_\-]{%d,}+"
#: A Google Cloud project id: 6 to 30 lower-case letters, digits and hyphens.
GCP_PROJECT_ID = r"[a-z][a-z0-9-]{4,28}[a-z0-9]"
_ARN_REST = r"[^\s\"'<>,;)\]}\x00\\]+"
#: Names whose value is a secret in ``name=value`` text, never right after ``:`` or ``/``
#: (ARN and path segments such as ``…:secret:name`` are ids). Grouped by first letter, each
#: branch starting with a literal: the regex engine then skips ahead to those letters (a
#: look-behind in front of the alternation would make it try every position).
_SECRET_NAMES = (
    r"p(?<![:/]p)(?:assword|asswd|wd|assphrase|rivate[_-]?key|(?<![a-z]p)at)"
    r"|s(?<![:/]s)(?:ecret(?:[_-]?key)?|(?<![a-z]s)(?:igning|hared|torage|ession)[_-]?key)"
    r"|a(?<![:/]a)(?:pi[_-]?key|pp[_-]?key|ccess[_-]?token|uth[_-]?token"
    r"|(?<![a-z]a)(?:ccess|uth|ccount)[_-]?key)"
    r"|l(?<![:/]l)icense[_-]?key|t(?<![:/]t)oken|e(?<![a-z:/]e)ncryption[_-]?key"
    r"|m(?<![a-z:/]m)aster[_-]?key"
)
#: Words a secret's name may end with after the name itself: DB_PASSWORD_PROD,
#: SECRET_KEY_BASE, GITHUB_TOKEN_2, api_key.b64.
_NAME_SUFFIX = (
    r"(?:[_.-](?:\d+|prod|production|stage|staging|dev|test|qa|uat|base|value|b64|base64|hex|"
    r"enc|encoded|raw|plain|old|new|current|primary|secondary))*"
)
#: Key names ending in ``_key`` that name ids, paths or public material, not secrets (or
#: that ``password_assignment`` already knows).
_NOT_SECRET_KEY_WORDS = (
    "public", "pub", "ssh", "host", "cache", "sort", "partition", "primary", "foreign",
    "routing", "idempotency", "dedup", "lookup", "object", "s3", "bucket", "tag", "label",
    "group", "row", "hash", "range", "kms", "cmk", "sse", "field", "column", "index", "map",
    "cursor", "page", "registry", "image", "metric", "api", "app", "license", "private",
    "secret", "access", "auth", "signing", "encryption", "master", "account", "shared",
    "storage", "session", "gpg", "pgp", "search", "query", "cdk", "dynamo", "table",
    "attribute", "attr", "item", "message", "msg", "event", "state", "config", "setting",
    "lock", "lease", "stream", "shard", "sequence", "version", "file", "path", "prefix", "name",
    "type", "sha", "md5", "checksum",
)
#: ``key`` preceded by a name of two or more characters and ``_ . -`` but none of the words
#: above: fixed-width look-behinds after the literal, so the engine skips to each ``key``.
_VENDOR_KEY_NAME = r"key(?<=[a-z0-9]{2}[_.-]key)" + "".join(
    rf"(?<![^a-z0-9]{word}[_.-]key)(?<!^{word}[_.-]key)" for word in _NOT_SECRET_KEY_WORDS)
#: A URL's user:password: the password runs to the last ``@`` that starts a host (it may
#: hold ``@``, ``:`` and ``/`` written raw), the user name may itself be an e-mail address.
_USERINFO = (
    r"[^\s:/\x00'\"]{0,128}:([^\s\x00'\"]{1,256})@(?=[A-Za-z0-9\[])"
)

BUILTIN_DETECTORS: tuple[Detector, ...] = (
    # -- secrets -----------------------------------------------------------------------------
    _d(
        "private_key", "secret",
        r"-----(?i:BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?)-----"
        r"(?:[^\x00]*?-----(?i:END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?)-----"
        r"|[A-Za-z0-9+/=\s\\]*)",
        "PEM private keys (RSA, EC, DSA, OpenSSH, PKCS#8, PGP), with or without the END line",
        literal=True,
    ),
    _d(
        "gcp_service_account_key", "secret",
        r"\"private_key_id\"\s*:\s*\"([0-9a-fA-F]{16,64})\"",
        "The private_key_id of a Google Cloud service-account key file",
        group=1, literal=True,
    ),
    _d(
        "jwt", "secret",
        r"eyJ(?<![A-Za-z0-9_-]eyJ)[A-Za-z0-9_-]{6,}\.eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}",
        "JSON Web Tokens (three base64url parts starting with eyJ)",
        literal=True,
    ),
    _d(
        "connection_string", "secret",
        r"(?i)\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|"
        rf"sqlserver|oracle|cockroachdb|jdbc:[a-z0-9]+)://{_USERINFO}",
        "Database connection strings (postgres, mysql, mongodb, redis ...) with a password",
        group=1, triggers=("://",), requires=("@",), validate=_not_a_port("connection_string"),
    ),
    _d(
        "url_credentials", "secret",
        rf"\b[a-zA-Z][a-zA-Z0-9+.-]{{1,20}}://{_USERINFO}",
        "URLs that carry a user name and password before the host",
        group=1, triggers=("://",), requires=("@",), validate=_not_a_port("url_credentials"),
    ),
    _d(
        "azure_storage_key", "secret",
        r"(?i)\b(?:AccountKey|SharedAccessKey|PrimaryKey|SecondaryKey)\s*=\s*"
        r"([A-Za-z0-9+/]{20,}={0,2})",
        "Azure storage account / service bus keys in connection strings",
        group=1, triggers=("key",), lower=True,
    ),
    _d(
        "azure_sas_token", "secret",
        r"(?i)[?&;]sig=([A-Za-z0-9%+/]{16,}(?:%3D|=){0,2})",
        "Azure shared access signatures (sig= in SAS URLs and connection strings)",
        group=1, triggers=("sig=",), lower=True,
    ),
    _d(
        "aws_secret_access_key", "secret",
        r"(?i)\b(?:aws_?)?secret_?access_?key\b(?:\\?[\"'])?\s*[:=]\s*(?:\\?[\"'])?"
        r"([A-Za-z0-9/+]{40})"
        r"(?![A-Za-z0-9/+])",
        "AWS secret access keys written as aws_secret_access_key = …",
        group=1, triggers=("secret",), lower=True,
    ),
    _d(
        "authorization_header", "secret",
        r"(?i)\b(?:proxy-)?authorization\b[\"']?\s*[:=]\s*[\"']?"
        r"(?:(?:bearer|basic|token|digest|negotiate|aws4-hmac-sha256|ssws|apikey|api-key|key|"
        r"sharedkey(?:lite)?|sharedaccesssignature|hmac|genie(?:key)?|otp)\s+)?"
        rf"([{_TOKEN},:]{{8,}})",
        "Authorization header values (Bearer, Basic, SSWS, AWS4 signatures …)",
        group=1, triggers=("authorization",), lower=True, open_end=True,
    ),
    _d(
        "header_secret", "secret",
        # (each branch starts with a literal, the word boundary checked after it: fast skip)
        r"(?i)(?:x(?<![\w-]x)-(?:api-key|auth-token|access-token|functions-key|vault-token|"
        r"consul-token|goog-api-key|figma-token|shopify-access-token|pagerduty-token|api-token|"
        r"auth-key)|o(?<![\w-]o)cp-apim-subscription-key|p(?<![\w-]p)rivate-token"
        r"|d(?<![\w-]d)d-(?:api|application)-key)\b[\"']?\s*[:=]\s*[\"']?"
        rf"([{_TOKEN}]{{8,}})",
        "API keys in request headers (X-Api-Key, Ocp-Apim-Subscription-Key, PRIVATE-TOKEN, "
        "X-Vault-Token …)",
        group=1, triggers=("key", "token"), lower=True, open_end=True,
    ),
    _d(
        "bearer_token", "secret",
        rf"(?i)\bbearer\s+([{_TOKEN}]{{16,}})",
        "Bearer tokens outside an Authorization header",
        group=1, triggers=("bearer",), lower=True,
    ),
    _d(
        "github_token", "secret",
        r"g(?<![A-Za-z0-9]g)(?:h[pousr]_[A-Za-z0-9]{36,255}|ithub_pat_[A-Za-z0-9_]{22,255})",
        "GitHub personal, OAuth, app and fine-grained tokens",
        literal=True,
    ),
    _d(
        "slack_token", "secret",
        r"xox(?<![A-Za-z0-9]xox)[abposre]-[A-Za-z0-9-]{10,}",
        "Slack bot, user and app tokens (xoxb-, xoxp- …)",
        literal=True,
    ),
    _d(
        "slack_webhook", "secret",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+",
        "Slack incoming-webhook and workflow URLs (the path is the secret)",
        literal=True,
    ),
    _d(
        "google_api_key", "secret",
        r"AIza(?<![A-Za-z0-9]AIza)[0-9A-Za-z_-]{35}",
        "Google API keys (AIza…)",
        literal=True,
    ),
    _d(
        "stripe_key", "secret",
        r"\b(?:sk|rk|pk)_(?:live|test|prod)_[0-9A-Za-z]{16,}",
        "Stripe secret, restricted and publishable keys",
        triggers=("_live_", "_test_", "_prod_"),
    ),
    _d(
        "password_assignment", "secret",
        rf"(?i)(?:{_SECRET_NAMES}){_NAME_SUFFIX}"
        # (four characters of value ahead, punctuation allowed: the scanner carries the
        # value over it)
        r"(?:\\?[\"'])?\s*(?::=|=>|[:=])\s*(?:\\?[\"'])?(?=[^\s\x00\\]{4})"
        r"([^\s\"',;&\x00\\]+)",
        "Assignments such as password=…, DB_PASSWORD_PROD: …, api_key=… in free text",
        group=1, triggers=("pass", "pwd", "secret", "key", "token", "_pat"), lower=True,
        open_end=True, validate=_not_a_placeholder("password_assignment"),
    ),
    _d(
        "quoted_secret_assignment", "secret",
        rf"(?i)(?:{_SECRET_NAMES}){_NAME_SUFFIX}(?:\\?[\"'])?\s*(?::=|=>|[:=])\s*"
        r"(\\?[\"'])((?:\\[^\x00\n]|(?!\1)[^\x00\n\\]){6,256}?)\1",
        "Quoted secret assignments whose value holds any character, escaped quotes too "
        "(SECRET_KEY = '…', \"password\": \"a\\\"b\")",
        group=2, triggers=("pass", "pwd", "secret", "key", "token", "_pat"), lower=True,
        validate=_not_a_placeholder("quoted_secret_assignment"),
    ),
    _d(
        "named_key_assignment", "secret",
        rf"(?i){_VENDOR_KEY_NAME}"
        rf"{_NAME_SUFFIX}(?:\\?[\"'])?\s*(?::=|=>|[:=])\s*(?:\\?[\"'])?"
        r"([A-Za-z0-9+/=_.~-]{16,})(?![A-Za-z0-9+/=_.~:-])",
        "Token-like values assigned to a vendor's key name (MAILGUN_KEY=…, DD_KEY: …)",
        group=1, triggers=("key",), lower=True, validate=_token_like,
    ),
    _d(
        "prose_password", "secret",
        r"(?i)\b(?:password|passwd|passphrase|pwd|secret|token|api key)"
        r"(?:\s+(?:is|was|set to|reset to|changed to|now))+\s*[:=]?\s*[\"'`]?"
        r"([^\s\"'`\x00]{3,}[^\s\"'`\x00,;.:)!?])",
        "Credentials written as prose: “the admin password is …”, “token set to …”",
        group=1, triggers=("pass", "pwd", "secret", "token", "key"), lower=True,
        validate=_not_a_word, open_end=True,
    ),
    _d(
        "xml_secret_element", "secret",
        r"(?i)<((?:[\w.-]+:)?[\w.-]{0,40}?(?:password|passwd|pwd|secret|token|api[_-]?key|"
        r"access[_-]?key|private[_-]?key)"
        r"(?:[_.-]?(?:value|string|text|b64|base64|hex|\d+))?)(?:\s[^<>\x00]*)?>"
        r"((?!\s*<)[^<\x00]{3,4096})</\1>",
        "Secrets in XML elements named after them (<password>…</password>, <ApiKey>…)",
        group=2, triggers=("pass", "pwd", "secret", "token", "key"), lower=True,
        validate=_not_a_placeholder("xml_secret_element"),
    ),
    _d(
        "xml_setting_value", "secret",
        r"(?i)<add\s+(?:key|name)\s*=\s*\"[^\"\x00]{0,64}?(?:password|passwd|pwd|secret|token|"
        r"api[_-]?key|apikey|access[_-]?key)[^\"\x00]{0,20}\"\s+value\s*=\s*\"([^\"\x00]{3,})\"",
        "Secrets in .NET / NuGet settings: <add key=\"DbPassword\" value=\"…\"/>",
        group=1, triggers=("pass", "pwd", "secret", "token", "key"), lower=True,
    ),
    _d(
        "powershell_secure_string", "secret",
        r"(?i)ConvertTo-SecureString\s+(?:-String\s+)?([\"'])((?:(?!\1)[^\x00\n]){3,256})\1"
        r"(?=[^\n\x00]{0,40}-AsPlainText)",
        "Passwords turned into PowerShell secure strings from plain text "
        "(ConvertTo-SecureString '…' -AsPlainText)",
        group=2, triggers=("convertto-securestring",), lower=True,
    ),
    _d(
        "netrc_password", "secret",
        r"(?i)\bmachine\b[^\x00]{0,300}?\bpassword[ \t]+([^\s\x00]{3,})",
        "Passwords in .netrc entries (machine … login … password …)",
        group=1, triggers=("pass",), lower=True,
    ),
    _d(
        "named_pair_text", "secret",
        r"(?i)[\"'](?:ParameterKey|Key|Name|TagKey)[\"']\s*:\s*[\"'][^\"'\x00]{0,64}?"
        r"(?:password|passwd|secret|token|api_?key|app_?key|license_?key|(?<![a-z])pat)[\"']"
        r"\s*,\s*[\"'](?:ParameterValue|Value|TagValue)[\"']\s*:\s*([\"'])"
        r"((?:(?!\1)[^\x00\\]|\\[^\x00]){4,})\1",
        "Name/value pairs written as JSON text whose name says secret (CloudFormation "
        "parameters, tags, env lists inside a string)",
        group=2, triggers=("value",), lower=True,
    ),
    _d(
        "cli_secret_flag", "secret",
        r"(?i)--[a-z0-9-]{0,40}?(?:password|passwd|secret|token|api-?key|app-?key|"
        r"access-?key)(?:=|[ \t]+)[\"']?(?!-)([^\s\"'\x00]{3,})",
        "Secrets given as command-line flags: --admin-password X, --client-secret=X, --token X",
        group=1, triggers=("--",), open_end=True,
    ),
    _d(
        "cli_quoted_secret_flag", "secret",
        r"(?i)--[a-z0-9-]{0,40}?(?:password|passwd|secret|token|api-?key|app-?key|"
        r"access-?key)(?:=|[ \t]+)([\"'])((?:(?!\1)[^\x00\n]){3,256})\1",
        "Quoted secrets given as command-line flags, spaces included: --password 'a b;c'",
        group=2, triggers=("--",),
    ),
    _d(
        "cli_short_password_flag", "secret",
        r"(?i)\b(?:mysql\w*|mariadb\w*|ldap\w*|sshpass|redis-cli)\b[^\n\x00]{0,200}?"
        r"[ \t](?:-p|-w|-a)[ \t]*[\"']?([^\s\"'\x00-][^\s\"'\x00]{2,})",
        "Passwords after -p/-w/-a in mysql, ldapsearch, sshpass and redis-cli command lines",
        group=1, triggers=("mysql", "mariadb", "ldap", "sshpass", "redis-cli"), lower=True,
        open_end=True,
    ),
    _d(
        "cli_user_password", "secret",
        r"(?:\s-u|--user)[ \t=]+[\"']?[^\s:\"'\x00]{1,64}:([^\s\"'\x00]{3,})",
        "user:password given to curl -u / --user",
        group=1, triggers=("-u ", "--"), open_end=True,
    ),
    _d(
        "cli_login_token", "secret",
        r"(?i)\b(?:auth|login)[ \t]+(?!-)([A-Za-z0-9._~+/=-]{20,})(?![^\s\x00])",
        "Tokens passed to a CLI login or auth command (vault login …, snyk auth …)",
        group=1, triggers=("auth ", "login "), lower=True, open_end=True,
    ),
    _d(
        "pgpass_line", "secret",
        r"(?<![\w:.-])(?=[^:\s\x00]*[A-Za-z])[A-Za-z0-9.*-]{1,253}:(?:\d{1,5}|\*):[\w*.-]{1,63}:"
        r"[\w*.@-]{1,63}:([^\s:'\"\x00]{3,})(?=['\"\s]|$)",
        "Password files of the .pgpass form host:port:database:user:password",
        group=1, anchor=r":(?:\d{1,5}|\*):[\w*.-]{1,63}:",
    ),
    _d(
        "vendor_token", "secret",
        # the look-ahead rejects short runs before the alternatives are tried
        r"(?<![A-Za-z0-9_])(?=[A-Za-z0-9_.:=+/~%-]{20})(?:"
        + "|".join(pattern for _, pattern in MIXED) + r")(?![A-Za-z0-9_])",
        f"Vendor tokens by their documented formats ({vendors(MIXED)})",
        mixed=True,
    ),
    _d(
        "vendor_token_lower", "secret",
        r"(?<![A-Za-z0-9_])(?:" + "|".join(pattern for _, pattern in LOWER)
        + r")(?![A-Za-z0-9_])",
        f"Vendor tokens that can be all lower case ({vendors(LOWER)})",
        triggers=LOWER_TRIGGERS,
    ),
    _d(
        "mailgun_private_key", "secret",
        r"(?<![0-9a-z-])[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}(?![0-9a-z-])",
        "Mailgun private API keys of the current form (32 hex, then two groups of 8 hex)",
        anchor=r"-[0-9a-f]{8}-[0-9a-f]{8}(?![0-9a-z-])",
    ),
    _d(
        "putty_private_key", "secret",
        r"Private-Lines:[ \t]*\d+[^\x00]*?(?:Private-(?:MAC|Hash):[ \t]*[0-9a-fA-F]+|$)",
        "The private part of PuTTY key files (Private-Lines … Private-MAC)",
        literal=True,
    ),
    _d(
        "azure_function_key", "secret",
        r"(?i)[?&]code=([A-Za-z0-9_%/+-]{30,}(?:%3D|=){0,2})",
        "Azure Functions keys (and OAuth codes) in URLs: ?code=…",
        group=1, triggers=("://",),
    ),
    _d(
        "webhook_url", "secret",
        r"(?i)\bhttps://(?:(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks|"
        r"[a-z0-9-]+\.webhook\.office\.com/webhookb2|outlook\.office\.com/webhook)/"
        r"([A-Za-z0-9@/_-]{20,})",
        "Webhook URLs whose path is the secret (Discord, Microsoft Teams)",
        group=1, triggers=("webhook",), lower=True,
    ),
    _d(
        "cli_password", "secret",
        r"(?i)--(?:password|passwd|pass)(?:=|[ \t]+)(?!-)([^\s\"'\x00]{3,})",
        "Passwords given on a command line: --password X, --password=X",
        group=1, triggers=("--pass",), lower=True, open_end=True,
    ),
    _d(
        "mysql_password_flag", "secret",
        r"(?i)\b(?:mysql\w*|mariadb\w*)\b[^\n\x00]{0,200}?[ \t]-p([^\s\"'\x00-][^\s\"'\x00]{2,})",
        "Passwords glued to -p in mysql / mariadb command lines (-pSecret)",
        group=1, triggers=("mysql", "mariadb"), lower=True, open_end=True,
    ),
    _d(
        "userinfo_password", "secret",
        r"(?<![\w/:.@%+-])[A-Za-z0-9._-]{1,64}:(?!//)([^\s\x00'\"]{3,128})@"
        r"(?=[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)",
        "user:password@host without a URL scheme",
        group=1, triggers=("@",), validate=_not_a_port("userinfo_password"),
    ),
    _d(
        "high_entropy_string", "secret",
        RANDOM_RUN % 20,
        "Random-looking tokens (mixed case and digits, high entropy), e.g. keys in tags",
        validate=_high_entropy, rare=True, weak=True,
    ),
    # -- credentials -------------------------------------------------------------------------
    _d(
        "aws_access_key_id", "credential",
        r"A(?<![A-Za-z0-9]A)(?:KIA|SIA|BIA|CCA|3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])",
        "AWS access key ids (AKIA… long-term, ASIA… temporary, ABIA, ACCA, A3T…)",
        literal=True,
    ),
    # -- identifiers -------------------------------------------------------------------------
    _d(
        "aws_arn", "identifier",
        rf"arn:aws(?<![A-Za-z0-9]arn:aws)[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:(?:\d{{12}})?:{_ARN_REST}",
        "Amazon Resource Names",
        literal=True, shield=True,
    ),
    _d(
        "azure_resource_id", "identifier",
        r"(?i)/subscriptions/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
        r"(?:/[^\s/\"'\x00,;]+)*",
        "Azure resource ids (/subscriptions/…/resourceGroups/…/providers/…)",
        triggers=("/subscriptions/",), lower=True, shield=True,
    ),
    _d(
        "gcp_resource_name", "identifier",
        r"projects/(?<![A-Za-z0-9_-]projects/)[a-z][a-z0-9-]{4,28}[a-z0-9](?:/[A-Za-z0-9._-]+)*",
        "Google Cloud resource names (projects/…/zones/…/instances/…)",
        literal=True, shield=True,
    ),
    _d(
        "gcp_project_path", "identifier",
        rf"(?<![\w.-])(?:[a-z0-9-]+-docker\.pkg\.dev|(?:[a-z]{{2,4}}\.)?gcr\.io)/"
        rf"({GCP_PROJECT_ID})(?=/)",
        "Google Cloud project ids in registry paths (europe-docker.pkg.dev/<project>/…, "
        "gcr.io/<project>/…)",
        group=1, triggers=("pkg.dev/", "gcr.io/"), entities=("gcp_project",),
        validate=lambda _text: "gcp_project",
    ),
    _d(
        "gcp_project_id", "identifier",
        r"(?i:--project(?:-id)?(?:=|[ \t]+)|(?<![A-Za-z0-9_])(?:gcp[_-]?|google[_-]?cloud[_-]?)?"
        r"project[_-]?(?:id)?(?:\\?[\"'])?[ \t]*[:=][ \t]*(?:\\?[\"'])?)"
        rf"({GCP_PROJECT_ID})(?![A-Za-z0-9_-])",
        "Google Cloud project ids written as project_id: …, \"projectId\": \"…\", --project …",
        group=1, triggers=("project",), lower=True, entities=("gcp_project",),
        validate=lambda _text: "gcp_project",
    ),
    _d(
        "aws_account_id", "identifier",
        r"(?<![\w.+-])\d{12}(?:(?!\w|\.\w)|(?=\.dkr\.ecr[.-]))",
        "Twelve-digit AWS account ids (also the first label of an ECR registry host)",
        validate=_account,
    ),
    _d(
        "uuid", "identifier",
        r"(?<![0-9A-Za-z])[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
        r"[0-9a-fA-F]{12}(?![0-9A-Za-z])",
        "UUIDs (subscription, tenant, object and request ids)",
        anchor=r"-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-",
    ),
    # -- PII ---------------------------------------------------------------------------------
    _d(
        "email", "pii",
        r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})*"
        r"\.[A-Za-z]{2,24}\b",
        "E-mail addresses (user@domain.tld)",
        triggers=("@",),
    ),
    # -- network -----------------------------------------------------------------------------
    _d(
        "ipv4", "network",
        r"(?<![\d.])\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}(?!\d|\.\d)",
        "IPv4 addresses (reported as ipv4_private or ipv4_public)",
        validate=_ipv4, entities=("ipv4_private", "ipv4_public"), anchor=r"\.\d{1,3}\.\d{1,3}\.\d",
    ),
    _d(
        "ipv6", "network",
        r"(?<![0-9A-Fa-f:])(?:[0-9A-Fa-f]{1,4}:){1,7}(?::|(?::[0-9A-Fa-f]{1,4}){1,6}|"
        r"[0-9A-Fa-f]{1,4})(?![0-9A-Fa-f:])",
        "IPv6 addresses (reported as ipv6_private or ipv6_public)",
        validate=_ipv6, entities=("ipv6_private", "ipv6_public"), anchor=r":[0-9A-Fa-f]{0,4}:",
    ),
    _d(
        "mac_address", "network",
        r"(?<![0-9A-Za-z])[0-9A-Fa-f]{2}(?:[:-][0-9A-Fa-f]{2}){5}(?![0-9A-Za-z])",
        "MAC addresses of network interfaces",
        anchor=r"[:-][0-9A-Fa-f]{2}[:-][0-9A-Fa-f]{2}[:-]",
    ),
    _d(
        "ip_host_name", "network",
        r"(?<![\w.-])ip-\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3}(?![\w-]|\.[A-Za-z0-9])",
        "Node names that spell a private IPv4 address (ip-10-42-7-19)",
        validate=_ip_host, entities=("hostname",), triggers=("ip-",),
    ),
    _d(
        "hostname", "network",
        r"(?i)(?<![\w.-])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.){2,}[a-z]{2,24}"
        r"(?![\w-]|\.[\w-])"
        r"|(?<![\w.-])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+"
        r"(?:internal|local|lan|corp|intra|intranet|private|home\.arpa)(?![\w-]|\.[\w-])",
        "Host names (three or more labels, or an internal suffix such as .internal/.corp), "
        "also at the end of a sentence",
        validate=_hostname, anchor=r"\.[A-Za-z]",
    ),
    # -- temporal ----------------------------------------------------------------------------
    _d(
        "timestamp", "temporal",
        r"(?<![0-9A-Za-z])\d{4}-[01]\d-[0-3]\d(?:[T ][0-2]\d:[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?"
        r"(?:Z|[+-][0-2]\d:?[0-5]\d)?)?(?![0-9A-Za-z])",
        "ISO 8601 dates and timestamps",
        validate=_timestamp, anchor=r"-[01]\d-[0-3]\d",
    ),
)

#: Public material and references that look random but are not secret. They only shield:
#: a secret finding inside one of their matches is dropped; they report nothing themselves.
SHIELDS: tuple[Detector, ...] = (
    _d(
        "cloudg_uri", "identifier", re.escape(URI_SCHEME) + r"[^\s\"'<>\x00\\]+",
        f"{URI_SCHEME} resource URIs (they carry asset ids)", literal=True, shield=True,
        shield_only=True,
    ),
    _d(
        "ssh_public_key", "identifier",
        r"(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp\d{3}|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)"
        r"@openssh\.com)[ \t]+AAAA[A-Za-z0-9+/]+={0,3}",
        "OpenSSH public keys", triggers=("ssh-", "ecdsa-sha2-"), shield=True, shield_only=True,
    ),
    _d(
        "public_pem", "identifier",
        r"-----BEGIN (?:CERTIFICATE|TRUSTED CERTIFICATE|PUBLIC KEY|RSA PUBLIC KEY|X509 CRL|"
        r"CERTIFICATE REQUEST|NEW CERTIFICATE REQUEST|PGP PUBLIC KEY BLOCK)-----"
        r"[A-Za-z0-9+/=\s\\:,.()-]*?-----END [A-Z0-9 ]{3,40}-----",
        "PEM certificates, certificate requests and public keys", literal=True, shield=True,
        shield_only=True,
    ),
    _d(
        "content_digest", "identifier", r"sha(?:1|256|384|512):[A-Za-z0-9+/=_-]{20,}",
        "Content digests (image digests sha256:…)", triggers=("sha",),
        shield=True, shield_only=True,
    ),
)

_BY_NAME = {d.name: d for d in BUILTIN_DETECTORS}


def detector_names() -> list[str]:
    return [d.name for d in BUILTIN_DETECTORS]


def builtin(name: str) -> Detector:
    return _BY_NAME[name]


def custom_detector(spec: dict[str, Any], place: str) -> Detector:
    """A detector from a policy's ``detectors`` entry; ValueError names ``place``."""
    known = {"name", "kind", "pattern", "group", "description", "strategy", "triggers",
             "ignore_case"}
    unknown = set(spec) - known
    if unknown:
        raise ValueError(
            f"{place}: unknown key {sorted(unknown)[0]!r}; known keys: {', '.join(sorted(known))}"
        )
    name = spec.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[a-z][a-z0-9_]{0,63}", name):
        raise ValueError(f"{place}.name: give a lower-case name (letters, digits, _)")
    kind = spec.get("kind", "secret")
    if kind not in KINDS:
        raise ValueError(f"{place}.kind: use one of {', '.join(KINDS)}")
    pattern = spec.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        raise ValueError(f"{place}.pattern: give a regular expression")
    try:
        compiled = re.compile(pattern, re.IGNORECASE if spec.get("ignore_case") else 0)
    except re.error as exc:
        raise ValueError(f"{place}.pattern: not a valid regular expression ({exc})") from None
    if compiled.search(""):
        raise ValueError(f"{place}.pattern: the pattern matches the empty string")
    group = spec.get("group", 0)
    if not isinstance(group, int) or isinstance(group, bool) or not 0 <= group <= compiled.groups:
        raise ValueError(f"{place}.group: the pattern has {compiled.groups} group(s)")
    strategy = spec.get("strategy")
    if strategy is not None and strategy not in STRATEGIES:
        raise ValueError(f"{place}.strategy: use one of {', '.join(STRATEGIES)}")
    triggers = spec.get("triggers", ())
    if not isinstance(triggers, list | tuple) or not all(
        isinstance(t, str) and t for t in triggers
    ):
        raise ValueError(f"{place}.triggers: give a list of literal substrings")
    lower = bool(spec.get("ignore_case"))
    return Detector(
        name, kind, compiled, str(spec.get("description") or f"Custom detector {name}"),
        group=group, triggers=tuple(t.lower() if lower else t for t in triggers), lower=lower,
        builtin=False, strategy=strategy,
    )
