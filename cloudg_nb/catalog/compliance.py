"""Compliance tools: pass rates per framework and the failing controls worth fixing first."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from .. import estate
from ..layer.context import ToolContext
from ..layer.registry import Registry
from .conventions import CursorArg, DatasetArg, LimitArg, dataset_of, filters, page
from .schemas import INT, NNUM, NSTR, STR, arr, obj, page_schema

__all__ = ["register"]

FrameworkArg = Annotated[str | None, Field(
    max_length=64,
    description="Only this framework, e.g. CIS-AWS-2.0, PCI-DSS-4.0, SOC2 "
                "(case-insensitive; compliance_summary lists them).")]


def compliance_summary(
    ctx: ToolContext, framework: FrameworkArg = None, dataset: DatasetArg = ""
) -> dict[str, Any]:
    """How compliant the estate is: per framework the controls assessed, passed, failed,
    not applicable and manual, and the pass rate (passed / (passed + failed)), plus the total."""
    ds = dataset_of(ctx, dataset)
    frameworks = estate.frame_records(estate.compliance_summary(ds, framework))
    passed = sum(f["passed"] for f in frameworks)
    failed = sum(f["failed"] for f in frameworks)
    overall = {"controls": sum(f["controls"] for f in frameworks), "passed": passed,
               "failed": failed,
               "pass_rate": round(passed / (passed + failed), 4) if passed + failed else None}
    return {"dataset": ds.name, "frameworks": frameworks, "overall": overall}


_RATE = {"controls": INT, "passed": INT, "failed": INT, "pass_rate": NNUM}
_SUMMARY = obj({"dataset": STR,
                "frameworks": arr(obj({"framework": STR, **_RATE, "not_applicable": INT,
                                       "manual": INT})),
                "overall": obj(_RATE)})


def compliance_gaps(
    ctx: ToolContext,
    framework: FrameworkArg = None,
    dataset: DatasetArg = "",
    limit: LimitArg = 50,
    cursor: CursorArg = None,
) -> dict[str, Any]:
    """The failing compliance controls, worst first (by the severity and number of their
    open findings): framework, control, title, the findings behind it and the resources
    they concern."""
    ds = dataset_of(ctx, dataset)
    version = ds.version
    frame = estate.compliance_gaps(ds, framework)
    return page(ds, version, frame, filters(framework=framework), limit, cursor)


_GAP = obj({"framework": STR, "control_id": STR, "control_title": NSTR, "findings": INT,
            "open_findings": INT, "max_severity": NSTR, "resources": arr(STR),
            "finding_ids": arr(STR)})


def register(registry: Registry) -> None:
    registry.tool(compliance_summary, title="Compliance summary", category="compliance",
                  output_schema=_SUMMARY)
    registry.tool(compliance_gaps, title="Compliance gaps", category="compliance",
                  output_schema=page_schema(_GAP))
