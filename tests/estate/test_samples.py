"""Sample estates: the demo tells its story, is deterministic and ships as files; scaled(n)
generates a realistic edge mix."""

from __future__ import annotations

import pytest

from cloudg_nb.estate import DEMO_DATA_DIR, diff, drifted, load_path, sample, scaled
from cloudg_nb.estate.samples import demo
from cloudg_nb.layer.errors import InvalidArgumentsError


def test_demo_spans_three_providers_with_about_sixty_assets(ds) -> None:
    assert len(ds.assets) == 60
    assert set(ds.assets["provider"]) == {"AWS", "AZURE", "GCP"}


def test_demo_has_findings_of_every_severity_from_several_scanners(ds) -> None:
    assert set(ds.findings["severity"]) == {"CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"}
    assert set(ds.findings["source_tool"]) == {"prowler", "trivy", "scoutsuite", "checkov"}


def test_demo_has_exactly_one_suppressed_and_one_orphan_finding(ds) -> None:
    assert ds.findings.loc[ds.findings["is_suppressed"], "id"].tolist() == ["f-010"]
    orphans = ds.findings["id"][ds.finding_index().asset_row < 0].tolist()
    assert orphans == ["f-011"]


def test_demo_is_deterministic() -> None:
    assert demo().assets.equals(demo().assets)
    assert demo().edges["id"].tolist() == demo().edges["id"].tolist()


def test_shipped_demo_files_load_to_the_generated_demo() -> None:
    shipped = load_path(DEMO_DATA_DIR)
    assert diff(demo(), shipped)["summary"] == {k: 0 for k in diff(demo(), demo())["summary"]}
    assert shipped.findings["is_suppressed"].sum() == 1


def test_drifted_lacks_the_waf_and_the_ssh_finding() -> None:
    d = drifted()
    assert "aws-waf-web" not in set(d.assets["id"])
    assert "f-002" not in set(d.findings["id"])


def test_scaled_generates_about_four_edges_per_asset() -> None:
    s = scaled(5_000)
    assert len(s.assets) == 5_000
    assert 3.0 <= len(s.edges) / len(s.assets) <= 5.0
    assert s.assets["is_internet_exposed"].any()


def test_scaled_is_deterministic_for_a_seed() -> None:
    assert scaled(2_000, seed=3).edges["target_id"].tolist() == \
        scaled(2_000, seed=3).edges["target_id"].tolist()


def test_scaled_refuses_sizes_beyond_the_limit() -> None:
    with pytest.raises(InvalidArgumentsError):
        scaled(200_001)


def test_unknown_sample_kind_has_close_matches() -> None:
    with pytest.raises(InvalidArgumentsError) as err:
        sample("dmeo")
    assert err.value.data["close_matches"] == ["demo"]
