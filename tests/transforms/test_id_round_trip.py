"""Acceptance: every asset id and finding id that ``find_assets`` / ``list_findings`` return
under ``standard`` and ``strict`` resolves with ``get_asset`` / ``get_finding`` (ids are never
one-way redacted; strict pseudonyms come back as the real ids), on the demo estate and on
``scaled(5000)``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from cloudg_nb import CloudGMCPLayer
from cloudg_nb.policy.document import load_document
from cloudg_nb.policy.engine import Policy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from catalog.support import make_layer


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


async def _unresolved(tmp_path: Path, policy: str, sample: dict[str, Any]) -> list[str]:
    layer = make_layer(tmp_path, policy=_policy(policy))  # type: ignore[arg-type]
    loaded = await layer.call_tool("sample_estate", sample)
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
