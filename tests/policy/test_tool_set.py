"""A policy's ``tool_set`` (tool names or globs): tools outside it are not listed, and a call
to one is refused with a message saying why; resources and prompts are not affected. The
built-in ``assistant-compact`` profile is ``assistant`` with at most 40 catalog tools, for
clients that take only so many (Cursor)."""

from __future__ import annotations

import pytest

from cloudg_nb import CloudGMCPLayer, Principal, Registry, ToolContext
from cloudg_nb.assembly import build_layer
from cloudg_nb.catalog import default_registry
from cloudg_nb.layer.errors import NotFoundError
from cloudg_nb.policy import Policy, PolicyError
from cloudg_nb.policy.router import PolicyRouter

#: Cursor uses about 40 tools across all its MCP servers.
CURSOR_TOOL_LIMIT = 40


def registry() -> Registry:
    reg = Registry()

    @reg.tool
    def find_assets(ctx: ToolContext) -> dict:
        return {"found": 1}

    @reg.tool
    def list_regions(ctx: ToolContext) -> dict:
        return {"regions": []}

    @reg.tool
    def list_tags(ctx: ToolContext) -> dict:
        return {"tags": []}

    @reg.resource("data://summary")
    def summary(ctx: ToolContext) -> dict:
        return {"assets": 1}

    @reg.prompt
    def brief(ctx: ToolContext, topic: str) -> str:
        return f"Brief on {topic}"

    return reg


def layer(**doc: object) -> CloudGMCPLayer:
    return CloudGMCPLayer(registry=registry(), policy=Policy({"name": "compact", **doc}))


def test_tools_outside_the_tool_set_are_not_listed() -> None:
    compact = layer(tool_set=["find_assets", "list_t*"])
    assert [s.name for s in compact.list_tools()] == ["find_assets", "list_tags"]
    assert [t["name"] for t in compact.tools_wire()] == ["find_assets", "list_tags"]


async def test_a_call_outside_the_tool_set_is_refused_saying_why() -> None:
    result = await layer(tool_set=["find_assets"]).call_tool("list_regions", {})
    assert result.is_error
    message = result.content[0].text
    assert message.startswith("Access denied by policy 'compact': this tool is not in the "
                              "policy's tool set")
    assert "call one of the listed tools" in message
    assert result.meta["cloudg/error_data"]["policy"] == "compact"


async def test_a_tool_in_the_set_is_called_as_usual() -> None:
    result = await layer(tool_set=["find_assets"]).call_tool("find_assets", {})
    assert result.structured == {"found": 1}


async def test_resources_and_prompts_are_not_affected() -> None:
    compact = layer(tool_set=["find_assets"])
    assert [s.uri for s in compact.list_resources()] == ["data://summary"]
    assert [s.name for s in compact.list_prompts()] == ["brief"]
    assert (await compact.get_prompt("brief", {"topic": "keys"})).messages


async def test_with_hide_denied_a_tool_outside_the_set_looks_unknown() -> None:
    hidden = layer(tool_set=["find_assets"], hide_denied=True)
    assert [s.name for s in hidden.list_tools()] == ["find_assets"]
    with pytest.raises(NotFoundError):
        await hidden.call_tool("list_regions", {})


def test_a_refusal_of_the_policy_itself_keeps_its_own_reason() -> None:
    policy = Policy({"name": "p", "tool_set": ["*"], "deny_tools": ["list_regions"]})
    spec = registry().tools["list_regions"]
    assert policy.decide(spec, Principal.local()) == "tools denied by policy"


def test_a_child_profile_replaces_the_tool_set_of_its_parent() -> None:
    assert Policy.load({"extends": "assistant-compact", "tool_set": ["find_*"]}).tool_set == (
        "find_*",)
    assert Policy.load({"extends": "assistant-compact"}).tool_set == Policy.load(
        "assistant-compact").tool_set


@pytest.mark.parametrize("bad,says", [
    (["find_assets", ""], "'tool_set' must be a list of non-empty strings"),
    ("find_assets", "'tool_set' must be a list of non-empty strings"),
    (["find_[assets"], "'tool_set' has a malformed glob"),
])
def test_a_bad_tool_set_is_refused_at_load_time(bad: object, says: str) -> None:
    with pytest.raises(PolicyError, match=says):
        Policy.load({"name": "bad", "tool_set": bad})


# -- assistant-compact -------------------------------------------------------------------------


def compact_assistant() -> Principal:
    return Principal("assistant:cursor", frozenset({"assistant"}),
                     {"profile": "assistant-compact"})


def test_assistant_compact_names_only_catalog_tools_and_fits_a_40_tool_client() -> None:
    catalog = default_registry().tools
    policy = Policy.load("assistant-compact")
    assert policy.tool_set is not None
    assert set(policy.tool_set) <= set(catalog)  # no typo silently shrinks the set
    assert len(policy.tool_set) <= CURSOR_TOOL_LIMIT < len(catalog)


def test_an_assistant_under_assistant_compact_lists_its_set_and_is_refused_the_rest() -> None:
    router = PolicyRouter(Policy.load("standard"))
    estate = build_layer(policy=router)
    who = compact_assistant()
    listed = [s.name for s in estate.list_tools(who)]
    assert listed == [name for name in default_registry().tools
                      if name in set(Policy.load("assistant-compact").tool_set or ())]
    assert len(listed) <= CURSOR_TOOL_LIMIT
    assert "list_regions" not in listed and "attack_paths" in listed
    assert len(estate.list_tools(Principal("assistant:claude", frozenset({"assistant"})))) > len(
        listed)
    assert "tool set" in (router.policy_for(who).decide(estate.registry.tools["list_regions"],
                                                        who) or "")


def test_assistant_compact_keeps_what_the_assistant_profile_denies() -> None:
    compact, assistant = Policy.load("assistant-compact"), Policy.load("assistant")
    assert compact.deny_capabilities == assistant.deny_capabilities
    assert [lim.label for lim in compact.rate_limits] == [
        lim.label for lim in assistant.rate_limits]
    assert compact.approval == assistant.approval
