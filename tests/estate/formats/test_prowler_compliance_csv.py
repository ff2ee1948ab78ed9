"""Prowler compliance CSVs (output/compliance/, one per framework) load as compliance results:
auto-detected by their core columns, one control per requirement, failing check results as
findings on their resources. The fixtures in tests/estate/data/prowler-compliance/ follow
Prowler's documented column sets per framework and provider, with made-up values."""

from __future__ import annotations

from pathlib import Path

import pytest

from cloudg_nb.estate import Dataset, DatasetLoadError, detect_format, load_path

DATA = Path(__file__).resolve().parents[1] / "data" / "prowler-compliance"
AWS_CIS = DATA / "prowler-output-210987654321-20250304101500_cis_2.0_aws.csv"
AWS_ISO = DATA / "prowler-output-210987654321-20240630235959_iso27001_2013_aws.csv"
AZURE_ENS = DATA / ("prowler-output-5c1d2e3f-0000-4aaa-8bbb-0123456789ab-20250211080005_"
                    "ens_rd2022_azure.csv")
GCP_MITRE = DATA / "prowler-output-shop-prod-4711-20250120174530_mitre_attack_gcp.csv"
K8S_CIS = DATA / "prowler-output-kind-shop-20250401063000_cis_1.8_kubernetes.csv"
SG = "arn:aws:ec2:eu-west-1:210987654321:security-group/sg-0a1b2c"
SUB = "5c1d2e3f-0000-4aaa-8bbb-0123456789ab"
NSG = (f"/subscriptions/{SUB}/resourceGroups/rg-web/providers/Microsoft.Network/"
       "networkSecurityGroups/nsg-web")


def _controls(ds: Dataset) -> dict[tuple[str, str], str]:
    return {(r["framework"], r["control_id"]): r["status"]
            for r in ds.compliance.to_dict("records")}


def _assets(ds: Dataset) -> dict[str, tuple[str, str, str]]:
    return {r["id"]: (r["provider"], r["account_id"], r["region"])
            for r in ds.assets.to_dict("records")}


def _header_and_rows(path: Path) -> tuple[str, list[str]]:
    lines = path.read_text().splitlines()
    return lines[0], lines[1:]


@pytest.mark.parametrize("path", [AWS_CIS, AWS_ISO, AZURE_ENS, GCP_MITRE, K8S_CIS],
                         ids=lambda p: p.stem.split("_", 1)[1])
def test_every_framework_and_provider_is_detected_as_prowler_compliance(path: Path) -> None:
    assert detect_format(path) == "prowler-compliance"


def test_aws_cis_requirements_become_controls_with_their_statuses() -> None:
    ds = load_path(AWS_CIS)
    assert _controls(ds) == {("CIS-2.0", "5.2"): "FAIL", ("CIS-2.0", "5.3"): "FAIL",
                             ("CIS-2.0", "2.1.1"): "PASS", ("CIS-2.0", "3.1"): "FAIL",
                             ("CIS-2.0", "1.1"): "MANUAL"}
    titles = ds.compliance.set_index("control_id")["control_title"]
    assert titles["1.1"] == "Maintain current contact details"


def test_aws_cis_failing_check_results_become_findings_linked_from_their_controls() -> None:
    ds = load_path(AWS_CIS)
    f = ds.findings.set_index("source_finding_id")
    sg = f.loc["ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_22"]
    assert (sg["resource_id"], sg["severity"], sg["detected_at"], bool(sg["is_suppressed"])
            ) == (SG, "UNKNOWN", "2025-03-04 10:15:00.123456", False)
    assert sg["id"] == ("prowler-aws-ec2_securitygroup_allow_ingress_from_"
                        "internet_to_tcp_port_22-210987654321-eu-west-1-sg-0a1b2c")
    assert bool(f.loc["cloudtrail_multi_region_enabled", "is_suppressed"]) is True
    links = ds.compliance.set_index("control_id")["finding_ids"]
    assert list(links["5.2"]) == list(links["5.3"]) == [sg["id"]]
    assert len(ds.findings) == 2  # one finding per failing result, not per requirement row


def test_aws_cis_resources_keep_account_and_region_and_the_manual_row_makes_no_asset() -> None:
    ds = load_path(AWS_CIS)
    assert _assets(ds) == {
        "account:210987654321": ("AWS", "210987654321", "global"),
        SG: ("AWS", "210987654321", "eu-west-1"),
        "arn:aws:s3:::audit-logs": ("AWS", "210987654321", "us-east-1"),
        "arn:aws:cloudtrail:eu-west-1:210987654321:trail/main":
            ("AWS", "210987654321", "eu-west-1")}


def test_aws_cis_load_report_explains_rows_results_and_missing_severities() -> None:
    report = load_path(AWS_CIS).load_report
    assert (report["records"], report["findings"], report["passed_checks"],
            report["manual_checks"], report["skipped"]) == (5, 2, 1, 1, 0)
    assert "5 requirements of CIS-2.0" in report["explanation"]
    assert any("no severities" in w for w in report["warnings"])


def test_a_failing_internet_exposure_check_in_a_compliance_csv_exposes_its_resource() -> None:
    ds = load_path(AWS_CIS)
    exposed = ds.edges[ds.edges["source_id"] == "internet"]["target_id"].tolist()
    assert exposed == [SG]


