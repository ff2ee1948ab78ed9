"""Dataset: frames, cached indexes, version bumps on mutation, suppression, references."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cloudg_nb.estate import Dataset, ReferenceNotFoundError
from cloudg_nb.estate.samples import sample


def test_indexes_are_cached_per_version(ds) -> None:
    assert ds.graph() is ds.graph()
    before = ds.graph()
    ds.update(edges=ds.edges.iloc[:-1])
    assert ds.graph() is not before


def test_every_mutation_bumps_the_version(ds) -> None:
    v = ds.version
    ds.suppress_findings(["f-001"])
    ds.unsuppress_findings(["f-001"])
    ds.update(compliance=ds.compliance.iloc[:3])
    assert ds.version == v + 3


def test_suppressing_an_already_suppressed_finding_changes_nothing(ds) -> None:
    v = ds.version
    result = ds.suppress_findings(["f-010"])
    assert result["already"] == ["f-010"] and result["suppressed"] == []
    assert ds.version == v


def test_suppress_reports_unknown_ids_and_records_the_reason(ds) -> None:
    result = ds.suppress_findings(["f-003", "nope"], reason="risk accepted")
    assert result["suppressed"] == ["f-003"] and result["unknown"] == ["nope"]
    row = ds.finding_row("f-003")
    assert ds.findings["suppression_reason"].iat[row] == "risk accepted"


def test_suppress_with_only_unknown_ids_is_not_found(ds) -> None:
    with pytest.raises(ReferenceNotFoundError):
        ds.suppress_findings(["f-999"])


def test_mutation_listeners_are_called_and_can_unsubscribe(ds) -> None:
    seen: list[int] = []
    unsub = ds.on_change(lambda d: seen.append(d.version))
    ds.suppress_findings(["f-001"])
    unsub()
    ds.unsuppress_findings(["f-001"])
    assert seen == [2]


def test_copy_is_deep_and_starts_at_version_one(ds) -> None:
    ds.suppress_findings(["f-001"])
    c = ds.copy("copy")
    row = ds.resolve("web-1")
    c.assets["tags"].iat[row]["new"] = "x"
    assert "new" not in ds.assets["tags"].iat[row]
    assert c.version == 1 and c.name == "copy"


def test_from_records_normalises_loose_values() -> None:
    d = Dataset.from_records(
        assets=[{"id": "a", "asset_type": "ec2", "provider": "aws", "tags": '{"env": "x"}'},
                {"id": "b", "asset_type": "mainframe", "provider": "AWS"}],
        findings=[{"id": "f", "resource_id": "a", "severity": "informational"}])
    assert d.assets["asset_type"].tolist() == ["EC2", "OTHER"]
    assert d.assets["metadata"].iat[1]["original_type"] == "mainframe"
    assert d.assets["tags"].iat[0] == {"env": "x"}
    assert d.findings["severity"].iat[0] == "INFO"


def test_briefs_carry_open_findings_and_max_severity(ds) -> None:
    brief = ds.briefs([ds.resolve("web-1")]).iloc[0]
    assert brief["open_findings"] == 1 and brief["max_severity"] == "CRITICAL"
    assert brief["uri"] == "cloudg://assets/aws-ec2-web-1"


def test_summary_counts_open_suppressed_and_orphan_findings(ds) -> None:
    s = ds.summary()
    assert (s["findings"], s["open_findings"], s["suppressed_findings"],
            s["orphan_findings"]) == (15, 14, 1, 1)


# -- caches across a change of suppression flags ---------------------------------------------


def _fresh(ds: Dataset) -> Dataset:
    """The same frames in a new Dataset (every cache built from scratch)."""
    return Dataset(ds.assets, ds.edges, ds.findings, ds.compliance, normalize=False)


def test_a_suppression_keeps_the_asset_and_graph_indexes_it_does_not_change() -> None:
    ds = sample("scaled", n=300)
    index, graph, names = ds.index, ds.graph(), ds.brief_columns()
    ds.suppress_findings([ds.findings["id"].iloc[0]])
    assert ds.index is index and ds.graph() is graph and ds.brief_columns() is names


def test_after_suppressions_the_finding_aggregates_match_a_fresh_build() -> None:
    ds = sample("scaled", n=300)
    ds.finding_index()
    ids = ds.findings["id"].tolist()
    ds.suppress_findings(ids[:40:3])
    ds.unsuppress_findings(ids[:20:3])
    kept, fresh = ds.finding_index(), _fresh(ds).finding_index()
    for name in ("open_count", "max_rank", "max_risk", "asset_row", "severity_rank"):
        assert np.array_equal(getattr(kept, name), getattr(fresh, name)), name


@pytest.mark.parametrize("sort_by", ["name", "open_findings", "max_severity", "risk", "id"])
def test_find_assets_after_a_suppression_equals_a_fresh_dataset(sort_by: str) -> None:
    from cloudg_nb.estate.inventory import find_assets

    ds = sample("scaled", n=300)
    find_assets(ds, sort_by=sort_by)
    worst = ds.findings.sort_values("risk_score", ascending=False)["id"].tolist()[:25]
    ds.suppress_findings(worst)
    pd.testing.assert_frame_equal(find_assets(ds, sort_by=sort_by),
                                  find_assets(_fresh(ds), sort_by=sort_by))
    pd.testing.assert_frame_equal(find_assets(ds, sort_by=sort_by, has_findings=True),
                                  find_assets(_fresh(ds), sort_by=sort_by, has_findings=True))
