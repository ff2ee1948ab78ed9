"""Privacy tools: what the policy does to the caller's data, a preview, the detectors, the
audit ring, and ``reveal_token`` (capability ``reveal``; every call is audited).

They read the layer's policy (``ctx.layer.policy``) and never bypass it: their own results
go through the same output transforms as any other tool's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, Literal, get_args

from pydantic import Field

from ..layer.context import Principal, ToolContext
from ..layer.enums import Capability, Sensitivity
from ..layer.errors import NotFoundError
from ..layer.pipeline import TransformContext
from ..layer.registry import Registry
from ..layer.specs import ToolSpec
from ..policy.engine import Policy
from ..policy.router import PolicyRouter
from ..transforms.strategies import StrategyTable
from .choices import one_of

__all__ = ["register", "DETECTOR_KINDS", "AUDIT_DECISIONS"]

#: The detector kinds list_detectors filters by (``transforms.detectors.KINDS``).
DetectorKind = Literal["secret", "credential", "identifier", "pii", "network", "temporal"]
DETECTOR_KINDS: tuple[DetectorKind, ...] = get_args(DetectorKind)
#: The decisions the policy's audit ring records.
AuditDecision = Literal["allowed", "denied", "rate_limited", "rejected", "not_found"]
AUDIT_DECISIONS: tuple[AuditDecision, ...] = get_args(AuditDecision)


def _policy(ctx: ToolContext) -> Policy:
    """The layer's policy; these tools describe a ``Policy`` (profiles, rules, vault)."""
    policy = ctx.layer.policy if ctx.layer is not None else None
    if isinstance(policy, PolicyRouter):  # the policy that governs this caller
        policy = policy.policy_for(ctx.principal)
    if not isinstance(policy, Policy):
        raise RuntimeError("privacy tools describe a cloudg_nb Policy; this layer runs "
                           f"{type(policy).__name__}")
    return policy


def _own_spec(ctx: ToolContext) -> ToolSpec:
    layer = ctx.layer
    assert layer is not None, "privacy tools run inside a layer"
    return layer.registry.tools.get(ctx.name or "") or next(iter(layer.registry.tools.values()))


def _step_names(pipeline: Iterable[object]) -> list[str]:
    names: list[str] = []
    for step in pipeline:
        names.extend(str(getattr(step, "name", type(step).__name__)).split("+"))
    return names


def privacy_status(ctx: ToolContext) -> dict[str, Any]:
    """Show the privacy policy that applies to you: its name, your roles, which output
    transforms and input checks run on your calls, how each kind of sensitive value is
    treated, the rate limits and the pseudonym vault's state."""
    policy = _policy(ctx)
    spec = _own_spec(ctx)
    principal = ctx.principal
    redactor = policy.redactor_for(spec, principal)
    table: StrategyTable | None = redactor.table if redactor is not None else None
    # Lists of {name, strategy} rather than mappings: key names such as "secret" would be
    # taken for secrets by the key-name rules of the very policy being described.
    strategies = [
        {"kind": kind, "strategy": table.resolve(kind, kind, kind) if table else "keep"}
        for kind in ("secret", "credential", "identifier", "pii", "network", "temporal")
    ]
    return {
        "policy": policy.name,
        "description": policy.description,
        "principal": {
            "id": getattr(principal, "id", None),
            "roles": sorted(getattr(principal, "roles", ()) or ()),
        },
        "hide_denied": policy.hide_denied,
        "audit_every_call": policy.audit,
        "max_sensitivity": policy.max_sensitivity.value if policy.max_sensitivity else None,
        "denied_capabilities": sorted(c.value for c in policy.deny_capabilities),
        "output_transforms": _step_names(policy.output_pipeline(spec, principal)),
        "input_transforms": _step_names(policy.input_pipeline(spec, principal)),
        "strategies_by_kind": strategies,
        "strategy_overrides": [
            {"name": name, "strategy": strategy}
            for name, strategy in (table.strategies.items() if table is not None else ())
        ],
        "rate_limits": [
            {"limit": lim.label, "scope": lim.scope, "tools": list(lim.tools) or ["*"]}
            for lim in policy.rate_limits
        ],
        "vault": policy.vault.status() if policy.vault is not None else None,
        "limitations": _limitations(strategies),
    }


#: What pseudonymisation does not protect against (shown when identifiers are pseudonymised).
SEARCH_ORACLE_NOTE = (
    "Pseudonyms hide identifiers in what tools return, not in what tools search: search and "
    "filter arguments (find_assets query and the like) run on the real values, so many "
    "searches with guessed fragments can confirm parts of a real account id or resource "
    "name. Rate limits bound and the audit log records such probing; do not rely on "
    "pseudonyms alone against a caller that may search freely."
)


def _limitations(strategies: list[dict[str, str]]) -> list[str]:
    pseudonymised = any(
        row["strategy"] == "pseudonymize" for row in strategies
        if row["kind"] in ("identifier", "network", "pii")
    )
    return [SEARCH_ORACLE_NOTE] if pseudonymised else []


