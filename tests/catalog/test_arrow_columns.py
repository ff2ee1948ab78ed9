"""List results as Arrow columns (request ``_meta`` ``cloudg/format: arrow``): the decoded
frame equals every page read as rows under each policy, secrets are redacted in the columns as
in the rows, fields a policy removes are absent, and a policy that cuts lists makes the call
an error the client answers by reading pages."""

from __future__ import annotations

import asyncio
import base64
import threading
import time
from typing import Any

import pandas as pd
import pytest

from cloudg_nb import CloudGMCPLayer
from cloudg_nb.layer.wire import ARROW_FORMAT, COLUMNS_UNAVAILABLE, FORMAT_META, MAX_ROWS_META
from cloudg_nb.notebook.call_result import Result
from cloudg_nb.notebook.client import Client
from cloudg_nb.notebook.inprocess import LocalBackend

SECRET = "AKIAIOSFODNN7EXAMPLE"
VAULT = {"key": "k" * 32}


def layer_with(policy: Any) -> CloudGMCPLayer:
    layer = CloudGMCPLayer(policy=policy)
    assert not asyncio.run(layer.call_tool("sample_estate",
                                           {"name": "scaled", "n": 600})).is_error
    ds = layer.workspace.get()
    assets = ds.assets.copy()
    assets.loc[3, "name"] = f"build-{SECRET}"  # a secret where a name should be
    ds.update(assets=assets)
    return layer


def columns_call(layer: CloudGMCPLayer, tool: str, args: dict[str, Any],
                 **meta: Any) -> Result:
    context = layer.context(meta={"request": {FORMAT_META: ARROW_FORMAT, **meta}})
    result = asyncio.run(layer.call_tool(tool, args, context=context))
    return Result.from_wire(tool, args, result.to_wire())


def every_page(layer: CloudGMCPLayer, tool: str, args: dict[str, Any]) -> pd.DataFrame:
    rows: list[dict[str, Any]] = []
    page_args = {**args, "limit": 500}
    while True:
        page = asyncio.run(layer.call_tool(tool, page_args))
        assert not page.is_error
        rows.extend(page.structured["items"])
        if not page.structured["next_cursor"]:
            return pd.DataFrame.from_records(rows)
        page_args = {**args, "limit": 500, "cursor": page.structured["next_cursor"]}


POLICIES = {"open": "open", "standard": "standard",
            "strict": {"extends": "strict", "vault": VAULT}}


@pytest.mark.parametrize("policy", list(POLICIES))
@pytest.mark.parametrize("tool,args", [("find_assets", {}), ("list_findings", {}),
                                       ("find_assets", {"has_findings": True,
                                                        "sort_by": "risk"}),
                                       ("list_findings", {"min_severity": "HIGH",
                                                          "include_suppressed": True})])
def test_columns_decode_to_the_rows_every_page_gives(policy: str, tool: str,
                                                      args: dict[str, Any]) -> None:
    layer = layer_with(POLICIES[policy])
    result = columns_call(layer, tool, args)
    assert not result.is_error, result.text
    frame = result.columns_frame()
    assert frame is not None
    pd.testing.assert_frame_equal(frame, every_page(layer, tool, args))
    assert result.data["items"] == [] and result.data["returned"] == len(frame)
    encoded = result.data["columns"]["data"]  # the text names the columns, not their bytes
    assert '"data"' not in result.text and encoded[:40] not in result.text


def test_a_secret_in_a_column_is_redacted_as_in_the_rows_and_reported() -> None:
    layer = layer_with("standard")
    result = columns_call(layer, "find_assets", {"query": "build-"})
    payload = base64.b64decode(result.data["columns"]["data"])
    frame = result.columns_frame()
    assert frame is not None and len(frame) == 1
    assert SECRET not in frame.to_json() and SECRET.encode() not in payload
    assert frame.loc[0, "name"] == every_page(layer, "find_assets", {"query": "build-"}).loc[
        0, "name"]
    report = result.meta["cloudg/transforms"]
    assert report.get("masked") or report.get("redacted"), report
    again = columns_call(layer, "find_assets", {"query": "build-"})  # from the memo
    assert again.meta["cloudg/transforms"] == report


