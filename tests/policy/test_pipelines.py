"""The pipelines the policy hands the layer: cached per (spec, roles) so repeated lookups are
free, rule transforms combined by mode (append, prepend, replace) in the fixed output order,
the depseudonymiser added only when outputs can carry pseudonyms, never for reveal tools."""

from __future__ import annotations

from cloudg_nb import Capability, Principal, ToolSpec
from cloudg_nb.policy import Policy


def _tool(name: str = "t", **kw) -> ToolSpec:
    return ToolSpec(name=name, handler=lambda ctx: {}, **kw)


def _names(pipeline) -> list[str]:
    return [s.name for s in pipeline]


def test_output_pipeline_is_the_same_object_for_the_same_spec_and_roles() -> None:
    policy = Policy.load("standard")
    spec = _tool()
    a = policy.output_pipeline(spec, Principal("a", frozenset({"x"})))
    b = policy.output_pipeline(spec, Principal("b", frozenset({"x"})))
    assert a is b


def test_pipelines_share_steps_across_specs() -> None:
    policy = Policy.load("standard")
    first = policy.output_pipeline(_tool("one"), Principal.local())
    second = policy.output_pipeline(_tool("two"), Principal.local())
    assert first.steps[0] is second.steps[0]


def test_output_steps_run_in_fixed_order_whatever_the_listing_order() -> None:
    policy = Policy({"transforms": ["annotate", "project", "redact", "sanitize"]})
    assert _names(policy.output_pipeline(_tool(), Principal.local())) == [
        "sanitize+redact", "project", "annotate",
    ]


def test_rule_transforms_append_replace_and_prepend() -> None:
    policy = Policy({
        "transforms": ["redact"],
        "roles": {
            "a": {"transforms": ["annotate"]},
            "r": {"transforms": ["sanitize"], "mode": "replace"},
        },
    })
    assert _names(policy.output_pipeline(_tool(), Principal("p", frozenset({"a"})))) == [
        "redact", "annotate",
    ]
    assert _names(policy.output_pipeline(_tool(), Principal("p", frozenset({"r"})))) == [
        "sanitize",
    ]


def test_replace_with_nothing_gives_an_empty_pipeline() -> None:
    policy = Policy({"transforms": ["redact"], "roles": {"root": {"transforms": [],
                                                                  "mode": "replace"}}})
    assert not policy.output_pipeline(_tool(), Principal("p", frozenset({"root"})))


def test_depseudonymiser_is_added_only_when_outputs_can_carry_pseudonyms() -> None:
    assert "depseudonymize" not in _names(
        Policy.load("standard").input_pipeline(_tool(), Principal.local()))
    assert "depseudonymize" in _names(
        Policy.load("strict").input_pipeline(_tool(), Principal.local()))


def test_reveal_tools_get_no_depseudonymiser() -> None:
    reveal = _tool("reveal_token", capabilities={Capability.REVEAL})
    assert "depseudonymize" not in _names(
        Policy.load("strict").input_pipeline(reveal, Principal.local()))
