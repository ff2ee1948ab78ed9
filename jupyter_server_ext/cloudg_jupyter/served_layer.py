"""The parts of the one layer the extension serves, from its settings: the catalog (built-in,
an extra registry, oversight), the layer, the policy router, the audit log, the middleware
chain and the session limits.

``EndpointSettings`` holds the extension's traitlets as plain values; every part that cannot
be built raises ``SetupProblem``, one line naming the ``CloudGExtension`` setting to fix.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jupyter_core.paths import jupyter_data_dir

from .call_log import CallLogMiddleware
from .identity import scope_is_assistant, scope_owner

if TYPE_CHECKING:
    from cloudg_nb.layer import CloudGMCPLayer, Principal, Registry
    from cloudg_nb.layer.call_record import CallSink
    from cloudg_nb.layer.middleware import AuditLogMiddleware, ConcurrencyLimitMiddleware
    from cloudg_nb.oversight import ActivityLog, Approval, ApprovalDesk
    from cloudg_nb.oversight.catalog import ManagesAssistants
    from cloudg_nb.policy.router import PolicyRouter
    from cloudg_nb.protocol.sessions import SessionLimits

__all__ = [
    "MAX_ASSISTANT_SESSIONS", "EndpointSettings", "SetupProblem",
    "add_middleware",
    "build_layer", "check_assistant_policy", "concurrency_limit", "open_audit_log",
    "policy_router", "session_limits",
]

#: Open MCP sessions all assistants together may hold, of the server's 1000: the other half
#: stays for Jupyter users, and an assistant's new session never closes one of theirs.
MAX_ASSISTANT_SESSIONS = 500


class SetupProblem(Exception):
    """A configuration problem, said in one line that names the setting."""


@dataclass(frozen=True)
class EndpointSettings:
    """The ``CloudGExtension`` traitlets the endpoint is built from (their help says what each
    means), with the server's ``root_dir`` and ``base_url``."""

    root_dir: Path
    base_url: str
    policy: str
    prefix: str
    datasets: tuple[str, ...]
    allowed_roots: tuple[str, ...]
    output_dir: str
    default_timeout: float
    max_output_chars: int
    audit_log: str | None
    max_concurrency: int
    reserved_concurrency: int
    max_concurrency_per_assistant: int
    max_waiting_per_assistant: int
    cache_ttl: float
    registry: str
    session_idle_timeout: float
    max_sessions_per_user: int
    assistant_policy: str
    assistant_store: str
    approval_timeout: float
    require_approval: tuple[str, ...]
    max_pending_approvals: int
    assistant_max_datasets: int
    assistant_max_assets: int
    activity_size: int
    public_url: str
    show_token: bool


def build_layer(settings: EndpointSettings, *, activity: ActivityLog, desk: ApprovalDesk,
                assistants: ManagesAssistants, log: logging.Logger | logging.LoggerAdapter[Any],
                ) -> CloudGMCPLayer:
    """The layer over the built-in catalog, the extra registry and the oversight tools
    (``assistants`` answers the credential tools), with the settings' policy and limits."""
    from cloudg_nb.assembly import build_layer as assemble
    from cloudg_nb.assistants import is_assistant
    from cloudg_nb.config import CloudGConfig
    from cloudg_nb.oversight.catalog import register as register_oversight
    from cloudg_nb.policy import PolicyError

    root = settings.root_dir
    config = CloudGConfig(
        allowed_roots=[Path(p).expanduser() for p in settings.allowed_roots] or [root],
        output_dir=Path(settings.output_dir).expanduser() if settings.output_dir
        else root / "cloudg-output",
        assistant_max_datasets=max(1, settings.assistant_max_datasets),
        assistant_max_assets=max(0, settings.assistant_max_assets),
        roots_setting="c.CloudGExtension.allowed_roots (jupyter_server_config.py)",
        output_setting="c.CloudGExtension.output_dir (jupyter_server_config.py)",
    )
    try:
        registry = register_oversight(_catalog(settings, log), activity=activity, desk=desk,
                                      assistants=assistants)
        return assemble(
            config,
            policy=settings.policy or None,
            registry=registry,
            prefix=settings.prefix,
            default_timeout=settings.default_timeout or None,
            max_output_chars=settings.max_output_chars or None,
            is_guest=is_assistant,
        )
    except PolicyError as exc:
        raise SetupProblem(f"CloudGExtension.policy: {exc}") from None
    except ValueError as exc:
        setting = "CloudGExtension.prefix" if "prefix" in str(exc) else "the layer"
        raise SetupProblem(f"{setting}: {exc}") from None


def _catalog(settings: EndpointSettings, log: logging.Logger | logging.LoggerAdapter[Any],
             ) -> Registry:
    """The built-in catalog, with ``settings.registry`` merged in."""
    from cloudg_nb.catalog import default_registry
    from cloudg_nb.registry_loading import RegistryTargetError, load_registry

    registry = default_registry()
    if settings.registry:
        try:
            extra = load_registry(settings.registry, "CloudGExtension.registry")
        except RegistryTargetError as exc:
            raise SetupProblem(str(exc)) from None
        except Exception as exc:  # the module itself failed while importing
            log.debug("cloudg: loading the registry failed", exc_info=True)
            raise SetupProblem(f"CloudGExtension.registry: loading {settings.registry} failed "
                               f"({type(exc).__name__}: {exc})"[:300]) from None
        try:
            registry.merge(extra)
        except ValueError as exc:
            raise SetupProblem(f"CloudGExtension.registry: {exc}") from None
    return registry


