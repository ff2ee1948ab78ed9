"""Point lookups read cached indexes: ``Dataset.cache_only`` refuses work beyond them
(CacheMiss), and get_asset / get_finding answer the same from cold or warm caches."""

from __future__ import annotations

import pytest

from cloudg_nb.estate import Dataset, demo, get_asset, get_finding
from cloudg_nb.estate.dataset import CacheMiss


def test_cache_only_refuses_a_lookup_whose_indexes_are_not_built() -> None:
    ds = demo()
    with ds.cache_only(), pytest.raises(CacheMiss):
        get_asset(ds, "web-1")


def test_cache_only_answers_once_the_indexes_are_built() -> None:
    ds = demo()
    expected = get_asset(ds, "web-1")
    with ds.cache_only():
        assert get_asset(ds, "web-1") == expected


def test_cache_only_leaves_an_unknown_reference_to_the_full_lookup() -> None:
    ds = demo()
    get_asset(ds, "web-1")
    with ds.cache_only(), pytest.raises(CacheMiss):
        get_asset(ds, "web-9")
    with ds.cache_only(), pytest.raises(CacheMiss):
        get_finding(ds, "f-9999")


def test_get_asset_after_a_suppression_counts_only_open_findings() -> None:
    ds = demo()
    before = get_asset(ds, "web-1")
    open_ids = [f["id"] for f in before["findings"] if not f["is_suppressed"]]
    ds.suppress_findings(open_ids[:1], reason="accepted risk")
    after = get_asset(ds, "web-1")
    assert after["open_findings"] == before["open_findings"] - 1
    assert {f["id"]: f["is_suppressed"] for f in after["findings"]}[open_ids[0]] is True


def test_get_asset_lists_findings_worst_first_and_counts_edges_by_type() -> None:
    ds = demo()
    asset = get_asset(ds, "web-1")
    risks = [f["risk_score"] for f in asset["findings"]]
    assert risks == sorted(risks, reverse=True)
    g = ds.graph()
    row = ds.resolve("web-1")
    assert sum(asset["edges"]["outgoing"].values()) == int((g.edge_src == row).sum())
    assert sum(asset["edges"]["incoming"].values()) == int((g.edge_dst == row).sum())
    assert list(asset["edges"]["outgoing"]) == sorted(asset["edges"]["outgoing"])


def test_get_finding_lists_the_controls_that_name_it() -> None:
    ds: Dataset = demo()
    controls = ds.compliance
    row = next(r for r in controls.to_dict("records") if r["finding_ids"])
    finding_id = row["finding_ids"][0]
    expected = [{"framework": r["framework"], "control_id": r["control_id"],
                 "status": r["status"]}
                for r in controls.to_dict("records") if finding_id in (r["finding_ids"] or [])]
    assert get_finding(ds, finding_id)["controls"] == expected


def test_cache_only_refuses_a_query_not_cached_and_answers_a_cached_one() -> None:
    ds = demo()
    with ds.cache_only(), pytest.raises(CacheMiss):
        ds.cached_query("q", lambda: "built")
    assert ds.cached_query("q", lambda: "built") == "built"
    with ds.cache_only():
        assert ds.cached_query("q", lambda: "again") == "built"


def test_cache_only_refuses_a_graph_view_not_built_yet() -> None:
    ds = demo()
    ds.view("out")
    with ds.cache_only():
        assert ds.view("out") is ds.view("out")
        with pytest.raises(CacheMiss):
            ds.view("both")
