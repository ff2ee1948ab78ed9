"""Annotation writes the classification, provenance, audience and a notice into the report and
never changes the value (so declared output schemas keep holding)."""

from __future__ import annotations

from cloudg_nb import Sensitivity, ToolSpec
from cloudg_nb.transforms import Annotate, TransformContext


def test_value_is_returned_unchanged_and_the_report_describes_it() -> None:
    spec = ToolSpec(name="inv", handler=lambda ctx: {}, sensitivity=Sensitivity.INTERNAL)
    value = {"a": [1, 2]}
    ctx = TransformContext(spec=spec)
    assert Annotate(policy="standard")(value, ctx) is value
    assert ctx.report == {
        "classification": "internal",
        "provenance": {"kind": "tool", "name": "inv", "policy": "standard"},
        "audience": ["user", "assistant"],
    }


def test_a_notice_explains_replaced_values_and_fenced_text() -> None:
    ctx = TransformContext(report={"redacted": {"password": 1}, "untrusted": 1})
    Annotate(policy="standard")({}, ctx)
    assert "placeholders" in ctx.report["notice"]
    assert "⟦untrusted⟧" in ctx.report["untrusted_notice"]


def test_notices_can_be_switched_off() -> None:
    ctx = TransformContext(report={"redacted": {"password": 1}})
    Annotate(notice=False, audience=())({}, ctx)
    assert ctx.report == {"redacted": {"password": 1}}
