"""Inventory tools on the demo estate: find_assets (filters, sorting, fields, paging),
get_asset, count_assets, list_accounts, list_regions, list_tags and list_asset_types."""

from __future__ import annotations

from .support import error_data, fail, names, ok


async def test_find_assets_filters_by_type_case_insensitively(layer) -> None:
    out = await ok(layer, "find_assets", {"asset_types": ["ec2"]})
    assert names(out["items"]) == ["bastion-1", "web-1", "web-2"]
    assert out["total"] == 3 and out["truncated"] is False and out["dataset"] == "demo"


async def test_find_assets_lists_the_internet_exposed_entry_points(layer) -> None:
    out = await ok(layer, "find_assets", {"internet_exposed": True})
    assert names(out["items"]) == ["bastion-1", "kibana-1", "vm-jump-01", "web-alb"]


async def test_find_assets_by_tag_value_finds_the_pii_stores(layer) -> None:
    out = await ok(layer, "find_assets", {"tag": "data_classification=pii"})
    assert names(out["items"]) == ["analytics-raw", "customer-pii-exports", "customers-db"]


async def test_find_assets_by_minimum_severity(layer) -> None:
    out = await ok(layer, "find_assets", {"min_severity": "critical"})
    assert names(out["items"]) == ["partner-audit-role", "web-1"]
    assert [i["max_severity"] for i in out["items"]] == ["CRITICAL", "CRITICAL"]


async def test_find_assets_combines_text_provider_and_sorting(layer) -> None:
    out = await ok(layer, "find_assets", {"query": "web", "provider": "aws",
                                          "sort_by": "open_findings"})
    assert [(i["name"], i["open_findings"]) for i in out["items"]] == [
        ("web-1", 1), ("web-alb", 1), ("sg-web", 0), ("web-2", 0), ("web-waf", 0)]


async def test_find_assets_fields_keep_only_the_asked_columns_and_the_id(layer) -> None:
    out = await ok(layer, "find_assets", {"asset_types": "EC2", "fields": ["name"]})
    assert out["items"][0] == {"id": "aws-ec2-bastion", "name": "bastion-1"}


async def test_find_assets_pages_with_a_cursor_until_the_end(layer) -> None:
    seen: list[str] = []
    cursor = None
    for _ in range(10):
        args = {"limit": 25, **({"cursor": cursor} if cursor else {})}
        out = await ok(layer, "find_assets", args)
        seen += [i["id"] for i in out["items"]]
        cursor = out["next_cursor"]
        if cursor is None:
            break
    assert len(seen) == len(set(seen)) == 60
    assert out["offset"] == 50 and out["returned"] == 10 and out["truncated"] is False


async def test_find_assets_unknown_sort_key_gives_close_matches(layer) -> None:
    result = await fail(layer, "find_assets", {"sort_by": "nmae"})
    assert error_data(result)["close_matches"][0] == "name"


async def test_get_asset_resolves_a_name_and_shows_findings_and_edges(layer) -> None:
    out = await ok(layer, "get_asset", {"ref": "customers-db"})
    assert (out["id"], out["asset_type"], out["category"]) == (
        "aws-rds-customers", "RDS_INSTANCE", "data")
    assert out["tags"] == {"env": "prod", "data_classification": "pii"}
    assert [f["id"] for f in out["findings"]] == ["f-005"]
    assert out["edges"] == {"outgoing": {"ATTACHED_TO": 1, "REFERENCES": 1},
                            "incoming": {"CONTAINS": 1, "GRANTS_ACCESS": 1}}


async def test_get_asset_resolves_an_arn_and_links_the_asset_resource(layer) -> None:
    result = await layer.call_tool(
        "get_asset", {"ref": "arn:aws:rds:us-east-1:111122223333:db:customers-db"})
    assert result.structured["name"] == "customers-db"
    assert [c.uri for c in result.content if getattr(c, "uri", None)] == [
        "cloudg://assets/aws-rds-customers"]


async def test_count_assets_by_provider(layer) -> None:
    out = await ok(layer, "count_assets", {"group_by": "provider"})
    assert out["groups"] == [{"group": "AWS", "count": 38}, {"group": "GCP", "count": 12},
                             {"group": "AZURE", "count": 10}]
    assert out["total"] == 60


async def test_count_assets_by_tag_counts_untagged_under_null(layer) -> None:
    out = await ok(layer, "count_assets", {"group_by": "tag:env"})
    assert out["groups"] == [{"group": "prod", "count": 52}, {"group": None, "count": 6},
                             {"group": "shared", "count": 2}]


async def test_count_assets_applies_the_find_filters(layer) -> None:
    out = await ok(layer, "count_assets", {"group_by": "asset_type", "provider": "GCP",
                                           "asset_types": ["GCS_BUCKET", "GCE_INSTANCE"]})
    assert out["groups"] == [{"group": "GCE_INSTANCE", "count": 3},
                             {"group": "GCS_BUCKET", "count": 2}]


async def test_list_accounts_marks_the_external_partner(layer) -> None:
    out = await ok(layer, "list_accounts")
    rows = {a["account_id"]: a for a in out["items"]}
    assert len(rows) == 5
    assert rows["999988887777"]["external"] is True
    assert rows["999988887777"]["name"] == "partner-audit-co"
    assert (rows["111122223333"]["assets"], rows["111122223333"]["open_findings"]) == (32, 9)


async def test_list_regions_busiest_first(layer) -> None:
    out = await ok(layer, "list_regions")
    assert [(r["region"], r["provider"], r["assets"]) for r in out["items"][:3]] == [
        ("us-east-1", "AWS", 24), ("global", "AWS", 14), ("eastus", "AZURE", 9)]


async def test_list_tags_keys_then_values_of_one_key(layer) -> None:
    keys = await ok(layer, "list_tags")
    assert [(t["key"], t["assets"], t["values"]) for t in keys["items"]] == [
        ("env", 54, 2), ("team", 17, 8), ("data_classification", 5, 2), ("owner_note", 1, 1)]
    values = await ok(layer, "list_tags", {"key": "env"})
    assert [(t["value"], t["assets"]) for t in values["items"]] == [("prod", 52), ("shared", 2)]
    assert values["key"] == "env"


async def test_list_asset_types_most_common_first(layer) -> None:
    out = await ok(layer, "list_asset_types", {"limit": 2})
    assert [(t["asset_type"], t["assets"], t["category"]) for t in out["items"]] == [
        ("IAM_ROLE", 7, "identity"), ("CLOUD_ACCOUNT", 5, "organization")]
    assert out["truncated"] is True
