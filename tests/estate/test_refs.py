"""Reference resolution order, ambiguity and close matches."""

from __future__ import annotations

import pytest

from cloudg_nb.estate import Dataset, ReferenceNotFoundError


def _rows(ds, ref: str) -> str:
    return str(ds.assets["id"].iat[ds.resolve(ref)])


def test_reference_resolves_by_id_arn_name_tail_and_case_insensitive_name(ds) -> None:
    assert _rows(ds, "aws-rds-customers") == "aws-rds-customers"
    assert _rows(ds, "arn:aws:rds:us-east-1:111122223333:db:customers-db") == \
        "aws-rds-customers"
    assert _rows(ds, "customers-db") == "aws-rds-customers"
    assert _rows(ds, "i-0web00000000001") == "aws-ec2-web-1"  # text after the last '/'
    assert _rows(ds, "CUSTOMERS-DB") == "aws-rds-customers"


def test_id_wins_over_a_name_that_looks_the_same() -> None:
    d = Dataset.from_records(assets=[{"id": "x", "name": "y"}, {"id": "y", "name": "z"}])
    assert d.resolve("y") == 1


def test_unknown_reference_lists_close_matches(ds) -> None:
    with pytest.raises(ReferenceNotFoundError) as err:
        ds.resolve("customer-db")
    assert err.value.code == -32602
    assert "customers-db" in err.value.data["close_matches"]
    assert "customer-db" not in err.value.message


def test_ambiguous_name_lists_candidate_ids() -> None:
    d = Dataset.from_records(assets=[{"id": "a", "name": "twin"}, {"id": "b", "name": "twin"}])
    with pytest.raises(ReferenceNotFoundError) as err:
        d.resolve("twin")
    assert err.value.data["candidates"] == ["a", "b"]


def test_internet_aliases_resolve_to_the_virtual_node(ds) -> None:
    assert ds.resolve_node("internet") == ds.resolve_node("0.0.0.0/0") == ds.graph().internet


def test_completion_prefers_prefix_then_substring(ds) -> None:
    assert ds.complete_refs("web-")[:4] == ["web-waf", "web-alb", "web-1", "web-2"]
    values = ds.complete_refs("web")
    assert values.index("sg-web") > values.index("web-2")
