"""Closed-set arguments read as the estate reads them: their schema lists the values, and
the spellings the tools accepted before the schema did still work (a comma-separated list,
an empty filter, case and padding where the tool folds them)."""

from __future__ import annotations

from .support import fail, ok


async def test_a_comma_separated_string_is_read_as_a_list_of_choices(layer) -> None:
    both = await ok(layer, "find_assets", {"provider": "aws, gcp", "limit": 500})
    listed = await ok(layer, "find_assets", {"provider": ["AWS", "GCP"], "limit": 500})
    assert both["items"] == listed["items"]
    assert {i["provider"] for i in both["items"]} == {"AWS", "GCP"}


async def test_an_empty_min_severity_is_no_filter(layer) -> None:
    empty = await ok(layer, "list_findings", {"min_severity": "", "limit": 500})
    none = await ok(layer, "list_findings", {"limit": 500})
    assert empty["total"] == none["total"]


async def test_export_format_ignores_case_and_padding(layer) -> None:
    out = await ok(layer, "export_dataset", {"format": " CSV "})
    assert out["format"] == "csv"


async def test_exact_choices_stay_case_sensitive(layer) -> None:
    result = await fail(layer, "count_assets", {"group_by": "Provider"})
    assert result.error_code == -32602


async def test_a_tag_group_is_accepted_beside_the_listed_groups(layer) -> None:
    out = await ok(layer, "count_assets", {"group_by": "tag:env"})
    assert out["group_by"] == "tag:env" and out["total"] == 60


async def test_an_unknown_choice_in_a_list_names_the_argument(layer) -> None:
    result = await fail(layer, "find_assets", {"fields": ["name", "colour"]})
    data = result.meta["cloudg/error_data"]
    assert data["field"] == "fields" and "name" in data["allowed"]
    assert "colour" not in result.text
