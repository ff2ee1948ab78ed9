"""Prowler's default CSV output (semicolon-separated, Prowler 4/5 columns) loads like its
JSON-OCSF twin: auto-detected, rows validated one by one. The rows are written here after
Prowler's documented CSV columns, with made-up values."""

from __future__ import annotations

from pathlib import Path

import pytest

from cloudg_nb.estate import DatasetLoadError, detect_format, load_path

HEADER = (
    "AUTH_METHOD;TIMESTAMP;ACCOUNT_UID;ACCOUNT_NAME;ACCOUNT_EMAIL;ACCOUNT_ORGANIZATION_UID;"
    "ACCOUNT_ORGANIZATION_NAME;ACCOUNT_TAGS;FINDING_UID;PROVIDER;CHECK_ID;CHECK_TITLE;"
    "CHECK_TYPE;STATUS;STATUS_EXTENDED;MUTED;SERVICE_NAME;SUBSERVICE_NAME;SEVERITY;"
    "RESOURCE_TYPE;RESOURCE_UID;RESOURCE_NAME;RESOURCE_DETAILS;RESOURCE_TAGS;PARTITION;REGION;"
    "DESCRIPTION;RISK;RELATED_URL;REMEDIATION_RECOMMENDATION_TEXT;"
    "REMEDIATION_RECOMMENDATION_URL;REMEDIATION_CODE_NATIVEIAC;REMEDIATION_CODE_TERRAFORM;"
    "REMEDIATION_CODE_CLI;REMEDIATION_CODE_OTHER;COMPLIANCE;CATEGORIES;DEPENDS_ON;RELATED_TO;"
    "NOTES;PROWLER_VERSION")
COLUMNS = HEADER.split(";")


def _row(check: str, status: str, severity: str, uid: str, name: str, rtype: str, *,
         muted: str = "False", region: str = "eu-west-1", compliance: str = "",
         tags: str = "") -> str:
    values = dict.fromkeys(COLUMNS, "")
    values.update({
        "AUTH_METHOD": "profile: default", "TIMESTAMP": "2024-12-01 09:30:00.000000",
        "ACCOUNT_UID": "123456789012", "ACCOUNT_NAME": "shop-prod", "PROVIDER": "aws",
        "FINDING_UID": f"prowler-aws-{check}-123456789012-{region}-{name}",
        "CHECK_ID": check, "CHECK_TITLE": f"{check} title", "STATUS": status,
        "STATUS_EXTENDED": f"{name}: {status}", "MUTED": muted, "SERVICE_NAME": "ec2",
        "SEVERITY": severity, "RESOURCE_TYPE": rtype, "RESOURCE_UID": uid,
        "RESOURCE_NAME": name, "RESOURCE_TAGS": tags, "PARTITION": "aws", "REGION": region,
        "REMEDIATION_RECOMMENDATION_TEXT": "Restrict it.", "COMPLIANCE": compliance,
        "PROWLER_VERSION": "5.1.0"})
    return ";".join(values[c] for c in COLUMNS)


SG = "arn:aws:ec2:eu-west-1:123456789012:security-group/sg-0123"
ROWS = [
    _row("ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_22", "FAIL", "high", SG,
         "sg-0123", "AwsEc2SecurityGroup", compliance="CIS-2.0: 5.2 | PCI-4.0: 1.3.1, 1.4.1",
         tags="env=prod | team=web"),
    _row("s3_bucket_default_encryption", "PASS", "medium", "arn:aws:s3:::logs", "logs",
         "AwsS3Bucket", region="us-east-1", compliance="CIS-2.0: 2.1.1"),
    _row("cloudtrail_multi_region_enabled", "FAIL", "medium",
         "arn:aws:cloudtrail:eu-west-1:123456789012:trail/main", "main", "AwsCloudTrailTrail",
         muted="True", compliance="CIS-2.0: 3.1"),
]


