"""JSON-ASFF: Prowler's ``-M json-asff`` array and Security Hub ``get-findings`` output load
like Prowler's OCSF: auto-detected, findings validated one by one, compliance requirements
as control results, archived findings set aside, suppressed ones loaded suppressed. The
fixtures are written after the ASFF syntax documentation, with made-up values."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from cloudg_nb.estate import DatasetLoadError, detect_format, load_path

DATA = Path(__file__).parents[1] / "data"
PROWLER_ASFF = DATA / "prowler-output.asff.json"
SECURITY_HUB = DATA / "securityhub-get-findings.json"
SG = "arn:aws:ec2:eu-central-1:210987654321:security-group/sg-0a1b2c3d"
SH_SG = "arn:aws:ec2:us-east-1:111122223333:security-group/sg-0ffee123"
AFSBP = "standards/aws-foundational-security-best-practices/v/1.0.0"


def _prowler_records() -> list[dict[str, Any]]:
    return json.loads(PROWLER_ASFF.read_text())


def _write(tmp_path: Path, doc: Any, name: str = "findings.asff.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def _by_check(ds: Any) -> Any:
    return ds.findings.set_index("source_finding_id")


# --- Prowler json-asff ----------------------------------------------------------------------

def test_prowler_json_asff_is_detected_as_asff() -> None:
    assert detect_format(PROWLER_ASFF) == "asff"


def test_prowler_asff_load_report_counts_failed_passed_and_warning_results() -> None:
    report = load_path(PROWLER_ASFF).load_report
    assert (report["records"], report["findings"], report["passed_checks"],
            report["manual_checks"], report["skipped"]) == (5, 3, 1, 1, 0)


def test_prowler_asff_failed_results_become_findings_with_severity_check_and_time() -> None:
    f = _by_check(load_path(PROWLER_ASFF))
    sg = f.loc["ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_22"]
    assert (sg["severity"], sg["resource_id"], sg["detected_at"], sg["source_tool"]) == (
        "HIGH", SG, "2025-03-04T10:15:00Z", "prowler")
    assert f.loc["s3_bucket_public_access", "severity"] == "CRITICAL"
    assert f.loc["iam_user_mfa_enabled_console_access", "severity"] == "MEDIUM"
    assert "cloudtrail_multi_region_enabled" not in f.index  # WARNING: no pass/fail


def test_prowler_asff_keeps_status_text_and_remediation_with_its_url() -> None:
    sg = _by_check(load_path(PROWLER_ASFF)).loc[
        "ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_22"]
    assert sg["evidence"].startswith("Security group bastion-sg (sg-0a1b2c3d) has SSH")
    assert sg["remediation"] == ("Follow the check's guidance. "
                                 "(see https://docs.example.org/remediate)")


def test_prowler_asff_assets_keep_account_region_type_and_tags() -> None:
    a = load_path(PROWLER_ASFF).assets.set_index("id")
    assert (a.at[SG, "asset_type"], a.at[SG, "account_id"], a.at[SG, "region"],
            a.at[SG, "name"], a.at[SG, "tags"]) == (
        "SECURITY_GROUP", "210987654321", "eu-central-1", "sg-0a1b2c3d",
        {"team": "platform", "env": "prod"})
    assert a.at[SG, "metadata"]["original_type"] == "AwsEc2SecurityGroup"
    assert (a.at["arn:aws:s3:::orders-exports", "asset_type"],
            a.at["arn:aws:s3:::orders-exports", "region"]) == ("S3_BUCKET", "us-east-1")
    assert a.at["arn:aws:iam::210987654321:user/jdoe", "asset_type"] == "IAM_USER"
    assert a.at["account:210987654321", "asset_type"] == "CLOUD_ACCOUNT"


def test_prowler_asff_related_requirements_become_control_results() -> None:
    c = load_path(PROWLER_ASFF).compliance
    got = {(r.framework, r.control_id): r.status for r in c.itertuples()}
    assert got == {("CIS-2.0", "5.2"): "FAIL", ("PCI-4.0", "1.3.1"): "FAIL",
                   ("PCI-4.0", "1.4.1"): "FAIL", ("CIS-2.0", "2.1.4"): "FAIL",
                   ("CIS-2.0", "2.1.1"): "PASS", ("CIS-2.0", "3.1"): "MANUAL",
                   ("CIS-2.0", "1.10"): "FAIL", ("PCI-4.0", "8.4.2"): "FAIL"}


def test_an_asff_finding_for_an_open_ssh_security_group_is_an_internet_exposure() -> None:
    e = load_path(PROWLER_ASFF).edges.set_index("target_id")
    assert (e.at[SG, "edge_type"], e.at[SG, "ports"], e.at[SG, "protocol"],
            e.at[SG, "cidr"]) == ("INTERNET_EXPOSED", [22], "tcp", "0.0.0.0/0")
    assert e.at[SG, "properties"]["derived_from_finding"].startswith(
        "prowler-ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_22-")
    assert e.at["arn:aws:s3:::orders-exports", "properties"]["exposure"] == "public_storage"


# --- Security Hub get-findings ----------------------------------------------------------------

def test_security_hub_get_findings_output_is_detected_as_asff() -> None:
    assert detect_format(SECURITY_HUB) == "asff"


def test_security_hub_load_report_sets_the_archived_finding_aside() -> None:
    report = load_path(SECURITY_HUB).load_report
    assert (report["records"], report["findings"], report["passed_checks"],
            report["skipped"]) == (6, 4, 1, 1)
    assert report["skipped_records"] == [{
        "index": 5, "field": "RecordState",
        "reason": "ARCHIVED: Security Hub archived this finding (its resource or check is "
                  "gone); not loaded"}]


def test_an_archived_finding_does_not_fail_a_strict_load() -> None:
    ds = load_path(SECURITY_HUB, strict=True)
    assert len(ds.findings) == 4 and ds.load_report["skipped"] == 1


def test_security_hub_findings_name_their_product_and_control() -> None:
    f = _by_check(load_path(SECURITY_HUB))
    assert f.loc["EC2.13", "source_tool"] == "securityhub"
    assert f.loc["EC2.13", "detected_at"] == "2025-02-10T08:00:00.000Z"
    guardduty = load_path(SECURITY_HUB).findings.query("source_tool == 'guardduty'")
    assert guardduty["resource_id"].tolist() == [
        "arn:aws:ec2:us-east-1:111122223333:instance/i-0fedcba9876543210"]


def test_a_normalized_severity_is_read_when_the_label_is_missing() -> None:
    f = load_path(SECURITY_HUB).findings.set_index("source_tool")
    assert f.at["guardduty", "severity"] == "MEDIUM"  # Normalized 50


def test_workflow_suppressed_loads_the_finding_suppressed_saying_so() -> None:
    row = _by_check(load_path(SECURITY_HUB)).loc["CloudTrail.1"]
    assert bool(row["is_suppressed"]) is True
    assert row["suppression_reason"] == ("suppressed in Security Hub (Workflow.Status "
                                         "SUPPRESSED)")


def test_security_hub_status_reasons_are_the_evidence() -> None:
    row = _by_check(load_path(SECURITY_HUB)).loc["S3.2"]
    assert row["evidence"] == "The bucket policy grants s3:GetObject to everyone."


def test_security_hub_controls_map_to_their_standard_and_related_requirements() -> None:
    c = load_path(SECURITY_HUB).compliance
    got = {(r.framework, r.control_id): r.status for r in c.itertuples()}
    assert got[(AFSBP, "EC2.13")] == "FAIL"
    assert got[("NIST.800-53.r5", "AC-4")] == "FAIL"
    assert got[("PCI DSS v3.2.1", "1.2.1")] == "FAIL"
    assert got[(AFSBP, "IAM.6")] == "PASS"
    assert (AFSBP, "EC2.2") not in got  # archived


def test_security_hub_exposure_comes_from_the_control_title_not_its_number() -> None:
    e = load_path(SECURITY_HUB).edges.set_index("target_id")
    assert e.at[SH_SG, "ports"] == [22]  # EC2.13 is not port 13
    assert e.at["arn:aws:s3:::press-kit-public", "properties"]["exposure"] == \
        "public_storage"


def test_security_hub_assets_keep_account_region_and_type() -> None:
    a = load_path(SECURITY_HUB).assets.set_index("id")
    assert (a.at[SH_SG, "asset_type"], a.at[SH_SG, "account_id"], a.at[SH_SG, "region"]) \
        == ("SECURITY_GROUP", "111122223333", "us-east-1")
    assert "arn:aws:ec2:us-east-1:111122223333:security-group/sg-0default1" not in a.index


def test_security_hub_account_resource_is_named_by_its_account_id() -> None:
    a = load_path(SECURITY_HUB).assets.set_index("id")
    row = a.loc["AWS::::Account:111122223333"]
    assert (row["name"], row["asset_type"]) == ("111122223333", "CLOUD_ACCOUNT")


# --- empty, bad and odd input -----------------------------------------------------------------

def test_an_empty_security_hub_answer_loads_as_an_empty_dataset(tmp_path: Path) -> None:
    path = _write(tmp_path, {"Findings": []})
    ds = load_path(path)
    assert (ds.kind, len(ds.assets), len(ds.findings), ds.load_report["records"]) == (
        "asff", 0, 0, 0)


def test_an_empty_asff_array_loads_as_an_empty_dataset_when_forced(tmp_path: Path) -> None:
    ds = load_path(_write(tmp_path, []), kind="asff")
    assert (len(ds.assets), len(ds.findings)) == (0, 0)


def _drop(rec: dict[str, Any], *keys: str) -> dict[str, Any]:
    out = copy.deepcopy(rec)
    for key in keys:
        out.pop(key)
    return out


def _bad_cases() -> dict[str, tuple[Any, str]]:
    good = _prowler_records()[0]
    no_resource_id = copy.deepcopy(good)
    no_resource_id["Resources"][0].pop("Id")
    return {
        "no_id": (_drop(good, "Id"), "Id"),
        "no_resources": (_drop(good, "Resources"), "Resources"),
        "empty_resources": (dict(good, Resources=[]), "Resources"),
        "resource_not_object": (dict(good, Resources=["arn:aws:s3:::b"]), "Resources[0]"),
        "resource_without_id": (no_resource_id, "Resources[0].Id"),
        "unknown_compliance_status": (dict(good, Compliance={"Status": "BROKEN"}),
                                      "Compliance.Status"),
        "not_an_object": ("just text", "record"),
        "not_an_asff_finding": ({"hello": "world"}, "record"),
    }


@pytest.mark.parametrize("case", sorted(_bad_cases()))
def test_a_bad_asff_finding_is_skipped_by_index_under_its_asff_field_name(
        tmp_path: Path, case: str) -> None:
    bad, field = _bad_cases()[case]
    records: list[Any] = _prowler_records()
    records.insert(1, bad)
    ds = load_path(_write(tmp_path, records), kind="asff")
    assert len(ds.findings) == 3
    assert [(s["index"], s["field"]) for s in ds.load_report["skipped_records"]] == [
        (1, field)]


#: The OCSF record reader's words, which an ASFF user never wrote.
_OCSF_WORDS = ("finding_info", "resources", "uid", "status_code", "PASS, FAIL")


@pytest.mark.parametrize("case", sorted(_bad_cases()))
def test_a_bad_asff_findings_reason_is_worded_in_asff_terms(tmp_path: Path, case: str
                                                           ) -> None:
    records: list[Any] = _prowler_records()
    records.insert(1, _bad_cases()[case][0])
    reason = load_path(_write(tmp_path, records), kind="asff").load_report[
        "skipped_records"][0]["reason"]
    assert not [w for w in _OCSF_WORDS if w in reason], reason


def test_an_unreadable_compliance_status_names_the_asff_statuses(tmp_path: Path) -> None:
    records: list[Any] = _prowler_records()
    records.insert(1, dict(records[0], Compliance={"Status": "BROKEN"}))
    skipped = load_path(_write(tmp_path, records), kind="asff").load_report["skipped_records"]
    assert skipped == [{"index": 1, "field": "Compliance.Status",
                        "reason": "not PASSED, FAILED, WARNING or NOT_AVAILABLE"}]


def test_strict_fails_on_the_bad_asff_finding_naming_its_index_and_field(
        tmp_path: Path) -> None:
    records: list[Any] = _prowler_records()
    records.insert(2, _drop(records[0], "Id"))
    with pytest.raises(DatasetLoadError) as err:
        load_path(_write(tmp_path, records), strict=True)
    assert (err.value.data["index"], err.value.data["field"]) == (2, "Id")


def test_a_missing_severity_loads_as_unknown_and_is_reported_as_severity_label(
        tmp_path: Path) -> None:
    rec = _drop(_prowler_records()[0], "Severity")
    ds = load_path(_write(tmp_path, [rec]))
    assert ds.findings["severity"].tolist() == ["UNKNOWN"]
    assert ds.load_report["notes"] == [
        {"index": 0, "field": "Severity.Label", "reason": "missing; loaded as UNKNOWN"}]


def test_an_ocsf_file_forced_as_asff_says_which_kind_fits(tmp_path: Path) -> None:
    path = tmp_path / "scan.ocsf.json"
    path.write_text((DATA / "scanner-only-estate.ocsf.json").read_text())
    with pytest.raises(DatasetLoadError) as err:
        load_path(path, kind="asff")
    assert "not JSON-ASFF" in err.value.problem
    assert err.value.problem.endswith("use kind=prowler")
    assert err.value.data["fitting_kind"] == "prowler"


def test_an_asff_file_forced_as_prowler_says_use_kind_asff(tmp_path: Path) -> None:
    path = _write(tmp_path, _prowler_records())
    with pytest.raises(DatasetLoadError) as err:
        load_path(path, kind="prowler")
    assert "this file looks like JSON-ASFF" in err.value.problem
    assert err.value.problem.endswith("use kind=asff")


@pytest.mark.parametrize("value", [None, 7, "x", [1, 2], {"a": {"b": []}}, True, -3.5])
def test_odd_values_in_every_asff_field_never_raise_a_traceback(
        tmp_path: Path, value: Any) -> None:
    base = _prowler_records()[0]
    records = [dict(base, **{key: value}) for key in base]
    for nested in ("Severity", "Compliance", "Remediation", "ProductFields"):
        records += [dict(base, **{nested: dict(base[nested], **{k: value})})
                    for k in base[nested]]
    records += [dict(base, Resources=[dict(base["Resources"][0], **{k: value})])
                for k in base["Resources"][0]]
    records.append(dict(base, Workflow={"Status": value}, RecordState=value))
    ds = load_path(_write(tmp_path, records), kind="asff")
    report = ds.load_report
    assert report["records"] == len(records)
    assert report["records"] == (report["skipped"] + report["duplicates_merged"]
                                 + report["findings"] + report["passed_checks"]
                                 + report["manual_checks"])


@pytest.mark.parametrize("text", [
    "null", "1", '"text"', "[1, 2, 3]", "[[]]", "[null]", '{"Findings": 3}',
    '{"Findings": [null, 1]}', '{"Findings": [{"ProductArn": 1, "Resources": {}}]}',
    '[{"SchemaVersion": "2018-10-08", "Resources": [{"Id": "r"}], "Compliance": []}]',
    '{"ProductArn": "x", "GeneratorId": "g"}\n{"ProductArn": 2}\n',
])
@pytest.mark.parametrize("kind", ["auto", "asff"])
def test_any_json_shape_given_to_the_asff_reader_loads_or_fails_with_a_load_error(
        tmp_path: Path, text: str, kind: str) -> None:
    path = tmp_path / "findings.json"
    path.write_text(text)
    try:
        ds = load_path(path, kind=kind)
    except DatasetLoadError as err:
        assert err.file == "findings.json"
        return
    assert ds.load_report["records"] >= 1


def test_asff_findings_as_json_lines_load_like_the_array(tmp_path: Path) -> None:
    path = tmp_path / "scan.asff.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _prowler_records()))
    ds = load_path(path)
    assert (ds.kind, len(ds.findings), ds.load_report["passed_checks"]) == ("asff", 3, 1)


def test_a_requirement_cut_at_63_characters_by_prowler_is_noted(tmp_path: Path) -> None:
    rec = _prowler_records()[0]
    entry = ("ENS-RD2022 " + " ".join(f"op.exp.{n}.aws.ct.{n}" for n in range(1, 9)))[:63]
    rec["Compliance"]["RelatedRequirements"] = [entry]
    rec["Compliance"]["AssociatedStandards"] = [{"StandardsId": "ENS-RD2022"}]
    ds = load_path(_write(tmp_path, [rec]))
    assert set(ds.compliance["framework"]) == {"ENS-RD2022"}
    assert ds.load_report["notes"][0]["field"] == "Compliance.RelatedRequirements[0]"
