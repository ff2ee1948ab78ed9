"""The audit ring: bounded, records denied / rate_limited / rejected / not_found always and
allowed only with ``audit`` on or for reveals; argument values only as 12-hex keyed hashes."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest

from cloudg_nb import CloudGMCPLayer, NotFoundError, Principal, Registry
from cloudg_nb.layer.bounds import LOOP_VALUES
from cloudg_nb.policy import AuditRing, Policy
from cloudg_nb.policy.audit import keyed_hash


def test_ring_keeps_only_the_most_recent_entries() -> None:
    ring = AuditRing(3)
    for i in range(5):
        ring.record("denied", "tool", f"t{i}", Principal.local())
    assert [e["name"] for e in ring.entries()] == ["t2", "t3", "t4"]


def test_audit_size_bounds_the_policy_ring() -> None:
    policy = Policy({"audit_size": 2, "audit": True})
    assert policy.audit_log._entries.maxlen == 2


def test_argument_values_are_keyed_hashes_stable_within_a_ring() -> None:
    ring = AuditRing()
    a = ring.record("allowed", "tool", "t", Principal.local(), {"q": "secret-value"})
    b = ring.record("allowed", "tool", "t", Principal.local(), {"q": "secret-value"})
    assert a["arguments"]["q"] == b["arguments"]["q"] and len(a["arguments"]["q"]) == 12
    assert "secret-value" not in repr(ring.entries())
    assert AuditRing().record("allowed", "tool", "t", Principal.local(), {"q": "secret-value"})[
        "arguments"]["q"] != a["arguments"]["q"]  # another ring, another key


async def test_rejected_input_is_audited_without_the_value() -> None:
    reg = Registry()
    reg.tool(name="lookup")(lambda ctx, q: {"q": q})
    layer = CloudGMCPLayer(registry=reg, policy="standard")
    token = "ghp_kxwnQrS7RPeMOkIUpkDyr7OSJoRu1XXdo0cZ"
    result = await layer.call_tool("lookup", {"q": token})
    assert result.is_error and result.error_code == -32602
    entries = layer.policy.audit_log.entries()
    assert [e["decision"] for e in entries] == ["rejected"]
    assert token not in repr(entries) and token not in result.text


async def test_unknown_names_are_audited_as_not_found() -> None:
    layer = CloudGMCPLayer(registry=Registry(), policy="standard")
    with pytest.raises(NotFoundError):
        await layer.call_tool("ghost")
    assert [e["decision"] for e in layer.policy.audit_log.entries()] == ["not_found"]


def test_names_that_are_not_identifier_like_are_stored_as_keyed_hashes() -> None:
    ring = AuditRing()
    secret = "password=hunter2 please"
    entry = ring.record("not_found", "tool", secret, Principal.local(), {secret: 1, "query": 2})
    uri = ring.record("not_found", "resource", "cloudg://assets/ghp_x secret value",
                      Principal.local())
    assert "hunter2" not in repr(entry) and entry["name"].startswith("#")
    assert "query" in entry["arguments"] and len(entry["arguments"]) == 2
    assert uri["name"].startswith("cloudg://assets/#") and "secret" not in uri["name"]
    assert ring.record("denied", "tool", "find_assets", Principal.local())["name"] == (
        "find_assets")


async def test_unknown_tool_names_are_audited_without_the_raw_name() -> None:
    layer = CloudGMCPLayer(registry=Registry(), policy="standard")
    with pytest.raises(NotFoundError):
        await layer.call_tool("ghp_kxwnQrS7RPeMOkIUpkDyr7OSJoRu1XXdo0cZ please")
    assert "ghp_" not in repr(layer.policy.audit_log.entries())


async def test_rejection_reason_does_not_name_the_argument_path() -> None:
    reg = Registry()
    reg.tool(name="lookup")(lambda ctx, q: {"q": q})
    layer = CloudGMCPLayer(registry=reg, policy="standard")
    await layer.call_tool("lookup", {"q": {"db_password_of_alice": "Summer2024prod!x"}})
    await layer.call_tool("lookup", {"q": "ghp_kxwnQrS7RPeMOkIUpkDyr7OSJoRu1XXdo0cZ"})
    reasons = [e["reason"] for e in layer.policy.audit_log.entries()
               if e["decision"] == "rejected"]
    assert reasons and not any("alice" in r or "'q'" in r or "q:" in r for r in reasons)


@pytest.mark.parametrize("value", [
    "text", {"b": [1, None, True], "a": "é"},
    {f"k{i}": [i, "x"] for i in range(LOOP_VALUES + 1)},  # hashed piece by piece
])
def test_keyed_hash_is_hmac_over_canonical_json_for_values_of_any_size(value: object) -> None:
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    expected = hmac.new(b"key", canonical.encode(), hashlib.sha256).hexdigest()[:12]
    assert keyed_hash(b"key", value) == expected
