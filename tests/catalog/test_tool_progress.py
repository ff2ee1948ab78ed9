"""Progress from the CPU-heavy tools: they are sync handlers (run in worker threads) that
report strictly increasing progress through ``ctx.report_progress_sync`` — start, phases,
end — and all of it arrives before the result."""

from __future__ import annotations

import asyncio
import inspect
from itertools import pairwise

import pytest

from cloudg_nb.catalog import default_registry

from .support import ok

HEAVY = {
    "neighbors": {"ref": "web-alb", "depth": 3},
    "find_paths": {"source": "internet", "target": "customers-db"},
    "attack_paths": {},
    "lateral_movement_paths": {},
    "internet_exposure": {},
    "blast_radius": {"ref": "prod-data-key"},
    "centrality_top": {"metric": "betweenness"},
    "subgraph_export": {"seeds": ["web-1"]},
    "graph_stats": {},
    "top_risks": {},
    "diff_datasets": {"base": "before"},
    "sample_estate": {"name": "scaled", "n": 200, "activate": False},
}


async def _call_with_progress(layer, name: str, arguments: dict
                              ) -> tuple[dict, list[tuple[float, float | None, str | None]]]:
    seen: list[tuple[float, float | None, str | None]] = []
    ctx = layer.context(progress_callback=lambda p, t, m: seen.append((p, t, m)))
    result = await layer.call_tool(name, arguments, context=ctx)
    assert not result.is_error, result.text
    return result.structured, list(seen)


def test_graph_tools_are_sync_handlers_that_run_in_worker_threads() -> None:
    reg = default_registry()
    for name, spec in reg.tools.items():
        if spec.category == "graph" or name in HEAVY:
            assert not inspect.iscoroutinefunction(spec.handler), name


async def test_blast_radius_on_a_50k_estate_reports_increasing_progress_before_its_result(
        empty) -> None:
    await ok(empty, "sample_estate", {"name": "scaled", "n": 50_000})
    keys = await ok(empty, "find_assets", {"asset_types": "KMS_KEY", "limit": 1})
    out, seen = await _call_with_progress(empty, "blast_radius", {"ref": keys["items"][0]["id"]})
    values = [p for p, _, _ in seen]
    assert len(values) >= 3
    assert all(a < b for a, b in pairwise(values))
    assert values[0] == 0 and values[-1] == 100 and {t for _, t, _ in seen} == {100}
    assert out["total"] > 0
    await asyncio.sleep(0.05)
    assert len(seen) == len(values)  # nothing arrived after the result


@pytest.mark.parametrize("name", list(HEAVY))
async def test_heavy_tool_reports_start_and_end_strictly_increasing(layer, name: str) -> None:
    await ok(layer, "snapshot_dataset", {"name": "before"})  # a base for diff_datasets
    _, seen = await _call_with_progress(layer, name, HEAVY[name])
    values = [p for p, _, _ in seen]
    assert values[0] == 0 and values[-1] == 100 and len(values) >= 3
    assert all(a < b for a, b in pairwise(values))
    assert all(m for _, _, m in seen)


async def test_load_dataset_reports_progress(layer, tmp_path) -> None:
    from cloudg_nb.estate import demo, write_inventory_map

    write_inventory_map(demo(), tmp_path / "data" / "acme")
    _, seen = await _call_with_progress(layer, "load_dataset", {"path": "acme"})
    values = [p for p, _, _ in seen]
    assert values[0] == 0 and values[-1] == 100
    assert seen[-1][2] == "loaded 60 assets"
