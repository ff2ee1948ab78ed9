"""Meta tools: list_capabilities (what the caller may use) and explain_asset_type /
explain_edge_type (the estate vocabulary)."""

from __future__ import annotations

from cloudg_nb.estate import AssetType, EdgeType

from .support import error_data, fail, ok


async def test_list_capabilities_lists_the_catalog_with_categories(layer) -> None:
    out = await ok(layer, "list_capabilities")
    tools = {t["name"]: t["category"] for t in out["tools"]}
    assert tools["blast_radius"] == "graph" and tools["suppress_findings"] == "findings"
    assert "cloudg://workspace" in [r["uri"] for r in out["resources"]]
    assert "cloudg://assets/{+ref}" in [t["uriTemplate"] for t in out["templates"]]
    assert "incident_triage" in out["prompts"] and out["server"]["policy"] == "open"


async def test_list_capabilities_leaves_out_what_the_layer_does_not_serve() -> None:
    from cloudg_nb import CloudGMCPLayer

    layer = CloudGMCPLayer(policy="open", exclude_categories=["findings"])
    out = await ok(layer, "list_capabilities")
    tools = {t["name"] for t in out["tools"]}
    assert "find_assets" in tools and "suppress_findings" not in tools
    assert "cloudg://findings/summary" not in [r["uri"] for r in out["resources"]]


async def test_explain_asset_type_reads_loose_spelling(layer) -> None:
    out = await ok(layer, "explain_asset_type", {"asset_type": "kms-key"})
    assert out["types"] == [{"asset_type": "KMS_KEY", "category": "keys", "data_store": False,
                             "description": out["types"][0]["description"]}]
    assert "encryption key" in out["types"][0]["description"]


async def test_explain_asset_type_without_argument_lists_every_type(empty) -> None:
    out = await ok(empty, "explain_asset_type")
    assert [t["asset_type"] for t in out["types"]] == [t.value for t in AssetType]


async def test_explain_asset_type_unknown_gives_close_matches(empty) -> None:
    result = await fail(empty, "explain_asset_type", {"asset_type": "S3_BUKET"})
    assert error_data(result)["close_matches"][0] == "S3_BUCKET"


async def test_explain_edge_type_says_which_end_depends(empty) -> None:
    out = await ok(empty, "explain_edge_type", {"edge_type": "references"})
    assert out["types"][0]["dependency"] == "forward"
    assert out["types"][0]["family"] == "structure"
    every = await ok(empty, "explain_edge_type")
    assert len(every["types"]) == len(EdgeType)
