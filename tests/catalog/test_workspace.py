"""Workspace tools of the catalog: sample_estate, load_dataset, workspace_status,
list_datasets, dataset_summary, select/unload/snapshot/export_dataset and diff_datasets —
their answers on the demo estate, naming rules, and the change events their mutations fire."""

from __future__ import annotations

from pathlib import Path

from cloudg_nb.estate import write_inventory_map

from .support import error_data, fail, ok

DEMO_SUMMARY_URI = "cloudg://datasets/demo/summary"


async def test_sample_estate_with_the_cli_arguments_loads_the_demo_as_active(empty) -> None:
    out = await ok(empty, "sample_estate", {"name": "demo"})
    assert (out["name"], out["assets"], out["edges"], out["findings"], out["active"]) == (
        "demo", 60, 77, 15, True)
    assert out["compliance_results"] == 21 and out["replaced"] is False
    assert empty.workspace.active == "demo"


async def test_sample_estate_links_the_new_dataset_summary(empty) -> None:
    result = await empty.call_tool("sample_estate", {})
    links = [c for c in result.content if getattr(c, "uri", None)]
    assert [link.uri for link in links] == [DEMO_SUMMARY_URI]


async def test_sample_estate_scaled_takes_a_size_and_a_dataset_name(layer) -> None:
    out = await ok(layer, "sample_estate",
                   {"name": "scaled", "n": 500, "dataset_name": "big", "activate": False})
    assert (out["name"], out["assets"], out["active"]) == ("big", 500, False)
    assert layer.workspace.active == "demo"


async def test_a_second_demo_gets_a_unique_name(layer) -> None:
    out = await ok(layer, "sample_estate", {"name": "demo"})
    assert out["name"] == "demo-2"
    assert out["datasets"] == ["demo", "demo-2"]


async def test_an_unknown_sample_kind_suggests_close_matches(empty) -> None:
    result = await fail(empty, "sample_estate", {"name": "dmeo"})
    assert result.error_code == -32602
    assert error_data(result)["close_matches"] == ["demo"]
    assert "dmeo" not in result.text


async def test_workspace_status_shows_datasets_and_the_active_one(layer) -> None:
    await ok(layer, "sample_estate", {"name": "drifted", "activate": False})
    out = await ok(layer, "workspace_status")
    assert out["datasets"] == ["demo", "demo-drifted"] and out["active"] == "demo"
    assert [(d["name"], d["active"], d["assets"]) for d in out["loaded"]] == [
        ("demo", True, 60), ("demo-drifted", False, 59)]


async def test_list_datasets_reports_versions_sizes_and_summary_uris(layer) -> None:
    await ok(layer, "suppress_findings", {"ids": ["f-001"]})
    out = await ok(layer, "list_datasets")
    assert out["active"] == "demo" and out["total"] == 1
    line = out["datasets"][0]
    assert (line["name"], line["version"], line["findings"], line["summary_uri"]) == (
        "demo", 2, 15, DEMO_SUMMARY_URI)
    assert line["source"] == "sample:demo"


async def test_dataset_summary_counts_the_demo_estate(layer) -> None:
    out = await ok(layer, "dataset_summary")
    assert (out["assets"], out["edges"], out["findings"]) == (60, 77, 15)
    assert out["providers"] == {"AWS": 38, "GCP": 12, "AZURE": 10}
    assert out["findings_by_severity"] == {"CRITICAL": 2, "HIGH": 4, "MEDIUM": 5, "LOW": 1,
                                           "INFO": 2, "UNKNOWN": 0}
    assert (out["suppressed_findings"], out["orphan_findings"]) == (1, 1)
    assert out["compliance_frameworks"] == ["CIS-AWS-2.0", "CIS-AZURE-2.0", "CIS-GCP-2.0",
                                            "PCI-DSS-4.0", "SOC2"]
    assert out["uri"] == DEMO_SUMMARY_URI


async def test_data_tools_without_a_dataset_say_how_to_load_one(empty) -> None:
    result = await fail(empty, "dataset_summary")
    assert result.error_code == -32602
    assert "sample_estate" in error_data(result)["hint"]


async def test_load_dataset_reads_an_inventory_map_folder_by_relative_path(
        empty, tmp_path: Path, demo_ds) -> None:
    write_inventory_map(demo_ds, tmp_path / "data" / "acme")
    out = await ok(empty, "load_dataset", {"path": "acme"})
    assert (out["name"], out["assets"], out["edges"], out["findings"]) == ("acme", 60, 77, 15)
    assert out["kind"] == "inventory" and out["active"] is True


