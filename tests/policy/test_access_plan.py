"""One access plan per (spec, caller): the deny reason, rate limits and both pipelines are
worked out once and shared; every other question the policy answers reads that plan, and a
request admitted by the plan is checked, limited and audited exactly like ``check_call``."""

from __future__ import annotations

from typing import Any

import pytest

from cloudg_nb import AccessDeniedError, Principal, RateLimitedError, ToolSpec
from cloudg_nb.layer.collaborators import PlansAccess
from cloudg_nb.layer.pipeline import Pipeline, TransformContext
from cloudg_nb.policy import Policy


def _tool(name: str = "t", **kw: Any) -> ToolSpec:
    return ToolSpec(name=name, handler=lambda ctx: {}, **kw)


def test_the_plan_is_the_same_object_for_the_same_spec_and_roles() -> None:
    policy = Policy.load("standard")
    spec = _tool()

    first = policy.access_plan(spec, Principal("a", frozenset({"x"})))
    second = policy.access_plan(spec, Principal("b", frozenset({"x"})))

    assert first is second
    assert policy.access_plan(spec, Principal("a", frozenset({"y"}))) is not first


def test_decisions_limits_and_pipelines_are_the_plans_own() -> None:
    policy = Policy({"deny_tools": ["t"], "rate_limits": ["5/minute"],
                     "transforms": ["redact"]})
    spec, caller = _tool(), Principal.local()

    plan = policy.access_plan(spec, caller)

    assert plan.deny is not None
    assert policy.decide(spec, caller) == plan.deny
    assert policy.output_pipeline(spec, caller) is plan.output
    assert policy.input_pipeline(spec, caller) is plan.input
    assert policy._limits_for(spec, caller, "tool") is plan.limits_for("tool")
    assert [lim.label for lim in plan.limits_for("tool")] == ["5/minute"]


def test_a_rule_matching_principals_gives_each_principal_its_own_plan() -> None:
    policy = Policy({"rules": [{"name": "no-bob", "match": {"principals": ["bob"]},
                                "deny_tools": ["t"]}]})
    spec = _tool()

    alice = policy.access_plan(spec, Principal("alice"))
    bob = policy.access_plan(spec, Principal("bob"))

    assert alice is not bob
    assert alice.deny is None and bob.deny is not None


def test_a_denied_spec_is_invisible_only_when_the_policy_hides_denials() -> None:
    spec = _tool()
    shown = Policy({"deny_tools": ["t"]})
    hidden = Policy({"deny_tools": ["t"], "hide_denied": True})

    assert shown.access_plan(spec, Principal.local()).visible
    assert not hidden.access_plan(spec, Principal.local()).visible
    assert hidden.is_allowed(spec, Principal.local()) is False


def test_admitting_a_denied_call_refuses_and_audits_like_check_call() -> None:
    policy = Policy({"name": "deny", "deny_tools": ["t"]})
    spec, caller = _tool(), Principal("alice")

    with pytest.raises(AccessDeniedError) as by_plan:
        policy.access_plan(spec, caller).admit(caller, "tool", {"a": 1})
    with pytest.raises(AccessDeniedError) as by_check:
        policy.check_call(spec, caller, {"a": 1})

    assert by_plan.value.message == by_check.value.message
    assert by_plan.value.data == by_check.value.data
    assert [(e["decision"], e["kind"]) for e in policy.audit_log.entries()] == [
        ("denied", "tool"), ("denied", "tool")]


def test_the_plan_and_check_call_take_tokens_from_the_same_bucket() -> None:
    policy = Policy({"rate_limits": ["2/minute"]})
    spec, caller = _tool(), Principal("alice")

    policy.access_plan(spec, caller).admit(caller, "tool", {})
    policy.check_call(spec, caller, {})

    with pytest.raises(RateLimitedError):
        policy.access_plan(spec, caller).admit(caller, "tool", {})


def test_a_completion_admitted_by_the_plan_is_audited_as_a_completion() -> None:
    policy = Policy({"name": "audited", "audit": True})
    spec, caller = _tool(), Principal.local()

    policy.access_plan(spec, caller).admit(caller, "completion", {})

    assert [(e["decision"], e["kind"]) for e in policy.audit_log.entries()] == [
        ("allowed", "completion")]


def test_a_limit_for_completions_only_applies_to_completions() -> None:
    policy = Policy({"rate_limits": [{"rate": "1/minute", "kinds": ["completion"]}]})
    spec, caller = _tool(), Principal.local()
    plan = policy.access_plan(spec, caller)

    assert plan.limits_for("tool") == []
    assert [lim.label for lim in plan.limits_for("completion")] == ["1/minute"]


class _Upper(Policy):
    def output_pipeline(self, spec: Any, principal: Any) -> Pipeline:
        return Pipeline([lambda v, c: v.upper() if isinstance(v, str) else v])


class _PlanningUpper(_Upper):
    def access_plan(self, spec: Any, principal: Any) -> Any:
        return super(_Upper, self).access_plan(spec, principal)


def test_a_policy_plans_access_unless_a_subclass_answers_a_question_itself() -> None:
    # A subclass with its own output pipeline must be asked for it: a plan built from the
    # document would bypass it, so such a subclass offers none.
    assert isinstance(Policy({"name": "p"}), PlansAccess)
    assert not isinstance(_Upper({"name": "u"}), PlansAccess)
    assert isinstance(_PlanningUpper({"name": "pu"}), PlansAccess)


def test_a_subclass_without_a_plan_still_answers_every_question() -> None:
    policy = _Upper({"name": "u", "deny_tools": ["t"]})
    spec, caller = _tool(), Principal.local()

    assert policy.decide(spec, caller) is not None
    assert policy.output_pipeline(spec, caller).apply("a", TransformContext()) == "A"
    with pytest.raises(AccessDeniedError):
        policy.check_call(spec, caller, {})