def _csv(tmp_path: Path, rows: list[str], name: str = "prowler-output-123456789012.csv"
         ) -> Path:
    path = tmp_path / name
    path.write_text(";".join(COLUMNS) + "\n" + "\n".join(rows) + "\n")
    return path


def test_prowler_csv_is_detected_by_its_header(tmp_path: Path) -> None:
    assert detect_format(_csv(tmp_path, ROWS)) == "prowler"


def test_prowler_csv_failing_rows_become_findings_with_their_fields(tmp_path: Path) -> None:
    ds = load_path(_csv(tmp_path, ROWS))
    f = ds.findings.set_index("source_finding_id")
    sg = f.loc["ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_22"]
    assert (sg["severity"], sg["resource_id"], sg["detected_at"], sg["is_suppressed"]) == (
        "HIGH", SG, "2024-12-01 09:30:00.000000", False)
    assert bool(f.loc["cloudtrail_multi_region_enabled", "is_suppressed"]) is True
    report = ds.load_report
    assert (report["records"], report["findings"], report["passed_checks"]) == (3, 2, 1)


def test_prowler_csv_assets_keep_account_region_type_and_tags(tmp_path: Path) -> None:
    a = load_path(_csv(tmp_path, ROWS)).assets.set_index("id")
    assert (a.at[SG, "asset_type"], a.at[SG, "account_id"], a.at[SG, "region"],
            a.at[SG, "tags"]) == ("SECURITY_GROUP", "123456789012", "eu-west-1",
                                  {"env": "prod", "team": "web"})
    assert a.at["arn:aws:s3:::logs", "region"] == "us-east-1"
    trail = "arn:aws:cloudtrail:eu-west-1:123456789012:trail/main"
    assert a.at[trail, "asset_type"] == "LOG_GROUP"


def test_prowler_csv_compliance_column_becomes_control_results(tmp_path: Path) -> None:
    c = load_path(_csv(tmp_path, ROWS)).compliance
    got = {(r["framework"], r["control_id"]): r["status"] for r in c.to_dict("records")}
    assert got == {("CIS-2.0", "5.2"): "FAIL", ("PCI-4.0", "1.3.1"): "FAIL",
                   ("PCI-4.0", "1.4.1"): "FAIL", ("CIS-2.0", "2.1.1"): "PASS",
                   ("CIS-2.0", "3.1"): "FAIL"}


def test_a_prowler_csv_row_without_resource_is_skipped_by_index_in_csv_terms(
        tmp_path: Path) -> None:
    bad = _row("iam_root_mfa_enabled", "FAIL", "critical", "", "", "AwsAccount")
    ds = load_path(_csv(tmp_path, [ROWS[0], bad, ROWS[2]]))
    assert len(ds.findings) == 2
    assert ds.load_report["skipped_records"] == [
        {"index": 1, "field": "RESOURCE_UID",
         "reason": "empty, and so is RESOURCE_NAME: the row names no resource"}]


def test_a_prowler_csv_row_without_severity_loads_as_unknown(tmp_path: Path) -> None:
    row = _row("ec2_instance_imdsv2_enabled", "FAIL", "", "i-0abc", "web", "AwsEc2Instance")
    ds = load_path(_csv(tmp_path, [row]))
    assert ds.findings["severity"].tolist() == ["UNKNOWN"]
    assert ds.load_report["notes"][0] == {"index": 0, "field": "SEVERITY",
                                          "reason": "empty; loaded as UNKNOWN"}


def test_a_csv_of_another_shape_forced_as_prowler_says_what_is_missing(
        tmp_path: Path) -> None:
    other = tmp_path / "inventory.csv"
    other.write_text("id,name\na,b\n")
    with pytest.raises(DatasetLoadError) as err:
        load_path(other, kind="prowler")
    assert "not Prowler CSV output" in err.value.problem
    assert err.value.data["required_columns"] == ["FINDING_UID", "CHECK_ID", "STATUS",
                                                  "RESOURCE_UID"]


