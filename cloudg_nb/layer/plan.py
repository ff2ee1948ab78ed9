"""CallPlan: what the policy decided about one request (access, limits, transforms), asked once.

The layer builds a plan when a request enters (``CloudGMCPLayer.plan``) and carries it on the
``CallInfo``; the name lookup reads its ``visible``, the terminal's check is its ``admit``, and
every transform point (arguments, progress, results, links, errors) runs its pipelines.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from .collaborators import LayerPolicy, PlannedAccess
from .pipeline import Pipeline, PseudonymVault, TransformContext, merge_report
from .principal import Principal
from .specs import AnySpec

__all__ = ["CallPlan"]


@dataclass(slots=True)
class CallPlan:
    """The input and output pipelines (and the vault they share) for ``spec`` and
    ``principal``, whether the spec is visible to it, and how a request is admitted; an
    empty pipeline costs nothing. Not frozen only because a frozen dataclass costs twice as
    much to build, once per request; treat it as read-only."""

    spec: AnySpec
    principal: Principal
    input: Pipeline
    output: Pipeline
    vault: PseudonymVault | None = None
    #: Listed and resolvable for ``principal`` (``LayerPolicy.is_allowed``).
    visible: bool = True
    #: Asked ``check_call`` / ``check_completion`` when there is no ``access``.
    policy: LayerPolicy | None = None
    #: The policy's own plan (``PlansAccess``): it admits requests without a second lookup.
    access: PlannedAccess | None = None

    def admit(self, kind: str, arguments: dict[str, Any]) -> None:
        """Let a request of ``kind`` (``completion``, or the kind of a call) through, or
        raise ``AccessDeniedError`` / ``RateLimitedError``; the policy records either."""
        completion = kind == "completion"
        if self.access is not None:
            self.access.admit(self.principal, "completion" if completion else self.spec.kind,
                              arguments)
        elif self.policy is None:
            raise RuntimeError("This CallPlan was made without a policy, so nothing can admit "
                               "its requests; make plans with layer.plan(spec, principal).")
        elif completion:
            self.policy.check_completion(self.spec, self.principal)
        else:
            self.policy.check_call(self.spec, self.principal, arguments)

    def transform(
        self, value: Any, direction: Literal["input", "output"] = "output"
    ) -> tuple[Any, dict[str, Any]]:
        """``(value, report)`` after the pipeline of ``direction``, with a fresh context."""
        pipeline = self.input if direction == "input" else self.output
        if not pipeline:
            return value, {}
        tctx = TransformContext(direction=direction, vault=self.vault,
                                principal=self.principal, spec=self.spec)
        return pipeline.apply(value, tctx), tctx.report

    def transform_column(self, key: str, cells: list[Any]) -> tuple[list[Any] | None,
                                                                      dict[str, Any]]:
        """``(cells, report)`` after the output pipeline, the cells of column ``key`` taken
        as one-column rows (``Pipeline.apply_column``; None: the pipeline reshaped the rows),
        with a fresh context."""
        tctx = TransformContext(direction="output", vault=self.vault,
                                principal=self.principal, spec=self.spec)
        return self.output.apply_column(key, cells, tctx), tctx.report

    def reporting(self, report: dict[str, Any] | None) -> Callable[[Any], Any] | None:
        """``tr(value)`` running the output pipeline and merging into ``report`` (None: the
        output pipeline is empty, nothing to do)."""
        if not self.output:
            return None

        def tr(value: Any) -> Any:
            new, rep = self.transform(value)
            if report is not None:
                merge_report(report, rep)
            return new

        return tr
