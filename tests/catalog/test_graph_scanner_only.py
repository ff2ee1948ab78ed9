"""Graph tools on data without relationships: a scanner-only Prowler estate (exposure
derived from its findings) and an asset table without edges (a one-line note)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from cloudg_nb import CloudGMCPLayer

from .support import ok

SCAN = Path(__file__).parents[1] / "estate" / "data" / "scanner-only-estate.ocsf.json"
FW = "projects/estate-test-project/global/firewalls/allow-rdp-anywhere"


async def _scan(layer: CloudGMCPLayer, tmp_path: Path) -> None:
    shutil.copy(SCAN, tmp_path / "data" / "scan.ocsf.json")
    await ok(layer, "load_dataset", {"path": "scan.ocsf.json", "name": "scan"})


async def test_internet_exposure_tool_names_port_and_finding_on_scanner_data(
        empty, tmp_path) -> None:
    await _scan(empty, tmp_path)
    out = await ok(empty, "internet_exposure", {"dataset": "scan"})
    rows = {r["name"]: r for r in out["items"]}
    assert rows["allow-rdp-anywhere"]["open_ports"] == [3389]
    assert rows["allow-rdp-anywhere"]["derived_from"][0].startswith(
        "prowler-gcp-compute_firewall_rdp_access_from_the_internet_allowed")
    assert "derived from findings" in out["note"]


async def test_attack_paths_tool_reaches_the_exposed_firewall_rule(empty, tmp_path) -> None:
    await _scan(empty, tmp_path)
    out = await ok(empty, "attack_paths", {"target": FW, "dataset": "scan"})
    assert out["count"] == 1 and out["paths"][0]["entry"]["id"] == FW
    assert out["paths"][0]["edges"][0]["derived_from_finding"].startswith("prowler-gcp-")


async def test_top_risks_tool_names_the_findings_an_exposure_comes_from(
        empty, tmp_path) -> None:
    await _scan(empty, tmp_path)
    out = await ok(empty, "top_risks", {"dataset": "scan"})
    row = next(r for r in out["items"] if r["name"] == "allow-rdp-anywhere")
    assert row["internet_exposed"] and row["exposed_by_findings"]


async def test_graph_tools_on_assets_without_edges_say_there_is_no_relationship_data(
        empty, tmp_path) -> None:
    folder = tmp_path / "data" / "flat"
    folder.mkdir()
    (folder / "assets.csv").write_text("id,name,asset_type,provider\n"
                                       "i-1,web-1,EC2,AWS\ni-2,db-1,RDS_INSTANCE,AWS\n")
    await ok(empty, "load_dataset", {"path": "flat", "name": "flat"})
    for tool, args in (("neighbors", {"ref": "web-1"}), ("attack_paths", {}),
                       ("get_edges", {}), ("graph_stats", {}), ("internet_exposure", {})):
        out = await ok(empty, tool, {**args, "dataset": "flat"})
        assert "no relationship data" in out["note"] and "\n" not in out["note"], tool


async def test_graph_tools_on_the_demo_estate_carry_no_note(layer) -> None:
    for tool, args in (("graph_stats", {}), ("attack_paths", {}), ("internet_exposure", {})):
        assert "note" not in await ok(layer, tool, args), tool


async def test_posture_review_of_scanner_data_names_derived_exposure_and_the_note(
        empty, tmp_path) -> None:
    await _scan(empty, tmp_path)
    text = (await empty.get_prompt("security_posture_review", {"dataset": "scan"})
            ).messages[0].content.text
    facts = json.loads(re.search(r"```json\n(.*?)\n```", text, re.S).group(1))
    points = {e["name"]: e for e in facts["internet_entry_points"]}
    assert points["allow-rdp-anywhere"]["derived_from"] and "graph_note" in facts


async def test_posture_review_of_the_demo_estate_has_no_graph_note(layer) -> None:
    text = (await layer.get_prompt("security_posture_review", {})).messages[0].content.text
    assert "graph_note" not in text and "derived_from" not in text


# -- exposure derived from findings counts everywhere ----------------------------------------


async def _exposed_names(layer: CloudGMCPLayer) -> set[str]:
    out = await ok(layer, "internet_exposure", {"dataset": "scan"})
    return {r["name"] for r in out["items"]}


async def test_dataset_summary_counts_the_assets_exposed_only_by_findings(
        empty, tmp_path) -> None:
    await _scan(empty, tmp_path)
    summary = await ok(empty, "dataset_summary", {"dataset": "scan"})
    exposed = await _exposed_names(empty)
    assert summary["internet_exposed_assets"] == len(exposed) > 0
    assert summary["internet_exposed_by_findings_only"] == len(exposed)


async def test_the_summary_resource_agrees_with_the_summary_tool(empty, tmp_path) -> None:
    await _scan(empty, tmp_path)
    [content] = await empty.read_resource("cloudg://datasets/scan/summary")
    summary = json.loads(content.text)
    assert summary["internet_exposed_assets"] == len(await _exposed_names(empty))


async def test_find_assets_internet_exposed_lists_finding_exposures_marked_derived(
        empty, tmp_path) -> None:
    await _scan(empty, tmp_path)
    out = await ok(empty, "find_assets", {"dataset": "scan", "internet_exposed": True})
    rows = {r["name"]: r for r in out["items"]}
    assert set(rows) == await _exposed_names(empty)
    assert rows["allow-rdp-anywhere"]["exposure_derived_from"][0].startswith(
        "prowler-gcp-compute_firewall_rdp_access_from_the_internet_allowed")


async def test_find_assets_not_exposed_leaves_out_the_finding_exposures(
        empty, tmp_path) -> None:
    await _scan(empty, tmp_path)
    out = await ok(empty, "find_assets", {"dataset": "scan", "internet_exposed": False})
    names = {r["name"] for r in out["items"]}
    assert names and not names & await _exposed_names(empty)
    assert all(r["exposure_derived_from"] is None for r in out["items"])


async def test_count_assets_by_exposure_counts_the_finding_exposures(empty, tmp_path) -> None:
    await _scan(empty, tmp_path)
    out = await ok(empty, "count_assets", {"dataset": "scan", "group_by": "internet_exposed"})
    counts = {g["group"]: g["count"] for g in out["groups"]}
    assert counts[True] == len(await _exposed_names(empty))


async def test_get_asset_marks_an_exposure_derived_from_a_finding(empty, tmp_path) -> None:
    await _scan(empty, tmp_path)
    out = await ok(empty, "get_asset", {"ref": FW, "dataset": "scan"})
    assert out["is_internet_exposed"] is True
    assert out["exposure_derived_from"][0].startswith("prowler-gcp-")


async def test_list_accounts_counts_the_finding_exposures_of_each_account(
        empty, tmp_path) -> None:
    await _scan(empty, tmp_path)
    out = await ok(empty, "list_accounts", {"dataset": "scan"})
    assert sum(a["internet_exposed"] for a in out["items"]) == len(
        await _exposed_names(empty))


async def test_demo_estate_briefs_carry_no_derived_exposure_marker(layer) -> None:
    out = await ok(layer, "find_assets", {"internet_exposed": True})
    assert out["total"] == 4
    assert all("exposure_derived_from" not in r for r in out["items"])
