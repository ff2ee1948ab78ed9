"""Completions for template variables and prompt arguments: dataset names, asset references
(prefix on name/ARN/id, then substring), finding ids, severities and frameworks."""

from __future__ import annotations

from .support import ok


def _resource(uri: str) -> dict:
    return {"type": "ref/resource", "uri": uri}


def _prompt(name: str) -> dict:
    return {"type": "ref/prompt", "name": name}


async def _values(layer, ref: dict, name: str, value: str, context: dict | None = None
                  ) -> list[str]:
    out = await layer.complete(ref, {"name": name, "value": value}, context_arguments=context)
    return out["values"]


async def test_dataset_names_complete_on_the_table_templates(layer) -> None:
    await ok(layer, "sample_estate", {"name": "drifted", "activate": False})
    for uri in ("cloudg://datasets/{dataset}/assets", "cloudg://datasets/{dataset}/findings",
                "cloudg://datasets/{dataset}/summary"):
        assert await _values(layer, _resource(uri), "dataset", "demo-d") == ["demo-drifted"]


async def test_asset_refs_complete_names_first_then_arns_and_ids(layer) -> None:
    values = await _values(layer, _resource("cloudg://assets/{+ref}"), "ref", "customers")
    assert values == ["customers-db", "arn:aws:rds:us-east-1:111122223333:db:customers-db",
                      "aws-rds-customers"]


async def test_asset_refs_complete_from_the_dataset_already_chosen(layer) -> None:
    await ok(layer, "sample_estate", {"name": "drifted", "activate": False})
    await ok(layer, "unload_dataset", {"name": "demo"})  # drifted now active
    await ok(layer, "sample_estate", {"name": "demo", "activate": False})
    assert await _values(layer, _prompt("investigate_asset"), "ref", "web-w") == []
    chosen = await _values(layer, _prompt("investigate_asset"), "ref", "web-w",
                           {"dataset": "demo"})
    assert chosen[0] == "web-waf"


async def test_finding_ids_complete(layer) -> None:
    values = await _values(layer, _resource("cloudg://findings/{finding_id}"), "finding_id",
                           "f-01")
    assert values == ["f-010", "f-011", "f-012", "f-013", "f-014", "f-015"]
    assert await _values(layer, _prompt("incident_triage"), "finding_id", "f-00")


async def test_severities_complete_case_insensitively(layer) -> None:
    ref = _resource("cloudg://findings/severity/{severity}")
    assert await _values(layer, ref, "severity", "c") == ["CRITICAL"]
    assert await _values(layer, _prompt("security_posture_review"), "min_severity", "") == [
        "CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO", "UNKNOWN"]


async def test_frameworks_complete(layer) -> None:
    ref = _resource("cloudg://compliance/{framework}")
    assert await _values(layer, ref, "framework", "cis") == [
        "CIS-AWS-2.0", "CIS-AZURE-2.0", "CIS-GCP-2.0"]
    assert await _values(layer, _prompt("security_posture_review"), "framework", "pci") == [
        "PCI-DSS-4.0"]


async def test_drift_review_datasets_complete(layer) -> None:
    await ok(layer, "snapshot_dataset", {"name": "baseline"})
    assert await _values(layer, _prompt("drift_review"), "base", "") == ["demo", "baseline"]


async def test_nothing_loaded_completes_to_nothing(empty) -> None:
    assert await _values(empty, _resource("cloudg://assets/{+ref}"), "ref", "") == []
    assert await _values(empty, _resource("cloudg://compliance/{framework}"), "framework",
                         "") == []
