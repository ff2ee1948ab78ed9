"""The key answers under the default ``standard`` policy (sanitise, redact, project,
annotate): the demo's attack path, blast radius, drift, paging cursors and close-match
errors come through the output transforms intact and useful."""

from __future__ import annotations

from pathlib import Path

import pytest

from cloudg_nb import CloudGMCPLayer

from .support import error_data, make_layer


@pytest.fixture
async def standard(tmp_path: Path) -> CloudGMCPLayer:
    layer = make_layer(tmp_path, policy="standard")
    assert layer.policy.name == "standard"
    await _call(layer, "sample_estate", {"name": "demo"})
    return layer


async def _call(layer: CloudGMCPLayer, name: str, arguments: dict) -> dict:
    result = await layer.call_tool(name, arguments)
    assert not result.is_error, result.text
    assert "cloudg/transforms" in result.meta  # the output pipeline ran
    return result.structured


async def test_attack_path_to_the_pii_database_survives_the_transforms(standard) -> None:
    out = await _call(standard, "attack_paths", {"target": "customers-db"})
    assert [n["name"] for n in out["paths"][0]["nodes"]] == [
        "Internet", "web-alb", "web-1", "app-role", "customers-db"]
    assert out["paths"][0]["nodes"][4]["account_id"] == "111122223333"


async def test_blast_radius_of_the_shared_key_survives_the_transforms(standard) -> None:
    out = await _call(standard, "blast_radius", {"ref": "prod-data-key"})
    assert [i["name"] for i in out["items"] if i["depth"] == 1] == [
        "customers-db", "customer-pii-exports", "db-credentials", "audit-logs"]


async def test_drift_survives_the_transforms(standard) -> None:
    await _call(standard, "sample_estate", {"name": "drifted"})
    out = await _call(standard, "diff_datasets", {"base": "demo"})
    assert [a["name"] for a in out["assets"]["removed"]] == ["web-waf"]
    assert [f["id"] for f in out["findings"]["resolved"]] == ["f-002"]


async def test_paging_cursors_survive_the_transforms(standard) -> None:
    first = await _call(standard, "find_assets", {"limit": 40})
    rest = await _call(standard, "find_assets", {"limit": 40, "cursor": first["next_cursor"]})
    ids = [i["id"] for i in first["items"] + rest["items"]]
    assert len(set(ids)) == 60 and rest["next_cursor"] is None


async def test_close_matches_survive_the_transforms(standard) -> None:
    result = await standard.call_tool("get_asset", {"ref": "customer-db"})
    assert result.error_code == -32602
    assert "customers-db" in error_data(result)["close_matches"]


async def test_output_schemas_are_withheld_when_outputs_are_transformed(standard) -> None:
    assert all("outputSchema" not in t for t in standard.tools_wire())


async def test_password_in_the_demo_user_data_never_reaches_the_caller(standard) -> None:
    result = await standard.call_tool("get_asset", {"ref": "web-1"})
    wire = str(result.to_wire())
    assert "Xq7-tide-Lantern-42" not in wire
    assert result.structured["metadata"]["user_data"].startswith("[REDACTED")
    assert result.structured["metadata"]["instance_type"] == "t3.large"  # the rest stays


async def test_injection_in_a_demo_tag_is_fenced_as_untrusted(standard) -> None:
    result = await standard.call_tool("get_asset", {"ref": "web-2"})
    note = result.structured["tags"]["owner_note"]
    assert note.startswith("⟦untrusted⟧") and note.rstrip().endswith("⟦/untrusted⟧")
    assert result.meta["cloudg/transforms"]["untrusted"] == 1


@pytest.mark.parametrize("table", ["assets", "findings"])
async def test_table_templates_stay_parseable_with_the_demo_injection(standard, table) -> None:
    import json

    import pandas as pd

    contents = await standard.read_resource(f"cloudg://datasets/demo/{table}")
    frame = pd.DataFrame(**json.loads(contents[0].text))
    assert len(frame) == (60 if table == "assets" else 15)
    if table == "assets":  # only the offending cell is fenced, not the whole document
        notes = [t.get("owner_note") for t in frame["tags"] if isinstance(t, dict)]
        assert any(n and n.startswith("⟦untrusted⟧") for n in notes)


async def test_compliance_counts_survive_the_transforms(standard) -> None:
    out = await _call(standard, "compliance_summary", {})
    assert out["overall"]["passed"] == 7 and out["overall"]["failed"] == 11
    assert all(isinstance(f["passed"], int) for f in out["frameworks"])


async def test_a_secrets_manager_arn_is_an_identifier_not_a_secret(standard) -> None:
    out = await _call(standard, "get_asset", {"ref": "db-credentials"})
    assert out["arn"].startswith("arn:aws:secretsmanager:") and "REDACTED" not in out["arn"]


async def test_counts_keyed_by_secret_like_type_names_survive(standard) -> None:
    out = await _call(standard, "dataset_summary", {})
    assert out["asset_types"]["SECRET"] == 1  # a count, not a secret


async def test_a_prompt_fences_only_the_injected_line(standard) -> None:
    prompt = await standard.get_prompt("investigate_asset", {"ref": "web-2"})
    text = prompt.messages[0].content.text
    assert text.startswith("Investigate the asset 'web-2'")  # the server's text is not fenced
    fenced = [line for line in text.splitlines() if "⟦untrusted⟧" in line]
    assert len(fenced) == 1 and "owner_note" in fenced[0]
