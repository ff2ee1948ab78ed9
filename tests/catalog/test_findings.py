"""Findings tools on the demo estate: list_findings (filters, sorting, suppressed),
get_finding, findings_summary, top_risks, and suppress/unsuppress (version bumps, stale
cursors, unknown ids)."""

from __future__ import annotations

from .support import error_data, fail, ok


def _ids(out: dict) -> list[str]:
    return [f["id"] for f in out["items"]]


async def test_list_findings_worst_first_without_suppressed(layer) -> None:
    out = await ok(layer, "list_findings")
    assert _ids(out)[:4] == ["f-001", "f-012", "f-011", "f-002"]
    assert out["total"] == 14 and "f-010" not in _ids(out)


async def test_list_findings_by_scanner_framework_and_asset(layer) -> None:
    assert _ids(await ok(layer, "list_findings", {"source_tool": "Prowler"})) == [
        "f-012", "f-002", "f-004", "f-005", "f-013", "f-006"]
    assert _ids(await ok(layer, "list_findings", {"framework": "pci-dss-4.0"})) == [
        "f-001", "f-011", "f-002", "f-013"]
    assert _ids(await ok(layer, "list_findings", {"resource": "web-1"})) == ["f-001"]


async def test_list_findings_include_suppressed_shows_the_reason(layer) -> None:
    out = await ok(layer, "list_findings", {"severities": ["low"], "include_suppressed": True})
    assert [(f["id"], f["is_suppressed"]) for f in out["items"]] == [
        ("f-006", False), ("f-010", True)]
    assert out["items"][1]["suppression_reason"].startswith("Accepted risk")


async def test_list_findings_marks_the_orphan_outside_the_inventory(layer) -> None:
    out = await ok(layer, "list_findings", {"severities": "HIGH"})
    orphan = next(f for f in out["items"] if f["id"] == "f-011")
    assert orphan["in_inventory"] is False and orphan["resource_name"] is None


async def test_get_finding_of_the_ssh_rule_lists_its_failing_controls(layer) -> None:
    out = await ok(layer, "get_finding", {"finding_id": "f-002"})
    assert out["asset"]["name"] == "sg-bastion-ssh" and out["severity"] == "HIGH"
    assert out["controls"] == [
        {"framework": "CIS-AWS-2.0", "control_id": "5.2", "status": "FAIL"},
        {"framework": "PCI-DSS-4.0", "control_id": "1.3.1", "status": "FAIL"}]


async def test_get_finding_unknown_id_gives_close_matches(layer) -> None:
    result = await fail(layer, "get_finding", {"finding_id": "f-0002"})
    assert result.error_code == -32602
    assert "f-002" in error_data(result)["close_matches"]


async def test_findings_summary_by_scanner(layer) -> None:
    out = await ok(layer, "findings_summary", {"group_by": "source_tool"})
    assert out["groups"] == [{"key": "prowler", "count": 6}, {"key": "checkov", "count": 4},
                             {"key": "scoutsuite", "count": 2}, {"key": "trivy", "count": 2}]
    assert (out["open"], out["suppressed"], out["not_in_inventory"]) == (14, 1, 1)
    assert out["by_severity"]["CRITICAL"] == 2


async def test_top_risks_ranks_the_exposed_backdoored_web_host_first(layer) -> None:
    out = await ok(layer, "top_risks", {"limit": 3})
    assert [(r["rank"], r["name"], r["top_finding_id"]) for r in out["items"]] == [
        (1, "web-1", "f-001"), (2, "sg-bastion-ssh", "f-002"), (3, "nsg-jump-rdp", "f-008")]
    assert out["items"][0]["exposure_factor"] == 1.5


async def test_suppress_findings_reports_changed_already_and_unknown(layer) -> None:
    out = await ok(layer, "suppress_findings",
                   {"ids": ["f-001", "f-010", "f-999"], "reason": "test"})
    assert (out["suppressed"], out["already"], out["unknown"], out["version"]) == (
        ["f-001"], ["f-010"], ["f-999"], 2)
    listed = await ok(layer, "list_findings")
    assert "f-001" not in _ids(listed)


async def test_suppress_findings_with_only_unknown_ids_is_an_error(layer) -> None:
    result = await fail(layer, "suppress_findings", {"ids": "f-999"})
    assert result.error_code == -32602
    assert layer.workspace.get("").version == 1


async def test_unsuppress_findings_restores_the_finding(layer) -> None:
    out = await ok(layer, "unsuppress_findings", {"ids": ["f-010", "f-001"]})
    assert (out["unsuppressed"], out["already"]) == (["f-010"], ["f-001"])
    summary = await ok(layer, "findings_summary")
    assert summary["suppressed"] == 0 and summary["by_severity"]["LOW"] == 2


async def test_suppressing_makes_an_earlier_cursor_stale(layer) -> None:
    page = await ok(layer, "list_findings", {"limit": 5})
    await ok(layer, "suppress_findings", {"ids": ["f-001"]})
    result = await fail(layer, "list_findings", {"limit": 5, "cursor": page["next_cursor"]})
    assert result.error_code == -32602
    assert error_data(result)["reason"] == "stale"


async def test_a_finding_mapped_to_no_framework_lists_an_empty_framework_list(
        empty, tmp_path) -> None:
    folder = tmp_path / "data" / "tables"
    folder.mkdir()
    (folder / "assets.csv").write_text("id,name,asset_type,provider\ni-1,web,EC2,AWS\n")
    (folder / "findings.csv").write_text("id,resource_id,severity,title\nf-1,i-1,HIGH,t\n")
    await ok(empty, "load_dataset", {"path": "tables"})
    out = await ok(empty, "list_findings")
    assert [f["compliance_frameworks"] for f in out["items"]] == [[]]