def test_azure_ens_uses_subscription_location_and_prowlers_framework_key() -> None:
    ds = load_path(AZURE_ENS)
    assert _controls(ds) == {("ENS-RD2022", "mp.com.1.azure.nsg.1"): "FAIL",
                             ("ENS-RD2022", "op.exp.10.azure.kv.1"): "PASS",
                             ("ENS-RD2022", "org.1.azure.1"): "MANUAL"}
    assert _assets(ds)[NSG] == ("AZURE", SUB, "westeurope")
    f = ds.findings
    assert f["source_finding_id"].tolist() == ["network_ssh_internet_access_restricted"]
    assert f["detected_at"].tolist() == ["2025-02-11 08:00:05.000001"]
    assert f["compliance_frameworks"].tolist() == [["ENS-RD2022"]]


def test_gcp_mitre_attack_uses_project_location_and_technique_names() -> None:
    ds = load_path(GCP_MITRE)
    assert _controls(ds) == {("MITRE-ATTACK", "T1190"): "FAIL",
                             ("MITRE-ATTACK", "T1530"): "FAIL",
                             ("MITRE-ATTACK", "T1078"): "PASS"}
    titles = ds.compliance.set_index("control_id")["control_title"]
    assert titles["T1190"] == "Exploit Public-Facing Application"
    assets = _assets(ds)
    assert assets["4817263549012345678"] == ("GCP", "shop-prod-4711", "global")
    assert assets["shop-backups"] == ("GCP", "shop-prod-4711", "europe-west1")
    assert sorted(ds.findings["resource_id"]) == ["4817263549012345678", "shop-exports"]
    assert set(ds.findings["detected_at"]) == {"2025-01-20 17:45:30.500000"}
    report = ds.load_report
    assert (report["records"], report["findings"], report["passed_checks"]) == (4, 2, 2)


def test_kubernetes_cis_uses_the_context_as_cluster_and_namespace_as_region() -> None:
    ds = load_path(K8S_CIS)
    assert _controls(ds) == {("CIS-1.8", "1.2.1"): "FAIL", ("CIS-1.8", "1.2.2"): "PASS",
                             ("CIS-1.8", "5.2.2"): "FAIL"}
    a = ds.assets.set_index("id")
    assert (a.at["account:kind-shop", "asset_type"], a.at["account:kind-shop", "provider"]
            ) == ("KUBERNETES_CLUSTER", "KUBERNETES")
    assert _assets(ds)["3b9f0c1e-aaaa-4bbb-8ccc-00000000b002"] == (
        "KUBERNETES", "kind-shop", "namespace: shop")
    f = ds.findings.set_index("source_finding_id")
    assert bool(f.loc["core_minimize_privileged_containers", "is_suppressed"]) is True
    assert set(ds.findings["detected_at"]) == {"2025-04-01 06:30:00.000000"}


def test_prowler_4_iso27001_without_requirement_id_reads_the_objective_id() -> None:
    ds = load_path(AWS_ISO)
    assert _controls(ds) == {("ISO27001-2013", "A.12.4.1"): "FAIL",
                             ("ISO27001-2013", "A.10.1.1"): "PASS"}
    assert ds.compliance.set_index("control_id").at["A.12.4.1", "control_title"] == \
        "Event logging"


def test_bad_rows_are_skipped_and_reported_by_index(tmp_path: Path) -> None:
    header, rows = _header_and_rows(AWS_CIS)
    cols = header.split(";")
    no_status = rows[2].split(";")
    no_status[cols.index("STATUS")] = "MAYBE"
    no_resource = rows[3].split(";")
    no_resource[cols.index("RESOURCEID")] = ""
    path = tmp_path / AWS_CIS.name
    path.write_text("\n".join([header, rows[0], ";".join(no_status), ";".join(no_resource),
                               rows[4]]) + "\n")
    ds = load_path(path)
    assert [(s["index"], s["field"]) for s in ds.load_report["skipped_records"]] == [
        (1, "STATUS"), (2, "RESOURCEID")]
    assert _controls(ds) == {("CIS-2.0", "5.2"): "FAIL", ("CIS-2.0", "1.1"): "MANUAL"}
    assert ds.load_report["skipped"] == 2


def test_strict_fails_on_the_first_bad_row_naming_it(tmp_path: Path) -> None:
    header, rows = _header_and_rows(AWS_CIS)
    bad = rows[0].split(";")
    bad[header.split(";").index("CHECKID")] = ""
    path = tmp_path / AWS_CIS.name
    path.write_text("\n".join([header, ";".join(bad), rows[1]]) + "\n")
    with pytest.raises(DatasetLoadError) as err:
        load_path(path, strict=True)
    assert err.value.data["index"] == 0 and err.value.data["field"] == "CHECKID"


def test_a_compliance_csv_forced_as_prowler_names_the_reader_that_fits() -> None:
    with pytest.raises(DatasetLoadError) as err:
        load_path(AWS_CIS, kind="prowler")
    assert "use kind=prowler-compliance" in err.value.problem
    assert err.value.data["fitting_kind"] == "prowler-compliance"


def test_a_findings_csv_forced_as_prowler_compliance_names_the_reader_that_fits(
        tmp_path: Path) -> None:
    findings_csv = tmp_path / "prowler-output-123456789012.csv"
    findings_csv.write_text("FINDING_UID;CHECK_ID;STATUS;RESOURCE_UID\nf1;c1;FAIL;r1\n")
    with pytest.raises(DatasetLoadError) as err:
        load_path(findings_csv, kind="prowler-compliance")
    assert "not a Prowler compliance CSV" in err.value.problem
    assert err.value.problem.endswith("use kind=prowler")
    assert err.value.data["fitting_kind"] == "prowler"
