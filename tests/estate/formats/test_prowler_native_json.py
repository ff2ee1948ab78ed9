"""Prowler's native JSON (``-M json``): Prowler 3 arrays for AWS, Azure and GCP and Prowler 2
JSON lines load like Prowler's OCSF: auto-detected, records validated one by one, compliance
as control results, exposure from failing checks. The fixtures are written after Prowler's
documented output fields, with made-up values."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from cloudg_nb.estate import DatasetLoadError, detect_format, load_path

DATA = Path(__file__).parents[1] / "data"
AWS = DATA / "prowler-v3-aws.json"
AZURE = DATA / "prowler-v3-azure.json"
GCP = DATA / "prowler-v3-gcp.json"
V2 = DATA / "prowler-v2-aws.json"
SG = "arn:aws:ec2:eu-west-2:345678901234:security-group/sg-07f1e2d3"
NSG = ("/subscriptions/5d1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b/resourceGroups/rg-web/providers/"
       "Microsoft.Network/networkSecurityGroups/nsg-web")
FIREWALL = "4471039284738452001"


def _records(path: Path) -> list[dict[str, Any]]:
    return json.loads(path.read_text())


def _write(tmp_path: Path, records: Any, name: str = "prowler-output.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(records))
    return path


def _controls(ds: Any) -> dict[tuple[str, str], str]:
    return {(r.framework, r.control_id): r.status for r in ds.compliance.itertuples()}


@pytest.mark.parametrize("path", [AWS, AZURE, GCP, V2], ids=lambda p: p.stem)
def test_native_json_is_detected_as_prowler_json(path: Path) -> None:
    assert detect_format(path) == "prowler-json"


# --- AWS (Prowler 3) --------------------------------------------------------------------------

def test_aws_native_json_counts_fail_pass_and_info_results() -> None:
    report = load_path(AWS).load_report
    assert (report["records"], report["findings"], report["passed_checks"],
            report["manual_checks"], report["skipped"]) == (4, 2, 1, 1, 0)


def test_aws_native_json_failures_keep_severity_check_time_and_status_text() -> None:
    f = load_path(AWS).findings.set_index("source_finding_id")
    sg = f.loc["ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_22"]
    assert (sg["id"], sg["severity"], sg["resource_id"], sg["detected_at"]) == (
        "prowler-aws-ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_22-"
        "345678901234-eu-west-2-sg-07f1e2d3", "HIGH", SG, "2023-07-19T14:02:11.402915")
    assert sg["evidence"].startswith("Security group jump-host (sg-07f1e2d3)")
    assert sg["remediation"] == "Restrict it. (see https://docs.example.org/fix)"
    assert f.loc["ec2_instance_imdsv2_enabled", "severity"] == "MEDIUM"


def test_aws_native_json_assets_keep_account_name_region_type_and_tags() -> None:
    a = load_path(AWS).assets.set_index("id")
    assert (a.at[SG, "asset_type"], a.at[SG, "account_id"], a.at[SG, "region"],
            a.at[SG, "name"], a.at[SG, "tags"]) == (
        "SECURITY_GROUP", "345678901234", "eu-west-2", "sg-07f1e2d3", {"owner": "netops"})
    assert a.at[SG, "metadata"] == {"original_type": "AwsEc2SecurityGroup", "service": "ec2"}
    assert a.at["account:345678901234", "name"] == "payments-prod"
    assert (a.at["arn:aws:s3:::ledger-archive", "asset_type"],
            a.at["arn:aws:s3:::ledger-archive", "region"]) == ("S3_BUCKET", "us-east-1")


def test_aws_native_json_compliance_maps_to_control_results() -> None:
    assert _controls(load_path(AWS)) == {
        ("CIS-1.5", "5.2"): "FAIL", ("ISO27001", "A.13.1"): "FAIL",
        ("AWS-Foundational-Security-Best-Practices", "ec2"): "FAIL",
        ("CIS-1.5", "2.1.2"): "PASS", ("CIS-1.5", "1.6"): "MANUAL"}


def test_aws_native_json_open_ssh_is_an_internet_exposure() -> None:
    e = load_path(AWS).edges.set_index("target_id")
    assert (e.at[SG, "ports"], e.at[SG, "protocol"], e.at[SG, "cidr"]) == (
        [22], "tcp", "0.0.0.0/0")


# --- Azure and GCP (Prowler 3) ----------------------------------------------------------------

def test_azure_native_json_uses_the_subscription_as_account_and_location_as_region() -> None:
    ds = load_path(AZURE)
    a = ds.assets.set_index("id")
    assert (a.at[NSG, "provider"], a.at[NSG, "account_id"], a.at[NSG, "region"],
            a.at[NSG, "asset_type"], a.at[NSG, "name"]) == (
        "AZURE", "Finance Production", "westeurope", "NSG", "nsg-web")
    kv = next(i for i in a.index if i.endswith("/vaults/kv-fin-prod"))
    assert (a.at[kv, "asset_type"], a.at[kv, "region"]) == ("KEY_VAULT", "northeurope")
    report = ds.load_report
    assert (report["findings"], report["passed_checks"]) == (2, 1)


def test_azure_native_json_severities_time_and_controls() -> None:
    ds = load_path(AZURE)
    f = ds.findings.set_index("source_finding_id")
    assert f.loc["network_rdp_internet_access_restricted", "severity"] == "HIGH"
    assert f.loc["keyvault_rbac_enabled", "severity"] == "LOW"
    assert set(f["detected_at"]) == {"2023-09-28T09:41:55.118003"}
    assert _controls(ds) == {("CIS-2.0", "6.1"): "FAIL", ("CIS-2.0", "3.1"): "PASS",
                             ("CIS-2.0", "8.6"): "FAIL"}


def test_azure_native_json_open_rdp_is_an_internet_exposure() -> None:
    e = load_path(AZURE).edges.set_index("target_id")
    assert e.at[NSG, "ports"] == [3389]


def test_gcp_native_json_uses_the_project_as_account_and_location_as_region() -> None:
    a = load_path(GCP).assets.set_index("id")
    assert (a.at[FIREWALL, "provider"], a.at[FIREWALL, "account_id"],
            a.at[FIREWALL, "region"], a.at[FIREWALL, "asset_type"],
            a.at[FIREWALL, "name"]) == (
        "GCP", "ledger-analytics-381702", "global", "SECURITY_GROUP", "allow-ssh-all")
    assert (a.at["ledger-public-reports", "asset_type"],
            a.at["ledger-public-reports", "region"]) == ("GCS_BUCKET", "europe-west2")
    assert a.at["7741902231558310442", "asset_type"] == "GCE_INSTANCE"


def test_gcp_native_json_severities_and_controls() -> None:
    ds = load_path(GCP)
    f = ds.findings.set_index("source_finding_id")
    assert f.loc["compute_firewall_ssh_access_from_the_internet_allowed", "severity"] == \
        "CRITICAL"
    assert f.loc["cloudstorage_bucket_public_access", "severity"] == "HIGH"
    assert _controls(ds) == {("CIS-2.0", "3.6"): "FAIL", ("CIS-2.0", "5.1"): "FAIL",
                             ("CIS-2.0", "4.8"): "PASS"}


def test_gcp_native_json_open_firewall_and_public_bucket_are_exposures() -> None:
    e = load_path(GCP).edges.set_index("target_id")
    assert e.at[FIREWALL, "ports"] == [22]
    assert e.at["ledger-public-reports", "properties"]["exposure"] == "public_storage"


# --- Prowler 2 JSON lines ---------------------------------------------------------------------

def test_prowler_2_results_load_with_ids_built_and_warned_about() -> None:
    ds = load_path(V2)
    assert ds.findings["id"].tolist() == [
        "prowler-aws-check41-456789012345-ap-southeast-2-sg-0c0ffee1"]
    assert ds.findings["source_finding_id"].tolist() == ["check41"]
    assert ds.findings["severity"].tolist() == ["HIGH"]
    assert ds.findings["detected_at"].tolist() == ["2021-06-03T11:42:07Z"]
    assert any("Prowler 2 output carries no finding ids" in w
               for w in ds.load_report["warnings"])


def test_a_prowler_2_result_without_resource_is_skipped_as_resource_id() -> None:
    report = load_path(V2).load_report
    assert (report["records"], report["findings"], report["passed_checks"]) == (3, 1, 1)
    assert [(s["index"], s["field"]) for s in report["skipped_records"]] == [
        (2, "Resource ID")]


def test_prowler_2_account_and_exposure() -> None:
    ds = load_path(V2)
    a = ds.assets.set_index("id")
    assert (a.at["sg-0c0ffee1", "account_id"], a.at["sg-0c0ffee1", "region"]) == (
        "456789012345", "ap-southeast-2")
    assert a.at["account:456789012345", "name"] == "legacy-shop"
    assert ds.edges.set_index("target_id").at["sg-0c0ffee1", "ports"] == [22]


# --- records one by one -----------------------------------------------------------------------

def _drop(rec: dict[str, Any], *keys: str) -> dict[str, Any]:
    out = copy.deepcopy(rec)
    for key in keys:
        out.pop(key)
    return out


def _bad_cases() -> dict[str, tuple[Any, str]]:
    good = _records(AWS)[0]
    return {
        "no_finding_id": (dict(good, FindingUniqueId=""), "FindingUniqueId"),
        "no_resource": (dict(good, ResourceArn="", ResourceId=""), "ResourceId"),
        "unknown_status": (dict(good, Status="MAYBE"), "Status"),
        "no_status": (_drop(good, "Status"), "Status"),
        "not_an_object": (["a", "list"], "record"),
        "not_a_check_result": ({"CheckID": "x"}, "record"),
    }


@pytest.mark.parametrize("case", sorted(_bad_cases()))
def test_a_bad_native_record_is_skipped_by_index_under_its_field_name(
        tmp_path: Path, case: str) -> None:
    bad, field = _bad_cases()[case]
    records: list[Any] = _records(AWS)
    records.insert(1, bad)
    ds = load_path(_write(tmp_path, records))
    assert len(ds.findings) == 2
    assert [(s["index"], s["field"]) for s in ds.load_report["skipped_records"]] == [
        (1, field)]


@pytest.mark.parametrize("case", sorted(_bad_cases()))
def test_a_bad_native_records_reason_is_worded_in_its_own_terms(tmp_path: Path, case: str
                                                               ) -> None:
    records: list[Any] = _records(AWS)
    records.insert(1, _bad_cases()[case][0])
    reason = load_path(_write(tmp_path, records)).load_report["skipped_records"][0]["reason"]
    assert not [w for w in ("finding_info", "resources", "uid or name", "status_code")
                if w in reason], reason


def test_strict_fails_on_the_bad_native_record_naming_its_index_and_field(
        tmp_path: Path) -> None:
    records: list[Any] = _records(AWS)
    records.insert(3, dict(records[0], FindingUniqueId=""))
    with pytest.raises(DatasetLoadError) as err:
        load_path(_write(tmp_path, records), strict=True)
    assert (err.value.data["index"], err.value.data["field"]) == (3, "FindingUniqueId")


def test_a_missing_native_severity_loads_as_unknown_and_is_reported(tmp_path: Path) -> None:
    ds = load_path(_write(tmp_path, [_drop(_records(AWS)[0], "Severity")]))
    assert ds.findings["severity"].tolist() == ["UNKNOWN"]
    assert ds.load_report["notes"][0]["field"] == "Severity"


def test_native_json_lines_of_prowler_3_records_load_like_the_array(tmp_path: Path) -> None:
    path = tmp_path / "prowler-output.json"
    path.write_text("".join(json.dumps(r) + "\n" for r in _records(GCP)))
    ds = load_path(path)
    assert (ds.kind, len(ds.findings), ds.load_report["passed_checks"]) == (
        "prowler-json", 2, 1)


def test_a_native_file_forced_as_asff_says_use_kind_prowler_json() -> None:
    with pytest.raises(DatasetLoadError) as err:
        load_path(AWS, kind="asff")
    assert err.value.problem.endswith("use kind=prowler-json")


def test_an_empty_scan_forced_as_prowler_json_loads_as_an_empty_dataset(
        tmp_path: Path) -> None:
    ds = load_path(_write(tmp_path, []), kind="prowler-json")
    assert (len(ds.assets), len(ds.findings), ds.load_report["records"]) == (0, 0, 0)


@pytest.mark.parametrize("value", [None, 7, "x", [1, 2], {"a": {"b": []}}, True])
def test_odd_values_in_every_native_field_never_raise_a_traceback(
        tmp_path: Path, value: Any) -> None:
    base = _records(AWS)[0]
    records = [dict(base, **{key: value}) for key in base]
    records += [dict(base, Remediation={"Recommendation": {"Text": value, "Url": value}}),
                dict(base, Compliance={"CIS-1.5": value}),
                dict(base, OrganizationsInfo={"account_details_name": value})]
    v2 = json.loads(V2.read_text().splitlines()[0])
    records += [dict(v2, **{key: value}) for key in v2]
    ds = load_path(_write(tmp_path, records))
    report = ds.load_report
    assert report["records"] == len(records)
    assert report["records"] == (report["skipped"] + report["duplicates_merged"]
                                 + report["findings"] + report["passed_checks"]
                                 + report["manual_checks"])


@pytest.mark.parametrize("text", [
    "null", "1", "[1, 2, 3]", "[[]]", "[null]", '[{"CheckID": 1, "StatusExtended": {}}]',
    '{"CheckID": "c", "FindingUniqueId": "u"}', '{"Control ID": 1, "Account Number": []}\n',
])
@pytest.mark.parametrize("kind", ["auto", "prowler-json"])
def test_any_json_shape_given_to_the_native_reader_loads_or_fails_with_a_load_error(
        tmp_path: Path, text: str, kind: str) -> None:
    path = tmp_path / "prowler-output.json"
    path.write_text(text)
    try:
        ds = load_path(path, kind=kind)
    except DatasetLoadError as err:
        assert err.file == "prowler-output.json"
        return
    assert ds.load_report["records"] >= 1


def test_kubernetes_native_json_uses_the_context_as_cluster_account(tmp_path: Path) -> None:
    rec = dict(_records(AWS)[0], Provider="kubernetes", CheckID="core_minimize_root_containers",
               FindingUniqueId="prowler-kubernetes-core_minimize_root_containers-pod-1",
               ResourceType="Pod", ResourceId="3f1c9a2e-pod-uid", ResourceName="web-5d8f",
               Context="shop-prod-cluster", Namespace="shop")
    for aws_only in ("AccountId", "Region", "ResourceArn", "OrganizationsInfo", "Profile"):
        rec.pop(aws_only)
    a = load_path(_write(tmp_path, [rec])).assets.set_index("id")
    assert (a.at["3f1c9a2e-pod-uid", "provider"], a.at["3f1c9a2e-pod-uid", "account_id"],
            a.at["3f1c9a2e-pod-uid", "asset_type"], a.at["3f1c9a2e-pod-uid", "region"]) == (
        "KUBERNETES", "shop-prod-cluster", "CONTAINER_WORKLOAD", "shop")
    assert a.at["account:shop-prod-cluster", "asset_type"] == "KUBERNETES_CLUSTER"
