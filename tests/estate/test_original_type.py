"""original_type (the resource type a source file gave) filters find_assets and groups
count_assets, so assets loaded as OTHER can still be told apart."""

from __future__ import annotations

import json
from pathlib import Path

from cloudg_nb.estate import count_assets, find_assets, load_path


def _scan(tmp_path: Path) -> Path:
    def rec(uid: str, rtype: str) -> dict:
        return {"finding_info": {"uid": f"f-{uid}", "title": uid}, "status_code": "FAIL",
                "severity": "Low", "resources": [{"uid": uid, "name": uid, "type": rtype}],
                "cloud": {"provider": "aws", "account": {"uid": "123456789012"}}}
    path = tmp_path / "scan.ocsf.json"
    path.write_text(json.dumps([rec("a", "AwsAcmCertificate"), rec("b", "AwsAcmCertificate"),
                                rec("c", "AwsGlueJob"), rec("d", "AwsS3Bucket")]))
    return path


def test_find_assets_filters_on_the_original_type_case_insensitively(tmp_path: Path) -> None:
    ds = load_path(_scan(tmp_path))
    found = find_assets(ds, original_type="awsacmcertificate")
    assert sorted(found["name"]) == ["a", "b"]


def test_count_assets_groups_by_original_type(tmp_path: Path) -> None:
    ds = load_path(_scan(tmp_path))
    counts = count_assets(ds, group_by="original_type", asset_types="OTHER")
    assert counts.to_dict("records") == [{"group": "AwsAcmCertificate", "count": 2},
                                         {"group": "AwsGlueJob", "count": 1}]