def test_under_open_the_secret_stays() -> None:
    frame = columns_call(layer_with("open"), "find_assets", {"query": "build-"}).columns_frame()
    assert frame is not None and SECRET in frame.loc[0, "name"]


def test_fields_a_policy_leaves_out_are_not_in_the_columns() -> None:
    policy = {"extends": "standard", "transform_options": {"project": {"exclude": ["arn"]}}}
    layer = layer_with(policy)
    frame = columns_call(layer, "find_assets", {}).columns_frame()
    assert frame is not None and "arn" not in frame.columns and "id" in frame.columns
    pd.testing.assert_frame_equal(frame, every_page(layer, "find_assets", {}))


def test_max_rows_cuts_the_result_and_says_so() -> None:
    layer = layer_with("standard")
    result = columns_call(layer, "find_assets", {}, **{MAX_ROWS_META: 100})
    frame = result.columns_frame()
    assert frame is not None and len(frame) == 100
    assert result.data["truncated"] and result.data["total"] == 600
    pd.testing.assert_frame_equal(frame, every_page(layer, "find_assets", {}).head(100))


def test_a_policy_that_cuts_lists_refuses_columns_and_the_client_reads_pages() -> None:
    policy = {"extends": "standard", "transform_options": {"project": {"max_list": 20}}}
    layer = layer_with(policy)
    refused = columns_call(layer, "find_assets", {})
    assert refused.is_error and refused.error is not None
    assert refused.error.code == COLUMNS_UNAVAILABLE and "pages" in refused.error.message
    client = Client.open(LocalBackend(policy=policy, sample=None))
    try:
        client.call("sample_estate", name="scaled", n=600, progress=False)
        frame = client.frame("find_assets", limit=500, progress=False)
        backend = client.backend
        assert isinstance(backend, LocalBackend)
        pd.testing.assert_frame_equal(frame, every_page(backend._layer(), "find_assets", {}))
    finally:
        client.close()


def _recorded(client: Client) -> tuple[list[dict[str, Any]], list[int]]:
    """The arguments of every request ``client`` sends, and how often it lists the tools."""
    sent: list[dict[str, Any]] = []
    listed: list[int] = []
    request, tools = client.arequest, client.atools

    async def arequest(tool: str, args: dict[str, Any], **kwargs: Any) -> Any:
        sent.append(dict(args))
        return await request(tool, args, **kwargs)

    async def atools() -> Any:
        listed.append(1)
        return await tools()

    client.arequest = arequest  # type: ignore[method-assign]
    client.atools = atools  # type: ignore[method-assign]
    return sent, listed


def test_a_live_frame_sent_as_columns_never_asks_for_the_tools() -> None:
    """A whole result in one answer needs no page size: the frame's first read is one
    request, with no tool listing before it."""
    client = Client.open(LocalBackend(policy="standard", sample=None))
    try:
        client.call("sample_estate", name="scaled", n=600, progress=False)
        sent, listed = _recorded(client)
        live = client.live("find_assets", progress=False)
        try:
            assert len(live.df) == 600 and live.df["id"].is_unique
            assert listed == [] and sent == [{}]
        finally:
            live.close()
    finally:
        client.close()


