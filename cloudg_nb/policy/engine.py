"""The policy the layer consults: visibility, call checks, transform pipelines, audit.

This is the surface ``CloudGMCPLayer`` calls (``is_allowed``, ``check_call``,
``input_pipeline``, ``output_pipeline``, ``record_hidden``, ``record_rejection``, ``vault``).
Access rules here are top-level allow/deny globs, capability denials and a sensitivity
ceiling; roles, per-rule overrides, rate limits and privacy transforms extend it.
"""

from __future__ import annotations

import fnmatch
from typing import Any

from ..layer.enums import Capability, Sensitivity
from ..layer.errors import AccessDeniedError
from ..transforms.pipeline import Pipeline
from .audit import AuditRing
from .document import load_document

__all__ = ["Policy"]

_EMPTY = Pipeline()
_KIND_LIST = {"tool": "tools", "resource": "resources", "template": "resources",
              "prompt": "prompts"}


def _spec_names(spec: Any) -> list[str]:
    names = [spec.name]
    for attr in ("uri", "uri_template"):
        value = getattr(spec, attr, None)
        if value:
            names.append(value)
    return names


def _matches(names: list[str], patterns: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(n, p) for n in names for p in patterns)


class Policy:
    """A loaded policy document plus its runtime state (audit ring, later rate buckets)."""

    def __init__(self, document: dict[str, Any] | None = None) -> None:
        doc = dict(document or {})
        self.document = doc
        self.name: str = str(doc.get("name") or "custom")
        self.description: str = str(doc.get("description") or "")
        self.hide_denied: bool = bool(doc.get("hide_denied", False))
        self.audit: bool = bool(doc.get("audit", False))
        self.audit_log = AuditRing(int(doc.get("audit_size", 1000)))
        ceiling = doc.get("max_sensitivity")
        self.max_sensitivity = Sensitivity.parse(ceiling) if ceiling else None
        self.deny_capabilities = frozenset(
            Capability.parse(c) for c in doc.get("deny_capabilities") or ()
        )
        self.allow_capabilities = frozenset(
            Capability.parse(c) for c in doc.get("allow_capabilities") or ()
        )
        self.vault: Any = None
        self._has_access_rules = bool(
            self.deny_capabilities or self.max_sensitivity is not None
            or any(doc.get(k) is not None for k in doc if k.startswith(("allow_", "deny_")))
        )

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

    # -- access --------------------------------------------------------------------------

    def decide(self, spec: Any, principal: Any) -> str | None:
        """The reason ``principal`` may not use ``spec``, or None when allowed."""
        if not self._has_access_rules:
            return None
        doc = self.document
        names = _spec_names(spec)
        plural = _KIND_LIST.get(getattr(spec, "kind", ""), "tools")
        if _matches(names, doc.get(f"deny_{plural}") or []):
            return f"{plural} denied by policy"
        allow = doc.get(f"allow_{plural}")
        if allow is not None and not _matches(names, allow):
            return f"not in the policy's allowed {plural}"
        if _matches([spec.category], doc.get("deny_categories") or []):
            return "category denied by policy"
        allow_c = doc.get("allow_categories")
        if allow_c is not None and not _matches([spec.category], allow_c):
            return "category not allowed by policy"
        blocked = (set(spec.capabilities) & self.deny_capabilities) - self.allow_capabilities
        if blocked:
            return "needs capability " + ", ".join(sorted(c.value for c in blocked))
        if self.max_sensitivity is not None and spec.sensitivity > self.max_sensitivity:
            return f"sensitivity above the policy ceiling ({self.max_sensitivity.value})"
        return None

    def is_allowed(self, spec: Any, principal: Any) -> bool:
        """Whether ``spec`` is listed (and resolvable) for ``principal``.

        With ``hide_denied`` a denied primitive is invisible; otherwise it is listed and a
        call is refused by ``check_call``.
        """
        if not self.hide_denied:
            return True
        return self.decide(spec, principal) is None

    def check_call(self, spec: Any, principal: Any, arguments: dict[str, Any]) -> None:
        """Raise AccessDeniedError when the call is not allowed; audit the decision."""
        kind = "completion" if "__completion__" in (arguments or {}) else spec.kind
        reason = self.decide(spec, principal)
        if reason is not None:
            self.audit_log.record("denied", kind, spec.name, principal, arguments, reason)
            raise AccessDeniedError(
                f"Access denied by policy '{self.name}': {reason}. Ask an administrator for "
                "a role or policy that allows it.",
                data={"policy": self.name, "reason": reason, "kind": kind},
            )
        if self.audit:
            self.audit_log.record("allowed", kind, spec.name, principal, arguments)

    # -- transforms ----------------------------------------------------------------------

    def output_pipeline(self, spec: Any, principal: Any) -> Pipeline:
        return _EMPTY

    def input_pipeline(self, spec: Any, principal: Any) -> Pipeline:
        return _EMPTY

    # -- audit hooks ---------------------------------------------------------------------

    def record_hidden(self, kind: str, name: str, principal: Any) -> None:
        self.audit_log.record("not_found", kind, str(name)[:200], principal)

    def record_rejection(self, spec: Any, principal: Any, error: Exception) -> None:
        reason = getattr(error, "message", type(error).__name__)
        self.audit_log.record("rejected", spec.kind, spec.name, principal, None, reason)
