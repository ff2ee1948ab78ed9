"""Acceptance: under ``strict``, a multi-cloud Prowler scan loaded with ``load_dataset``
(``prowler_id_estate``, with private addresses, internal hosts and e-mails in its finding
details) shows no raw AWS account id, GCP project id (bare, or inside bucket names, finding ids
and resource names), Azure subscription id, private IP, e-mail or private host name on any
surface, and every id it returns resolves again; ``open`` shows each one (the check can fail).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from cloudg_nb import CloudGMCPLayer
from cloudg_nb.policy.document import load_document
from cloudg_nb.policy.engine import Policy
from tests.catalog.support import make_layer

from .estate_surfaces import collect_surfaces
from .prowler_id_estate import AWS_ACCOUNT, AZURE_SUBSCRIPTION, FILE, GCP_PROJECT, records

BUCKET = f"{GCP_PROJECT}-backups-7d3f9a"
#: Planted in finding details: where a scan's text names private places and people.
DETAILS = {
    "ec2_instance_imdsv2_enabled": "i-0f3a9c2b7d1e4a5b6 (10.20.30.40, ip-10-20-30-40) "
                                   "serves build-3.ops.corp.internal without IMDSv2.",
    "vm_ensure_using_managed_disks": "vm-jump-01 at 172.20.1.5 is reached from jump.shop.lan.",
    "compute_instance_public_ip": "web-1 (192.168.50.7) is owned by sre-team@shop-corp.io.",
}
#: label → a raw identifier that must never leave the layer under strict.
RAW: dict[str, str] = {
    "AWS account": AWS_ACCOUNT,
    "GCP project (bare, in names, bucket names and finding ids)": GCP_PROJECT,
    "Azure subscription": AZURE_SUBSCRIPTION,
    "private IP 10/8": "10.20.30.40",
    "private IP in a host name": "ip-10-20-30-40",
    "private IP 172.16/12": "172.20.1.5",
    "private IP 192.168/16": "192.168.50.7",
    "private host (.internal)": "build-3.ops.corp.internal",
    "private host (.lan)": "jump.shop.lan",
    "e-mail": "sre-team@shop-corp.io",
    "service-account e-mail": f"orders-sa@{GCP_PROJECT}.iam.gserviceaccount.com",
}


def _policy(name: str) -> Policy:
    doc = load_document(name)
    doc["rate_limits"] = []  # hundreds of calls in one test: the limit is not under test
    if name == "strict":
        doc["vault"] = {"key": "strict-prowler-test-key-0123456789abcdef"}
    return Policy(doc)


@pytest.fixture(autouse=True)
def _quiet(caplog):
    caplog.set_level(logging.CRITICAL, logger="cloudg.mcp")


def _write_scan(folder: Path) -> None:
    scan = records()
    for record in scan:
        detail = DETAILS.get(record["metadata"]["event_code"])
        if detail is not None:
            record["status_detail"] = detail
    (folder / FILE).write_text(json.dumps(scan, indent=1))


async def _layer(tmp_path: Path, policy: str) -> CloudGMCPLayer:
    tmp_path.mkdir(parents=True, exist_ok=True)
    layer = make_layer(tmp_path, policy=_policy(policy))  # type: ignore[arg-type]
    _write_scan(tmp_path / "data")
    loaded = await layer.call_tool("load_dataset", {"path": FILE, "name": "prowler"})
    assert not loaded.is_error, loaded.text
    demo = await layer.call_tool("sample_estate", {"name": "demo", "activate": False})
    assert not demo.is_error, demo.text
    return layer


async def _ids(layer: CloudGMCPLayer) -> tuple[list[str], list[str]]:
    """Asset and finding ids as the caller sees them (pseudonyms under strict)."""
    assets = await layer.call_tool("find_assets", {"dataset": "prowler", "limit": 500})
    findings = await layer.call_tool("list_findings", {"dataset": "prowler", "limit": 500,
                                                       "include_suppressed": True})
    assert not assets.is_error and not findings.is_error, (assets.text, findings.text)
    assert assets.structured["next_cursor"] is None
    assert findings.structured["next_cursor"] is None
    return ([a["id"] for a in assets.structured["items"]],
            [f["id"] for f in findings.structured["items"]])


async def _walk(tmp_path: Path, policy: str) -> dict[str, list[str]]:
    layer = await _layer(tmp_path, policy)
    asset_ids, finding_ids = await _ids(layer)
    return await collect_surfaces(layer, dataset="prowler", base="demo", asset_ids=asset_ids,
                                  finding_ids=finding_ids)


def _shown(surfaces: dict[str, list[str]]) -> dict[str, list[str]]:
    """Label → the surfaces showing that raw identifier."""
    shown: dict[str, list[str]] = {}
    for surface, strings in surfaces.items():
        hay = "\x00".join(strings)
        for label, raw in RAW.items():
            if raw in hay:
                shown.setdefault(label, []).append(surface)
    return shown


async def test_no_raw_identifier_of_a_prowler_scan_reaches_any_surface_under_strict(
        tmp_path: Path) -> None:
    shown = _shown(await _walk(tmp_path, "strict"))
    assert {label: where[:4] for label, where in shown.items()} == {}


async def test_every_identifier_of_the_prowler_scan_is_visible_under_open(
        tmp_path: Path) -> None:
    assert sorted(set(RAW) - set(_shown(await _walk(tmp_path, "open")))) == []


async def test_every_prowler_asset_and_finding_id_shown_under_strict_resolves(
        tmp_path: Path) -> None:
    layer = await _layer(tmp_path, "strict")
    asset_ids, finding_ids = await _ids(layer)
    unresolved = []
    for ref in asset_ids:
        got = await layer.call_tool("get_asset", {"ref": ref, "dataset": "prowler"})
        if got.is_error or got.structured["id"] != ref:
            unresolved.append(ref)
    for fid in finding_ids:
        got = await layer.call_tool("get_finding", {"finding_id": fid, "dataset": "prowler"})
        if got.is_error or got.structured["id"] != fid:
            unresolved.append(fid)
    assert unresolved == []


async def _strict_bucket(layer: CloudGMCPLayer) -> dict[str, Any]:
    found = await layer.call_tool("find_assets", {"dataset": "prowler", "limit": 500,
                                                  "asset_types": ["GCS_BUCKET"]})
    assert not found.is_error, found.text
    (bucket,) = [a for a in found.structured["items"] if a["name"].endswith("-backups-7d3f9a")]
    return bucket


async def test_a_project_inside_a_bucket_name_gets_the_project_pseudonym(
        tmp_path: Path) -> None:
    layer = await _layer(tmp_path, "strict")
    bucket = await _strict_bucket(layer)
    project = bucket["account_id"]
    assert project != GCP_PROJECT
    assert bucket["name"] == f"{project}-backups-7d3f9a"


async def test_a_pseudonymised_bucket_name_finds_its_bucket_and_finding(
        tmp_path: Path) -> None:
    layer = await _layer(tmp_path, "strict")
    bucket = await _strict_bucket(layer)
    got = await layer.call_tool("get_asset", {"ref": bucket["name"], "dataset": "prowler"})
    assert not got.is_error, got.text
    assert got.structured["id"] == bucket["id"]
    findings = await layer.call_tool("list_findings", {"dataset": "prowler",
                                                       "resource": bucket["id"]})
    assert not findings.is_error, findings.text
    (finding,) = findings.structured["items"]
    assert bucket["name"] in finding["id"] and BUCKET not in finding["id"]
