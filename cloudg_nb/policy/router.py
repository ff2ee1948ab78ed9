"""PolicyRouter: the owner's policy for Jupyter users, an assistant's own profile for its calls.

The layer holds one policy object; this one answers for each caller with the policy that
governs it. An assistant (``assistant:NAME``) runs under the profile its credential names
(default ``assistant``), loaded once and sharing the owner's pseudonym vault, so a pseudonym
an assistant sees is one the analyst can reveal. Specs tagged ``owner-only`` (approving
calls, managing credentials) do not exist for assistants, whatever their profile says.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..layer.context import Principal
from ..layer.errors import NotFoundError
from ..layer.pipeline import Pipeline
from ..layer.specs import AnySpec
from ..transforms.vault import Vault
from .approval import ApprovalRule
from .audit import AuditRing
from .document import PolicyError
from .engine import AccessPlan, Policy

__all__ = ["OWNER_ONLY", "PolicyRouter"]

logger = logging.getLogger("cloudg.policy")

#: Tag of specs only the owner may see and use (the assistant oversight tools).
OWNER_ONLY = "owner-only"
_EMPTY = Pipeline()


def _is_assistant(principal: Principal | None) -> bool:
    from ..assistants import is_assistant

    return principal is not None and is_assistant(principal)


@dataclass(slots=True, eq=False)
class _Hidden:
    """The plan of an owner-only spec for an assistant: not listed, not resolvable."""

    spec: AnySpec
    visible: bool = False
    listed: bool = False
    input: Pipeline = _EMPTY
    output: Pipeline = _EMPTY
    deny: str | None = "only the analyst may use this"
    limits: dict[str, list[Any]] = field(default_factory=dict)

    def admit(self, principal: Principal | None, kind: str, arguments: Any) -> None:
        raise NotFoundError(f"Unknown {kind}.", data={"kind": kind})


class PolicyRouter:
    """Route each request to the policy that governs its caller.

    ``owner``: the policy of Jupyter users (the analyst). ``assistant_default``: the profile
    of an assistant whose credential names none. ``default_approval``: which assistant calls
    wait for the analyst when a profile has no ``approval`` mapping.
    """

    def __init__(self, owner: Policy, *, assistant_default: str = "assistant",
                 default_approval: ApprovalRule | None = None,
                 loader: Callable[[str], Policy] = Policy.load) -> None:
        self.owner = owner
        self.assistant_default = assistant_default
        self.default_approval = default_approval or ApprovalRule()
        self._loader = loader
        self._by_profile: dict[str, Policy] = {}
        self._rules: dict[int, ApprovalRule] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"PolicyRouter(owner={self.owner.name!r}, assistants={self.assistant_default!r})"

    # -- which policy -----------------------------------------------------------------------

    def profile_of(self, principal: Principal | None) -> str | None:
        """The profile name an assistant runs under; None for everyone else."""
        if not _is_assistant(principal):
            return None
        assert principal is not None
        return str(principal.claims.get("profile") or self.assistant_default)

    def policy_for(self, principal: Principal | None) -> Policy:
        profile = self.profile_of(principal)
        if profile is None:
            return self.owner
        found = self._by_profile.get(profile)
        if found is None:
            with self._lock:
                found = self._by_profile.get(profile) or self._load(profile)
                self._by_profile[profile] = found
        return found

    def _load(self, profile: str) -> Policy:
        try:
            policy = self._loader(profile)
        except PolicyError as exc:
            logger.error("cloudg: assistant policy profile %r cannot be loaded (%s); its "
                         "assistants may use nothing until it is fixed", profile, exc)
            policy = Policy({
                "name": f"{profile[:60]} (unavailable)",
                "description": "The assistant's policy profile could not be loaded.",
                "deny_tools": ["*"], "deny_resources": ["*"], "deny_prompts": ["*"],
            })
        policy.vault = self.owner.vault  # one pseudonym space for everyone
        return policy

    def check_profile(self, profile: str) -> None:
        """Raise PolicyError when ``profile`` does not load (checked before minting)."""
        self._loader(profile)

    def approval_rule(self, principal: Principal | None) -> ApprovalRule | None:
        """Which of ``principal``'s calls need the analyst's approval (None: none do)."""
        if not _is_assistant(principal):
            return None
        policy = self.policy_for(principal)
        rule = self._rules.get(id(policy))
        if rule is None:
            rule = self._rules[id(policy)] = ApprovalRule.parse(
                policy.approval, default=self.default_approval)
        return rule

    # -- what the layer asks (LayerPolicy, PlansAccess) --------------------------------------

    @property
    def name(self) -> str:
        return self.owner.name

    @property
    def vault(self) -> Vault | None:
        return self.owner.vault

    @property
    def audit_log(self) -> AuditRing:
        return self.owner.audit_log

    def access_plan(self, spec: AnySpec, principal: Principal) -> AccessPlan | _Hidden:
        if OWNER_ONLY in spec.tags and _is_assistant(principal):
            return _Hidden(spec)
        return self.policy_for(principal).access_plan(spec, principal)

    def is_allowed(self, spec: AnySpec, principal: Principal) -> bool:
        return self.access_plan(spec, principal).visible

    def check_call(self, spec: AnySpec, principal: Principal, arguments: dict[str, Any]) -> None:
        self.access_plan(spec, principal).admit(principal, spec.kind, arguments)

    def check_completion(self, spec: AnySpec, principal: Principal) -> None:
        self.access_plan(spec, principal).admit(principal, "completion", {})

    def input_pipeline(self, spec: AnySpec, principal: Principal) -> Pipeline:
        return self.access_plan(spec, principal).input

    def output_pipeline(self, spec: AnySpec, principal: Principal) -> Pipeline:
        return self.access_plan(spec, principal).output

    def record_hidden(self, kind: str, name: str, principal: Principal) -> None:
        self.policy_for(principal).record_hidden(kind, name, principal)

    def record_rejection(self, spec: AnySpec, principal: Principal, error: Exception) -> None:
        self.policy_for(principal).record_rejection(spec, principal, error)
