"""Acceptance: pseudonyms under ``strict`` through the real layer — stable per key (across
calls and restarts), different per key, and reversed on the way in, so a pseudonym passed
back as a tool argument, template variable, prompt argument or completion context reaches
the handler as the real value."""

from __future__ import annotations

from typing import Any

import pytest

from cloudg_nb import CloudGMCPLayer, PromptArgument, Registry

ARN = "arn:aws:iam::123456789012:role/payments-deployer"
ACCOUNT = "123456789012"
IP = "10.20.30.40"
EMAIL = "alice@payments.example.org"


def estate_registry(seen: dict[str, list[Any]]) -> Registry:
    reg = Registry()

    @reg.tool
    def list_roles(ctx) -> dict:
        return {"roles": [{"arn": ARN, "account": ACCOUNT, "ip": IP, "owner": EMAIL}]}

    @reg.tool
    def describe_role(ctx, arn: str, note: str = "") -> dict:
        seen["tool"].append((arn, note))
        return {"arn": arn}

    @reg.resource_template("test://roles/{+arn}")
    def role_resource(ctx, arn: str) -> dict:
        seen["template"].append(arn)
        return {"arn": arn}

    def regions(ctx, partial: str) -> list[str]:
        seen["completion"].append((partial, dict(ctx.completion.context_arguments)))
        return ["eu-west-1"]

    @reg.resource_template("test://accounts/{account}/{region}", completions={"region": regions})
    def account_region(ctx, account: str, region: str) -> dict:
        return {}

    @reg.prompt(arguments=[PromptArgument("account", required=True)])
    def audit_account(ctx, account: str) -> str:
        seen["prompt"].append(account)
        return f"Audit account {account}"

    return reg


@pytest.fixture
def seen() -> dict[str, list[Any]]:
    return {"tool": [], "template": [], "prompt": [], "completion": []}


@pytest.fixture
def layer(seen, monkeypatch) -> CloudGMCPLayer:
    monkeypatch.setenv("CLOUDG_MCP_VAULT_KEY", "round-trip-test-key")
    return CloudGMCPLayer(registry=estate_registry(seen), policy="strict")


async def _pseudonyms(layer: CloudGMCPLayer) -> dict[str, str]:
    result = await layer.call_tool("list_roles")
    assert not result.is_error, result.text
    return result.structured["roles"][0]


async def test_identifiers_leave_the_layer_as_pseudonyms(layer) -> None:
    role = await _pseudonyms(layer)
    assert ACCOUNT not in role["arn"] and "payments-deployer" not in role["arn"]
    assert role["arn"].startswith("arn:aws:iam::") and ":role/" in role["arn"]
    assert role["account"] != ACCOUNT and len(role["account"]) == 12 and role["account"].isdigit()
    assert role["ip"] != IP and role["ip"].startswith("10.")
    assert role["owner"] != EMAIL and role["owner"].endswith(".example")


async def test_same_value_gets_the_same_pseudonym_across_calls(layer) -> None:
    assert await _pseudonyms(layer) == await _pseudonyms(layer)


async def test_same_key_gives_the_same_pseudonyms_after_a_restart(layer, seen) -> None:
    first = await _pseudonyms(layer)
    restarted = CloudGMCPLayer(registry=estate_registry(seen), policy="strict")
    assert await _pseudonyms(restarted) == first


async def test_a_different_key_gives_different_pseudonyms(layer, seen, monkeypatch) -> None:
    first = await _pseudonyms(layer)
    monkeypatch.setenv("CLOUDG_MCP_VAULT_KEY", "another-key")
    other = CloudGMCPLayer(registry=estate_registry(seen), policy="strict")
    second = await _pseudonyms(other)
    assert all(first[k] != second[k] for k in ("arn", "account", "ip", "owner"))


async def test_pseudonym_tool_argument_reaches_the_handler_as_the_real_value(layer, seen) -> None:
    role = await _pseudonyms(layer)
    result = await layer.call_tool(
        "describe_role", {"arn": role["arn"], "note": f"owner {role['owner']} at {role['ip']}"}
    )
    assert not result.is_error, result.text
    assert seen["tool"] == [(ARN, f"owner {EMAIL} at {IP}")]
    assert result.structured["arn"] == role["arn"]  # and leaves as the pseudonym again


async def test_pseudonym_template_variable_reaches_the_handler_as_the_real_value(
    layer, seen
) -> None:
    role = await _pseudonyms(layer)
    await layer.read_resource(f"test://roles/{role['arn']}")
    assert seen["template"] == [ARN]


async def test_pseudonym_prompt_argument_reaches_the_handler_as_the_real_value(
    layer, seen
) -> None:
    role = await _pseudonyms(layer)
    prompt = await layer.get_prompt("audit_account", {"account": role["account"]})
    assert seen["prompt"] == [ACCOUNT]
    assert prompt.messages[0].content.text == f"Audit account {role['account']}"


async def test_pseudonym_completion_context_and_partial_reach_the_function_as_real_values(
    layer, seen
) -> None:
    role = await _pseudonyms(layer)
    await layer.complete(
        {"type": "ref/resource", "uri": "test://accounts/{account}/{region}"},
        {"name": "region", "value": role["ip"]},
        context_arguments={"account": role["account"]},
    )
    assert seen["completion"] == [(IP, {"account": ACCOUNT})]


async def test_text_that_is_not_a_pseudonym_reaches_the_handler_unchanged(layer, seen) -> None:
    await _pseudonyms(layer)
    await layer.call_tool("describe_role", {"arn": "arn:aws:iam::999999999999:role/x"})
    assert seen["tool"] == [("arn:aws:iam::999999999999:role/x", "")]
