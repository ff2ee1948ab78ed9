"""Access rules: the policy's own lists, per-role rules and per-match rules, and the decision.

Decision for one spec and principal: collect the matching rules (the principal's roles, then
``rules`` whose ``match`` holds) → any explicit deny wins (policy or rule deny lists, a
rule's denied capability) → the sensitivity ceiling (the highest ceiling among matching
rules replaces the policy's) → a matching rule's allow list skips the policy-level allow
lists → every capability the policy denies that the spec needs must be granted by a
matching rule (or the policy's own ``allow_capabilities``).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..layer.context import Principal
from ..layer.enums import Capability, Sensitivity
from ..layer.specs import AnySpec
from ..transforms.builder import Steps, normalize_steps
from .ratelimit import RateLimit

__all__ = ["Access", "Match", "Rule", "decide", "spec_names", "KIND_PLURAL"]

KIND_PLURAL = {"tool": "tools", "resource": "resources", "template": "resources",
               "prompt": "prompts"}
_LISTS = ("tools", "resources", "prompts", "categories")


def spec_names(spec: AnySpec) -> list[str]:
    names = [spec.name]
    for attr in ("uri", "uri_template"):
        value = getattr(spec, attr, None)
        if value:
            names.append(value)
    return names


def _any_match(names: Iterable[str], patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(n, p) for p in patterns for n in names)


@dataclass(frozen=True)
class Access:
    """Allow/deny lists, capability denials/grants and a ceiling (policy, role or rule)."""

    allow: dict[str, tuple[str, ...] | None]
    deny: dict[str, tuple[str, ...]]
    allow_capabilities: frozenset[Capability]
    deny_capabilities: frozenset[Capability]
    max_sensitivity: Sensitivity | None

    @classmethod
    def parse(cls, doc: Mapping[str, Any]) -> Access:
        allow = {k: (tuple(doc[f"allow_{k}"]) if doc.get(f"allow_{k}") is not None else None)
                 for k in _LISTS}
        deny = {k: tuple(doc.get(f"deny_{k}") or ()) for k in _LISTS}
        ceiling = doc.get("max_sensitivity")
        return cls(
            allow, deny,
            frozenset(Capability.parse(c) for c in doc.get("allow_capabilities") or ()),
            frozenset(Capability.parse(c) for c in doc.get("deny_capabilities") or ()),
            Sensitivity.parse(ceiling) if ceiling else None,
        )

    @property
    def empty(self) -> bool:
        return (
            all(v is None for v in self.allow.values())
            and not any(self.deny.values())
            and not self.deny_capabilities
            and self.max_sensitivity is None
        )


@dataclass(frozen=True)
class Match:
    """When a rule applies: every given condition must hold (any item of a list)."""

    roles: tuple[str, ...] = ()
    principals: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    sensitivity: tuple[str, ...] = ()
    capabilities: tuple[Capability, ...] = ()

    @classmethod
    def parse(cls, doc: Mapping[str, Any] | None) -> Match:
        doc = dict(doc or {})
        sens = doc.get("sensitivity", ())
        if isinstance(sens, str):
            sens = [sens]
        return cls(
            tuple(doc.get("roles") or ()), tuple(doc.get("principals") or ()),
            tuple(doc.get("names") or ()), tuple(doc.get("categories") or ()),
            tuple(doc.get("tags") or ()), tuple(doc.get("kinds") or ()), tuple(sens),
            tuple(Capability.parse(c) for c in doc.get("capabilities") or ()),
        )

    @property
    def uses_principals(self) -> bool:
        return bool(self.principals)

    def holds(self, spec: AnySpec, principal: Principal | None) -> bool:
        if self.roles and not (set(self.roles) & set(getattr(principal, "roles", ()))):
            return False
        if self.principals and not _any_match([str(getattr(principal, "id", ""))],
                                              self.principals):
            return False
        if self.names and not _any_match(spec_names(spec), self.names):
            return False
        if self.categories and not _any_match([spec.category], self.categories):
            return False
        if self.tags and not (set(self.tags) & set(spec.tags)):
            return False
        if self.kinds and spec.kind not in self.kinds:
            return False
        if self.sensitivity and not any(
            sensitivity_holds(spec.sensitivity, s) for s in self.sensitivity
        ):
            return False
        return not (self.capabilities and not (set(self.capabilities) & set(spec.capabilities)))


def sensitivity_holds(level: Sensitivity, condition: str) -> bool:
    """``"confidential"`` (exactly), ``">=confidential"`` or ``"<=internal"``."""
    cond = condition.strip()
    for op in (">=", "<=", ">", "<"):
        if cond.startswith(op):
            other = Sensitivity.parse(cond[len(op):])
            return {">=": level >= other, "<=": level <= other,
                    ">": level > other, "<": level < other}[op]
    return level == Sensitivity.parse(cond)


@dataclass
class Rule:
    """A role's or a rule's access lists, transforms and rate limits."""

    label: str
    access: Access
    match: Match
    transforms: Steps | None = None
    input_transforms: Steps | None = None
    mode: str = "append"
    rate_limits: list[RateLimit] = field(default_factory=list)

    @classmethod
    def parse(cls, doc: Mapping[str, Any], label: str, *, role: str | None = None) -> Rule:
        match = Match(roles=(role,)) if role is not None else Match.parse(doc.get("match"))
        transforms = doc.get("transforms")
        inputs = doc.get("input_transforms")
        return cls(
            label=label,
            access=Access.parse(doc),
            match=match,
            transforms=normalize_steps(transforms, f"{label}.transforms")
            if transforms is not None else None,
            input_transforms=normalize_steps(inputs, f"{label}.input_transforms", "input")
            if inputs is not None else None,
            mode=str(doc.get("mode", "append")),
            rate_limits=[
                RateLimit.parse(e, f"{label}.rate_limits[{i}]")
                for i, e in enumerate(doc.get("rate_limits") or ())
            ],
        )


def decide(base: Access, rules: Sequence[Rule], spec: AnySpec) -> str | None:
    """The reason the call is refused, or None when allowed (see the module docstring)."""
    plural = KIND_PLURAL.get(spec.kind, "tools")
    names = spec_names(spec)
    category = [spec.category]
    caps = set(spec.capabilities)
    for label, access in (("policy", base), *((r.label, r.access) for r in rules)):
        if _any_match(names, access.deny[plural]):
            return f"{plural} denied by {label}"
        if _any_match(category, access.deny["categories"]):
            return f"category denied by {label}"
        if label != "policy":
            blocked = caps & access.deny_capabilities
            if blocked:
                return f"needs capability {_caps(blocked)}, denied by {label}"
    ceilings = [r.access.max_sensitivity for r in rules if r.access.max_sensitivity is not None]
    ceiling = max(ceilings) if ceilings else base.max_sensitivity
    if ceiling is not None and spec.sensitivity > ceiling:
        return f"sensitivity {spec.sensitivity.value} above the ceiling ({ceiling.value})"
    granted = any(
        ((listed := r.access.allow[plural]) is not None and _any_match(names, listed))
        or ((listed_c := r.access.allow["categories"]) is not None
            and _any_match(category, listed_c))
        for r in rules
    )
    if not granted:
        allow = base.allow[plural]
        if allow is not None and not _any_match(names, allow):
            return f"not in the policy's allowed {plural}"
        allow_c = base.allow["categories"]
        if allow_c is not None and not _any_match(category, allow_c):
            return "category not in the policy's allowed categories"
    needed = (caps & base.deny_capabilities) - base.allow_capabilities
    if needed:
        grants: set[Capability] = set()
        for r in rules:
            grants |= r.access.allow_capabilities
        missing = needed - grants
        if missing:
            return f"needs capability {_caps(missing)}"
    return None


def _caps(caps: Iterable[Capability]) -> str:
    return ", ".join(sorted(c.value for c in caps))
