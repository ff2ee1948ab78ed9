"""Access decisions with roles and rules: explicit denies win, the highest matching ceiling
replaces the policy's, a matching rule's allow list skips the policy's, denied capabilities
need a grant from a matching rule; ``hide_denied`` makes denied primitives look exactly like
nonexistent ones through the layer."""

from __future__ import annotations

import pytest

from cloudg_nb import (
    AccessDeniedError,
    Capability,
    CloudGMCPLayer,
    NotFoundError,
    Principal,
    Registry,
    Sensitivity,
    ToolSpec,
)
from cloudg_nb.policy import Policy


def _tool(name: str = "t", **kw) -> ToolSpec:
    def handler(ctx) -> dict:
        return {"ok": True}

    return ToolSpec(name=name, handler=handler, **kw)


def _who(*roles: str, pid: str = "p") -> Principal:
    return Principal(pid, frozenset(roles))


def test_a_roles_explicit_deny_wins_over_another_roles_allow() -> None:
    policy = Policy({
        "roles": {"a": {"deny_tools": ["export_*"]}, "b": {"allow_tools": ["export_*"]}},
    })
    assert policy.decide(_tool("export_csv"), _who("a", "b"))
    assert policy.decide(_tool("export_csv"), _who("b")) is None


def test_policy_deny_list_beats_a_rule_allow() -> None:
    policy = Policy({"deny_tools": ["drop_*"], "roles": {"admin": {"allow_tools": ["*"]}}})
    assert policy.decide(_tool("drop_all"), _who("admin"))


def test_rule_ceiling_replaces_the_policy_ceiling() -> None:
    policy = Policy({
        "max_sensitivity": "internal",
        "roles": {"admin": {"max_sensitivity": "restricted"}},
    })
    secret = _tool(sensitivity=Sensitivity.RESTRICTED)
    assert policy.decide(secret, _who("viewer"))
    assert policy.decide(secret, _who("admin")) is None


def test_highest_matching_ceiling_wins() -> None:
    policy = Policy({
        "max_sensitivity": "public",
        "roles": {"a": {"max_sensitivity": "internal"}, "b": {"max_sensitivity": "confidential"}},
    })
    assert policy.decide(_tool(sensitivity=Sensitivity.CONFIDENTIAL), _who("a", "b")) is None


def test_rule_allow_list_skips_the_policy_allow_list() -> None:
    policy = Policy({
        "allow_tools": ["query_*"],
        "rules": [{"match": {"roles": ["ops"]}, "allow_tools": ["restart_*"]}],
    })
    assert policy.decide(_tool("restart_db"), _who("viewer"))
    assert policy.decide(_tool("restart_db"), _who("ops")) is None
    assert policy.decide(_tool("query_x"), _who("viewer")) is None


def test_denied_capability_needs_a_grant_from_a_matching_rule() -> None:
    policy = Policy({
        "deny_capabilities": ["cloud_access"],
        "rules": [{"match": {"principals": ["collector-*"]},
                   "allow_capabilities": ["cloud_access"]}],
    })
    fetch = _tool("fetch", capabilities={Capability.CLOUD_ACCESS})
    assert policy.decide(fetch, _who(pid="alice"))
    assert policy.decide(fetch, _who(pid="collector-1")) is None


def test_rule_match_conditions_must_all_hold() -> None:
    policy = Policy({"rules": [{
        "match": {"roles": ["analyst"], "categories": ["export"], "sensitivity": ">=internal"},
        "deny_tools": ["*"],
    }]})
    export = _tool("to_csv", category="export", sensitivity=Sensitivity.CONFIDENTIAL)
    assert policy.decide(export, _who("analyst"))
    assert policy.decide(export, _who("lead")) is None
    assert policy.decide(_tool("q", category="query"), _who("analyst")) is None
    public = _tool("to_csv", category="export", sensitivity=Sensitivity.PUBLIC)
    assert policy.decide(public, _who("analyst")) is None


def test_rule_match_on_tags_and_capabilities() -> None:
    policy = Policy({"rules": [{"match": {"tags": ["pii"], "capabilities": ["write_fs"]},
                                "deny_tools": ["*"]}]})
    assert policy.decide(_tool(tags={"pii"}, capabilities={Capability.WRITE_FS}), _who())
    assert policy.decide(_tool(tags={"pii"}), _who()) is None


def test_denied_check_call_raises_access_denied_naming_the_reason() -> None:
    policy = Policy({"name": "p", "deny_categories": ["export"]})
    with pytest.raises(AccessDeniedError) as err:
        policy.check_call(_tool(category="export"), _who(), {})
    assert err.value.data["reason"] == "category denied by policy"


def _registry() -> Registry:
    reg = Registry()
    reg.tool(name="visible")(lambda ctx: {})
    reg.tool(name="secret_tool")(lambda ctx: {})
    return reg


def test_hide_denied_removes_a_denied_tool_from_tools_wire() -> None:
    layer = CloudGMCPLayer(
        registry=_registry(), policy={"deny_tools": ["secret_tool"], "hide_denied": True}
    )
    assert [t["name"] for t in layer.tools_wire()] == ["visible"]


async def test_hide_denied_call_gives_exactly_the_error_of_a_nonexistent_tool() -> None:
    layer = CloudGMCPLayer(
        registry=_registry(), policy={"deny_tools": ["secret_tool"], "hide_denied": True}
    )
    errors = []
    for name in ("secret_tool", "no_such_tool"):
        with pytest.raises(NotFoundError) as err:
            await layer.call_tool(name)
        errors.append((err.value.code, err.value.data, err.value.message.replace(name, "N")))
    assert errors[0] == errors[1]


def test_without_hide_denied_a_denied_tool_is_listed_and_refused() -> None:
    layer = CloudGMCPLayer(registry=_registry(), policy={"deny_tools": ["secret_tool"]})
    assert {t["name"] for t in layer.tools_wire()} == {"visible", "secret_tool"}


def test_standard_admin_role_may_reveal() -> None:
    spec = _tool("reveal_token", capabilities={Capability.REVEAL})
    policy = Policy.load("standard")
    assert policy.decide(spec, _who("admin")) is None
    assert policy.decide(spec, Principal.local())
