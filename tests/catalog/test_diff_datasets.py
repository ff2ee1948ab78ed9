"""diff_datasets through the layer: what got worse first (lost protections, attack paths
opened, new exposure, findings), the "since my last review" form against a snapshot, and
clear errors for the comparisons that cannot mean anything."""

from __future__ import annotations

from cloudg_nb import CloudGMCPLayer

from .support import error_data, fail, ok


async def test_the_drifted_demo_is_reported_as_the_waf_loss_and_the_paths_it_opens(
        layer: CloudGMCPLayer) -> None:
    await ok(layer, "sample_estate", {"name": "drifted", "activate": False})
    out = await ok(layer, "diff_datasets", {"base": "demo", "target": "demo-drifted"})
    assert out["headline"].startswith(
        "Worse: 1 protection lost (web-waf (WAF) protects web-alb); 3 new attack paths to "
        "crown jewels")
    assert "web-alb lost its WAF (web-waf)" in out["headline"]
    worse = out["worse"]
    assert [p["protected"]["name"] for p in worse["lost_protections"]] == ["web-alb"]
    assert {p["path"][1] for p in worse["attack_paths_opened"]} == {"web-alb"}
    assert out["summary"]["worse_attack_paths_opened"] == 3
    assert [f["id"] for f in out["better"]["findings_closed"]] == ["f-002"]
    assert out["since_snapshot"] is False


async def test_the_headline_comes_first_in_the_result(layer: CloudGMCPLayer) -> None:
    await ok(layer, "sample_estate", {"name": "drifted", "activate": False})
    out = await ok(layer, "diff_datasets", {"base": "demo", "target": "demo-drifted"})
    assert list(out)[:4] == ["headline", "since_snapshot", "worse", "better"]


async def test_without_a_base_the_diff_is_since_the_latest_snapshot_of_the_target(
        layer: CloudGMCPLayer) -> None:
    await ok(layer, "snapshot_dataset", {"dataset": "demo", "name": "first-look"})
    await ok(layer, "snapshot_dataset", {"dataset": "demo", "name": "monday-review"})
    await ok(layer, "sample_estate", {"name": "drifted", "dataset_name": "demo",
                                      "replace": True})  # the estate, reloaded a week later
    out = await ok(layer, "diff_datasets", {})
    assert out["base"]["name"] == "monday-review" and out["target"]["name"] == "demo"
    assert out["since_snapshot"] is True
    assert [p["protector"]["name"] for p in out["worse"]["lost_protections"]] == ["web-waf"]


async def test_without_a_base_or_a_snapshot_the_error_says_to_take_one(
        layer: CloudGMCPLayer) -> None:
    result = await fail(layer, "diff_datasets", {})
    assert result.error_code == -32602
    assert "No snapshot of 'demo' of yours" in result.text and "snapshot_dataset" in result.text
    assert error_data(result)["field"] == "base"


async def test_a_dataset_compared_with_itself_is_refused_with_what_to_compare_instead(
        layer: CloudGMCPLayer) -> None:
    result = await fail(layer, "diff_datasets", {"base": "demo", "target": "demo"})
    assert result.error_code == -32602
    assert "same dataset ('demo')" in result.text and "snapshot_dataset" in result.text


async def test_an_unknown_base_names_the_close_matches(layer: CloudGMCPLayer) -> None:
    result = await fail(layer, "diff_datasets", {"base": "dmeo"})
    assert "dmeo" not in result.text
    assert error_data(result)["close_matches"] == ["demo"]


async def test_an_unknown_target_names_the_close_matches(layer: CloudGMCPLayer) -> None:
    await ok(layer, "snapshot_dataset", {"name": "baseline"})
    result = await fail(layer, "diff_datasets", {"base": "baseline", "target": "dmeo"})
    assert error_data(result)["close_matches"] == ["demo"]


async def test_the_limit_caps_the_worse_and_better_lists_but_not_their_counts(
        layer: CloudGMCPLayer) -> None:
    await ok(layer, "sample_estate", {"name": "drifted", "activate": False})
    out = await ok(layer, "diff_datasets", {"base": "demo", "target": "demo-drifted",
                                            "limit": 1})
    assert len(out["worse"]["attack_paths_opened"]) == 1
    assert out["summary"]["worse_attack_paths_opened"] == 3 and out["truncated"] is True
