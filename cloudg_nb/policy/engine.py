"""The policy the layer consults: visibility, call checks, rate limits, pipelines, audit.

This is the surface ``CloudGMCPLayer`` calls (``access_plan``, or ``is_allowed``,
``check_call``, ``input_pipeline``, ``output_pipeline``; ``record_hidden``,
``record_rejection``, ``vault``, ``name``, ``audit_log``). What the policy decides depends
only on the spec and the caller's roles (and id, when a rule matches principals), so it is
worked out once per pair, in one pass over the matching rules, as an ``AccessPlan`` (deny
reason, whether it is listed, rate limits, input and output pipelines) that every other
method reads. A ``tool_set`` leaves the tools outside it unlisted, and refuses their calls.
"""

from __future__ import annotations

import fnmatch
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..layer.context import Principal
from ..layer.enums import Capability, Sensitivity
from ..layer.errors import AccessDeniedError, RateLimitedError
from ..layer.pipeline import Pipeline
from ..layer.specs import AnySpec
from ..transforms.builder import PipelineBuilder, Steps, combine_steps, normalize_steps
from ..transforms.redact import Redactor
from ..transforms.vault import Vault
from .audit import AuditRing
from .document import PolicyError, load_document, validate_document
from .ratelimit import RateLimit, RateLimiter
from .rules import Access, Rule, decide, spec_names

__all__ = ["Policy", "AccessPlan"]

_CACHE_LIMIT = 4096

#: The methods that read an ``AccessPlan``. A subclass overriding any of them (and not
#: ``access_plan``) answers through its own methods: the layer must then ask those.
_PLAN_VIEWS = (
    "decide", "is_allowed", "check_call", "check_completion", "input_pipeline",
    "output_pipeline", "input_steps", "output_steps", "_limits_for",
)


@dataclass(slots=True, eq=False)
class AccessPlan:
    """What ``policy`` decided about ``spec`` for one kind of caller (roles, and id when a
    rule matches principals), made once and shared by every request of that caller.

    Read-only once built, except ``limits``, which fills in per kind on first use.
    """

    policy: Policy
    spec: AnySpec
    #: Why the caller may not use ``spec``; None when allowed.
    deny: str | None
    input_steps: Steps
    output_steps: Steps
    input: Pipeline
    output: Pipeline
    #: Rate limits of the policy and the matching rules, before filtering by name and kind.
    pool: tuple[RateLimit, ...]
    #: Whether ``spec`` reveals (de-pseudonymises): every use of it is audited.
    reveals: bool = False
    #: False for a tool outside the policy's ``tool_set``: left out of listings (its calls
    #: are refused by ``deny``, which says why).
    in_tool_set: bool = True
    #: The limits of ``pool`` that apply to ``spec`` for each kind asked so far.
    limits: dict[str, list[RateLimit]] = field(default_factory=dict)

    @property
    def visible(self) -> bool:
        """Whether ``spec`` is listed (and resolvable) for the caller (see ``is_allowed``)."""
        return self.deny is None or not self.policy.hide_denied

    @property
    def listed(self) -> bool:
        """Whether ``spec`` appears in the caller's listings: visible and in the tool set."""
        return self.in_tool_set and self.visible

    def limits_for(self, kind: str) -> list[RateLimit]:
        """The rate limits that apply to a request of ``kind`` (``completion`` or the spec's
        kind) for ``spec``."""
        found = self.limits.get(kind)
        if found is None:
            names = spec_names(self.spec)
            found = self.limits[kind] = [lim for lim in self.pool if lim.applies(names, kind)]
        return found

    def admit(
        self, principal: Principal | None, kind: str, arguments: dict[str, Any] | None
    ) -> None:
        """Refuse (AccessDeniedError / RateLimitedError) or allow one request of ``kind``
        (the spec's kind, or ``completion``); take its rate-limit tokens and audit it."""
        limits = self.limits.get(kind)
        if limits is None:
            limits = self.limits_for(kind)
        if self.deny is None and not limits and not self.reveals and not self.policy.audit:
            return  # nothing to refuse, count or record: the common case, kept short
        _admit(self.policy, self.spec, principal, arguments or {}, kind, self.deny, limits)