async def test_exported_tables_load_back_with_their_suppressions(layer, tmp_path: Path) -> None:
    await ok(layer, "suppress_findings", {"ids": ["f-001"], "reason": "accepted"})
    exported = await ok(layer, "export_dataset", {"format": "jsonl", "folder": "week1"})
    assert exported["folder"] == "week1"
    assert exported["files"] == ["assets.jsonl", "compliance.jsonl", "edges.jsonl",
                                 "findings.jsonl"]
    out = await ok(layer, "load_dataset", {"path": str(tmp_path / "out" / "week1"),
                                           "name": "week1", "kind": "tabular"})
    assert (out["assets"], out["edges"], out["findings"]) == (60, 77, 15)
    summary = await ok(layer, "dataset_summary", {"dataset": "week1"})
    assert summary["suppressed_findings"] == 2


async def test_export_dataset_defaults_to_an_inventory_map_named_after_the_dataset(
        layer, tmp_path: Path) -> None:
    out = await ok(layer, "export_dataset")
    assert (out["folder"], out["files"]) == ("demo", ["findings.json", "inventory-map.json"])
    assert (tmp_path / "out" / "demo" / "inventory-map.json").is_file()


async def test_export_dataset_writes_only_under_the_output_root(layer, tmp_path: Path) -> None:
    result = await fail(layer, "export_dataset", {"folder": "../data/escape"})
    assert result.error_code == -31001
    assert not (tmp_path / "data" / "escape").exists()


async def test_load_dataset_refuses_a_taken_name_and_suggests_another(
        layer, tmp_path: Path, demo_ds) -> None:
    write_inventory_map(demo_ds, tmp_path / "data" / "acme")
    result = await fail(layer, "load_dataset", {"path": "acme", "name": "demo"})
    assert error_data(result) == {"existing": "demo", "suggested": "demo-2"}


async def test_load_dataset_with_replace_continues_the_version(
        layer, tmp_path: Path, demo_ds) -> None:
    await ok(layer, "suppress_findings", {"ids": ["f-001"]})  # demo now at version 2
    write_inventory_map(demo_ds, tmp_path / "data" / "acme")
    out = await ok(layer, "load_dataset", {"path": "acme", "name": "demo", "replace": True})
    assert (out["replaced"], out["version"]) == (True, 3)


async def test_select_dataset_switches_what_empty_dataset_arguments_mean(layer) -> None:
    await ok(layer, "sample_estate", {"name": "drifted", "activate": False})
    out = await ok(layer, "select_dataset", {"name": "demo-drifted"})
    assert out["active"] == "demo-drifted"
    assert (await ok(layer, "dataset_summary"))["assets"] == 59


async def test_select_dataset_unknown_name_lists_close_matches(layer) -> None:
    result = await fail(layer, "select_dataset", {"name": "dem0"})
    assert error_data(result)["close_matches"] == ["demo"]


async def test_unload_dataset_removes_it_and_activates_the_latest_remaining(layer) -> None:
    await ok(layer, "sample_estate", {"name": "drifted", "activate": False})
    await ok(layer, "sample_estate", {"name": "scaled", "n": 100, "activate": False})
    out = await ok(layer, "unload_dataset", {"name": "demo"})
    assert out == {"unloaded": "demo", "active": "scaled-100",
                   "datasets": ["demo-drifted", "scaled-100"]}


async def test_snapshot_dataset_copies_without_activating(layer) -> None:
    out = await ok(layer, "snapshot_dataset")
    assert (out["snapshot"], out["source_dataset"], out["active"]) == (
        "demo-snapshot", "demo", "demo")
    await ok(layer, "suppress_findings", {"ids": ["f-001"]})
    snap = await ok(layer, "findings_summary", {"dataset": "demo-snapshot"})
    live = await ok(layer, "findings_summary")
    assert (snap["suppressed"], live["suppressed"]) == (1, 2)


async def test_snapshot_dataset_takes_a_name(layer) -> None:
    out = await ok(layer, "snapshot_dataset", {"dataset": "demo", "name": "baseline"})
    assert out["snapshot"] == "baseline" and "baseline" in out["datasets"]


async def test_diff_of_demo_and_drifted_reports_the_removed_waf_and_resolved_ssh_finding(
        layer) -> None:
    await ok(layer, "sample_estate", {"name": "drifted"})
    out = await ok(layer, "diff_datasets", {"base": "demo"})  # target: the active drifted
    assert out["target"]["name"] == "demo-drifted"
    assert [a["name"] for a in out["assets"]["removed"]] == ["web-waf"]
    assert [(e["id"], e["edge_type"]) for e in out["edges"]["removed"]] == [
        ("e-waf-alb", "PROTECTS")]
    assert [(f["id"], f["title"]) for f in out["findings"]["resolved"]] == [
        ("f-002", "Security group allows SSH (22) from 0.0.0.0/0")]
    assert out["summary"]["assets_added"] == 0 and out["findings"]["new"] == []
    assert out["truncated"] is False