def policy_router(settings: EndpointSettings, layer: CloudGMCPLayer) -> PolicyRouter:
    """The analyst's policy (the layer's), assistants' profiles and the approval rule."""
    from cloudg_nb.policy import Policy
    from cloudg_nb.policy.approval import ApprovalRule
    from cloudg_nb.policy.router import PolicyRouter

    assert isinstance(layer.policy, Policy)
    return PolicyRouter(layer.policy, assistant_default=settings.assistant_policy,
                        default_approval=ApprovalRule.of_tools(settings.require_approval))


def check_assistant_policy(settings: EndpointSettings, router: PolicyRouter) -> None:
    """``SetupProblem`` unless the assistants' default profile loads."""
    from cloudg_nb.policy import PolicyError

    try:
        router.check_profile(settings.assistant_policy)
    except PolicyError as exc:
        raise SetupProblem(f"CloudGExtension.assistant_policy: {exc}") from None


def open_audit_log(settings: EndpointSettings) -> AuditLogMiddleware | None:
    """The audit log middleware writing to the configured file (None: disabled)."""
    from cloudg_nb.layer.middleware import AuditLogMiddleware

    if settings.audit_log is None:
        path: Path | None = Path(jupyter_data_dir()) / "cloudg" / "audit.jsonl"
    else:
        path = Path(settings.audit_log).expanduser() if settings.audit_log else None
    if path is None:
        return None
    try:
        return AuditLogMiddleware(path=path)
    except OSError as exc:
        raise SetupProblem(
            f"CloudGExtension.audit_log: cannot write {path} ({exc.strerror})") from None


def add_middleware(layer: CloudGMCPLayer, settings: EndpointSettings, *,
                   activity: ActivityLog, desk: ApprovalDesk, router: PolicyRouter,
                   audit: AuditLogMiddleware | None,
                   approval_url: Callable[[Approval, Principal], str],
                   log: logging.Logger | logging.LoggerAdapter[Any]) -> None:
    """One recorder (outermost: its durations include waits) for the audit log, the call log
    and the activity feed; the approval gate, then the concurrency limit (a call waiting for
    the analyst holds no slot; assistants get their fair share, never the analyst's slots)
    and the cache."""
    from cloudg_nb.assistants import is_assistant
    from cloudg_nb.layer.middleware import CachingMiddleware, CallRecorder
    from cloudg_nb.oversight import ACTIVITY_URI, APPROVALS_URI, ActivityMiddleware
    from cloudg_nb.oversight.approvals import ApprovalGate

    # In the order the three middlewares they replace recorded a call (innermost first).
    sinks: list[CallSink] = [] if audit is None else [audit]
    sinks += [CallLogMiddleware(log), ActivityMiddleware(activity, is_assistant)]
    layer.use(CallRecorder(*sinks))
    layer.use(ApprovalGate(desk, router.approval_rule, timeout=settings.approval_timeout,
                           url_for=approval_url))
    limiter = concurrency_limit(settings, is_assistant)
    if limiter is not None:
        layer.use(limiter)
    if settings.cache_ttl > 0:
        layer.use(CachingMiddleware(ttl=settings.cache_ttl,
                                    keep_on=(ACTIVITY_URI, APPROVALS_URI)))


def concurrency_limit(settings: EndpointSettings, is_assistant: Callable[[Principal], bool]
                      ) -> ConcurrencyLimitMiddleware | None:
    """The fair share of tool-call slots: ``max_concurrency`` in all (0: no overall bound),
    ``reserved_concurrency`` of them kept for Jupyter users (at most all but one), each
    assistant at most ``max_concurrency_per_assistant`` running and
    ``max_waiting_per_assistant`` waiting. None when nothing is bounded."""
    from cloudg_nb.layer.middleware import ConcurrencyLimitMiddleware

    limit = settings.max_concurrency if settings.max_concurrency > 0 else None
    per_assistant = (settings.max_concurrency_per_assistant
                     if settings.max_concurrency_per_assistant > 0 else None)
    if limit is None and per_assistant is None:
        return None
    reserved = min(max(0, settings.reserved_concurrency), limit - 1) if limit else 0
    return ConcurrencyLimitMiddleware(
        limit=limit, is_guest=is_assistant, reserved=reserved, per_guest=per_assistant,
        guest_queue=max(0, settings.max_waiting_per_assistant))


def session_limits(settings: EndpointSettings) -> SessionLimits:
    """Sessions per Jupyter user (idle ones end), and all assistants' share of the server's."""
    from cloudg_nb.protocol.sessions import SessionLimits

    return SessionLimits(
        idle_timeout=settings.session_idle_timeout or None,
        per_principal=settings.max_sessions_per_user or None,
        principal_key=scope_owner,
        is_guest=scope_is_assistant,
        guest_sessions=MAX_ASSISTANT_SESSIONS,
    )
