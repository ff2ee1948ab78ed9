"""EC2 describe-* outputs (describe-instances, -security-groups, -subnets, -vpcs) load as a
network inventory: a folder of them merges into one dataset, a single file loads alone. The
fixtures follow the AWS CLI's documented output fields, with made-up values."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from cloudg_nb.estate import (
    Dataset,
    DatasetLoadError,
    attack_paths,
    detect_format,
    internet_exposure,
    load_path,
)

FOLDER = Path(__file__).parents[1] / "data" / "aws-describe"
ACCOUNT = "777788889999"


def _edges(ds: Dataset, source: str, target: str) -> list[dict[str, Any]]:
    e = ds.edges
    return e[(e["source_id"] == source) & (e["target_id"] == target)].to_dict("records")


def _instances(tmp_path: Path, instances: list[Any]) -> Path:
    path = tmp_path / "describe-instances.json"
    path.write_text(json.dumps({"Reservations": [{"OwnerId": ACCOUNT, "Instances": instances}]}))
    return path


def test_a_folder_of_describe_outputs_is_detected_as_aws_describe() -> None:
    assert detect_format(FOLDER) == "aws-describe"


def test_a_single_describe_instances_file_is_detected_as_aws_describe() -> None:
    assert detect_format(FOLDER / "describe-instances.json") == "aws-describe"


def test_the_folder_merges_instances_groups_subnets_and_vpcs_into_one_dataset() -> None:
    ds = load_path(FOLDER)
    a = ds.assets.set_index("id")
    counts = a["asset_type"].value_counts().to_dict()
    assert counts == {"EC2": 3, "SECURITY_GROUP": 2, "SUBNET": 2, "VPC": 1, "CLOUD_ACCOUNT": 1}
    assert set(a["account_id"]) == {ACCOUNT}
    assert a.loc["i-0pay0edge01", "name"] == "payments-edge"
    assert a.loc["sg-0e0e0e99", "name"] == "payments-db"
    assert a.loc["i-0pay0edge01", "metadata"]["public_ip"] == "192.0.2.44"
    assert a.loc["sg-0e0e0e88", "tags"] == {"team": "payments"}


def test_regions_come_from_zones_and_arns_and_pass_to_vpcs_and_groups() -> None:
    a = load_path(FOLDER).assets.set_index("id")
    assert a.loc["i-0pay0db0003", "region"] == "us-east-2"  # Placement.AvailabilityZone
    assert a.loc["subnet-0f0f0f66", "region"] == "us-east-2"  # SubnetArn
    assert a.loc["vpc-0e0e0e55", "region"] == "us-east-2"  # from its subnets
    assert a.loc["sg-0e0e0e88", "region"] == "us-east-2"  # from its VPC


def test_network_edges_run_vpc_to_subnet_to_instance_and_instance_to_group() -> None:
    ds = load_path(FOLDER)
    assert _edges(ds, "vpc-0e0e0e55", "subnet-0f0f0f66")[0]["edge_type"] == "CONTAINS"
    assert _edges(ds, "subnet-0f0f0f66", "i-0pay0edge01")[0]["edge_type"] == "CONTAINS"
    assert _edges(ds, "vpc-0e0e0e55", "sg-0e0e0e99")[0]["edge_type"] == "CONTAINS"
    attached = _edges(ds, "i-0pay0edge01", "sg-0e0e0e88")[0]
    assert attached["edge_type"] == "ATTACHED_TO" and attached["properties"] == {
        "public_ip": True}


def test_the_instance_profile_is_the_role_the_instance_runs_as() -> None:
    ds = load_path(FOLDER)
    edge = _edges(ds, "i-0pay0edge01",
                  f"arn:aws:iam::{ACCOUNT}:instance-profile/payments-edge")[0]
    assert (edge["edge_type"], edge["relationship"]) == ("ASSUMES_ROLE", "instance-profile")


def test_ip_permissions_become_rules_for_cidrs_groups_and_port_ranges() -> None:
    ds = load_path(FOLDER)
    ssh = _edges(ds, "sg-0e0e0e88", "0.0.0.0/0")
    assert sorted(tuple(e["ports"] or ()) for e in ssh if e["direction"] == "ingress") == [
        (22,), (443,)]
    assert _edges(ds, "sg-0e0e0e88", "::/0")[0]["ports"] == [443]
    from_group = _edges(ds, "sg-0e0e0e99", "sg-0e0e0e88")[0]
    assert (from_group["ports"], from_group["cidr"]) == ([5432], None)
    ranged = _edges(ds, "sg-0e0e0e99", "10.0.0.0/8")[0]
    assert (ranged["port_range"], ranged["protocol"]) == ("8000-8100", "tcp")


def test_exposure_covers_instances_with_a_public_ip_only_and_says_so() -> None:
    ds = load_path(FOLDER)
    result = internet_exposure(ds)
    items = result.items.set_index("id")
    assert items.loc["i-0pay0edge01", "open_ports"] == [22, 443]
    assert items.loc["i-0pay0edge01", "via"] == ["payments-edge"]
    assert items.loc["i-0pay0edge01", "sources"] == ["0.0.0.0/0", "::/0"]
    assert "i-0pay0batch2" not in items.index  # same group, no public IP
    assert result.summary["without_public_ip"] == 1
    warning = next(w for w in ds.load_report["warnings"] if "without a public IP" in w)
    assert "i-0pay0batch2" in warning and "sg-0e0e0e88" in warning


def test_terminated_instances_are_not_loaded_and_the_report_says_so() -> None:
    ds = load_path(FOLDER)
    assert "i-0pay0old004" not in set(ds.assets["id"])
    assert ds.load_report["deleted_or_terminated"] == 1
    assert any("terminated" in w for w in ds.load_report["warnings"])


def test_an_instance_without_an_id_is_skipped_and_reported_by_index(tmp_path: Path) -> None:
    path = _instances(tmp_path, [{"InstanceId": "i-01"}, {"SubnetId": "subnet-01"}, 7])
    ds = load_path(path)
    assert list(ds.assets["id"]) == ["i-01", f"account:{ACCOUNT}"]
    assert [(s["index"], s["field"]) for s in ds.load_report["skipped_records"]] == [
        (1, "Reservations[0].Instances[1].InstanceId"), (2, "Reservations[0].Instances[2]")]


def test_an_instance_without_an_id_fails_a_strict_load(tmp_path: Path) -> None:
    path = _instances(tmp_path, [{"InstanceId": "i-01"}, {"SubnetId": "subnet-01"}])
    with pytest.raises(DatasetLoadError) as err:
        load_path(path, strict=True)
    assert err.value.data["index"] == 1


def test_an_instance_listed_in_two_files_is_loaded_once(tmp_path: Path) -> None:
    folder = tmp_path / "scan"
    folder.mkdir()
    shutil.copy(FOLDER / "describe-instances.json", folder / "describe-instances.json")
    shutil.copy(FOLDER / "describe-instances.json", folder / "describe-instances-again.json")
    ds = load_path(folder)
    assert int((ds.assets["asset_type"] == "EC2").sum()) == 3
    assert ds.load_report["duplicates_merged"] == 3


def test_other_json_files_in_the_folder_are_named_and_not_read(tmp_path: Path) -> None:
    folder = tmp_path / "scan"
    shutil.copytree(FOLDER, folder)
    (folder / "notes.json").write_text('{"owner": "payments"}')
    ds = load_path(folder)
    assert any(w.startswith("notes.json") for w in ds.load_report["warnings"])
    assert len(ds.assets) == 9


def test_describe_output_forced_as_aws_config_says_aws_describe_fits() -> None:
    with pytest.raises(DatasetLoadError) as err:
        load_path(FOLDER / "describe-security-groups.json", kind="aws-config")
    assert "kind=aws-describe" in err.value.problem


def test_a_rule_without_a_protocol_is_noted_and_not_invented(tmp_path: Path) -> None:
    path = tmp_path / "sgs.json"
    path.write_text(json.dumps({"SecurityGroups": [{"GroupId": "sg-01", "IpPermissions": [
        {"FromPort": 22, "ToPort": 22, "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}]}]}))
    ds = load_path(path)
    assert len(ds.edges) == 0
    assert ds.load_report["notes"][0]["field"] == "SecurityGroups[0].IpPermissions[0].IpProtocol"


def test_a_private_instance_stays_reachable_through_group_to_group_rules() -> None:
    ds = load_path(FOLDER)  # payments-db admits 5432 from members of payments-edge
    out = attack_paths(ds, "i-0pay0db0003")
    assert [n["id"] for n in out["paths"][0]["nodes"]] == [
        "internet", "sg-0e0e0e88", "sg-0e0e0e99", "i-0pay0db0003"]