# -- bad rows (issue 13 item 5 for the CSV twin) ---------------------------------------------

_GOOD_IDS = {"prowler-aws-ec2_securitygroup_allow_ingress_from_internet_to_tcp_port_22-"
             "123456789012-eu-west-1-sg-0123",
             "prowler-aws-cloudtrail_multi_region_enabled-123456789012-eu-west-1-main"}
_BAD_ROWS = {
    "no_finding_uid": (_row("x_check", "FAIL", "high", "arn:aws:s3:::b", "b", "AwsS3Bucket")
                       .replace("prowler-aws-x_check-123456789012-eu-west-1-b", ""),
                       "FINDING_UID"),
    "unknown_status": (_row("x_check", "MAYBE", "high", "arn:aws:s3:::b", "b", "AwsS3Bucket"),
                       "STATUS"),
    "truncated_row": ("profile: default;2024-12-01 09:30:00.000000;123456789012",
                      "RESOURCE_UID"),
}


@pytest.mark.parametrize("case", sorted(_BAD_ROWS))
def test_a_bad_prowler_csv_row_in_the_middle_is_skipped_by_index_and_the_rest_load(
        tmp_path: Path, case: str) -> None:
    bad, field = _BAD_ROWS[case]
    ds = load_path(_csv(tmp_path, [ROWS[0], bad, ROWS[2]]))
    assert set(ds.findings["id"]) == _GOOD_IDS
    assert [(s["index"], s["field"]) for s in ds.load_report["skipped_records"]] == [
        (1, field)]
    assert "b" not in set(ds.assets["name"])


def test_a_prowler_csv_with_only_its_header_loads_as_an_empty_dataset(tmp_path: Path) -> None:
    ds = load_path(_csv(tmp_path, []))
    assert (len(ds.assets), len(ds.findings), ds.load_report["records"]) == (0, 0, 0)


@pytest.mark.parametrize("value", ["", "{'a': 1}", "[1, 2]", "9" * 40, "é\u202e", "=cmd()"])
def test_odd_values_in_every_prowler_csv_column_never_raise_a_traceback(
        tmp_path: Path, value: str) -> None:
    rows = []
    for column in COLUMNS:
        cells = ROWS[0].split(";")
        cells[COLUMNS.index(column)] = value
        rows.append(";".join(cells))
    report = load_path(_csv(tmp_path, rows)).load_report
    assert report["records"] == len(rows)
    assert report["records"] == (report["skipped"] + report["duplicates_merged"]
                                 + report["findings"] + report["passed_checks"]
                                 + report["manual_checks"])


def test_extra_cells_in_a_prowler_csv_row_are_ignored(tmp_path: Path) -> None:
    ds = load_path(_csv(tmp_path, [ROWS[0] + ";stray;cells", ROWS[1]]))
    assert ds.load_report["skipped"] == 0
    assert ds.findings["resource_id"].tolist() == [SG]
    assert set(ds.assets["id"]) >= {SG, "arn:aws:s3:::logs"}


def test_cells_with_quoted_semicolons_and_newlines_keep_their_text(tmp_path: Path) -> None:
    cols = ROWS[0].split(";")
    cols[COLUMNS.index("STATUS_EXTENDED")] = '"port 22; open\nto 0.0.0.0/0"'
    ds = load_path(_csv(tmp_path, [";".join(cols)]))
    assert ds.findings["evidence"].tolist() == ["port 22; open\nto 0.0.0.0/0"]


def test_an_unterminated_quote_loads_what_the_csv_module_reads(tmp_path: Path) -> None:
    cols = ROWS[1].split(";")
    cols[COLUMNS.index("STATUS_EXTENDED")] = '"never closed'
    ds = load_path(_csv(tmp_path, [ROWS[0], ";".join(cols)]))
    assert ds.findings["resource_id"].tolist() == [SG]  # the first row is intact
    assert ds.load_report["records"] == 2
