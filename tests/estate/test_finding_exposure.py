"""Internet exposure derived from scanner findings (a scanner-only Prowler estate)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cloudg_nb.estate import Dataset, attack_paths, internet_exposure, load_path, top_risks
from cloudg_nb.estate.finding_exposure import exposure_of_check, relationship_note

DATA = Path(__file__).parent / "data" / "scanner-only-estate.ocsf.json"
SG = "arn:aws:ec2:eu-west-1:210987654321:security-group/sg-0a1b2c3d4e5f60718"
FW = "projects/estate-test-project/global/firewalls/allow-rdp-anywhere"


@pytest.fixture
def scan() -> Dataset:
    return load_path(DATA)


def _exposed(ds: Dataset) -> dict[str, dict]:
    return {r["name"]: r for r in internet_exposure(ds).items.to_dict("records")}


def test_open_rdp_firewall_rule_is_exposed_on_port_3389_by_its_finding(scan) -> None:
    row = _exposed(scan)["allow-rdp-anywhere"]
    assert row["open_ports"] == [3389] and row["sensitive_ports"] == [3389]
    assert row["protocols"] == ["tcp"] and row["sources"] == ["0.0.0.0/0"]
    assert row["exposure"] == "finding"
    assert row["derived_from"] == [
        "prowler-gcp-compute_firewall_rdp_access_from_the_internet_allowed-"
        "estate-test-project-global-allow-rdp-anywhere"]


def test_open_ssh_security_group_is_exposed_on_port_22(scan) -> None:
    row = _exposed(scan)["sg-0a1b2c3d4e5f60718"]
    assert row["open_ports"] == [22] and row["provider"] == "AWS"
    assert row["derived_from"][0].startswith(
        "prowler-aws-ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_22-")


def test_azure_nsg_with_ssh_and_rdp_findings_lists_both_ports_and_findings(scan) -> None:
    row = _exposed(scan)["nsg-jump"]
    assert row["open_ports"] == [22, 3389] and len(row["derived_from"]) == 2


def test_public_buckets_of_each_provider_are_exposed_without_ports(scan) -> None:
    rows = _exposed(scan)
    for name in ("estate-test-public-assets", "estate-test-open-bucket", "stestpublic"):
        assert rows[name]["open_ports"] == [] and rows[name]["derived_from"]


def test_passing_and_unrelated_failing_checks_expose_nothing(scan) -> None:
    rows = _exposed(scan)
    assert set(rows) == {"allow-rdp-anywhere", "sg-0a1b2c3d4e5f60718", "nsg-jump",
                         "estate-test-public-assets", "estate-test-open-bucket",
                         "stestpublic"}
    assert internet_exposure(scan).summary["derived_from_findings"] == 7


def test_attack_paths_from_the_internet_reach_the_exposed_firewall_rule(scan) -> None:
    result = attack_paths(scan, FW)
    assert result["count"] == 1
    path = result["paths"][0]
    assert [n["id"] for n in path["nodes"]] == ["internet", FW]
    assert path["edges"][0]["derived_from_finding"].startswith(
        "prowler-gcp-compute_firewall_rdp")


def test_attack_paths_without_target_reach_every_public_bucket(scan) -> None:
    reached = {p["nodes"][-1]["name"] for p in attack_paths(scan)["paths"]}
    assert reached == {"estate-test-public-assets", "estate-test-open-bucket", "stestpublic"}


def test_top_risks_weigh_exposure_derived_from_findings(scan) -> None:
    risks = {r["name"]: r for r in top_risks(scan).to_dict("records")}
    assert risks["allow-rdp-anywhere"]["exposure_factor"] == 1.5
    assert risks["allow-rdp-anywhere"]["exposed_by_findings"][0].startswith("prowler-gcp-")
    assert risks["root"]["exposure_factor"] == 1.0 and risks["root"]["exposed_by_findings"] == []


def test_scanner_only_dataset_gets_a_one_line_relationship_note(scan) -> None:
    note = relationship_note(scan.edges)
    assert note is not None and "derived from findings" in note and "\n" not in note


def test_dataset_without_edges_gets_the_no_relationship_note() -> None:
    ds = Dataset.from_records(assets=[{"id": "a", "name": "a", "asset_type": "EC2"}])
    assert "no relationship data" in (relationship_note(ds.edges) or "")


def test_demo_estate_gets_no_relationship_note(ds) -> None:
    assert relationship_note(ds.edges) is None


@pytest.mark.parametrize(("check", "ports", "all_ports"), [
    ("ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_mysql_3306", (3306,), False),
    ("ec2_securitygroup_allow_ingress_from_internet_to_all_ports", (), True),
    ("ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_oracle_1521_2483",
     (1521, 2483), False),
    ("compute_firewall_ssh_access_from_the_internet_allowed", (22,), False),
    ("network_rdp_internet_access_restricted", (3389,), False),
    ("ec2_instance_port_rdp_exposed_to_internet", (3389,), False),
    ("ec2_networkacl_allow_ingress_tcp_port_22", (22,), False),
    ("network_http_internet_access_restricted", (80,), False),
])
def test_check_ids_name_the_ports_they_expose(check, ports, all_ports) -> None:
    exp = exposure_of_check(check)
    assert exp is not None and (exp.ports, exp.all_ports, exp.basis) == (ports, all_ports,
                                                                       "check")


def test_internet_exposed_category_alone_marks_an_exposure() -> None:
    exp = exposure_of_check("custom_check_42", "Something", ["internet-exposed"])
    assert exp is not None and exp.basis == "category"


def test_title_naming_the_ipv6_world_range_marks_an_exposure_from_it() -> None:
    exp = exposure_of_check("custom_rule", "Ingress from ::/0 to port 5432 is allowed")
    assert exp is not None and exp.ports == (5432,) and exp.source == "::/0"


@pytest.mark.parametrize(("title", "ports"), [
    ("Security groups should not allow ingress from 0.0.0.0/0 or ::/0 to port 22", (22,)),
    ("Security groups should not allow unrestricted access to ports with high risk",
     (25, 110, 135, 143, 445, 3000, 4333, 5000, 5500, 8080, 8088)),
    ("S3 general purpose buckets should prohibit public read access", ()),
    ("RDS DB instances should prohibit public access", ()),
])
def test_security_hub_control_titles_mark_an_exposure(title, ports) -> None:
    exp = exposure_of_check("arn:aws:securityhub:::control/x", title)
    assert exp is not None and exp.basis == "title" and exp.ports == ports


def test_a_title_about_blocking_public_access_is_no_exposure() -> None:
    assert exposure_of_check(None, "S3 general purpose buckets should block public access "
                                   "(public access block)") is None


@pytest.mark.parametrize(("check", "kind"), [
    ("rds_instance_no_public_access", "public_endpoint"),
    ("awslambda_function_url_public", "public_endpoint"),
    ("s3_bucket_public_write_acl", "public_storage"),
    ("ec2_ebs_public_snapshot", "public_resource"),
])
def test_public_resource_checks_say_what_kind_of_exposure(check, kind) -> None:
    exp = exposure_of_check(check)
    assert exp is not None and exp.kind == kind and not exp.ports


def test_udp_check_names_the_protocol_without_claiming_tcp_ports() -> None:
    exp = exposure_of_check("network_udp_internet_access_restricted")
    assert exp is not None and (exp.protocol, exp.ports, exp.all_ports) == ("udp", (), False)


@pytest.mark.parametrize("check", ["ec2_launch_template_no_public_ip",
                                   "ec2_ebs_snapshot_account_block_public_access",
                                   "s3_bucket_level_public_access_block", "iam_root_mfa_enabled",
                                   "vpc_subnet_no_public_ip_by_default",
                                   "s3_account_level_public_access_blocks"])
def test_checks_that_do_not_say_a_resource_is_reachable_expose_nothing(check) -> None:
    assert exposure_of_check(check, "Ensure the setting is on") is None
