"""CallPlan: what the policy decided about transforming one request, asked once per request.

The layer builds a plan when a request enters (``CloudGMCPLayer.plan``) and carries it on the
``CallInfo``; every transform point of that request (arguments, progress, results, links,
errors) runs the plan's pipelines instead of asking the policy again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from .context import Principal
from .pipeline import Pipeline, TransformContext, merge_report
from .specs import AnySpec

if TYPE_CHECKING:  # type-only: the core never imports the transforms at run time
    from ..transforms.vault import Vault

__all__ = ["CallPlan"]


@dataclass(slots=True)
class CallPlan:
    """The input and output pipelines (and the vault they share) for ``spec`` and
    ``principal``; an empty pipeline costs nothing. Not frozen only because a frozen
    dataclass costs twice as much to build, once per request; treat it as read-only."""

    spec: AnySpec
    principal: Principal
    input: Pipeline
    output: Pipeline
    vault: Vault | None = None

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