async def test_diff_limit_caps_every_list_but_not_the_counts(layer) -> None:
    await ok(layer, "sample_estate", {"name": "scaled", "n": 200, "activate": False})
    out = await ok(layer, "diff_datasets", {"base": "demo", "target": "scaled-200",
                                            "limit": 5})
    assert out["summary"]["assets_added"] == 200 and out["summary"]["assets_removed"] == 60
    assert len(out["assets"]["added"]) == 5 and len(out["assets"]["removed"]) == 5
    assert out["truncated"] is True


# -- change events ---------------------------------------------------------------------------


def _uris_of_active_demo() -> list[tuple[str, str | None]]:
    """Every resource whose content depends on the active dataset ``demo``."""
    return [("resource", uri) for uri in (
        "cloudg://workspace", "cloudg://datasets", DEMO_SUMMARY_URI,
        "cloudg://datasets/demo/assets", "cloudg://datasets/demo/findings",
        "cloudg://findings/summary", "cloudg://compliance")]


def _record(layer) -> list[tuple[str, str | None]]:
    seen: list[tuple[str, str | None]] = []
    layer.on_change(lambda kind, uri: seen.append((kind, uri)))
    return seen


async def test_loading_a_dataset_fires_a_list_change_and_the_workspace_updates(empty) -> None:
    seen = _record(empty)
    await ok(empty, "sample_estate", {})
    assert seen == [("resources", None), *_uris_of_active_demo()]


async def test_suppressing_findings_updates_the_workspace_resources(layer) -> None:
    seen = _record(layer)
    await ok(layer, "suppress_findings", {"ids": ["f-001"]})
    assert seen == _uris_of_active_demo()


async def test_unloading_fires_a_list_change(layer) -> None:
    seen = _record(layer)
    await ok(layer, "unload_dataset", {"name": "demo"})
    assert seen == [("resources", None), *_uris_of_active_demo()]


async def test_selecting_fires_resource_updates_only(layer) -> None:
    await ok(layer, "sample_estate", {"name": "drifted", "activate": False})
    seen = _record(layer)
    await ok(layer, "select_dataset", {"name": "demo-drifted"})
    assert ("resources", None) not in seen
    assert ("resource", "cloudg://workspace") in seen
    assert ("resource", "cloudg://findings/summary") in seen
    assert ("resource", "cloudg://compliance") in seen


async def test_diff_reports_findings_suppressed_since_a_snapshot(layer) -> None:
    await ok(layer, "snapshot_dataset", {"name": "before"})
    await ok(layer, "suppress_findings", {"ids": ["f-003"], "reason": "accepted"})
    out = await ok(layer, "diff_datasets", {"base": "before", "target": "demo"})
    assert [(f["id"], f["suppressed"]) for f in out["findings"]["suppression_changed"]] == [
        ("f-003", True)]
    assert out["summary"]["findings_suppression_changed"] == 1


async def test_snapshot_past_the_budget_says_which_datasets_it_evicted(layer) -> None:
    layer.workspace.config.max_datasets = 2
    await ok(layer, "sample_estate", {"name": "drifted", "activate": False})
    out = await ok(layer, "snapshot_dataset", {"dataset": "demo"})
    assert out["evicted"] == ["demo-drifted"]
    assert "demo-drifted" in out["note"] and "demo-drifted" not in out["datasets"]


async def test_eviction_fires_a_change_for_the_evicted_dataset(layer) -> None:
    layer.workspace.config.max_datasets = 2
    await ok(layer, "sample_estate", {"name": "drifted", "activate": False})
    seen: list[tuple[str, str | None]] = []
    layer.on_change(lambda kind, uri: seen.append((kind, uri)))
    await ok(layer, "snapshot_dataset", {"dataset": "demo"})
    assert ("resource", "cloudg://datasets/demo-drifted/summary") in seen
    assert ("resource", "cloudg://datasets/demo-drifted/findings") in seen
    assert ("resources", None) in seen


async def test_loads_within_the_budget_evict_nothing(layer) -> None:
    out = await ok(layer, "sample_estate", {"name": "drifted"})
    assert out["evicted"] == [] and "note" not in out


async def test_a_deeply_nested_json_file_is_a_clean_load_error(empty, tmp_path: Path) -> None:
    (tmp_path / "data" / "deep.json").write_text('{"assets":' + "[" * 100_000 + "]" * 100_000
                                                 + "}")
    result = await fail(empty, "load_dataset", {"path": "deep.json"})
    assert "nested too deeply" in result.text
    assert "RecursionError" not in result.text
    assert error_data(result)["reason"] == "too_deep"
