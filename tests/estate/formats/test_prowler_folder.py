"""A folder of Prowler output (one scan's JSON-OCSF file plus its compliance/ CSVs) loads as one
dataset: the scan's findings and severities, with the compliance CSVs' requirement titles and
the requirements no check covers. The scan records are written here after Prowler's OCSF
fields; the compliance CSV is the AWS CIS fixture, renamed after the scan."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from cloudg_nb.estate import DatasetLoadError, detect_format, load_path

DATA = Path(__file__).resolve().parents[1] / "data" / "prowler-compliance"
CIS_CSV = DATA / "prowler-output-210987654321-20250304101500_cis_2.0_aws.csv"
STEM = "prowler-output-210987654321-20250304101500"
SG = "arn:aws:ec2:eu-west-1:210987654321:security-group/sg-0a1b2c"
SG_FINDING = ("prowler-aws-ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_22-"
              "210987654321-eu-west-1-sg-0a1b2c")


def _record(fid: str, check: str, status: str, severity: str, uid: str, name: str,
            region: str, controls: list[str]) -> dict[str, Any]:
    return {
        "metadata": {"event_code": check, "product": {"name": "Prowler"}},
        "severity": severity, "status_code": status, "status_detail": f"{name}: {status}",
        "unmapped": {"compliance": {"CIS-2.0": controls}, "categories": []},
        "finding_info": {"uid": fid, "title": check, "created_time_dt": "2025-03-04T10:15:00Z"},
        "resources": [{"uid": uid, "name": name, "region": region, "type": "AwsEc2SecurityGroup"
                       if "security-group" in uid else "AwsS3Bucket", "group": {"name": "ec2"}}],
        "cloud": {"provider": "aws", "region": region,
                  "account": {"uid": "210987654321", "name": "shop-prod"}},
        "class_uid": 2004, "time_dt": "2025-03-04T10:15:00Z",
    }


SCAN = [
    _record(SG_FINDING, "ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_22", "FAIL",
            "High", SG, "sg-0a1b2c", "eu-west-1", ["5.2"]),
    _record("prowler-aws-s3_bucket_secure_transport_policy-210987654321-us-east-1-audit-logs",
            "s3_bucket_secure_transport_policy", "PASS", "Medium", "arn:aws:s3:::audit-logs",
            "audit-logs", "us-east-1", ["2.1.1"]),
]


def _output_folder(tmp_path: Path, *scans: str) -> Path:
    folder = tmp_path / "output"
    (folder / "compliance").mkdir(parents=True)
    for stem in scans or (STEM,):
        (folder / f"{stem}.ocsf.json").write_text(json.dumps(SCAN))
    shutil.copy(CIS_CSV, folder / "compliance" / f"{STEM}_cis_2.0_aws.csv")
    return folder


def test_a_prowler_output_folder_is_detected_as_prowler(tmp_path: Path) -> None:
    assert detect_format(_output_folder(tmp_path)) == "prowler"


def test_the_folder_keeps_the_scans_findings_and_severities(tmp_path: Path) -> None:
    ds = load_path(_output_folder(tmp_path))
    assert ds.findings["id"].tolist() == [SG_FINDING]
    assert ds.findings["severity"].tolist() == ["HIGH"]
    assert set(ds.assets["id"]) == {"account:210987654321", "arn:aws:s3:::audit-logs", SG}


def test_compliance_csvs_add_titles_and_the_requirements_the_scan_did_not_map(
        tmp_path: Path) -> None:
    ds = load_path(_output_folder(tmp_path))
    c = ds.compliance.set_index("control_id")
    assert {cid: c.at[cid, "status"] for cid in c.index} == {
        "5.2": "FAIL", "2.1.1": "PASS", "5.3": "FAIL", "3.1": "FAIL", "1.1": "MANUAL"}
    assert set(ds.compliance["framework"]) == {"CIS-2.0"}
    assert c.at["5.2", "control_title"].startswith("Ensure no security groups allow ingress")
    assert c.at["1.1", "control_title"] == "Maintain current contact details"
    assert list(c.at["5.3", "finding_ids"]) == [SG_FINDING]
    assert c.at["3.1", "finding_ids"] is None  # its finding is not in the scan file


def test_the_load_report_names_each_compliance_file_and_what_it_added(tmp_path: Path) -> None:
    report = load_path(_output_folder(tmp_path)).load_report
    assert report["file"] == f"{STEM}.ocsf.json" and report["findings"] == 1
    assert report["compliance_files"] == [{
        "file": f"{STEM}_cis_2.0_aws.csv", "requirements": 5, "titles_added": 2,
        "requirements_added": 3, "skipped": 0, "skipped_records": []}]
    assert "added 3 requirement(s)" in report["explanation"]


def test_a_folder_with_several_scans_is_refused_naming_them(tmp_path: Path) -> None:
    folder = _output_folder(tmp_path, STEM, "prowler-output-210987654321-20250305101500")
    with pytest.raises(DatasetLoadError) as err:
        load_path(folder)
    assert "2 Prowler scans" in err.value.problem
    assert len(err.value.data["scans"]) == 2


def _compliance_folder(tmp_path: Path) -> Path:
    """output/compliance of one AWS scan: its CIS 2.0 CSV and an ISO 27001 CSV naming the
    same failing CloudTrail result."""
    folder = tmp_path / "compliance"
    folder.mkdir()
    shutil.copy(CIS_CSV, folder / CIS_CSV.name)
    iso = DATA / "prowler-output-210987654321-20240630235959_iso27001_2013_aws.csv"
    shutil.copy(iso, folder / f"{STEM}_iso27001_2013_aws.csv")
    return folder


def test_a_folder_of_one_scans_compliance_csvs_loads_every_framework(tmp_path: Path) -> None:
    folder = _compliance_folder(tmp_path)
    assert detect_format(folder) == "prowler"
    ds = load_path(folder)
    assert sorted(set(ds.compliance["framework"])) == ["CIS-2.0", "ISO27001-2013"]
    assert len(ds.compliance) == 7
    assert ds.load_report["records"] == 7 and len(ds.load_report["compliance_files"]) == 2


def test_a_result_in_several_frameworks_files_is_one_finding(tmp_path: Path) -> None:
    ds = load_path(_compliance_folder(tmp_path))
    trail = ds.findings[ds.findings["source_finding_id"] == "cloudtrail_multi_region_enabled"]
    assert len(trail) == 1
    assert trail["compliance_frameworks"].tolist() == [["CIS-2.0", "ISO27001-2013"]]
    assert ds.findings["id"].is_unique and ds.assets["id"].is_unique


def test_compliance_csvs_of_two_scans_are_refused(tmp_path: Path) -> None:
    folder = _compliance_folder(tmp_path)
    shutil.copy(CIS_CSV, folder / "prowler-output-210987654321-20250401000000_cis_2.0_aws.csv")
    with pytest.raises(DatasetLoadError) as err:
        load_path(folder)
    assert "compliance CSVs of 2 Prowler scans" in err.value.problem