class Policy:
    """A loaded policy document plus its runtime state (audit ring, rate buckets, vault)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # A subclass that answers some questions itself (say, its own output pipeline) would
        # be bypassed by a plan built from the document: it offers no plan, so the layer
        # asks its methods one by one instead (a protocol member set to None is absent).
        super().__init_subclass__(**kwargs)
        if "access_plan" not in cls.__dict__ and any(
            getattr(cls, name) is not getattr(Policy, name) for name in _PLAN_VIEWS
        ):
            cls.access_plan = None  # type: ignore[assignment]

    def __init__(self, document: Mapping[str, Any] | None = None) -> None:
        doc = dict(document or {})
        label = f"document {doc['name']!r}" if isinstance(doc.get("name"), str) else "document"
        validate_document(doc, label)
        self.document = doc
        self.name: str = str(doc.get("name") or "custom")
        self.description: str = str(doc.get("description") or "")
        self.hide_denied: bool = bool(doc.get("hide_denied", False))
        #: The tools this policy lists (names or globs; None: every tool), for clients that
        #: take only so many tools.
        self.tool_set: tuple[str, ...] | None = (
            tuple(doc["tool_set"]) if doc.get("tool_set") is not None else None)
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
        #: The document's ``approval`` mapping (which assistant calls wait for the analyst),
        #: None when it says nothing (``ApprovalRule.parse`` reads it).
        self.approval: dict[str, Any] | None = doc.get("approval")
        self._limiter = RateLimiter()
        self._by_principal = any(r.match.uses_principals for r in self._rules)
        self._open = self._base.empty and not any(
            not r.access.empty or r.access.allow_capabilities for r in (*self._roles, *self._rules)
        )
        self._depseudonymize = self._builder.pseudonymizes(self._transforms) or any(
            self._builder.pseudonymizes(combine_steps(self._transforms, r.transforms, r.mode))
            for r in (*self._roles, *self._rules) if r.transforms is not None
        )
        self._plans: dict[tuple[Any, ...], AccessPlan] = {}

    def __repr__(self) -> str:
        return f"Policy(name={self.name!r})"

    @classmethod
    def load(
        cls, source: Policy | str | os.PathLike[str] | Mapping[str, Any] | None = None
    ) -> Policy:
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

    # -- the plan --------------------------------------------------------------------------

    def matching_rules(self, spec: AnySpec, principal: Principal | None) -> list[Rule]:
        """The principal's role rules (document order), then the rules whose match holds."""
        roles = set(getattr(principal, "roles", ()) or ())
        out = [r for r in self._roles if r.match.roles[0] in roles]
        out.extend(r for r in self._rules if r.match.holds(spec, principal))
        return out

    def access_plan(self, spec: AnySpec, principal: Principal | None) -> AccessPlan:
        """Everything this policy decided about ``spec`` for ``principal``: the same object
        for the same spec and roles (and id, when a rule matches principals)."""
        roles: frozenset[str] = getattr(principal, "roles", frozenset())
        pid = getattr(principal, "id", None) if self._by_principal else None
        key = (id(spec), roles, pid)
        plan = self._plans.get(key)
        if plan is not None and plan.spec is spec:  # an id can be reused by a new spec
            return plan
        plan = self._build_plan(spec, principal)
        if len(self._plans) >= _CACHE_LIMIT:
            self._plans.clear()
        self._plans[key] = plan
        return plan

    #: What every other method reads; stays when a subclass withdraws ``access_plan``.
    _plan = access_plan

    def _build_plan(self, spec: AnySpec, principal: Principal | None) -> AccessPlan:
        rules = self.matching_rules(spec, principal)
        outputs, inputs = self._transforms, self._inputs
        pool = list(self._limits)
        for rule in rules:
            if rule.transforms is not None:
                outputs = combine_steps(outputs, rule.transforms, rule.mode)
            if rule.input_transforms is not None:
                inputs = combine_steps(inputs, rule.input_transforms, rule.mode)
            pool.extend(rule.rate_limits)
        reveal = Capability.REVEAL in getattr(spec, "capabilities", ())
        deny = None if self._open else decide(self._base, rules, spec)
        in_set = self.in_tool_set(spec)
        if deny is None and not in_set:
            deny = ("this tool is not in the policy's tool set (a smaller set, for clients "
                    "that take only so many tools); call one of the listed tools, or connect "
                    "with a credential whose profile lists this one")
        plan = AccessPlan(
            policy=self,
            spec=spec,
            deny=deny,
            input_steps=inputs,
            output_steps=outputs,
            input=self._builder.input(inputs, depseudonymize=self._depseudonymize and not reveal),
            output=self._builder.output(
                outputs, reveal=reveal, hints=getattr(spec, "transform_hints", None)),
            pool=tuple(pool),
            reveals=reveal,
            in_tool_set=in_set,
        )
        plan.limits_for(spec.kind)  # the kind every call of the spec asks for
        return plan

    # -- access ----------------------------------------------------------------------------

    def in_tool_set(self, spec: AnySpec) -> bool:
        """Whether ``spec`` is in the policy's ``tool_set`` (anything but a tool always is)."""
        if self.tool_set is None or spec.kind != "tool":
            return True
        return any(fnmatch.fnmatchcase(spec.name, pattern) for pattern in self.tool_set)

    def decide(self, spec: AnySpec, principal: Principal | None) -> str | None:
        """The reason ``principal`` may not use ``spec``, or None when allowed."""
        return self._plan(spec, principal).deny

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
        # Through ``decide`` and ``_limits_for``, so a subclass overriding them is obeyed.
        _admit(self, spec, principal, args, kind, self.decide(spec, principal),
               self._limits_for(spec, principal, kind))

    def _limits_for(self, spec: AnySpec, principal: Principal | None, kind: str) -> list[RateLimit]:
        return self._plan(spec, principal).limits_for(kind)

    # -- transforms ------------------------------------------------------------------------

    def output_steps(self, spec: AnySpec, principal: Principal | None) -> Steps:
        return self._plan(spec, principal).output_steps

    def input_steps(self, spec: AnySpec, principal: Principal | None) -> Steps:
        return self._plan(spec, principal).input_steps

    def output_pipeline(self, spec: AnySpec, principal: Principal | None) -> Pipeline:
        """Output transforms for ``spec`` and this caller (empty: falsy, zero cost)."""
        return self._plan(spec, principal).output

    def input_pipeline(self, spec: AnySpec, principal: Principal | None) -> Pipeline:
        """Input transforms (guard, depseudonymiser) for ``spec`` and this caller."""
        return self._plan(spec, principal).input

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


