"""The paging envelope says which dataset version a page was computed from, and list tools
keyed by ids answer a caller holding an older result with only the rows that changed."""

from __future__ import annotations

import asyncio
import random

import pandas as pd
import pytest

from cloudg_nb import CloudGMCPLayer
from cloudg_nb.notebook.live import apply_delta


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


# -- changed rows since a result (the request's cloudg/changed_since) ------------------------


async def _full(layer: CloudGMCPLayer, tool: str, args: dict) -> tuple[pd.DataFrame, dict]:
    rows, first, cursor = [], None, None
    while True:
        result = await layer.call_tool(tool, {**args, "limit": 500,
                                              **({"cursor": cursor} if cursor else {})})
        assert not result.is_error, result.text
        first = first or result.structured
        rows += result.structured["items"]
        cursor = result.structured["next_cursor"]
        if not cursor:
            return pd.DataFrame.from_records(rows), first


async def _changes(layer: CloudGMCPLayer, tool: str, args: dict, base: str) -> dict:
    ctx = layer.context(meta={"request": {"cloudg/changed_since": base}})
    result = await layer.call_tool(tool, {**args, "limit": 500}, context=ctx)
    assert not result.is_error, result.text
    return result.structured


def _values(frame: pd.DataFrame) -> list[dict]:
    """Rows in order, nulls as None (a column's dtype may differ with the rows it holds)."""
    return [{k: (None if v is None or (isinstance(v, float) and v != v) else v)
             for k, v in row.items()} for row in frame.to_dict("records")]


QUERIES = [
    ("find_assets", {}),
    ("find_assets", {"sort_by": "risk", "has_findings": True}),
    ("list_findings", {}),
    ("list_findings", {"severities": ["HIGH", "CRITICAL"], "sort_by": "risk"}),
    ("list_findings", {"include_suppressed": True}),
]


@pytest.mark.parametrize("policy", ["standard", "strict"])
@pytest.mark.parametrize(("tool", "args"), QUERIES)
def test_changed_rows_applied_to_the_old_result_equal_a_fresh_read(
    policy: str, tool: str, args: dict,
) -> None:
    async def scenario() -> None:
        layer = CloudGMCPLayer(policy=policy)
        assert not (await layer.call_tool("sample_estate", {"name": "demo"})).is_error
        ids = (await _full(layer, "list_findings", {"include_suppressed": True}))[0]["id"]
        rng = random.Random(7)
        held, first = await _full(layer, tool, args)
        for _ in range(8):
            chosen = rng.sample(list(ids), rng.randint(1, 3))
            verb = rng.choice(["suppress_findings", "unsuppress_findings"])
            await layer.call_tool(verb, {"ids": chosen})
            answer = await _changes(layer, tool, args, first["delta_base"])
            assert "delta" in answer
            assert answer["returned"] <= len(chosen) * 4
            fresh, first = await _full(layer, tool, args)
            applied = apply_delta(held, answer["delta"], answer["items"], answer["total"])
            assert applied is not None
            assert _values(applied) == _values(fresh)
            held = fresh

    asyncio.run(scenario())


def test_a_base_from_another_dataset_state_gets_an_ordinary_first_page() -> None:
    async def scenario() -> tuple[dict, dict]:
        layer = CloudGMCPLayer()
        await layer.call_tool("sample_estate", {"name": "demo"})
        _, first = await _full(layer, "list_findings", {})
        await layer.call_tool("sample_estate", {"name": "demo"})  # a reload: a new epoch
        other = await _changes(layer, "list_findings", {}, first["delta_base"])
        made_up = await _changes(layer, "list_findings", {}, "e1v1")
        return other, made_up

    other, made_up = asyncio.run(scenario())
    for answer in (other, made_up):
        assert "delta" not in answer
        assert answer["offset"] == 0 and answer["returned"] == answer["total"]


