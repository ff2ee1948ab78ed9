"""Which assets count as internet-exposed: flagged by the inventory, or derived from a
finding (a derived INTERNET_EXPOSED edge); the finding-only ones are marked."""

from __future__ import annotations

from cloudg_nb.estate import Dataset
from cloudg_nb.estate.exposure_flags import derived_exposure, derived_only, exposed_flags
from cloudg_nb.estate.finding_exposure import DERIVED_RELATIONSHIP


def _edge(target: str, finding: str) -> dict:
    return {"id": f"derived:{finding}", "source_id": "internet", "target_id": target,
            "edge_type": "INTERNET_EXPOSED", "relationship": DERIVED_RELATIONSHIP,
            "properties": {"derived_from_finding": finding}}


def _estate() -> Dataset:
    assets = [{"id": i, "name": i, "asset_type": "EC2", "provider": "AWS",
               "is_internet_exposed": i == "flagged"} for i in ("flagged", "by-finding", "none")]
    edges = [_edge("flagged", "f-1"), _edge("by-finding", "f-2"), _edge("by-finding", "f-3"),
             {"id": "e-real", "source_id": "none", "target_id": "flagged",
              "edge_type": "ATTACHED_TO"}]
    return Dataset.from_records(assets, edges)


def test_an_asset_exposed_by_a_finding_counts_as_exposed() -> None:
    assert exposed_flags(_estate()).tolist() == [True, True, False]


def test_the_findings_of_each_derived_exposure_are_listed_once_per_asset() -> None:
    assert derived_exposure(_estate()) == {0: ["f-1"], 1: ["f-2", "f-3"]}


def test_only_finding_only_exposures_are_marked_derived() -> None:
    assert derived_only(_estate(), [0, 1, 2]) == [None, ["f-2", "f-3"], None]


def test_the_summary_counts_each_exposed_asset_once() -> None:
    summary = _estate().summary()
    assert (summary["internet_exposed_assets"],
            summary["internet_exposed_by_findings_only"]) == (2, 1)


def test_an_estate_without_derived_edges_keeps_the_inventory_flags() -> None:
    ds = Dataset.from_records([{"id": "a", "name": "a", "asset_type": "EC2", "provider": "AWS",
                                "is_internet_exposed": True}])
    assert exposed_flags(ds).tolist() == [True] and "exposure_derived_from" not in ds.briefs()
