"""Domain vocabulary: enums (parsing, close matches), risk scores, dependency directions."""

from __future__ import annotations

import pytest

from cloudg_nb.estate import (
    AssetType,
    DependencyDirection,
    EdgeType,
    Finding,
    Severity,
    explain_asset_type,
    explain_edge_type,
    parse_enum,
    parse_enum_list,
)
from cloudg_nb.estate.models import risk_score
from cloudg_nb.layer.errors import InvalidArgumentsError


def test_enum_parsing_is_case_insensitive_and_reads_dashes_and_spaces_as_underscores() -> None:
    assert parse_enum(AssetType, "s3-bucket") is AssetType.S3_BUCKET
    assert parse_enum(EdgeType, "load balancer target") is EdgeType.LOAD_BALANCER_TARGET
    assert parse_enum(Severity, "critical") is Severity.CRITICAL


def test_unknown_enum_value_lists_close_matches_without_echoing_the_value() -> None:
    with pytest.raises(InvalidArgumentsError) as err:
        parse_enum(AssetType, "S3_BUKET-xyz", field="asset_types")
    assert "S3_BUCKET" in err.value.data["close_matches"]
    assert err.value.data["field"] == "asset_types"
    assert "BUKET" not in err.value.message


def test_enum_list_accepts_a_comma_separated_string() -> None:
    assert parse_enum_list(Severity, "high, low") == [Severity.HIGH, Severity.LOW]
    assert parse_enum_list(Severity, None) is None


def test_severity_risk_scores_follow_the_reference() -> None:
    assert [s.risk for s in Severity.ordered()] == [9.5, 7.5, 5.0, 2.5, 0.5, 0.5]


def test_risk_score_is_averaged_with_cvss_when_present() -> None:
    assert risk_score("HIGH", None) == 7.5
    assert risk_score("CRITICAL", 10.0) == 9.75
    f = Finding(id="x", resource_id="r", severity=Severity.LOW, title="t", cvss_score=4.5)
    assert f.risk_score == 3.5


@pytest.mark.parametrize(("edge_type", "direction"), [
    (EdgeType.REFERENCES, DependencyDirection.FORWARD),
    (EdgeType.IAM_TRUST, DependencyDirection.FORWARD),
    (EdgeType.CONTAINS, DependencyDirection.REVERSE),
    (EdgeType.PROTECTS, DependencyDirection.REVERSE),
    (EdgeType.SECURITY_GROUP_RULE, DependencyDirection.NONE),
    (EdgeType.INTERNET_EXPOSED, DependencyDirection.NONE),
])
def test_edge_types_carry_their_dependency_direction(edge_type, direction) -> None:
    assert edge_type.dependency is direction


def test_explain_describes_types_and_flags_data_stores() -> None:
    assert explain_asset_type("rds_instance")["data_store"] is True
    assert explain_asset_type("EC2")["category"] == "compute"
    info = explain_edge_type("contains")
    assert info["dependency"] == "reverse" and info["family"] == "structure"
