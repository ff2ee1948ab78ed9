"""Tool-level paging: cursor format, staleness, limits, the envelope."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from cloudg_nb.estate import decode_cursor, encode_cursor, find_assets, paginate
from cloudg_nb.layer.errors import InvalidArgumentsError

ARGS = {"provider": "AWS", "limit": 10}


def test_cursor_has_the_reference_format() -> None:
    assert re.fullmatch(r"c20\.[0-9a-f]{12}", encode_cursor(20, dataset="d", version=1,
                                                             args=ARGS))


def test_cursor_ignores_limit_but_not_filters() -> None:
    c = encode_cursor(5, dataset="d", version=1, args=ARGS)
    assert decode_cursor(c, dataset="d", version=1, args={**ARGS, "limit": 99}) == 5
    with pytest.raises(InvalidArgumentsError) as err:
        decode_cursor(c, dataset="d", version=1, args={**ARGS, "provider": "GCP"})
    assert err.value.data["reason"] == "stale"


def test_cursor_goes_stale_when_the_dataset_version_changes() -> None:
    c = encode_cursor(5, dataset="d", version=1, args=ARGS)
    with pytest.raises(InvalidArgumentsError) as err:
        decode_cursor(c, dataset="d", version=2, args=ARGS)
    assert err.value.code == -32602


def test_malformed_cursor_is_invalid_arguments() -> None:
    with pytest.raises(InvalidArgumentsError) as err:
        decode_cursor("page-2", dataset="d", version=1, args=ARGS)
    assert err.value.data["reason"] == "malformed"


def test_pages_walk_through_every_item_once(ds) -> None:
    frame = find_assets(ds)
    args = {"sort_by": "name"}
    seen, cursor = [], None
    while True:
        page = paginate(frame, dataset="demo", version=ds.version, args=args, limit=25,
                        cursor=cursor)
        seen += [i["id"] for i in page["items"]]
        assert page["returned"] == len(page["items"]) and page["total"] == 60
        if not page["truncated"]:
            assert page["next_cursor"] is None
            break
        cursor = page["next_cursor"]
    assert seen == frame["id"].tolist()


@pytest.mark.parametrize("limit", [0, 501, "x", 2.5])
def test_limit_must_be_between_1_and_500(limit) -> None:
    with pytest.raises(InvalidArgumentsError):
        paginate([1, 2], dataset="d", version=1, args={}, limit=limit)


def test_page_items_are_json_safe(ds) -> None:
    page = paginate(find_assets(ds), dataset="demo", version=1, args={}, limit=60)
    org = next(i for i in page["items"] if i["name"] == "acme-org")
    assert org["account_id"] is None and org["open_findings"] == 0
    assert type(org["internet_exposed"]) is bool


def test_missing_cells_of_a_page_are_null_and_the_page_is_strict_json() -> None:
    frame = pd.DataFrame({
        "score": [1.5, np.nan, np.inf], "name": ["a", None, np.nan],
        "seen": [pd.Timestamp("2025-06-02T09:00:00Z"), pd.NaT, pd.NaT],
        "count": pd.array([1, None, 3], dtype="Int64"),
    })
    page = paginate(frame, dataset="d", version=1, args={}, limit=10)
    assert page["items"] == [
        {"score": 1.5, "name": "a", "seen": "2025-06-02T09:00:00+00:00", "count": 1},
        {"score": None, "name": None, "seen": None, "count": None},
        {"score": "inf", "name": None, "seen": None, "count": 3},
    ]
    json.dumps(page, allow_nan=False)


def test_list_items_convert_like_frame_rows() -> None:
    page = paginate([{"x": np.float64("nan"), "n": np.int64(2)}], dataset="d", version=1,
                    args={}, limit=10)
    assert page["items"] == [{"x": None, "n": 2}]


def _frame_rows_case():
    from cloudg_nb.estate import demo, frame_records
    from cloudg_nb.estate.paging import FrameRows

    frame = find_assets(demo(), sort_by="name")
    rows = FrameRows(frame, chunk=7, cached_rows=30)  # pages cross chunk borders
    return frame, rows, frame_records


@pytest.mark.parametrize(("start", "stop"), [(0, 20), (5, 9), (6, 8), (25, 45), (55, 80)])
def test_frame_rows_read_the_same_rows_as_the_frame(start: int, stop: int) -> None:
    frame, rows, frame_records = _frame_rows_case()
    rows.rows(0, 3)  # a chunk already converted
    assert rows.rows(start, stop) == frame_records(frame.iloc[start:stop])


def test_frame_rows_hand_out_fresh_rows_each_read() -> None:
    _, rows, _ = _frame_rows_case()
    first = rows.rows(0, 2)
    first[0]["name"] = "changed"
    assert rows.rows(0, 2)[0]["name"] != "changed"


def test_paginate_pages_frame_rows_like_the_frame() -> None:
    frame, rows, _ = _frame_rows_case()
    args = {"sort_by": "name"}
    assert paginate(rows, dataset="d", version=1, args=args, limit=10) == paginate(
        frame, dataset="d", version=1, args=args, limit=10)