def test_tools_without_row_keys_ignore_the_request() -> None:
    async def scenario() -> dict:
        layer = CloudGMCPLayer()
        await layer.call_tool("sample_estate", {"name": "demo"})
        ctx = layer.context(meta={"request": {"cloudg/changed_since": "e1v1"}})
        return (await layer.call_tool("list_accounts", {}, context=ctx)).structured

    answer = asyncio.run(scenario())
    assert "delta" not in answer and "delta_base" not in answer


def test_the_pages_of_one_query_share_one_computation_until_the_data_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from cloudg_nb import estate

    calls: list[int] = []
    original = estate.find_assets

    def counting(*args: object, **kwargs: object) -> pd.DataFrame:
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(estate, "find_assets", counting)

    async def scenario() -> list[str]:
        layer = CloudGMCPLayer()
        await layer.call_tool("sample_estate", {"name": "demo"})
        ids, cursor = [], None
        while True:
            result = await layer.call_tool("find_assets", {"limit": 20, **(
                {"cursor": cursor} if cursor else {})})
            ids += [item["id"] for item in result.structured["items"]]
            cursor = result.structured["next_cursor"]
            if not cursor:
                break
        assert len(calls) == 1
        await layer.call_tool("suppress_findings", {"ids": ["f-001"]})
        await layer.call_tool("find_assets", {"limit": 20})
        assert len(calls) == 2
        return ids

    ids = asyncio.run(scenario())
    assert len(ids) == len(set(ids)) == 60


# -- small pages of cached queries on the loop (inline_when_cached) -------------------------

_SMALL_PAGES = {
    "find_assets": {"limit": 20},
    "list_findings": {"limit": 20},
    "neighbors": {"ref": "web-alb", "depth": 1, "limit": 20},
}


def _count_worker_runs(layer) -> list[str]:
    runs: list[str] = []
    run = layer.workers.run

    async def counted(lane, owner, fn, *args, **kwargs):
        runs.append(getattr(fn, "__name__", "?"))
        return await run(lane, owner, fn, *args, **kwargs)

    layer.workers.run = counted
    return runs


@pytest.mark.parametrize("tool", list(_SMALL_PAGES))
async def test_a_repeated_small_page_answers_on_the_loop_with_the_same_result(
        layer, tool: str) -> None:
    first = await layer.call_tool(tool, _SMALL_PAGES[tool])
    runs = _count_worker_runs(layer)
    again = await layer.call_tool(tool, _SMALL_PAGES[tool])
    assert runs == []
    assert again.structured == first.structured and again.text == first.text


@pytest.mark.parametrize(("tool", "arguments"), [
    ("neighbors", {"ref": "web-alb", "depth": 2, "limit": 20}),
    ("find_assets", {"limit": 200}),
])
async def test_deeper_walks_and_large_pages_run_in_a_worker(layer, tool, arguments) -> None:
    await layer.call_tool(tool, arguments)
    runs = _count_worker_runs(layer)
    await layer.call_tool(tool, arguments)
    assert runs == [tool]


async def test_a_page_after_a_change_is_computed_again_and_shows_it(layer) -> None:
    first = await layer.call_tool("list_findings", {"limit": 20})
    worst = first.structured["items"][0]["id"]
    await layer.call_tool("suppress_findings", {"ids": [worst], "reason": "accepted"})
    runs = _count_worker_runs(layer)
    after = await layer.call_tool("list_findings", {"limit": 20})
    assert runs == ["list_findings"]
    assert worst not in [row["id"] for row in after.structured["items"]]


async def test_a_page_answered_on_the_loop_reports_its_progress_before_the_result(
        layer) -> None:
    arguments = _SMALL_PAGES["neighbors"]
    await layer.call_tool("neighbors", arguments)
    seen: list[float] = []
    ctx = layer.context(progress_callback=lambda p, t, m: seen.append(p))
    runs = _count_worker_runs(layer)
    result = await layer.call_tool("neighbors", arguments, context=ctx)
    delivered = list(seen)
    await asyncio.sleep(0.05)
    assert runs == [] and not result.is_error
    assert delivered[0] == 0 and delivered[-1] == 100 and seen == delivered
