"""Acceptance: planted secrets never leak through any output surface of the real layer under
the default ``standard`` policy, and the same corpus is visible under ``open`` (so the check
can fail). Surfaces: tool text, structuredContent, _meta, resource links, error messages and
data, resource contents, prompt messages and completion values."""

from __future__ import annotations

import logging

import pytest

from cloudg_nb import CloudGMCPLayer

from .planted_corpus import KINDS, PLANTED, collect_outputs, leaks, planted_registry


@pytest.fixture(autouse=True)
def _quiet_tracebacks(caplog):
    caplog.set_level(logging.CRITICAL, logger="cloudg.mcp")


def test_corpus_has_at_least_15_secrets_of_at_least_10_kinds() -> None:
    assert len(PLANTED) >= 15
    assert len(KINDS) >= 10
    assert all(len(v) >= 12 for v in PLANTED.values())


async def test_no_planted_secret_or_12_char_piece_reaches_any_surface_under_standard() -> None:
    layer = CloudGMCPLayer(registry=planted_registry(), policy="standard")
    outputs = await collect_outputs(layer)
    assert leaks(outputs) == []


async def test_default_policy_redacts_the_corpus_too(monkeypatch) -> None:
    monkeypatch.delenv("CLOUDG_MCP_POLICY", raising=False)
    layer = CloudGMCPLayer(registry=planted_registry())
    assert leaks(await collect_outputs(layer)) == []


async def test_every_planted_secret_is_visible_under_open() -> None:
    layer = CloudGMCPLayer(registry=planted_registry(), policy="open")
    outputs = await collect_outputs(layer)
    hay = "\x00".join(s for strings in outputs.values() for s in strings)
    assert [label for label, value in PLANTED.items() if value not in hay] == []


async def test_an_unexpected_failure_keeps_its_detail_off_the_wire_even_under_open() -> None:
    layer = CloudGMCPLayer(registry=planted_registry(), policy="open")
    wire = str((await layer.call_tool("failing")).to_wire())
    assert "failed unexpectedly" in wire and "error id" in wire
    assert PLANTED["db_connection_password"] not in wire


async def test_redaction_keeps_the_rest_of_the_result_useful() -> None:
    layer = CloudGMCPLayer(registry=planted_registry(), policy="standard")
    result = await layer.call_tool("inventory")
    asset = result.structured["assets"][0]
    assert asset["id"] == "arn:aws:ec2:eu-west-1:123456789012:instance/i-0123456789abcdef0"
    assert asset["name"] == "web-01"
    assert asset["tags"]["owner"] == "platform-team"
    assert asset["tags"]["storage"].startswith("DefaultEndpointsProtocol=https;AccountName=")
    assert asset["Tags"][1] == {"Key": "env", "Value": "prod"}
    assert asset["notes"][0].startswith("rotated key AKIA") and "****" in asset["notes"][0]


async def test_report_counts_what_was_replaced_per_strategy_and_entity() -> None:
    layer = CloudGMCPLayer(registry=planted_registry(), policy="standard")
    report = (await layer.call_tool("inventory")).meta["cloudg/transforms"]
    assert report["masked"] == {"aws_access_key_id": 1}
    assert report["dropped"] == {"private_key": 1}
    assert report["redacted"]["user_data"] == 1
    assert report["redacted"]["github_token"] == 1
    assert report["redacted"]["url_credentials"] == 1  # the ctx.link uri, merged in
