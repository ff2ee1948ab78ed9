"""drift(base, target, diff): what got worse and what improved, in a security review's terms."""

from __future__ import annotations

import time
from typing import Any

from cloudg_nb.estate import Dataset, demo, diff, drifted, scaled
from cloudg_nb.estate.drift import drift

JEWELS_BEHIND_THE_WAF = ["customers-db", "customer-pii-exports", "db-credentials"]


def report(base: Dataset, target: Dataset) -> dict[str, Any]:
    return drift(base, target, diff(base, target))


def without_edges(ds: Dataset, *ids: str) -> Dataset:
    out = ds.copy("changed")
    edges = out.edges
    out.update(edges=edges[~edges["id"].isin(ids)].reset_index(drop=True), normalize=False)
    return out


def test_the_drifted_estate_lost_the_waf_in_front_of_web_alb() -> None:
    lost = report(demo(), drifted())["worse"]["lost_protections"]
    assert [(p["protector"]["name"], p["protected"]["name"], p["edge_type"], p["how"])
            for p in lost] == [("web-waf", "web-alb", "PROTECTS", "protector removed")]


def test_losing_the_waf_opens_the_attack_paths_behind_web_alb() -> None:
    opened = report(demo(), drifted())["worse"]["attack_paths_opened"]
    assert sorted(p["crown_jewel"]["name"] for p in opened) == sorted(JEWELS_BEHIND_THE_WAF)
    for path in opened:
        assert path["path"][:3] == ["internet", "web-alb", "web-1"]
        assert path["entry"]["name"] == "web-alb"
        assert path["why"] == "web-alb lost its WAF (web-waf)"


def test_the_summary_says_what_got_worse_first_then_what_improved() -> None:
    text = report(demo(), drifted())["summary"]
    worse, improved = text.split(" Improved: ")
    assert worse.startswith("Worse: 1 protection lost (web-waf (WAF) protects web-alb)")
    assert "3 new attack paths to crown jewels" in worse
    assert "web-alb lost its WAF (web-waf)" in worse
    assert improved == "1 finding closed (f-002)."


def test_the_waf_loss_shows_as_weaker_exposure_of_the_same_entry_point() -> None:
    weaker = report(demo(), drifted())["worse"]["exposure_weakened"]
    assert [(w["asset"]["name"], w["changes"]) for w in weaker] == [
        ("web-alb", ["no WAF in front any more (was web-waf)"])]


def test_the_other_way_round_the_waf_is_a_gain_and_its_paths_close() -> None:
    out = report(drifted(), demo())
    assert [p["protector"]["name"] for p in out["better"]["protections_gained"]] == ["web-waf"]
    closed = out["better"]["attack_paths_closed"]
    assert sorted(p["crown_jewel"]["name"] for p in closed) == sorted(JEWELS_BEHIND_THE_WAF)
    assert {p["why"] for p in closed} == {"now reached only through a WAF"}
    assert [f["id"] for f in out["worse"]["findings_opened"]] == ["f-002"]
    assert out["worse"]["lost_protections"] == [] and out["worse"]["attack_paths_opened"] == []


def test_an_estate_compared_with_itself_has_nothing_worse_or_better() -> None:
    out = report(demo(), demo())
    assert out["summary"] == "Nothing got worse. Nothing improved."
    assert set(out["counts"].values()) == {0}


def test_removing_only_the_protects_edge_is_a_protection_removed() -> None:
    lost = report(demo(), without_edges(demo(), "e-waf-alb"))["worse"]["lost_protections"]
    assert [(p["protector"]["name"], p["how"]) for p in lost] == [
        ("web-waf", "protection removed")]


def test_detaching_a_security_group_is_a_lost_filter() -> None:
    lost = report(demo(), without_edges(demo(), "e-rds-sg"))["worse"]["lost_protections"]
    assert [(p["protector"]["name"], p["protected"]["name"], p["edge_type"], p["text"])
            for p in lost] == [("sg-db", "customers-db", "ATTACHED_TO",
                                "sg-db (SECURITY_GROUP) filters customers-db")]


def test_a_protection_of_an_asset_that_is_gone_is_not_reported_lost() -> None:
    base = demo()
    target = base.copy("changed")
    assets = target.assets
    target.update(assets=assets[assets["id"] != "aws-alb-web"].reset_index(drop=True),
                  edges=target.edges[~target.edges["source_id"].eq("aws-alb-web")
                                     & ~target.edges["target_id"].eq("aws-alb-web")]
                  .reset_index(drop=True), normalize=False)
    assert report(base, target)["worse"]["lost_protections"] == []


def test_a_crown_jewel_made_internet_facing_is_newly_exposed_with_a_new_route() -> None:
    base = demo()
    target = base.copy("changed")
    assets = target.assets.copy()
    assets.loc[assets["id"] == "aws-s3-audit-logs", "is_internet_exposed"] = True
    target.update(assets=assets, normalize=False)
    out = report(base, target)
    assert [a["name"] for a in out["worse"]["newly_internet_exposed"]] == ["audit-logs"]
    assert "1 asset newly exposed to the internet (audit-logs)" in out["summary"]


def test_a_raised_severity_is_worse_and_a_lowered_one_better() -> None:
    base = demo()
    target = base.copy("t")
    f = target.findings.copy()
    f.loc[f["id"] == "f-006", "severity"] = "HIGH"
    f.loc[f["id"] == "f-001", "severity"] = "LOW"
    target.update(findings=f)
    out = report(base, target)
    assert [c["id"] for c in out["worse"]["severity_raised"]] == ["f-006"]
    assert [c["id"] for c in out["better"]["severity_lowered"]] == ["f-001"]


def test_a_large_estate_against_its_twin_reports_nothing_and_prints_the_time_taken() -> None:
    base, target = scaled(20_000), scaled(20_000)
    started = time.perf_counter()
    out = report(base, target)
    seconds = time.perf_counter() - started
    print(f"\ndiff + drift of two 20,000-asset estates: {seconds:.2f} s")
    assert out["summary"] == "Nothing got worse. Nothing improved."


def test_an_empty_estate_on_either_side_reports_everything_as_gained_or_lost() -> None:
    empty = Dataset(name="empty")
    grown = report(empty, demo())
    assert grown["counts"]["worse_findings_opened"] == 15
    assert grown["counts"]["worse_attack_paths_opened"] == 4  # the WAF guards the other 3
    assert {p["why"] for p in grown["worse"]["attack_paths_opened"]} == {
        "a new route from the internet"}
    gone = report(demo(), empty)
    assert gone["summary"].startswith("Nothing got worse. Improved: 4 attack paths")
    assert report(empty, Dataset(name="also-empty"))["summary"] == (
        "Nothing got worse. Nothing improved.")
