"""Exposure questions on Security Hub (JSON-ASFF) and Prowler native JSON scans loaded with
load_dataset: the exposed assets appear in internet_exposure with the port and the finding
that says so, and attack_paths from the internet reaches them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cloudg_nb import CloudGMCPLayer

from .support import ok

DATA = Path(__file__).parents[1] / "estate" / "data"
CASES = {
    # fixture: (exposed asset id, its name, port, the finding id's start)
    "securityhub-get-findings.json": (
        "arn:aws:ec2:us-east-1:111122223333:security-group/sg-0ffee123", "sg-0ffee123", 22,
        "arn:aws:securityhub:us-east-1:111122223333:security-control/EC2.13/"),
    "prowler-v3-azure.json": (
        "/subscriptions/5d1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b/resourceGroups/rg-web/providers/"
        "Microsoft.Network/networkSecurityGroups/nsg-web", "nsg-web", 3389,
        "prowler-azure-network_rdp_internet_access_restricted-"),
    "prowler-v3-gcp.json": (
        "4471039284738452001", "allow-ssh-all", 22,
        "prowler-gcp-compute_firewall_ssh_access_from_the_internet_allowed-"),
}


async def _load(layer: CloudGMCPLayer, tmp_path: Path, fixture: str) -> dict:
    shutil.copy(DATA / fixture, tmp_path / "data" / fixture)
    return await ok(layer, "load_dataset", {"path": fixture, "name": "scan"})


@pytest.mark.parametrize("fixture", sorted(CASES))
async def test_internet_exposure_names_the_port_and_the_finding(
        empty: CloudGMCPLayer, tmp_path: Path, fixture: str) -> None:
    _, name, port, finding = CASES[fixture]
    await _load(empty, tmp_path, fixture)
    out = await ok(empty, "internet_exposure", {"dataset": "scan"})
    row = {r["name"]: r for r in out["items"]}[name]
    assert row["open_ports"] == [port]
    assert row["derived_from"][0].startswith(finding)


@pytest.mark.parametrize("fixture", sorted(CASES))
async def test_attack_paths_from_the_internet_reach_the_exposed_asset(
        empty: CloudGMCPLayer, tmp_path: Path, fixture: str) -> None:
    target, _, _, finding = CASES[fixture]
    await _load(empty, tmp_path, fixture)
    out = await ok(empty, "attack_paths", {"target": target, "dataset": "scan"})
    assert out["count"] == 1 and out["paths"][0]["entry"]["id"] == target
    assert out["paths"][0]["edges"][0]["derived_from_finding"].startswith(finding)


async def test_load_dataset_reports_the_archived_security_hub_finding(
        empty: CloudGMCPLayer, tmp_path: Path) -> None:
    out = await _load(empty, tmp_path, "securityhub-get-findings.json")
    report = out["load_report"]
    assert (report["records"], report["findings"], report["skipped"]) == (6, 4, 1)
    assert report["skipped_records"][0]["field"] == "RecordState"
