"""load_dataset on Prowler compliance CSVs and on Prowler's output folder: auto-detected, the
result matches its schema, and the compliance tools answer from the requirements."""

from __future__ import annotations

import shutil
from pathlib import Path

from cloudg_nb import CloudGMCPLayer

from .support import ok

DATA = Path(__file__).resolve().parents[1] / "estate" / "data" / "prowler-compliance"
CIS = "prowler-output-210987654321-20250304101500_cis_2.0_aws.csv"


def _copy(tmp_path: Path, into: str = "") -> Path:
    target = tmp_path / "data" / into
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(DATA / CIS, target / CIS)
    return target / CIS


async def test_a_compliance_csv_loads_and_compliance_summary_counts_its_requirements(
        empty: CloudGMCPLayer, tmp_path: Path) -> None:
    out = await ok(empty, "load_dataset", {"path": str(_copy(tmp_path)), "name": "cis"})
    assert (out["kind"], out["compliance_results"], out["findings"]) == ("prowler", 5, 2)
    assert out["load_report"]["records"] == 5
    summary = await ok(empty, "compliance_summary", {"dataset": "cis"})
    assert summary["frameworks"] == [{"framework": "CIS-2.0", "controls": 5, "passed": 1,
                                      "failed": 3, "not_applicable": 0, "manual": 1,
                                      "pass_rate": 0.25}]


async def test_the_compliance_kind_can_be_forced_by_name(empty: CloudGMCPLayer,
                                                         tmp_path: Path) -> None:
    out = await ok(empty, "load_dataset", {"path": str(_copy(tmp_path)),
                                           "kind": "prowler-compliance"})
    assert out["compliance_results"] == 5


async def test_a_prowler_output_folder_loads_through_load_dataset(empty: CloudGMCPLayer,
                                                                  tmp_path: Path) -> None:
    csv_path = _copy(tmp_path, "output/compliance")
    stem = CIS.rsplit("_cis_2.0_aws.csv", 1)[0]
    scan = csv_path.parent.parent / f"{stem}.ocsf.json"
    scan.write_text(
        '[{"finding_info": {"uid": "prowler-aws-s3-1", "title": "Bucket policy"}, '
        '"status_code": "PASS", "severity": "Medium", "class_uid": 2004, '
        '"unmapped": {"compliance": {"CIS-2.0": ["2.1.1"]}}, '
        '"resources": [{"uid": "arn:aws:s3:::audit-logs", "type": "AwsS3Bucket"}], '
        '"cloud": {"provider": "aws", "account": {"uid": "210987654321"}}}]')
    out = await ok(empty, "load_dataset", {"path": str(scan.parent), "name": "scan"})
    assert out["compliance_results"] == 5
    assert out["load_report"]["compliance_files"][0]["requirements_added"] == 4
