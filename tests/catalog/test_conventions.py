"""The paging envelope says which dataset version a page was computed from."""

from __future__ import annotations

import asyncio

from cloudg_nb import CloudGMCPLayer


async def _versions_around_a_change() -> tuple[int, int, int, int]:
    layer = CloudGMCPLayer()
    assert not (await layer.call_tool("sample_estate", {"name": "demo"})).is_error
    before = await layer.call_tool("list_findings", {"limit": 2})
    first_id = before.structured["items"][0]["id"]
    assert not (await layer.call_tool("suppress_findings", {"ids": [first_id],
                                                            "reason": "test"})).is_error
    after = await layer.call_tool("list_findings", {"limit": 2})
    versions = [line["version"] for line in layer.workspace.status()["loaded"]]
    return (before.structured["dataset_version"], after.structured["dataset_version"],
            versions[0], len(versions))


def test_pages_carry_the_dataset_version_they_were_computed_from() -> None:
    before, after, current, loaded = asyncio.run(_versions_around_a_change())
    assert loaded == 1
    assert after == current
    assert after > before >= 1