def _admit(
    policy: Policy, spec: AnySpec, principal: Principal | None, args: dict[str, Any],
    kind: str, reason: str | None, limits: list[RateLimit],
) -> None:
    """Refuse a denied or rate-limited request (recording why), else record it when the
    policy audits everything or the spec reveals."""
    if reason is not None:
        policy.audit_log.record("denied", kind, spec.name, principal, args, reason)
        raise AccessDeniedError(
            f"Access denied by policy '{policy.name}': {reason}. Ask an administrator for "
            "a role or policy that allows it.",
            data={"policy": policy.name, "reason": reason, "kind": kind},
        )
    if limits:
        refused = policy._limiter.take(limits, str(getattr(principal, "id", "")), spec.name)
        if refused is not None:
            limit, wait = refused
            policy.audit_log.record(
                "rate_limited", kind, spec.name, principal, args,
                f"{limit.label} per {limit.scope}",
            )
            raise RateLimitedError(
                f"Rate limit reached for {kind} '{spec.name}' ({limit.label}, "
                f"scope {limit.scope}). Try again in {max(1, math.ceil(wait))} s.",
                data={"retry_after": round(wait, 3), "limit": limit.label,
                      "scope": limit.scope, "policy": policy.name},
            )
    if policy.audit or Capability.REVEAL in spec.capabilities:
        policy.audit_log.record("allowed", kind, spec.name, principal, args)


_REJECTION_REASONS = {
    "InputRejectedError": "an argument was refused by an input transform (it looked like a "
                          "secret or an unknown pseudonym)",
    "InvalidArgumentsError": "the arguments failed validation",
}
