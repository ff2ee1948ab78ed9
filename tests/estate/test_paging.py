"""Tool-level paging: cursor format, staleness, limits, the envelope."""

from __future__ import annotations

import re

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
