"""Loaders: inventory map (+ findings.json), tabular folders (CSV / JSON lines / Parquet) and
Prowler JSON-OCSF, with format auto-detection; round trips keep the estate unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cloudg_nb.estate import (
    demo,
    detect_format,
    diff,
    load_path,
    write_inventory_map,
    write_tabular,
)

EMPTY_DIFF = {k: 0 for k in diff(demo(), demo())["summary"]}


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_tabular_folder_round_trips_the_demo(tmp_path: Path, fmt: str) -> None:
    write_tabular(demo(), tmp_path, fmt)
    loaded = load_path(tmp_path)
    assert loaded.kind == "tabular"
    assert diff(demo(), loaded)["summary"] == EMPTY_DIFF
    assert loaded.findings["is_suppressed"].sum() == 1
    assert loaded.edges.set_index("id").at["e-rule-ssh-world", "ports"] == [22]


def test_inventory_map_round_trips_with_its_findings(tmp_path: Path) -> None:
    write_inventory_map(demo(), tmp_path)
    loaded = load_path(tmp_path / "inventory-map.json")
    assert diff(demo(), loaded)["summary"] == EMPTY_DIFF
    assert len(loaded.compliance) == 21


def test_inventory_map_without_findings_file_loads_assets_and_edges(tmp_path: Path) -> None:
    write_inventory_map(demo(), tmp_path)
    (tmp_path / "findings.json").unlink()
    loaded = load_path(tmp_path)
    assert (len(loaded.assets), len(loaded.edges), len(loaded.findings)) == (60, 77, 0)


def test_a_findings_file_alone_loads_its_assets_and_findings(tmp_path: Path) -> None:
    write_inventory_map(demo(), tmp_path)
    loaded = load_path(tmp_path / "findings.json")
    assert len(loaded.findings) == 15 and len(loaded.edges) == 0
    assert "aws-ec2-web-1" in set(loaded.assets["id"])


def test_csv_cells_may_hold_loose_values(tmp_path: Path) -> None:
    (tmp_path / "assets.csv").write_text(
        "id,name,asset_type,provider,tags,is_internet_exposed\n"
        'a1,box,ec2,aws,"{""env"": ""prod""}",yes\n'
        "a2,sg,security-group,AWS,,false\n")
    (tmp_path / "edges.csv").write_text(
        "source_id,target_id,edge_type,ports,direction\n"
        "a2,0.0.0.0/0,security_group_rule,22;3389,Ingress\n"
        "a1,a2,attached_to,,\n")
    ds = load_path(tmp_path)
    assert ds.assets["tags"].iat[0] == {"env": "prod"}
    assert ds.assets["is_internet_exposed"].tolist() == [True, False]
    assert ds.edges["ports"].iat[0] == [22, 3389] and ds.edges["id"].tolist() == ["e0", "e1"]


PROWLER = [
    {"finding_info": {"uid": "prowler-aws-s3_public-1", "title": "Bucket is public",
                      "desc": "S3 bucket allows public read"},
     "status_code": "FAIL", "status": "New", "severity": "High",
     "metadata": {"event_code": "s3_bucket_public_access", "product": {"name": "Prowler"}},
     "resources": [{"uid": "arn:aws:s3:::public-data", "name": "public-data",
                    "type": "AwsS3Bucket", "region": "eu-west-1",
                    "labels": ["env:prod", "owner:data"]}],
     "cloud": {"provider": "aws", "region": "eu-west-1",
               "account": {"uid": "123456789012", "name": "prod"}},
     "remediation": {"desc": "Block public access"},
     "unmapped": {"compliance": {"CIS-2.0": ["2.1.5"], "SOC2": ["cc_6_1"]}}},
    {"finding_info": {"uid": "prowler-aws-iam_mfa-1", "title": "Root has MFA"},
     "status_code": "PASS", "severity": "Critical",
     "resources": [{"uid": "arn:aws:iam::123456789012:root", "type": "AwsAccount"}],
     "cloud": {"provider": "aws", "account": {"uid": "123456789012"}},
     "unmapped": {"compliance": {"CIS-2.0": ["1.5"]}}},
    {"finding_info": {"uid": "prowler-aws-sg_ssh-1", "title": "SSH open to the world"},
     "status_code": "FAIL", "status": "Suppressed", "severity": "Medium",
     "resources": [{"uid": "arn:aws:ec2:eu-west-1:123456789012:security-group/sg-1",
                    "type": "AwsEc2SecurityGroup"}],
     "cloud": {"provider": "aws", "account": {"uid": "123456789012"}},
     "unmapped": {"compliance": {"CIS-2.0": ["5.2"]}}},
]


def _prowler_file(tmp_path: Path, lines: bool = False) -> Path:
    path = tmp_path / "prowler-output-123456789012.ocsf.json"
    if lines:
        path.write_text("\n".join(json.dumps(r) for r in PROWLER))
    else:
        path.write_text(json.dumps(PROWLER))
    return path


@pytest.mark.parametrize("lines", [False, True])
def test_prowler_ocsf_becomes_assets_findings_and_controls(tmp_path: Path, lines) -> None:
    ds = load_path(_prowler_file(tmp_path, lines))
    assert ds.kind == "prowler"
    assert set(ds.findings["id"]) == {"prowler-aws-s3_public-1", "prowler-aws-sg_ssh-1"}
    bucket = ds.asset("public-data")
    assert bucket.asset_type.value == "S3_BUCKET" and bucket.tags == {"env": "prod",
                                                                      "owner": "data"}
    assert ds.asset("sg-1").asset_type.value == "SECURITY_GROUP"
    status = {(r["framework"], r["control_id"]): r["status"]
              for r in ds.compliance.to_dict("records")}
    assert status == {("CIS-2.0", "2.1.5"): "FAIL", ("SOC2", "cc_6_1"): "FAIL",
                      ("CIS-2.0", "1.5"): "PASS", ("CIS-2.0", "5.2"): "FAIL"}


def test_prowler_suppressed_status_marks_the_finding_suppressed(tmp_path: Path) -> None:
    ds = load_path(_prowler_file(tmp_path))
    f = ds.finding("prowler-aws-sg_ssh-1")
    assert f.is_suppressed and f.severity.value == "MEDIUM"


def test_format_detection(tmp_path: Path) -> None:
    write_inventory_map(demo(), tmp_path / "inv")
    write_tabular(demo(), tmp_path / "tab", "jsonl")
    assert detect_format(tmp_path / "inv") == "inventory"
    assert detect_format(tmp_path / "inv" / "inventory-map.json") == "inventory"
    assert detect_format(tmp_path / "tab") == "tabular"
    assert detect_format(tmp_path / "tab" / "assets.jsonl") == "tabular"
    assert detect_format(_prowler_file(tmp_path)) == "prowler"
