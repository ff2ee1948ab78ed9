"""AssetIndex tables built on first use (vectorised) answer as the row-by-row tables did:
candidate order, an ARN held twice ambiguous, text-only keys."""

from __future__ import annotations

import pandas as pd
import pytest

from cloudg_nb.estate import Dataset, ReferenceNotFoundError
from cloudg_nb.estate.refs import AssetIndex


def test_a_tail_shared_by_arns_and_ids_lists_the_arn_rows_first_then_the_id_rows() -> None:
    d = Dataset.from_records(assets=[{"id": "a/t", "name": "n1", "arn": "arn:x/q"},
                                     {"id": "b", "name": "n2", "arn": "arn:y/t"},
                                     {"id": "c/t", "name": "n3", "arn": "arn:z/t"}])
    with pytest.raises(ReferenceNotFoundError) as err:
        d.resolve("t")
    assert err.value.data["candidates"] == ["b", "c/t", "a/t"]


def test_an_arn_two_assets_hold_is_ambiguous_and_names_them_not_the_resource_id() -> None:
    # (scans of two accounts or providers give one ARN to two assets: neither is guessed)
    d = Dataset.from_records(assets=[
        {"id": "one", "name": "n1", "metadata": {"resource_id": "arn:shared"}},
        {"id": "two", "name": "n2", "arn": "arn:shared"},
        {"id": "three", "name": "n3", "arn": "arn:shared"}])
    with pytest.raises(ReferenceNotFoundError) as err:
        d.resolve("arn:shared")
    assert err.value.data["candidates"] == ["two", "three"]


def test_an_arn_one_asset_holds_resolves_before_a_resource_id() -> None:
    d = Dataset.from_records(assets=[
        {"id": "one", "name": "n1", "metadata": {"resource_id": "arn:mine"}},
        {"id": "two", "name": "n2", "arn": "arn:mine"}])
    assert d.resolve("arn:mine") == 1


def test_names_and_arns_that_are_not_text_are_not_keys() -> None:
    index = AssetIndex(pd.DataFrame({"id": ["p", "q/1"], "arn": [float("nan"), None],
                                     "name": [None, 5], "metadata": [None, {"resource_id": 7}]}))
    assert index.lookup("5") == (None, [])
    assert index.lookup("nan") == (None, [])
    assert index.lookup("1") == (1, [])


def test_completion_lists_names_in_order_of_first_appearance() -> None:
    d = Dataset.from_records(assets=[{"id": "i3", "name": "web-b"}, {"id": "i1", "name": "web-a"},
                                     {"id": "i2", "name": "web-b"}])
    assert d.complete_refs("web")[:2] == ["web-b", "web-a"]


def test_a_reference_with_a_slash_still_resolves_by_case_insensitive_name() -> None:
    d = Dataset.from_records(assets=[{"id": "i1", "name": "Team/Web"},
                                     {"id": "x/team", "name": "other"}])
    assert d.resolve("team/web") == 0
    assert d.resolve("team") == 1  # (the text after the id's last '/')


def test_arn_rows_for_a_few_refs_answer_as_the_full_table_does() -> None:
    """The join of findings to assets looks up only the refs its id join missed (one pass,
    no full table): first-wins ARNs, then resource ids, text only, before and after the
    full table is built."""
    frame = pd.DataFrame({
        "id": ["a", "b", "c", "d", "e"],
        "name": ["n"] * 5,
        "arn": ["arn:1", "arn:2", "arn:1", None, float("nan")],
        "metadata": [None, {"resource_id": "arn:1"}, {"resource_id": "rid-c"},
                     {"resource_id": "rid-d"}, {"resource_id": "rid-d"}]})
    refs = ["arn:1", "arn:2", "rid-c", "rid-d", "nope", "", None, 5]
    fresh = AssetIndex(frame)
    few = fresh.rows_of_arns(refs)
    assert few == {"arn:1": 0, "arn:2": 1, "rid-c": 2, "rid-d": 3}
    assert fresh._row_of_arn is None  # the full table was not built for them
    full = AssetIndex(frame)
    assert few == {r: full.row_of_arn[r] for r in refs if isinstance(r, str) and r in
                   full.row_of_arn}
    assert full.rows_of_arns(refs) == few


def test_many_arn_refs_answer_as_the_full_table_does() -> None:
    """Past a few refs held, the lookup takes one pass instead of one scan each: still the
    first row of each ARN, resource ids for the rest, whatever else the cells hold."""
    n = 300
    frame = pd.DataFrame({
        "id": [f"i{k}" for k in range(n)], "name": ["n"] * n,
        "arn": [f"arn:{k % 120}" if k % 7 else [k] for k in range(n)],  # repeats, a list
        "metadata": [{"resource_id": f"rid-{k % 90}"} if k % 5 == 0 else None
                     for k in range(n)]})
    refs = [f"arn:{k}" for k in range(130)] + [f"rid-{k}" for k in range(100)] + [None, ""]
    few = AssetIndex(frame).rows_of_arns(refs)
    full = AssetIndex(frame).row_of_arn
    assert len(few) > 100  # (well past the few located one by one)
    assert few == {r: full[r] for r in refs if isinstance(r, str) and r in full}


def test_findings_join_their_assets_by_id_whatever_the_cells_hold() -> None:
    """The id join (an Arrow lookup for text) gives the asset row per finding, -1 for a
    resource outside the inventory or no resource; cells that are not text take pandas'
    lookup and join the same way."""
    import numpy as np

    from cloudg_nb.estate.dataset import _rows_of_ids

    ids = np.array(["a1", "a2", "a3"], dtype=object)
    text = pd.Series(["a3", "zz", None, "a1", "a3"], dtype="str")
    assert _rows_of_ids(ids, text.to_numpy(dtype=object)).tolist() == [2, -1, -1, 0, 2]
    mixed = pd.Series(["a2", 7, None, float("nan")], dtype=object)
    assert _rows_of_ids(ids, mixed.to_numpy(dtype=object)).tolist() == [1, -1, -1, -1]
    empty = pd.Series([], dtype=object)
    assert _rows_of_ids(ids, empty.to_numpy(dtype=object)).tolist() == []
    none = np.array([None, float("nan"), None], dtype=object)
    assert _rows_of_ids(ids, none).tolist() == [-1, -1, -1]
    # an id listed twice joins its first row
    twice = np.array(["a1", "a2", "a1"], dtype=object)
    assert _rows_of_ids(twice, np.array(["a1", "a2"], dtype=object)).tolist() == [0, 1]
