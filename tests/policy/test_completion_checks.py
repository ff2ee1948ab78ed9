"""Completions are checked through their own door (``Policy.check_completion``): audited and
refused with kind ``completion``; a tool argument can no longer pose as a completion."""

from __future__ import annotations

import pytest

from cloudg_nb import AccessDeniedError, Policy, Principal, Registry


def _registry() -> Registry:
    reg = Registry()
    reg.tool(name="ping")(lambda ctx, **kw: {"pong": True})
    return reg


def test_a_denied_completion_names_kind_completion() -> None:
    spec = _registry().tools["ping"]
    policy = Policy({"name": "deny", "deny_tools": ["ping"]})

    with pytest.raises(AccessDeniedError) as refused:
        policy.check_completion(spec, Principal.local())

    assert refused.value.data["kind"] == "completion"


def test_an_allowed_completion_is_audited_as_a_completion() -> None:
    spec = _registry().tools["ping"]
    policy = Policy({"name": "audited", "audit": True})

    policy.check_completion(spec, Principal.local())

    assert [(e["decision"], e["kind"]) for e in policy.audit_log.entries()] == [
        ("allowed", "completion")]


def test_a_tool_argument_named_like_the_old_completion_marker_is_a_tool_call() -> None:
    spec = _registry().tools["ping"]
    policy = Policy({"name": "audited", "audit": True})

    policy.check_call(spec, Principal.local(), {"__completion__": "ping"})

    assert [(e["decision"], e["kind"]) for e in policy.audit_log.entries()] == [
        ("allowed", "tool")]
