"""What happens to a detected value: redact, mask, hash, pseudonymize, generalize, drop, keep.

``StrategyTable`` resolves the strategy for an entity from a policy's ``strategies`` mapping
(entity name, then detector name, then kind, then the kind's default). ``apply_strategy``
renders the replacement and counts it in the transform report under the strategy's report
key (``redacted: {entity: n}``, ``masked``, ``hashed``, ``pseudonymized``, ...).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from .kinds import KINDS

if TYPE_CHECKING:
    from ..layer.pipeline import PseudonymVault, TransformContext


__all__ = [
    "STRATEGIES",
    "REPORT_KEYS",
    "DROP",
    "StrategyTable",
    "apply_strategy",
    "mask",
    "generalize",
]

STRATEGIES = ("redact", "mask", "hash", "pseudonymize", "generalize", "drop", "keep")
REPORT_KEYS = {
    "redact": "redacted",
    "mask": "masked",
    "hash": "hashed",
    "pseudonymize": "pseudonymized",
    "generalize": "generalized",
    "drop": "dropped",
}
#: Defaults when a policy names no strategy: secrets and credentials go, the rest stays.
KIND_DEFAULTS = {"secret": "redact", "credential": "redact"}


class _Drop:
    """Marker: remove the value (a dict entry or list item) altogether."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "DROP"


DROP: Final = _Drop()

_FALLBACK_KEY = secrets.token_bytes(32)


class StrategyTable:
    """Strategy per entity, resolved once per name and cached."""

    def __init__(self, strategies: Mapping[str, str] | None = None) -> None:
        self.strategies = dict(strategies or {})
        self._cache: dict[tuple[str, str, str], str] = {}

    def resolve(self, entity: str, detector: str, kind: str) -> str:
        key = (entity, detector, kind)
        found = self._cache.get(key)
        if found is None:
            table = self.strategies
            found = (
                table.get(entity) or table.get(detector) or table.get(kind)
                or KIND_DEFAULTS.get(kind, "keep")
            )
            self._cache[key] = found
        return found

    def uses(self, strategy: str) -> bool:
        return strategy in self.strategies.values()

    def active_kinds(self) -> set[str]:
        """Kinds for which some entity may be transformed (any non-keep strategy)."""
        out = {k for k in KINDS if KIND_DEFAULTS.get(k, "keep") != "keep"}
        for name, strategy in self.strategies.items():
            if name in KINDS:
                if strategy == "keep":
                    out.discard(name)
                else:
                    out.add(name)
        return out


def mask(text: str) -> str:
    """Keep at most four characters at each end (fewer for short values)."""
    n = len(text)
    if n >= 16:
        return text[:4] + "*" * (n - 8) + text[-4:]
    if n >= 8:
        return "*" * (n - 2) + text[-2:]
    return "*" * n


def _hash(entity: str, text: str, vault: PseudonymVault | None) -> str:
    if vault is not None:
        return str(vault.hash(entity, text))
    return hmac.new(_FALLBACK_KEY, f"{entity}|{text}".encode(), hashlib.sha256).hexdigest()[:12]


def generalize(entity: str, text: str) -> str:
    """A coarser form that keeps what analyses usually need (network, domain, date)."""
    try:
        if entity.startswith("ipv4"):
            return str(ipaddress.ip_network(f"{text}/24", strict=False))
        if entity.startswith("ipv6"):
            return str(ipaddress.ip_network(f"{text}/64", strict=False))
    except ValueError:
        pass
    if entity == "email" and "@" in text:
        return "*@" + text.rsplit("@", 1)[1]
    if entity == "timestamp":
        return text[:10]
    if entity == "aws_arn":
        parts = text.split(":", 5)
        if len(parts) == 6:
            rtype = parts[5].split("/", 1)[0].split(":", 1)[0]
            return ":".join(parts[:4]) + ":*:" + rtype + "/*"
    if entity == "hostname" and "." in text:
        return "*." + text.split(".", 1)[1]
    return f"[{entity.upper()}]"


def apply_strategy(
    strategy: str, text: str, entity: str, ctx: TransformContext, vault: PseudonymVault | None
) -> Any:
    """The replacement for ``text`` (or ``DROP``), counted in ``ctx.report``."""
    if strategy == "keep":
        return text
    if strategy == "redact":
        out: Any = f"[REDACTED:{entity}]"
    elif strategy == "mask":
        out = mask(text)
    elif strategy == "hash":
        out = f"[HASH:{_hash(entity, text, vault)}]"
    elif strategy == "pseudonymize":
        if vault is None:
            out = f"[HASH:{_hash(entity, text, vault)}]"
        else:
            out = vault.pseudonymize(entity, text)
    elif strategy == "generalize":
        out = generalize(entity, text)
    elif strategy == "drop":
        out = DROP
    else:  # validated when the policy loads; never reached with a valid policy
        out = f"[REDACTED:{entity}]"
    ctx.count(REPORT_KEYS.get(strategy, "redacted"), entity)
    return out