def preview_transform(
    ctx: ToolContext,
    value: Annotated[Any, Field(description="A sample value (text or JSON) to transform")],
    tool: Annotated[
        str | None,
        Field(description="Preview as this tool's output would be transformed (default: a "
                          "generic tool)"),
    ] = None,
) -> dict[str, Any]:
    """Preview what the privacy policy does to a sample value before you rely on a tool:
    returns the value as you would receive it (redacted, pseudonymised, fenced, shortened)
    and the transform report with counts per strategy and entity. Like every tool's
    arguments, sample values that look like secrets are refused on input."""
    layer = ctx.layer
    assert layer is not None, "privacy tools run inside a layer"
    policy = _policy(ctx)
    spec = layer.get_tool(tool, ctx.principal) if tool else _own_spec(ctx)
    pipeline = policy.output_pipeline(spec, ctx.principal)
    if not pipeline:
        return {"value": value, "report": {}, "transforms": []}
    tctx = TransformContext(
        direction="output", vault=policy.vault, principal=ctx.principal, spec=spec
    )
    out = pipeline.apply(value, tctx)
    return {"value": out, "report": tctx.report, "transforms": _step_names(pipeline)}


def list_detectors(
    ctx: ToolContext,
    kind: Annotated[
        DetectorKind | None, one_of(DETECTOR_KINDS),
        Field(description="Only detectors of this kind: secret, credential, identifier, pii, "
                          "network or temporal"),
    ] = None,
) -> dict[str, Any]:
    """List the detectors that find sensitive values in outputs (secrets, credentials,
    identifiers, PII, network addresses, timestamps) and the strategy the policy applies to
    each for you (redact, mask, hash, pseudonymize, generalize, drop or keep)."""
    from ..transforms.detectors import BUILTIN_DETECTORS

    policy = _policy(ctx)
    redactor = policy.redactor_for(_own_spec(ctx), ctx.principal)
    detectors = redactor.all_detectors if redactor is not None else list(BUILTIN_DETECTORS)
    rows = []
    for det in detectors:
        if kind is not None and det.kind != kind:
            continue
        row = det.info()
        row["strategies"] = [
            {"entity": e, "strategy": det.strategy or (
                redactor.table.resolve(e, det.name, det.kind) if redactor else "keep")}
            for e in det.entities
        ]
        rows.append(row)
    return {"policy": policy.name, "detectors": rows, "total": len(rows)}


def privacy_audit_log(
    ctx: ToolContext,
    limit: Annotated[int, Field(ge=1, le=1000, description="How many recent entries")] = 50,
    decision: Annotated[
        AuditDecision | None, one_of(AUDIT_DECISIONS),
        Field(description="Only entries with this decision: allowed, denied, rate_limited, "
                          "rejected or not_found"),
    ] = None,
) -> dict[str, Any]:
    """Read the policy's recent access decisions (denied, rate-limited, rejected and unknown
    calls, plus allowed ones when auditing is on and every reveal): who, what and why, with
    argument values only as keyed hashes. Callers see their own entries; an admin (or the
    local user) sees everyone's."""
    entries = _policy(ctx).audit_log.entries()
    principal = ctx.principal
    if not (principal.has_role("admin") or principal == Principal.local()):
        # a team member sees only their own decisions; an admin (or the local user) all
        entries = [e for e in entries if e["principal"] == principal.id]
    if decision is not None:
        entries = [e for e in entries if e["decision"] == decision]
    return {"entries": entries[-limit:], "total": len(entries)}


def reveal_token(
    ctx: ToolContext,
    token: Annotated[str, Field(description="A pseudonym that appeared in a tool result")],
) -> dict[str, Any]:
    """Reveal the real value behind a pseudonym (an account id, ARN, IP address, e-mail ...)
    shown in an earlier result. Needs the reveal capability; every call is audited."""
    policy = _policy(ctx)
    vault = policy.vault
    found = vault.lookup(token) if vault is not None else None
    if found is None:
        raise NotFoundError(
            "Unknown pseudonym: this server's vault did not issue it (or it was restarted "
            "with a different key). Copy the pseudonym exactly as it appeared in a result.",
            data={"kind": "pseudonym"},
        )
    entity, original = found
    return {"pseudonym": token, "entity": entity, "value": original}


def register(registry: Registry) -> None:
    registry.tool(
        privacy_status, title="Privacy policy status", category="privacy",
        sensitivity=Sensitivity.PUBLIC,
    )
    registry.tool(
        preview_transform, title="Preview privacy transforms", category="privacy",
        sensitivity=Sensitivity.INTERNAL,
    )
    registry.tool(
        list_detectors, title="List sensitive-value detectors", category="privacy",
        sensitivity=Sensitivity.PUBLIC,
    )
    registry.tool(
        privacy_audit_log, title="Privacy audit log", category="privacy",
        sensitivity=Sensitivity.CONFIDENTIAL,
    )
    registry.tool(
        reveal_token, title="Reveal a pseudonym", category="privacy",
        sensitivity=Sensitivity.CONFIDENTIAL,
        capabilities={Capability.READ_STATE, Capability.REVEAL},
    )
