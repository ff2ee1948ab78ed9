"""find_assets / count_assets tools take original_type (the source file's resource type)."""

from __future__ import annotations

import json
from pathlib import Path

from .support import ok


def _load_scan(tmp_path: Path) -> str:
    def rec(uid: str, rtype: str) -> dict:
        return {"finding_info": {"uid": f"f-{uid}", "title": uid}, "status_code": "FAIL",
                "severity": "Low", "resources": [{"uid": uid, "name": uid, "type": rtype}],
                "cloud": {"provider": "aws", "account": {"uid": "123456789012"}}}
    path = tmp_path / "data" / "scan.ocsf.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([rec("a", "AwsAcmCertificate"), rec("c", "AwsGlueJob")]))
    return str(path)


async def test_find_assets_tool_filters_on_original_type(empty, tmp_path: Path) -> None:
    await ok(empty, "load_dataset", {"path": _load_scan(tmp_path)})
    out = await ok(empty, "find_assets", {"original_type": ["AwsGlueJob"]})
    assert [a["name"] for a in out["items"]] == ["c"]


async def test_count_assets_tool_groups_by_original_type(empty, tmp_path: Path) -> None:
    await ok(empty, "load_dataset", {"path": _load_scan(tmp_path)})
    out = await ok(empty, "count_assets", {"group_by": "original_type"})
    assert {g["group"]: g["count"] for g in out["groups"]} == {
        "AwsAcmCertificate": 1, "AwsGlueJob": 1, None: 1}
