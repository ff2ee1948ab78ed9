"""PolicyRouter: Jupyter users get the owner's policy, each assistant its credential's profile
(the server's default otherwise), one pseudonym vault for all, owner-only specs hidden from
assistants, and the approval rule of the assistant's profile."""

from __future__ import annotations

import pytest

from cloudg_nb import Capability, Principal, ToolSpec
from cloudg_nb.assembly import build_layer
from cloudg_nb.layer.errors import AccessDeniedError, NotFoundError
from cloudg_nb.policy import Policy
from cloudg_nb.policy.approval import ApprovalRule
from cloudg_nb.policy.router import OWNER_ONLY, PolicyRouter

OWNER = Principal("alice", frozenset({"default"}))


def assistant(name: str = "a", profile: str | None = None) -> Principal:
    return Principal(f"assistant:{name}", frozenset({"assistant"}),
                     {"profile": profile} if profile else {})


def _tool(name: str = "t", **kw) -> ToolSpec:
    return ToolSpec(name=name, handler=lambda ctx: {}, **kw)


def test_owner_gets_the_owner_policy_and_assistants_their_profile() -> None:
    router = PolicyRouter(Policy.load("open"))
    assert router.policy_for(OWNER).name == "open"
    assert router.policy_for(assistant()).name == "assistant"
    assert router.policy_for(assistant(profile="strict")).name == "strict"


def test_assistant_under_an_open_owner_policy_still_gets_secrets_redacted() -> None:
    router = PolicyRouter(Policy.load("open"))
    spec = _tool()
    assert not router.output_pipeline(spec, OWNER)
    assert router.output_pipeline(spec, assistant())


def test_every_policy_shares_the_owner_vault() -> None:
    router = PolicyRouter(Policy.load("standard"))
    assert router.policy_for(assistant(profile="strict")).vault is router.owner.vault
    assert router.vault is router.owner.vault


def test_owner_only_specs_do_not_exist_for_assistants() -> None:
    router = PolicyRouter(Policy.load("open"))
    secret = _tool("decide_approval", tags={OWNER_ONLY})
    assert router.is_allowed(secret, OWNER)
    assert not router.is_allowed(secret, assistant(profile="open"))
    with pytest.raises(NotFoundError):
        router.check_call(secret, assistant(profile="open"), {})


def test_a_profile_that_does_not_load_denies_everything_and_says_so() -> None:
    router = PolicyRouter(Policy.load("standard"))
    who = assistant(profile="no-such-profile")
    plan = router.access_plan(_tool("find_assets"), who)
    assert plan.deny is not None
    assert "unavailable" in router.policy_for(who).name


def test_approval_rule_applies_to_assistants_only() -> None:
    router = PolicyRouter(Policy.load("standard"))
    assert router.approval_rule(OWNER) is None
    rule = router.approval_rule(assistant())
    assert rule is not None and not rule.applies("find_assets")
    # by default nothing waits by name: what a call does decides (its effects, capabilities)
    assert not rule.applies("unload_dataset")
    for capability in (Capability.REVEAL, Capability.READ_FS, Capability.WRITE_FS):
        assert rule.applies("anything", [capability])


def test_a_profile_without_approval_section_takes_the_server_default() -> None:
    router = PolicyRouter(Policy.load("standard"),
                          default_approval=ApprovalRule.of_tools(["find_*"]))
    rule = router.approval_rule(assistant(profile="open"))
    assert rule is not None and rule.applies("find_assets") and not rule.applies("get_asset")


async def test_a_layer_behind_a_router_lists_and_calls_per_caller() -> None:
    layer = build_layer(policy="standard")
    layer.policy = PolicyRouter(layer.policy)  # type: ignore[arg-type]
    await layer.call_tool("sample_estate", {"name": "demo"})
    mine = await layer.call_tool("privacy_status", {}, principal=OWNER)
    theirs = await layer.call_tool("privacy_status", {}, principal=assistant())
    assert mine.structured["policy"] == "standard"
    assert theirs.structured["policy"] == "assistant"
    refused = await layer.call_tool("export_dataset", {}, principal=assistant())
    assert refused.is_error and refused.error_code == AccessDeniedError.code
    assert "write_fs" in refused.text
