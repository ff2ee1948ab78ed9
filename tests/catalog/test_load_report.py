"""load_dataset on scanner output checked record by record: the result's load_report lists
skipped records by index, a warning is logged, strict refuses the file and changes nothing."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from .support import error_data, fail, ok


def _scan(tmp_path: Path, records: list[Any]) -> str:
    path = tmp_path / "data" / "scan.ocsf.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(records))
    return str(path)


GOOD = {"finding_info": {"uid": "prowler-aws-s3-1", "title": "Bucket is public"},
        "status_code": "FAIL", "severity": "High",
        "resources": [{"uid": "arn:aws:s3:::logs", "name": "logs", "type": "AwsS3Bucket",
                       "region": "eu-west-1"}],
        "cloud": {"provider": "aws", "account": {"uid": "123456789012"}}}
BAD = {**GOOD, "finding_info": {"uid": "prowler-aws-s3-2"}, "cloud": "aws"}


async def test_load_dataset_reports_a_skipped_record_and_logs_a_warning(
        empty, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="cloudg.mcp"):
        out = await ok(empty, "load_dataset", {"path": _scan(tmp_path, [BAD, GOOD])})
    assert out["findings"] == 1
    assert out["load_report"]["skipped_records"] == [
        {"index": 0, "field": "cloud",
         "reason": "must be an object with provider, account and region"}]
    assert any("1 of 2 records of scan.ocsf.json were skipped: #0 (cloud" in r.getMessage()
               for r in caplog.records)


async def test_load_dataset_strict_refuses_the_file_and_loads_nothing(
        empty, tmp_path: Path) -> None:
    result = await fail(empty, "load_dataset", {"path": _scan(tmp_path, [GOOD, BAD]),
                                                "strict": True})
    assert (error_data(result)["index"], error_data(result)["field"]) == (1, "cloud")
    status = await ok(empty, "workspace_status")
    assert status["datasets"] == []


async def test_load_dataset_of_an_empty_scan_gives_an_empty_dataset(
        empty, tmp_path: Path) -> None:
    out = await ok(empty, "load_dataset", {"path": _scan(tmp_path, [])})
    assert (out["kind"], out["assets"], out["findings"]) == ("prowler", 0, 0)
    assert out["load_report"]["records"] == 0


async def test_load_dataset_of_tables_reports_a_skipped_row_with_its_file(
        empty, tmp_path: Path) -> None:
    folder = tmp_path / "data" / "tables"
    folder.mkdir(parents=True)
    (folder / "assets.csv").write_text("id\na\n")
    (folder / "findings.csv").write_text("id,resource_id,severity\nf1,a,HIGH\nf2,,LOW\n")
    out = await ok(empty, "load_dataset", {"path": str(folder)})
    assert out["findings"] == 1
    assert out["load_report"]["skipped_records"] == [
        {"index": 1, "field": "resource_id", "file": "findings.csv",
         "reason": "some findings name no resource_id or resource_arn"}]


def _good(n: int) -> dict[str, Any]:
    return {**GOOD, "finding_info": {"uid": f"prowler-aws-s3-good-{n}", "title": "t"},
            "resources": [{**GOOD["resources"][0], "uid": f"arn:aws:s3:::good-{n}",
                           "name": f"good-{n}"}]}


_BAD = {**GOOD, "resources": [{**GOOD["resources"][0], "uid": "arn:aws:s3:::bad",
                               "name": "bad"}]}
#: Issue 13 item 5: each case sits in the middle of three good records.
ITEM_5 = {
    "cloud_as_string": ({**_BAD, "cloud": "aws"}, "cloud"),
    "missing_resources": ({k: v for k, v in _BAD.items() if k != "resources"}, "resources"),
    "missing_finding_info": ({k: v for k, v in _BAD.items() if k != "finding_info"},
                             "finding_info"),
}


@pytest.mark.parametrize("case", sorted(ITEM_5))
async def test_load_dataset_result_explains_the_counts_around_a_bad_record(
        empty, tmp_path: Path, case: str) -> None:
    bad, field = ITEM_5[case]
    out = await ok(empty, "load_dataset", {"path": _scan(tmp_path, [_good(0), bad, _good(1),
                                                                    _good(2)])})
    report = out["load_report"]
    assert (out["findings"], report["records"], report["skipped"]) == (3, 4, 1)
    assert [(s["index"], s["field"]) for s in report["skipped_records"]] == [(1, field)]
    assert report["explanation"].startswith("4 records read: 1 skipped")
    found = await ok(empty, "list_findings", {})
    assert found["total"] == 3
    assert "bad" not in {a["name"] for a in (await ok(empty, "find_assets", {}))["items"]}


async def test_load_dataset_result_reports_a_missing_severity_loaded_as_unknown(
        empty, tmp_path: Path) -> None:
    no_severity = {k: v for k, v in _BAD.items() if k != "severity"}
    out = await ok(empty, "load_dataset", {"path": _scan(tmp_path, [_good(0), no_severity,
                                                                    _good(1)])})
    assert (out["findings"], out["load_report"]["skipped"]) == (3, 0)
    assert out["load_report"]["notes"] == [
        {"index": 1, "field": "severity", "reason": "missing; loaded as UNKNOWN"}]
    found = await ok(empty, "list_findings", {"severities": ["UNKNOWN"]})
    assert [f["resource_name"] for f in found["items"]] == ["bad"]
