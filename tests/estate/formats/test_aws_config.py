"""AWS Config items load as an inventory with relationships: a configuration snapshot and
``select-resource-config`` output (fixtures written after the AWS Config documentation's
field names, with made-up values), validated item by item."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from cloudg_nb.estate import Dataset, DatasetLoadError, detect_format, internet_exposure, load_path

DATA = Path(__file__).parents[1] / "data"
SNAPSHOT = DATA / "aws-config-snapshot.json"
SELECT = DATA / "aws-config-select.json"


def _edge(ds: Dataset, source: str, target: str) -> dict[str, Any]:
    """The one edge from ``source`` to ``target`` (ingress, for rules)."""
    e = ds.edges
    rows = e[(e["source_id"] == source) & (e["target_id"] == target)
             & (e["direction"] != "egress")]
    assert len(rows) == 1, (source, target, rows.to_dict("records"))
    return rows.iloc[0].to_dict()


def _item(**fields: Any) -> dict[str, Any]:
    return {"resourceType": "AWS::EC2::VPC", "resourceId": "vpc-01", "awsRegion": "eu-west-1",
            "awsAccountId": "111122223333", "configurationItemStatus": "OK",
            "relationships": [], "configuration": {}, **fields}


def _snapshot(tmp_path: Path, items: list[Any]) -> Path:
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps({"fileVersion": "1.0", "configurationItems": items}))
    return path


def test_a_configuration_snapshot_is_detected_as_aws_config() -> None:
    assert detect_format(SNAPSHOT) == "aws-config"


def test_select_resource_config_output_is_detected_as_aws_config() -> None:
    assert detect_format(SELECT) == "aws-config"


def test_snapshot_items_become_assets_with_types_accounts_and_regions() -> None:
    ds = load_path(SNAPSHOT)
    a = ds.assets.set_index("id")
    assert len(a) == 12  # 11 live resources + their account
    assert a.loc["i-0bastion0001", "asset_type"] == "EC2"
    assert a.loc["sg-0a0a0a11", "asset_type"] == "SECURITY_GROUP"
    assert a.loc["vpc-0c0ffee1", "asset_type"] == "VPC"
    assert a.loc["subnet-0a11ce02", "asset_type"] == "SUBNET"
    assert a.loc["AROAAPPROLE0001", "asset_type"] == "IAM_ROLE"
    assert a.loc["shop-orders-archive", "asset_type"] == "S3_BUCKET"
    assert a.loc["account:111122223333", "asset_type"] == "CLOUD_ACCOUNT"
    assert a.loc["eni-0bastion01", "metadata"]["original_type"] == "AWS::EC2::NetworkInterface"
    assert set(a["account_id"]) == {"111122223333"}
    assert a.loc["i-0bastion0001", "region"] == "eu-west-1"
    assert a.loc["AROAAPPROLE0001", "region"] == "global"
    assert a.loc["i-0bastion0001", "name"] == "shop-bastion"
    assert a.loc["i-0bastion0001", "arn"].endswith(":instance/i-0bastion0001")
    assert a.loc["shop-orders-archive", "tags"] == {"data_classification": "pii"}


def test_containment_relationships_become_contains_edges_from_the_container() -> None:
    ds = load_path(SNAPSHOT)
    assert _edge(ds, "vpc-0c0ffee1", "subnet-0a11ce01")["edge_type"] == "CONTAINS"
    edge = _edge(ds, "subnet-0a11ce02", "i-0app00000002")
    assert edge["edge_type"] == "CONTAINS" and edge["relationship"] == "Is contained in Subnet"


def test_a_relationship_recorded_on_both_items_is_one_edge() -> None:
    ds = load_path(SNAPSHOT)  # subnet "Contains Instance" and instance "Is contained in Subnet"
    assert _edge(ds, "subnet-0a11ce01", "i-0bastion0001")["edge_type"] == "CONTAINS"


def test_security_group_relationships_attach_the_member_to_the_group() -> None:
    ds = load_path(SNAPSHOT)
    assert _edge(ds, "i-0bastion0001", "sg-0a0a0a11")["edge_type"] == "ATTACHED_TO"
    assert _edge(ds, "eni-0bastion01", "sg-0a0a0a11")["properties"] == {"public_ip": True}
    assert _edge(ds, "i-0app00000002", "sg-0b0b0b22")["properties"] == {"public_ip": False}


def test_role_and_policy_relationships_become_identity_edges() -> None:
    ds = load_path(SNAPSHOT)
    assert _edge(ds, "i-0app00000002", "AROAAPPROLE0001")["edge_type"] == "ASSUMES_ROLE"
    assert _edge(ds, "AROAAPPROLE0001", "ANPAAPPPOLICY01")["edge_type"] == \
        "IAM_POLICY_ATTACHMENT"


def test_ip_permissions_become_security_group_rules_with_ports_protocol_and_source() -> None:
    ds = load_path(SNAPSHOT)
    world = _edge(ds, "sg-0a0a0a11", "0.0.0.0/0")
    assert (world["edge_type"], world["ports"], world["protocol"], world["direction"]) == \
        ("SECURITY_GROUP_RULE", [22], "tcp", "ingress")
    assert _edge(ds, "sg-0a0a0a11", "::/0")["cidr"] == "::/0"
    assert _edge(ds, "sg-0b0b0b22", "sg-0a0a0a11")["ports"] == [8080]
    egress = ds.edges[(ds.edges["source_id"] == "sg-0a0a0a11")
                      & (ds.edges["direction"] == "egress")].iloc[0]
    assert (egress["protocol"], egress["port_range"]) == ("all", "0-65535")


def test_deleted_resources_are_not_loaded_and_the_report_says_so() -> None:
    ds = load_path(SNAPSHOT)
    assert "i-0gone0000009" not in set(ds.assets["id"])
    report = ds.load_report
    assert report["records"] == 12 and report["deleted_or_terminated"] == 1
    assert report["loaded_records"] == 11
    assert any("deleted" in w for w in report["warnings"])


def test_an_open_group_exposes_members_with_a_public_ip_only() -> None:
    ds = load_path(SNAPSHOT)
    items = internet_exposure(ds).items.set_index("id")
    assert items.loc["i-0bastion0001", "open_ports"] == [22]
    assert items.loc["i-0bastion0001", "via"] == ["shop-ssh"]
    assert "i-0app00000002" not in items.index
    assert any("i-0app00000002" in w and "without a public IP" in w
               for w in ds.load_report["warnings"])


def test_select_resource_config_results_given_as_json_strings_load() -> None:
    ds = load_path(SELECT)
    a = ds.assets.set_index("id")
    assert sorted(a["asset_type"]) == ["CLOUD_ACCOUNT", "EC2", "SECURITY_GROUP", "VPC"]
    assert a.loc["i-0ops0000003", "name"] == "ops-jump"  # the Name tag ({key, value} pairs)
    assert a.loc["i-0ops0000003", "account_id"] == "444455556666"
    assert a.loc["sg-0c0c0c33", "region"] == "us-east-1"
    assert internet_exposure(ds).items.set_index("id").loc["i-0ops0000003", "open_ports"] \
        == [3389]


def test_a_configuration_given_as_json_text_is_read(tmp_path: Path) -> None:
    cfg = {"groupId": "sg-01", "ipPermissions": [
        {"ipProtocol": "tcp", "fromPort": 5432, "toPort": 5432,
         "ipv4Ranges": [{"cidrIp": "0.0.0.0/0"}]}]}
    path = tmp_path / "batch.json"
    path.write_text(json.dumps({"baseConfigurationItems": [_item(
        resourceType="AWS::EC2::SecurityGroup", resourceId="sg-01",
        configuration=json.dumps(cfg))]}))
    ds = load_path(path)
    assert _edge(ds, "sg-01", "0.0.0.0/0")["ports"] == [5432]


def test_bad_items_are_skipped_and_reported_by_index(tmp_path: Path) -> None:
    path = _snapshot(tmp_path, [_item(), _item(resourceId=None), "not an item",
                                _item(resourceId="vpc-02", resourceType=" ")])
    ds = load_path(path)
    assert list(ds.assets["id"]) == ["vpc-01", "account:111122223333"]
    skipped = ds.load_report["skipped_records"]
    assert [(s["index"], s["field"]) for s in skipped] == [
        (1, "resourceId"), (2, "record"), (3, "resourceType")]


def test_a_bad_item_fails_a_strict_load_naming_it(tmp_path: Path) -> None:
    path = _snapshot(tmp_path, [_item(), _item(resourceId=None)])
    with pytest.raises(DatasetLoadError) as err:
        load_path(path, strict=True)
    assert err.value.data["index"] == 1 and err.value.data["field"] == "resourceId"


def test_a_relationship_without_a_related_id_is_noted_and_not_invented(tmp_path: Path) -> None:
    path = _snapshot(tmp_path, [_item(relationships=[{"resourceType": "AWS::EC2::Subnet",
                                                      "name": "Contains Subnet"}])])
    ds = load_path(path)
    assert len(ds.edges) == 0
    assert ds.load_report["notes"][0]["field"] == "relationships[0]"


def test_an_empty_snapshot_loads_as_an_empty_dataset(tmp_path: Path) -> None:
    ds = load_path(_snapshot(tmp_path, []))
    assert len(ds.assets) == 0 and ds.load_report["records"] == 0


def test_a_snapshot_forced_as_describe_output_says_aws_config_fits() -> None:
    with pytest.raises(DatasetLoadError) as err:
        load_path(SNAPSHOT, kind="aws-describe")
    assert "kind=aws-config" in err.value.problem and err.value.data["fits"] == "aws-config"


def test_the_newest_capture_of_a_resource_read_twice_is_kept(tmp_path: Path) -> None:
    old = _item(configurationItemCaptureTime="2026-11-01T00:00:00Z", tags={"v": "old"})
    new = _item(configurationItemCaptureTime="2026-11-02T00:00:00Z", tags={"v": "new"})
    ds = load_path(_snapshot(tmp_path, [new, old]))
    assert ds.assets.set_index("id").loc["vpc-01", "tags"] == {"v": "new"}
    assert ds.load_report["duplicates_merged"] == 1


def test_a_folder_of_snapshots_loads_as_one_dataset(tmp_path: Path) -> None:
    folder = tmp_path / "config"
    folder.mkdir()
    shutil.copy(SNAPSHOT, folder / "eu-west-1.json")
    shutil.copy(SELECT, folder / "us-east-1.json")
    assert detect_format(folder) == "aws-config"
    ds = load_path(folder)
    assert set(ds.assets["account_id"]) == {"111122223333", "444455556666"}
    assert len(ds.assets) == 16


def test_a_relationship_naming_only_the_resource_links_the_asset_of_that_name(
        tmp_path: Path) -> None:
    role = _item(resourceType="AWS::IAM::Role", resourceId="AROA01", resourceName="app-role")
    policy = _item(resourceType="AWS::IAM::Policy", resourceId="ANPA01", resourceName="read",
                   relationships=[{"resourceType": "AWS::IAM::Role",
                                   "resourceName": "app-role", "name": "Is attached to Role"}])
    ds = load_path(_snapshot(tmp_path, [policy, role]))
    assert _edge(ds, "AROA01", "ANPA01")["edge_type"] == "IAM_POLICY_ATTACHMENT"


def test_a_database_not_publicly_accessible_is_not_exposed_by_its_open_group(
        tmp_path: Path) -> None:
    group = _item(resourceType="AWS::EC2::SecurityGroup", resourceId="sg-01", configuration={
        "ipPermissions": [{"ipProtocol": "tcp", "fromPort": 5432, "toPort": 5432,
                           "ipv4Ranges": [{"cidrIp": "0.0.0.0/0"}]}]})
    rel = [{"resourceType": "AWS::EC2::SecurityGroup", "resourceId": "sg-01",
            "name": "Is associated with SecurityGroup"}]
    private = _item(resourceType="AWS::RDS::DBInstance", resourceId="db-private",
                    relationships=rel, configuration={"publiclyAccessible": False})
    public = _item(resourceType="AWS::RDS::DBInstance", resourceId="db-public",
                   relationships=rel, configuration={"publiclyAccessible": True})
    ds = load_path(_snapshot(tmp_path, [group, private, public]))
    exposed = set(internet_exposure(ds).items["id"])
    assert "db-public" in exposed and "db-private" not in exposed