def test_a_live_frame_refused_columns_reads_the_largest_pages() -> None:
    """Under a policy that cuts lists the frame reads pages, each of the tool's largest size
    (asked once, when pages are first needed), and holds every page as the policy shows it
    (cut to 20 rows)."""
    policy = {"extends": "standard", "transform_options": {"project": {"max_list": 20}}}
    client = Client.open(LocalBackend(policy=policy, sample=None))
    try:
        client.call("sample_estate", name="scaled", n=600, progress=False)
        spec = next(t for t in client.tools() if t["name"] == "find_assets")
        largest = spec["inputSchema"]["properties"]["limit"]["maximum"]
        assert largest < 600  # (so there are several pages)
        sent, listed = _recorded(client)
        live = client.live("find_assets", progress=False)
        try:
            pages = -(-600 // largest)
            assert len(live.df) == 20 * pages and live.df["id"].is_unique
            assert listed == [1]
            assert sent[0] == {} and all(a["limit"] == largest for a in sent[1:])
            assert len(sent) == 1 + pages
            sent.clear()
            live.refresh()  # a second read: the size is known, every page asks for it
            assert listed == [1] and sent and all(a.get("limit") == largest for a in sent)
        finally:
            live.close()
    finally:
        client.close()


def test_a_value_remembered_under_one_policy_is_not_served_under_another() -> None:
    opened = columns_call(layer_with("open"), "find_assets", {"query": "build-"})
    guarded = columns_call(layer_with("standard"), "find_assets", {"query": "build-"})
    assert SECRET in opened.columns_frame().loc[0, "name"]  # type: ignore[union-attr]
    assert SECRET not in guarded.columns_frame().loc[0, "name"]  # type: ignore[union-attr]


def test_columns_are_encoded_off_the_serving_loop_and_other_calls_flow(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Transforming and encoding a large result's columns takes seconds: it runs in a worker,
    so the serving loop (in Jupyter, the server's own) keeps answering other calls."""
    from cloudg_nb.catalog.frame_columns import FrameColumns

    layer = layer_with("standard")
    encode = FrameColumns.encode
    loop_threads: set[int] = set()
    encode_threads: set[int] = set()

    def slow_encode(self: FrameColumns, transform: Any) -> dict[str, Any]:
        encode_threads.add(threading.get_ident())
        time.sleep(0.6)  # what a cold 500k-row result costs, scaled down
        return encode(self, transform)

    monkeypatch.setattr(FrameColumns, "encode", slow_encode)

    async def run() -> tuple[list[str], float]:
        loop_threads.add(threading.get_ident())
        done: list[str] = []
        lag = 0.0

        async def columns() -> None:
            context = layer.context(meta={"request": {FORMAT_META: ARROW_FORMAT}})
            result = await layer.call_tool("list_findings", {}, context=context)
            assert not result.is_error
            done.append("columns")

        async def quick() -> None:
            await asyncio.sleep(0.1)
            result = await layer.call_tool("list_datasets", {})
            assert not result.is_error, result
            done.append("quick")

        async def ticker() -> None:
            nonlocal lag
            last = time.monotonic()
            while "columns" not in done:
                await asyncio.sleep(0.01)
                now = time.monotonic()
                lag = max(lag, now - last)
                last = now

        await asyncio.gather(columns(), quick(), ticker())
        return done, lag

    done, lag = asyncio.run(run())
    assert done == ["quick", "columns"]
    assert lag < 0.3, f"the loop stalled for {lag:.2f} s"
    assert encode_threads and not encode_threads & loop_threads


def _columns_reports(layer: CloudGMCPLayer) -> tuple[Any, list[tuple[Any, ...]]]:
    reports: list[tuple[Any, ...]] = []

    async def run() -> Any:
        context = layer.context(progress_callback=lambda *r: reports.append(r),
                                meta={"request": {FORMAT_META: ARROW_FORMAT}})
        return await layer.call_tool("list_findings", {}, context=context)

    return asyncio.run(run()), reports


def test_a_slow_columns_call_reports_each_column_it_transforms_before_the_result(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from cloudg_nb.layer import shaping

    monkeypatch.setattr(shaping, "REPORT_AFTER_SECONDS", 0.0)  # as if every column were slow
    layer = layer_with("standard")
    result, reports = _columns_reports(layer)
    assert not result.is_error
    names = result.structured["columns"]["columns"]
    said = [m for _, _, m in reports if m and m.startswith("privacy transforms: column ")]
    assert len(said) == len(names) and all(f"({name}, " in m for name, m in zip(
        names, said, strict=True)), said
    steps = [p for p, _, _ in reports]
    assert steps == sorted(set(steps))  # each report goes further than the last


def test_a_quick_columns_call_reports_nothing_so_no_progress_display_flashes() -> None:
    result, reports = _columns_reports(layer_with("standard"))
    assert not result.is_error and result.structured["columns"]["rows"] > 0
    assert not [m for _, _, m in reports if m and m.startswith("privacy transforms")]


def test_json_cells_decode_as_their_own_values_in_column_order() -> None:
    """Lists and mappings travel as JSON text, each distinct text parsed once on the
    client: every cell is still its own object (changing one row's list leaves the rows
    that had the same list alone), nested values come back whole, nulls stay null, and
    the column keeps its place."""
    from cloudg_nb.catalog.frame_columns import FrameColumns
    from cloudg_nb.notebook.frame_from_columns import decode_columns

    frame = pd.DataFrame({
        "id": ["a", "b", "c", "d"],
        "frameworks": [["CIS", "PCI"], ["CIS", "PCI"], [], None],
        "tags": [{"env": "prod"}, {"env": "prod"}, {"env": "dev"}, {}],
        "owners": [["ann"], ["ann"], ["bob"], []],
        "rules": [[{"port": 22}], [{"port": 22}], [], [{"port": 443, "cidr": ["0.0.0.0/0"]}]],
        "mixed": ["x", 3, ["a"], {"k": "v"}],
        "risk": [1.5, 2.0, 3.0, 4.0]})
    decoded = decode_columns(FrameColumns(frame).encode(None))
    assert list(decoded.columns) == list(frame.columns)
    pd.testing.assert_frame_equal(decoded, frame)
    decoded.loc[0, "frameworks"].append("SOC2")
    decoded.loc[0, "tags"]["env"] = "changed"
    decoded.loc[0, "owners"].append("eve")
    decoded.loc[0, "rules"][0]["port"] = 2222
    assert decoded.loc[1, "frameworks"] == ["CIS", "PCI"]
    assert decoded.loc[1, "tags"] == {"env": "prod"}
    assert decoded.loc[1, "owners"] == ["ann"]
    assert decoded.loc[1, "rules"] == [{"port": 22}]


def test_lists_of_text_keep_every_distinct_list_apart() -> None:
    """Lists of text are told apart by their items: an empty list, a list of one empty
    text and of two, a tuple and the equal list, and items holding any character."""
    from cloudg_nb.catalog.frame_columns import FrameColumns
    from cloudg_nb.notebook.frame_from_columns import decode_columns

    labels = [[], [""], ["", ""], ["a", "b"], ["a", "b"], ["ab"], [], ["b", "a"]]
    odd = [["a\x1fb"], ["a", "b"], ["a", "b"], [], ["\x1f"], ["", ""], ["a\x1fb"], ["x"]]
    frame = pd.DataFrame({"labels": labels, "odd": odd})
    decoded = decode_columns(FrameColumns(frame).encode(None))
    assert decoded["labels"].tolist() == labels
    assert decoded["odd"].tolist() == odd
    tupled = FrameColumns(pd.DataFrame({"labels": [tuple(v) for v in labels]})).encode(None)
    assert decode_columns(tupled)["labels"].tolist() == labels
    # items of a text subclass (numpy's) read as plain text; other items, no list: as JSON
    import numpy as np

    from cloudg_nb.catalog.frame_columns import _distinct

    numpyish = [[np.str_("a")], ["a"], [], [np.str_("b"), "c"]]
    codes, values = _distinct(pd.Series(numpyish, dtype=object))
    assert codes.tolist() == [0, 0, 1, 2] and values == [["a"], [], ["b", "c"]]
    assert all(type(v) is str for value in values for v in value)
    mixed = [["a", 1], ["a"], None, ["a", 1], {"k": "v"}]
    decoded = decode_columns(FrameColumns(pd.DataFrame({"m": mixed})).encode(None))
    assert decoded["m"].tolist() == mixed


def test_decoding_leaves_the_garbage_collector_as_it_found_it() -> None:
    import gc

    from cloudg_nb.catalog.frame_columns import FrameColumns
    from cloudg_nb.notebook.frame_from_columns import decode_columns

    encoded = FrameColumns(pd.DataFrame({"tags": [["a"], ["b"], []] * 100})).encode(None)
    assert gc.isenabled()
    assert len(decode_columns(encoded)) == 300 and gc.isenabled()
    gc.disable()
    try:
        assert len(decode_columns(encoded)) == 300 and not gc.isenabled()
    finally:
        gc.enable()
