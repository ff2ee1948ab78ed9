"""Resources and templates of the catalog on the demo estate: the workspace, datasets,
findings summary and compliance resources, and the dataset, asset, finding, severity and
framework templates — including the split-JSON tables that become DataFrames as they are."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import pytest

from cloudg_nb.catalog.resources import ASSET_TABLE_COLUMNS
from cloudg_nb.layer.errors import NotFoundError

from .support import ok


async def _read(layer, uri: str) -> Any:
    contents = await layer.read_resource(uri)
    assert len(contents) == 1 and contents[0].mime_type == "application/json"
    return json.loads(contents[0].text)


async def test_workspace_resource_shows_the_active_dataset(layer) -> None:
    out = await _read(layer, "cloudg://workspace")
    assert out["active"] == "demo" and out["datasets"] == ["demo"]


async def test_datasets_resource_links_each_dataset_s_tables(layer) -> None:
    out = await _read(layer, "cloudg://datasets")
    assert out["datasets"][0]["assets_uri"] == "cloudg://datasets/demo/assets"
    assert out["datasets"][0]["findings_uri"] == "cloudg://datasets/demo/findings"


async def test_findings_summary_resource_follows_the_active_dataset(layer) -> None:
    out = await _read(layer, "cloudg://findings/summary")
    assert (out["dataset"], out["open"], out["suppressed"]) == ("demo", 14, 1)
    await ok(layer, "sample_estate", {"name": "drifted"})
    assert (await _read(layer, "cloudg://findings/summary"))["open"] == 13


async def test_active_dataset_resources_without_data_say_to_load_some(empty) -> None:
    with pytest.raises(NotFoundError) as info:
        await empty.read_resource("cloudg://compliance")
    assert "sample_estate" in info.value.message


async def test_compliance_resource_has_rates_and_gaps(layer) -> None:
    out = await _read(layer, "cloudg://compliance")
    assert out["frameworks"][0]["framework"] == "CIS-AWS-2.0"
    assert (out["gaps"][0]["framework"], out["gaps"][0]["control_id"]) == ("PCI-DSS-4.0",
                                                                           "6.3.3")


async def test_dataset_summary_template(layer) -> None:
    out = await _read(layer, "cloudg://datasets/demo/summary")
    assert (out["name"], out["assets"]) == ("demo", 60)


async def test_dataset_template_with_an_unknown_name_suggests_one(layer) -> None:
    with pytest.raises(NotFoundError) as info:
        await layer.read_resource("cloudg://datasets/dmeo/summary")
    assert info.value.data["close_matches"] == ["demo"]


async def test_assets_table_reads_straight_into_a_dataframe(layer) -> None:
    frame = pd.DataFrame(**await _read(layer, "cloudg://datasets/demo/assets"))
    assert frame.shape == (60, len(ASSET_TABLE_COLUMNS))
    assert list(frame.columns) == ASSET_TABLE_COLUMNS
    alb = frame.set_index("name").loc["web-alb"]
    assert (alb["type"], bool(alb["internet_exposed"]), alb["tags"]["team"]) == (
        "LOAD_BALANCER", True, "web")


async def test_findings_table_includes_suppressed_findings(layer) -> None:
    frame = pd.DataFrame(**await _read(layer, "cloudg://datasets/demo/findings"))
    assert len(frame) == 15
    assert frame.set_index("id").loc["f-010", "is_suppressed"]
    assert frame["id"].iloc[0] == "f-001"


async def test_asset_template_takes_an_arn_with_slashes(layer) -> None:
    arn = "arn:aws:wafv2:us-east-1:111122223333:regional/webacl/web-waf/4f2a"
    out = await _read(layer, f"cloudg://assets/{arn}")
    assert (out["name"], out["asset_type"]) == ("web-waf", "WAF")


async def test_asset_template_unknown_ref_lists_close_matches(layer) -> None:
    with pytest.raises(NotFoundError) as info:
        await layer.read_resource("cloudg://assets/customer-db")
    assert "customers-db" in info.value.data["close_matches"]


async def test_finding_template(layer) -> None:
    out = await _read(layer, "cloudg://findings/f-002")
    assert (out["id"], out["asset"]["name"]) == ("f-002", "sg-bastion-ssh")


async def test_findings_by_severity_template(layer) -> None:
    out = await _read(layer, "cloudg://findings/severity/high")
    assert (out["severity"], out["count"]) == ("HIGH", 4)
    assert [f["id"] for f in out["findings"]] == ["f-011", "f-002", "f-003", "f-008"]


async def test_framework_template_lists_its_controls(layer) -> None:
    out = await _read(layer, "cloudg://compliance/pci-dss-4.0")
    assert (out["framework"], out["failed"], len(out["controls"])) == ("PCI-DSS-4.0", 2, 5)


async def test_static_summary_uri_wins_over_the_finding_template(layer) -> None:
    out = await _read(layer, "cloudg://findings/summary")
    assert "by_severity" in out
