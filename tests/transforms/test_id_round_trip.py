"""Acceptance: every asset id and finding id that ``find_assets`` / ``list_findings`` return
under ``standard`` and ``strict`` resolves with ``get_asset`` / ``get_finding`` (ids are never
one-way redacted; strict pseudonyms come back as the real ids), on the demo estate, on
``scaled(5000)`` and on Prowler scans loaded with ``load_dataset`` (the scanner-only fixture and
``prowler_id_estate``: random-looking ARNs, Azure ids, GCP names, Kubernetes uids)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cloudg_nb import CloudGMCPLayer
from cloudg_nb.policy.document import load_document
from cloudg_nb.policy.engine import Policy
from tests.catalog.support import make_layer

from .prowler_id_estate import RESOURCES, write_scan


def _policy(name: str) -> Policy:
    doc = load_document(name)
    doc["rate_limits"] = []  # thousands of calls in one test: the limit is not under test
    if name == "strict":
        doc["vault"] = {"key": "id-round-trip-test-key-0123456789abcdef"}
    return Policy(doc)


async def _pages(layer: CloudGMCPLayer, tool: str, **arguments: Any) -> list[str]:
    ids: list[str] = []
    cursor = None
    while True:
        args = {**arguments, "limit": 500, **({"cursor": cursor} if cursor else {})}
        result = await layer.call_tool(tool, args)
        assert not result.is_error, result.text
        ids += [item["id"] for item in result.structured["items"]]
        cursor = result.structured["next_cursor"]
        if not cursor:
            return ids


async def _unresolved(tmp_path: Path, policy: str, sample: dict[str, Any] | None = None,
                      path: str | None = None) -> list[str]:
    """Ids that find_assets / list_findings returned and get_asset / get_finding did not
    resolve to themselves, on a sample estate or on a file loaded with load_dataset."""
    layer = make_layer(tmp_path, policy=_policy(policy))  # type: ignore[arg-type]
    if path is not None:
        loaded = await layer.call_tool("load_dataset", {"path": path})
    else:
        loaded = await layer.call_tool("sample_estate", sample or {})
    assert not loaded.is_error, loaded.text
    assets = await _pages(layer, "find_assets")
    findings = await _pages(layer, "list_findings", include_suppressed=True)
    assert assets and findings
    missing = []
    for ref in assets:
        result = await layer.call_tool("get_asset", {"ref": ref})
        if result.is_error or result.structured["id"] != ref:
            missing.append(ref)
    for fid in findings:
        result = await layer.call_tool("get_finding", {"finding_id": fid})
        if result.is_error or result.structured["id"] != fid:
            missing.append(fid)
    return missing


@pytest.mark.parametrize("policy", ["standard", "strict"])
async def test_every_demo_asset_and_finding_id_resolves(tmp_path: Path, policy: str) -> None:
    assert await _unresolved(tmp_path, policy, {"name": "demo"}) == []


@pytest.mark.parametrize("policy", ["standard", "strict"])
async def test_every_scaled_5000_asset_and_finding_id_resolves(tmp_path: Path,
                                                                policy: str) -> None:
    assert await _unresolved(tmp_path, policy, {"name": "scaled", "n": 5000}) == []


SCANNER_ONLY = Path(__file__).resolve().parents[1] / "estate" / "data" / (
    "scanner-only-estate.ocsf.json")


@pytest.mark.parametrize("policy", ["standard", "strict"])
async def test_every_id_of_the_scanner_only_prowler_scan_resolves(tmp_path: Path,
                                                                   policy: str) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / SCANNER_ONLY.name).write_text(SCANNER_ONLY.read_text())
    assert await _unresolved(tmp_path, policy, path=SCANNER_ONLY.name) == []


@pytest.mark.parametrize("policy", ["standard", "strict"])
async def test_every_id_of_a_loaded_multi_cloud_prowler_scan_resolves(tmp_path: Path,
                                                                       policy: str) -> None:
    (tmp_path / "data").mkdir()
    path = write_scan(tmp_path / "data")
    assert await _unresolved(tmp_path, policy, path=path.name) == []


@pytest.mark.parametrize("policy", ["standard", "strict"])
async def test_a_loaded_prowler_scan_lists_every_resource_and_failing_finding(
        tmp_path: Path, policy: str) -> None:
    (tmp_path / "data").mkdir()
    path = write_scan(tmp_path / "data")
    layer = make_layer(tmp_path, policy=_policy(policy))  # type: ignore[arg-type]
    loaded = await layer.call_tool("load_dataset", {"path": path.name})
    assert not loaded.is_error, loaded.text
    assets = await _pages(layer, "find_assets")
    findings = await _pages(layer, "list_findings", include_suppressed=True)
    assert len(set(findings)) == len(findings) == len(RESOURCES)
    # every resource plus one account (or cluster) asset per provider
    assert len(set(assets)) == len(assets) == len(RESOURCES) + 4
    if policy == "standard":
        assert {uid for _, _, uid, *_ in RESOURCES} <= set(assets)


CLOUDFRONT = "arn:aws:cloudfront::111122223333:distribution/E2QWRUHAPOMQZL"
API_STAGE = "arn:aws:execute-api:us-east-1:111122223333:Ab3dE5fG7h/prod/GET/orders"


async def test_random_looking_arns_survive_get_asset_and_subgraph_export_under_standard(
        tmp_path: Path) -> None:
    layer = make_layer(tmp_path, policy=_policy("standard"))  # type: ignore[arg-type]
    assets = [{"id": arn, "arn": arn, "name": name, "asset_type": "OTHER", "provider": "AWS",
               "account_id": "111122223333"}
              for arn, name in ((CLOUDFRONT, "cdn"), (API_STAGE, "orders-api"))]
    (tmp_path / "data" / "findings.json").write_text(json.dumps({
        "assets": assets,
        "findings": [{"id": "f-1", "resource_id": CLOUDFRONT, "severity": "LOW",
                      "title": "No WAF", "source_tool": "test"}],
    }))
    loaded = await layer.call_tool("load_dataset", {"path": "findings.json"})
    assert not loaded.is_error, loaded.text
    found = await _pages(layer, "find_assets")
    assert sorted(found) == sorted([CLOUDFRONT, API_STAGE])
    for ref in found:
        got = await layer.call_tool("get_asset", {"ref": ref})
        assert not got.is_error and got.structured["id"] == ref
    export = await layer.call_tool("subgraph_export", {"seeds": found})
    assert not export.is_error, export.text
    assert CLOUDFRONT in export.text and API_STAGE in export.text
