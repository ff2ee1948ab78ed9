"""The policy the layer consults: visibility, call checks, rate limits, pipelines, audit.

This is the surface ``CloudGMCPLayer`` calls (``is_allowed``, ``check_call``,
``input_pipeline``, ``output_pipeline``, ``record_hidden``, ``record_rejection``, ``vault``,
``name``, ``audit_log``). Decisions and pipelines depend only on the spec and the caller's
roles (and id, when a rule matches principals), so both are computed once per pair and
cached: the layer asks for the output pipeline several times per request.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, TypeVar

from ..layer.context import Principal
from ..layer.enums import Capability, Sensitivity
from ..layer.errors import AccessDeniedError, RateLimitedError
from ..layer.specs import AnySpec
from ..transforms.builder import PipelineBuilder, Steps, combine_steps, normalize_steps
from ..transforms.pipeline import Pipeline
from ..transforms.redact import Redactor
from ..transforms.vault import Vault
from .audit import AuditRing
from .document import PolicyError, load_document, validate_document
from .ratelimit import RateLimit, RateLimiter
from .rules import Access, Rule, decide, spec_names

__all__ = ["Policy"]

_CACHE_LIMIT = 4096
_Key = tuple[Any, ...]
_Cached = TypeVar("_Cached")


class Policy:
    """A loaded policy document plus its runtime state (audit ring, rate buckets, vault)."""

    def __init__(self, document: Mapping[str, Any] | None = None) -> None:
        doc = dict(document or {})
        label = f"document {doc['name']!r}" if isinstance(doc.get("name"), str) else "document"
        validate_document(doc, label)
        self.document = doc
        self.name: str = str(doc.get("name") or "custom")
        self.description: str = str(doc.get("description") or "")
        self.hide_denied: bool = bool(doc.get("hide_denied", False))
        self.audit: bool = bool(doc.get("audit", False))
        self.audit_log = AuditRing(int(doc.get("audit_size", 1000)))
        try:
            self._base = Access.parse(doc)
            self._roles = [
                Rule.parse(body or {}, f"roles.{role}", role=str(role))
                for role, body in (doc.get("roles") or {}).items()
            ]
            self._rules = [
                Rule.parse(rule, str(rule.get("name") or f"rules[{i}]"))
                for i, rule in enumerate(doc.get("rules") or ())
            ]
            self._limits = [
                RateLimit.parse(e, f"rate_limits[{i}]")
                for i, e in enumerate(doc.get("rate_limits") or ())
            ]
            self._transforms: Steps = normalize_steps(doc.get("transforms"), "transforms")
            self._inputs: Steps = normalize_steps(
                doc.get("input_transforms"), "input_transforms", "input"
            )
            self._builder = PipelineBuilder(
                policy_name=self.name,
                options=doc.get("transform_options") or {},
                detectors=doc.get("detectors") or (),
                disabled_detectors=doc.get("disabled_detectors") or (),
            )
        except ValueError as exc:
            if isinstance(exc, PolicyError):
                raise
            raise PolicyError(f"Policy {label}: {exc}") from None
        self.vault = Vault.from_config(doc.get("vault"))
        self._limiter = RateLimiter()
        self._by_principal = any(r.match.uses_principals for r in self._rules)
        self._open = self._base.empty and not any(
            not r.access.empty or r.access.allow_capabilities for r in (*self._roles, *self._rules)
        )
        self._depseudonymize = self._builder.pseudonymizes(self._transforms) or any(
            self._builder.pseudonymizes(combine_steps(self._transforms, r.transforms, r.mode))
            for r in (*self._roles, *self._rules) if r.transforms is not None
        )
        self._decisions: dict[tuple[Any, ...], tuple[AnySpec, str | None]] = {}
        self._outputs: dict[tuple[Any, ...], tuple[AnySpec, Pipeline]] = {}
        self._inputs_cache: dict[tuple[Any, ...], tuple[AnySpec, Pipeline]] = {}
        self._limit_cache: dict[tuple[Any, ...], tuple[AnySpec, list[RateLimit]]] = {}

    def __repr__(self) -> str:
        return f"Policy(name={self.name!r})"

    @classmethod
    def load(cls, source: Any = None) -> Policy:
        """A policy from a profile name, file path, dict or inline JSON.

        ``None`` reads ``$CLOUDG_MCP_POLICY``, else the ``standard`` profile. A Policy is
        returned as is.
        """
        if isinstance(source, Policy):
            return source
        return cls(load_document(source))

    # -- compatibility views ---------------------------------------------------------------

    @property
    def max_sensitivity(self) -> Sensitivity | None:
        return self._base.max_sensitivity

    @property
    def deny_capabilities(self) -> frozenset[Capability]:
        return self._base.deny_capabilities

    @property
    def allow_capabilities(self) -> frozenset[Capability]:
        return self._base.allow_capabilities

    # -- matching --------------------------------------------------------------------------

    def _key(self, spec: AnySpec, principal: Principal | None) -> tuple[Any, ...]:
        roles: frozenset[str] = getattr(principal, "roles", frozenset())
        pid = getattr(principal, "id", None) if self._by_principal else None
        return (id(spec), roles, pid)

    def matching_rules(self, spec: AnySpec, principal: Principal | None) -> list[Rule]:
        """The principal's role rules (document order), then the rules whose match holds."""
        roles = set(getattr(principal, "roles", ()) or ())
        out = [r for r in self._roles if r.match.roles[0] in roles]
        out.extend(r for r in self._rules if r.match.holds(spec, principal))
        return out

    @staticmethod
    def _remember(
        cache: dict[_Key, tuple[AnySpec, _Cached]], key: _Key, spec: AnySpec, value: _Cached
    ) -> None:
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        cache[key] = (spec, value)

    # -- access ----------------------------------------------------------------------------

    def decide(self, spec: AnySpec, principal: Principal | None) -> str | None:
        """The reason ``principal`` may not use ``spec``, or None when allowed."""
        if self._open:
            return None
        key = self._key(spec, principal)
        hit = self._decisions.get(key)
        if hit is not None and hit[0] is spec:
            return hit[1]
        reason = decide(self._base, self.matching_rules(spec, principal), spec)
        self._remember(self._decisions, key, spec, reason)
        return reason

    def is_allowed(self, spec: AnySpec, principal: Principal | None) -> bool:
        """Whether ``spec`` is listed (and resolvable) for ``principal``.

        With ``hide_denied`` a denied primitive is invisible — listing and calling it look
        exactly like a nonexistent one; otherwise it is listed and ``check_call`` refuses.
        """
        if not self.hide_denied:
            return True
        return self.decide(spec, principal) is None

    def check_call(
        self, spec: AnySpec, principal: Principal | None, arguments: dict[str, Any]
    ) -> None:
        """Refuse (AccessDeniedError / RateLimitedError) or allow the call; audit it."""
        self._check(spec, principal, arguments or {}, spec.kind)

    def check_completion(self, spec: AnySpec, principal: Principal | None) -> None:
        """Refuse or allow completing an argument of ``spec``: checked and rate limited like
        a call, and audited with kind ``completion``."""
        self._check(spec, principal, {}, "completion")

    def _check(
        self, spec: AnySpec, principal: Principal | None, args: dict[str, Any], kind: str
    ) -> None:
        reason = self.decide(spec, principal)
        if reason is not None:
            self.audit_log.record("denied", kind, spec.name, principal, args, reason)
            raise AccessDeniedError(
                f"Access denied by policy '{self.name}': {reason}. Ask an administrator for "
                "a role or policy that allows it.",
                data={"policy": self.name, "reason": reason, "kind": kind},
            )
        limits = self._limits_for(spec, principal, kind)
        if limits:
            refused = self._limiter.take(limits, str(getattr(principal, "id", "")), spec.name)
            if refused is not None:
                limit, wait = refused
                self.audit_log.record(
                    "rate_limited", kind, spec.name, principal, args,
                    f"{limit.label} per {limit.scope}",
                )
                raise RateLimitedError(
                    f"Rate limit reached for {kind} '{spec.name}' ({limit.label}, "
                    f"scope {limit.scope}). Try again in {max(1, math.ceil(wait))} s.",
                    data={"retry_after": round(wait, 3), "limit": limit.label,
                          "scope": limit.scope, "policy": self.name},
                )
        if self.audit or Capability.REVEAL in spec.capabilities:
            self.audit_log.record("allowed", kind, spec.name, principal, args)

    def _limits_for(self, spec: AnySpec, principal: Principal | None, kind: str) -> list[RateLimit]:
        key = (*self._key(spec, principal), kind)
        hit = self._limit_cache.get(key)
        if hit is not None and hit[0] is spec:
            return hit[1]
        names = spec_names(spec)
        pool = list(self._limits)
        for rule in self.matching_rules(spec, principal):
            pool.extend(rule.rate_limits)
        limits = [lim for lim in pool if lim.applies(names, kind)]
        self._remember(self._limit_cache, key, spec, limits)
        return limits

    # -- transforms ------------------------------------------------------------------------

    def output_steps(self, spec: AnySpec, principal: Principal | None) -> Steps:
        steps = self._transforms
        for rule in self.matching_rules(spec, principal):
            if rule.transforms is not None:
                steps = combine_steps(steps, rule.transforms, rule.mode)
        return steps

    def input_steps(self, spec: AnySpec, principal: Principal | None) -> Steps:
        steps = self._inputs
        for rule in self.matching_rules(spec, principal):
            if rule.input_transforms is not None:
                steps = combine_steps(steps, rule.input_transforms, rule.mode)
        return steps

    def output_pipeline(self, spec: AnySpec, principal: Principal | None) -> Pipeline:
        """Output transforms for ``spec`` and this caller (empty: falsy, zero cost)."""
        key = self._key(spec, principal)
        hit = self._outputs.get(key)
        if hit is not None and hit[0] is spec:
            return hit[1]
        pipeline = self._builder.output(
            self.output_steps(spec, principal),
            reveal=Capability.REVEAL in getattr(spec, "capabilities", ()),
            hints=getattr(spec, "transform_hints", None),
        )
        self._remember(self._outputs, key, spec, pipeline)
        return pipeline

    def input_pipeline(self, spec: AnySpec, principal: Principal | None) -> Pipeline:
        """Input transforms (guard, depseudonymiser) for ``spec`` and this caller."""
        key = self._key(spec, principal)
        hit = self._inputs_cache.get(key)
        if hit is not None and hit[0] is spec:
            return hit[1]
        reveal = Capability.REVEAL in getattr(spec, "capabilities", ())
        pipeline = self._builder.input(
            self.input_steps(spec, principal),
            depseudonymize=self._depseudonymize and not reveal,
        )
        self._remember(self._inputs_cache, key, spec, pipeline)
        return pipeline

    def redactor_for(self, spec: AnySpec, principal: Principal | None) -> Redactor | None:
        """The redaction settings that apply to ``spec`` for this caller (None: no redact)."""
        steps = self.output_steps(spec, principal)
        if "redact" not in steps:
            return None
        return self._builder.redactor(
            steps["redact"], reveal=Capability.REVEAL in getattr(spec, "capabilities", ())
        )

    @property
    def rate_limits(self) -> list[RateLimit]:
        return list(self._limits)

    # -- audit hooks -----------------------------------------------------------------------

    def record_hidden(self, kind: str, name: str, principal: Principal | None) -> None:
        self.audit_log.record("not_found", kind, str(name)[:200], principal)

    def record_rejection(
        self, spec: AnySpec, principal: Principal | None, error: Exception
    ) -> None:
        # The error's message names the argument path (and schema messages may quote what
        # the caller sent): the ring keeps only what kind of rejection it was.
        reason = _REJECTION_REASONS.get(type(error).__name__, f"{type(error).__name__}")
        self.audit_log.record("rejected", spec.kind, spec.name, principal, None, reason)


_REJECTION_REASONS = {
    "InputRejectedError": "an argument was refused by an input transform (it looked like a "
                          "secret or an unknown pseudonym)",
    "InvalidArgumentsError": "the arguments failed validation",
}
