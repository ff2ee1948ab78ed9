"""Prowler JSON-OCSF records one by one: good records load, a bad one is skipped and reported
by index (or fails the load under strict), nothing is invented, the load report explains the
counts. Records are written here after Prowler's documented OCSF Detection Finding shape."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from cloudg_nb.estate import DatasetLoadError, load_path

ACCOUNT = "123456789012"


def _record(check: str, resource: str, *, status: str = "FAIL", severity: str = "High",
            rtype: str = "AwsS3Bucket", **extra: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "metadata": {"event_code": check, "product": {"name": "Prowler", "version": "5.1.0"},
                     "version": "1.3.0"},
        "severity_id": 4, "severity": severity, "status": "New", "status_code": status,
        "status_detail": f"{check} on {resource}", "status_id": 1,
        "unmapped": {"compliance": {"CIS-2.0": [f"{check}-ctl"]}, "categories": []},
        "activity_name": "Create", "activity_id": 1,
        "finding_info": {"created_time": 1733000000, "created_time_dt": "2024-11-30T20:53:20Z",
                         "desc": f"{check} description", "title": f"{check} title",
                         "uid": f"prowler-aws-{check}-{ACCOUNT}-eu-west-1-{resource}"},
        "resources": [{"cloud_partition": "aws", "region": "eu-west-1", "group": {"name": "s3"},
                       "labels": [], "name": resource, "type": rtype,
                       "uid": f"arn:aws:s3:::{resource}"}],
        "category_name": "Findings", "category_uid": 2, "class_name": "Detection Finding",
        "class_uid": 2004,
        "cloud": {"account": {"name": "prod", "type": "AWS Account", "uid": ACCOUNT},
                  "org": {}, "provider": "aws", "region": "eu-west-1"},
        "time": 1733000000, "time_dt": "2024-11-30T20:53:20Z",
        "remediation": {"desc": "Fix it.", "references": []},
        "risk_details": "", "type_uid": 200401, "type_name": "Detection Finding: Create",
    }
    rec.update(extra)
    return rec


def _good() -> list[dict[str, Any]]:
    return [_record("s3_bucket_public_access", "logs"),
            _record("s3_bucket_default_encryption", "logs", status="PASS"),
            _record("s3_bucket_versioning", "media", severity="Medium")]


def _write(tmp_path: Path, records: Any, name: str = "scan.ocsf.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(records))
    return path


def _with_bad(bad: Any) -> list[Any]:
    """The good records with ``bad`` inserted at index 1."""
    records: list[Any] = _good()
    records.insert(1, bad)
    return records


def _drop(rec: dict[str, Any], *keys: str) -> dict[str, Any]:
    out = copy.deepcopy(rec)
    for key in keys:
        out.pop(key)
    return out


BAD_RECORDS = {
    "cloud_as_string": (dict(_record("x_check", "bad"), cloud="aws"), "cloud"),
    "cloud_as_list": (dict(_record("x_check", "bad"), cloud=["aws"]), "cloud"),
    "account_as_string": (dict(_record("x_check", "bad"),
                               cloud={"provider": "aws", "account": ACCOUNT}), "cloud.account"),
    "no_resources": (_drop(_record("x_check", "bad"), "resources"), "resources"),
    "empty_resources": (dict(_record("x_check", "bad"), resources=[]), "resources"),
    "resource_not_object": (dict(_record("x_check", "bad"), resources=["arn:aws:s3:::b"]),
                            "resources[0]"),
    "resource_without_uid": (dict(_record("x_check", "bad"),
                                  resources=[{"type": "AwsS3Bucket", "region": "eu-west-1"}]),
                             "resources[0].uid"),
    "no_finding_info": (_drop(_record("x_check", "bad"), "finding_info"), "finding_info"),
    "finding_info_without_uid": (dict(_record("x_check", "bad"),
                                      finding_info={"title": "t"}), "finding_info.uid"),
    "no_status_code": (_drop(_record("x_check", "bad"), "status_code"), "status_code"),
    "odd_status_code": (dict(_record("x_check", "bad"), status_code={"v": 1}), "status_code"),
    "not_an_object": ("just text", "record"),
    "not_a_prowler_record": ({"hello": "world"}, "record"),
}


@pytest.mark.parametrize("case", sorted(BAD_RECORDS))
def test_a_bad_record_is_skipped_by_index_and_the_good_ones_load(
        tmp_path: Path, case: str) -> None:
    bad, field = BAD_RECORDS[case]
    ds = load_path(_write(tmp_path, _with_bad(bad)))
    assert set(ds.findings["id"]) == {
        f"prowler-aws-s3_bucket_public_access-{ACCOUNT}-eu-west-1-logs",
        f"prowler-aws-s3_bucket_versioning-{ACCOUNT}-eu-west-1-media"}
    report = ds.load_report
    assert report["skipped"] == 1 and report["records"] == 4
    assert [(s["index"], s["field"]) for s in report["skipped_records"]] == [(1, field)]
    assert "bad" not in set(ds.assets["name"])


@pytest.mark.parametrize("case", ["cloud_as_string", "no_resources", "no_finding_info"])
def test_strict_fails_on_the_bad_record_naming_its_index_and_field(
        tmp_path: Path, case: str) -> None:
    bad, field = BAD_RECORDS[case]
    with pytest.raises(DatasetLoadError) as err:
        load_path(_write(tmp_path, _with_bad(bad)), strict=True)
    assert (err.value.data["index"], err.value.data["field"]) == (1, field)
    assert "strict" in str(err.value)


def test_a_missing_severity_loads_as_unknown_and_is_reported(tmp_path: Path) -> None:
    rec = _drop(_record("ec2_imdsv2", "web"), "severity", "severity_id")
    ds = load_path(_write(tmp_path, _with_bad(rec)))
    row = ds.findings.set_index("source_finding_id").loc["ec2_imdsv2"]
    assert row["severity"] == "UNKNOWN"
    assert ds.load_report["skipped"] == 0
    assert ds.load_report["notes"] == [
        {"index": 1, "field": "severity", "reason": "missing; loaded as UNKNOWN"}]


def test_severity_id_is_read_when_the_severity_word_is_missing(tmp_path: Path) -> None:
    rec = _drop(_record("ec2_imdsv2", "web"), "severity")
    rec["severity_id"] = 5
    ds = load_path(_write(tmp_path, [rec]))
    assert ds.findings["severity"].tolist() == ["CRITICAL"]
    assert ds.load_report["notes"] == []


def test_an_unknown_severity_ranks_below_info_in_the_asset_summary(tmp_path: Path) -> None:
    rec = _drop(_record("ec2_imdsv2", "web"), "severity", "severity_id")
    ds = load_path(_write(tmp_path, [rec]))
    rows = ds.assets.index[ds.assets["name"] == "web"].to_numpy()
    assert ds.finding_index().max_severity(rows) == ["UNKNOWN"]


def test_no_asset_is_named_after_the_account_when_resources_are_missing(
        tmp_path: Path) -> None:
    ds = load_path(_write(tmp_path, _with_bad(_drop(_record("x", "bad"), "resources"))))
    assert set(ds.assets["id"]) == {f"account:{ACCOUNT}", "arn:aws:s3:::logs",
                                    "arn:aws:s3:::media"}


def test_no_finding_id_is_invented_for_a_record_without_one(tmp_path: Path) -> None:
    bad = dict(_record("x", "bad"), finding_info={"title": "t"})
    ds = load_path(_write(tmp_path, _with_bad(bad)))
    assert sorted(ds.findings["id"]) == [
        f"prowler-aws-s3_bucket_public_access-{ACCOUNT}-eu-west-1-logs",
        f"prowler-aws-s3_bucket_versioning-{ACCOUNT}-eu-west-1-media"]


def test_an_empty_scan_loads_as_an_empty_dataset(tmp_path: Path) -> None:
    ds = load_path(_write(tmp_path, []))
    assert ds.kind == "prowler"
    assert (len(ds.assets), len(ds.findings), len(ds.compliance)) == (0, 0, 0)
    assert ds.load_report["records"] == 0


def test_the_load_report_explains_findings_passes_and_manual_checks(tmp_path: Path) -> None:
    records = [*_good(), _record("iam_manual_review", "ops", status="MANUAL")]
    report = load_path(_write(tmp_path, records)).load_report
    assert (report["records"], report["findings"], report["passed_checks"],
            report["manual_checks"], report["skipped"]) == (4, 2, 1, 1, 0)
    assert "2 failing checks became findings" in report["explanation"]
    assert "1 passed / 1 manual checks went to compliance" in report["explanation"]


def test_a_rescan_of_the_same_account_is_merged_and_warned_about(tmp_path: Path) -> None:
    later = _good()
    for rec in later:
        rec["time_dt"] = "2024-12-07T08:00:00Z"
    later[2]["status_code"] = "PASS"  # fixed between the scans
    ds = load_path(_write(tmp_path, [*_good(), *later]))
    assert ds.load_report["duplicates_merged"] == 3
    assert len(ds.findings) == 1
    assert ds.findings["detected_at"].tolist() == ["2024-12-07T08:00:00Z"]
    assert ds.load_report["warnings"] and ACCOUNT in ds.load_report["warnings"][0]
    assert "more than one scan" in ds.load_report["warnings"][0]


def test_prowler_4_0_event_time_becomes_detected_at(tmp_path: Path) -> None:
    rec = _drop(_record("s3_bucket_public_access", "logs"), "time", "time_dt")
    rec["event_time"] = "2024-04-09T10:11:12.123456"
    rec["finding_info"] = {"created_time": "2024-04-09T10:11:12.123456", "title": "t",
                           "uid": "prowler-aws-s3-1"}
    ds = load_path(_write(tmp_path, [rec]))
    assert ds.findings["detected_at"].tolist() == ["2024-04-09T10:11:12.123456"]


def test_prowler_4_finding_created_time_alone_becomes_detected_at(tmp_path: Path) -> None:
    rec = _drop(_record("s3_bucket_public_access", "logs"), "time", "time_dt")
    rec["finding_info"] = {"created_time": "2024-06-03T07:08:09.000001", "title": "t",
                           "uid": "prowler-aws-s3-1"}
    ds = load_path(_write(tmp_path, [rec]))
    assert ds.findings["detected_at"].tolist() == ["2024-06-03T07:08:09.000001"]


def test_finding_created_time_dt_is_read_when_the_record_has_no_time(tmp_path: Path) -> None:
    rec = _drop(_record("s3_bucket_public_access", "logs"), "time", "time_dt")
    rec["finding_info"] = {"created_time_dt": "2024-06-03T07:08:09Z", "title": "t",
                           "uid": "prowler-aws-s3-1"}
    ds = load_path(_write(tmp_path, [rec]))
    assert ds.findings["detected_at"].tolist() == ["2024-06-03T07:08:09Z"]


def test_the_scan_time_dt_wins_over_event_time_and_created_time(tmp_path: Path) -> None:
    rec = _record("s3_bucket_public_access", "logs", event_time="2024-01-01T00:00:00")
    ds = load_path(_write(tmp_path, [rec]))
    assert ds.findings["detected_at"].tolist() == ["2024-11-30T20:53:20Z"]


def test_an_epoch_time_alone_becomes_an_iso_detected_at(tmp_path: Path) -> None:
    rec = _drop(_record("s3_bucket_public_access", "logs"), "time_dt")
    rec["finding_info"] = {"title": "t", "uid": "prowler-aws-s3-1"}
    ds = load_path(_write(tmp_path, [rec]))
    assert ds.findings["detected_at"].tolist() == ["2024-11-30T20:53:20Z"]


def test_a_muted_finding_is_suppressed_even_without_unmapped(tmp_path: Path) -> None:
    rec = _drop(_record("s3_bucket_public_access", "logs"), "unmapped")
    rec["status"] = "Suppressed"
    ds = load_path(_write(tmp_path, [rec]))
    assert ds.findings["is_suppressed"].tolist() == [True]


@pytest.mark.parametrize("value", [None, 7, "x", [1, 2], {"a": {"b": []}}, True])
def test_odd_values_in_every_field_never_raise_a_traceback(tmp_path: Path, value: Any) -> None:
    base = _record("s3_bucket_public_access", "logs")
    records = [dict(base, **{key: value}) for key in base]
    records += [dict(base, finding_info=dict(base["finding_info"], **{k: value}))
                for k in base["finding_info"]]
    records += [dict(base, resources=[dict(base["resources"][0], **{k: value})])
                for k in base["resources"][0]]
    ds = load_path(_write(tmp_path, records))
    report = ds.load_report
    assert report["records"] == len(records)
    assert report["records"] == (report["skipped"] + report["duplicates_merged"]
                                 + report["findings"] + report["passed_checks"]
                                 + report["manual_checks"])


def test_kubernetes_records_get_provider_kubernetes_and_the_cluster_as_account(
        tmp_path: Path) -> None:
    rec = _record("core_minimize_privileged_containers", "web-7d9f", rtype="Pod")
    rec["cloud"] = {"provider": "kubernetes", "account": {"name": "prod-context",
                                                          "uid": "prod-cluster"}}
    rec["resources"] = [{"uid": "pod-uid-1", "name": "web-7d9f", "type": "Pod",
                         "region": "namespace: shop"}]
    ds = load_path(_write(tmp_path, [rec]))
    a = ds.assets.set_index("id")
    assert (a.at["pod-uid-1", "provider"], a.at["pod-uid-1", "account_id"],
            a.at["pod-uid-1", "asset_type"]) == ("KUBERNETES", "prod-cluster",
                                                 "CONTAINER_WORKLOAD")
    assert a.at["account:prod-cluster", "asset_type"] == "KUBERNETES_CLUSTER"


@pytest.mark.parametrize(("provider", "rtype", "expected"), [
    ("azure", "Microsoft.Network/networkSecurityGroups", "NSG"),
    ("gcp", "compute.googleapis.com/Firewall", "SECURITY_GROUP"),
    ("aws", "AwsCloudTrailTrail", "LOG_GROUP"),
])
def test_resource_types_of_each_provider_load_as_asset_types_keeping_the_original(
        tmp_path: Path, provider: str, rtype: str, expected: str) -> None:
    rec = _record("some_check", "res", rtype=rtype)
    rec["cloud"]["provider"] = provider
    ds = load_path(_write(tmp_path, [rec]))
    row = ds.assets.set_index("id").loc["arn:aws:s3:::res"]
    assert (row["asset_type"], row["metadata"]["original_type"]) == (expected, rtype)


@pytest.mark.parametrize("text", [
    "null", "1", '"text"', "[1, 2, 3]", "[[]]", "[null]", '[{"finding_info": "x"}]',
    '{"finding_info": {"uid": "u"}}', '[{"finding_info": {"uid": "u"}, "resources": {}}]',
    '[{"finding_info": {"uid": "u"}, "status_code": "FAIL", "resources": [{"uid": "r"}], '
    '"unmapped": {"compliance": {"CIS": "1.1"}, "muted": "yes"}, "compliance": "x"}]',
    '{"finding_info": 1}\n{"finding_info": 2}\n',
])
@pytest.mark.parametrize("kind", ["auto", "prowler"])
def test_any_json_shape_loads_or_fails_with_a_load_error(
        tmp_path: Path, text: str, kind: str) -> None:
    path = tmp_path / "scan.ocsf.json"
    path.write_text(text)
    try:
        ds = load_path(path, kind=kind)
    except DatasetLoadError as err:
        assert err.file == "scan.ocsf.json"
        return
    assert ds.kind == "prowler"
    assert ds.load_report["records"] >= 1
