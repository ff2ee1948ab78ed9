"""Inventory queries: find (filters, sort, fields), get, count, accounts, regions, tags."""

from __future__ import annotations

import pytest

from cloudg_nb.estate import (
    ReferenceNotFoundError,
    count_assets,
    find_assets,
    get_asset,
    list_accounts,
    list_asset_types,
    list_regions,
    list_tags,
    select_fields,
)
from cloudg_nb.layer.errors import InvalidArgumentsError


def test_find_assets_combines_filters(ds) -> None:
    found = find_assets(ds, provider="aws", asset_types=["EC2"], tag="team=web")
    assert found["name"].tolist() == ["web-1", "web-2"]


def test_find_assets_query_searches_name_id_and_arn(ds) -> None:
    assert find_assets(ds, query="i-0bastion")["name"].tolist() == ["bastion-1"]


def test_find_assets_by_exposure_and_findings(ds) -> None:
    exposed = set(find_assets(ds, internet_exposed=True)["name"])
    assert exposed == {"web-alb", "bastion-1", "vm-jump-01", "kibana-1"}
    severe = find_assets(ds, min_severity="critical")["name"].tolist()
    assert severe == ["partner-audit-role", "web-1"]


def test_find_assets_sorts_by_max_severity_then_name(ds) -> None:
    top = find_assets(ds, has_findings=True, sort_by="max_severity")
    assert top["max_severity"].tolist()[:2] == ["CRITICAL", "CRITICAL"]
    assert top["name"].tolist()[:2] == ["partner-audit-role", "web-1"]


def test_find_assets_rejects_unknown_sort_and_type_with_close_matches(ds) -> None:
    with pytest.raises(InvalidArgumentsError) as err:
        find_assets(ds, sort_by="nam")
    assert "name" in err.value.data["close_matches"]
    with pytest.raises(InvalidArgumentsError) as err:
        find_assets(ds, asset_types=["LAMBDA"])
    assert "LAMBDA_FUNCTION" in err.value.data["close_matches"]


def test_select_fields_keeps_id_and_rejects_unknown_fields(ds) -> None:
    frame = select_fields(find_assets(ds), ["name", "type"])
    assert list(frame.columns) == ["id", "name", "type"]
    with pytest.raises(InvalidArgumentsError):
        select_fields(frame, ["nmae"])


def test_get_asset_returns_record_findings_and_edge_counts(ds) -> None:
    asset = get_asset(ds, "web-1")
    assert asset["id"] == "aws-ec2-web-1" and asset["max_severity"] == "CRITICAL"
    assert [f["id"] for f in asset["findings"]] == ["f-001"]
    assert asset["edges"]["outgoing"] == {"ASSUMES_ROLE": 1, "ATTACHED_TO": 1}
    assert asset["edges"]["incoming"] == {"CONTAINS": 1, "LOAD_BALANCER_TARGET": 1}


def test_get_asset_of_unknown_ref_is_not_found(ds) -> None:
    with pytest.raises(ReferenceNotFoundError):
        get_asset(ds, "web-9")


def test_count_assets_by_provider(ds) -> None:
    counts = dict(zip(*count_assets(ds, group_by="provider").T.values, strict=True))
    assert counts == {"AWS": 38, "GCP": 12, "AZURE": 10}


def test_count_assets_by_tag_key(ds) -> None:
    counts = count_assets(ds, group_by="tag:team")
    assert counts.iloc[0].tolist() == [None, 43]
    with pytest.raises(InvalidArgumentsError):
        count_assets(ds, group_by="colour")


def test_list_accounts_marks_the_external_account(ds) -> None:
    accounts = list_accounts(ds).set_index("account_id")
    assert bool(accounts.loc["999988887777", "external"]) is True
    assert accounts.loc["111122223333", "name"] == "acme-prod"
    assert accounts.loc["111122223333", "internet_exposed"] == 2


def test_list_regions_tags_and_types(ds) -> None:
    assert list_regions(ds).iloc[0].tolist() == ["us-east-1", "AWS", 24]
    assert list_tags(ds).iloc[0]["key"] == "env"
    values = list_tags(ds, "data_classification")
    assert dict(zip(values["value"], values["assets"], strict=True)) == {
        "pii": 3, "confidential": 2}
    types = list_asset_types(ds)
    assert types.iloc[0]["asset_type"] == "IAM_ROLE" and types.iloc[0]["assets"] == 7
