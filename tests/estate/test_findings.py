"""Finding queries: filters, summary, get, top risks."""

from __future__ import annotations

import pytest

from cloudg_nb.estate import (
    ReferenceNotFoundError,
    findings_for_asset,
    findings_summary,
    get_finding,
    list_findings,
    top_risks,
)
from cloudg_nb.layer.errors import InvalidArgumentsError


def test_list_findings_hides_suppressed_unless_asked(ds) -> None:
    assert "f-010" not in set(list_findings(ds)["id"])
    assert "f-010" in set(list_findings(ds, include_suppressed=True)["id"])


def test_list_findings_sorts_most_severe_first(ds) -> None:
    assert list_findings(ds)["id"].tolist()[:3] == ["f-001", "f-012", "f-011"]


def test_list_findings_filters(ds) -> None:
    assert list_findings(ds, severities=["info"])["id"].tolist() == ["f-007", "f-015"]
    assert set(list_findings(ds, source_tool="Trivy")["id"]) == {"f-001", "f-011"}
    assert set(list_findings(ds, framework="cis-azure-2.0")["id"]) == {"f-008", "f-015"}
    assert list_findings(ds, query="ssh")["id"].tolist() == ["f-002"]
    assert list_findings(ds, min_severity="high")["severity"].isin(["CRITICAL", "HIGH"]).all()


def test_findings_of_an_asset_resolve_the_reference(ds) -> None:
    assert findings_for_asset(ds, "customers-db")["id"].tolist() == ["f-005"]
    orphan = list_findings(ds, resource="aws-ecr-legacy-billing")
    assert orphan["id"].tolist() == ["f-011"] and not orphan["in_inventory"].iat[0]


def test_get_finding_includes_asset_and_controls(ds) -> None:
    f = get_finding(ds, "f-002")
    assert f["asset"]["name"] == "sg-bastion-ssh" and f["risk_score"] == 7.5
    assert {(c["framework"], c["control_id"]) for c in f["controls"]} == {
        ("CIS-AWS-2.0", "5.2"), ("PCI-DSS-4.0", "1.3.1")}


def test_get_unknown_finding_has_close_matches(ds) -> None:
    with pytest.raises(ReferenceNotFoundError) as err:
        get_finding(ds, "f-0011")
    assert "f-011" in err.value.data["close_matches"] or "f-001" in \
        err.value.data["close_matches"]


def test_findings_summary_by_severity_and_tool(ds) -> None:
    s = findings_summary(ds)
    assert s["by_severity"] == {"CRITICAL": 2, "HIGH": 4, "MEDIUM": 5, "LOW": 1, "INFO": 2,
                               "UNKNOWN": 0}
    assert (s["total"], s["open"], s["suppressed"], s["not_in_inventory"]) == (15, 14, 1, 1)
    tools = findings_summary(ds, group_by="source_tool")["groups"]
    assert tools[0] == {"key": "prowler", "count": 6}
    with pytest.raises(InvalidArgumentsError):
        findings_summary(ds, group_by="colour")


def test_top_risks_ranks_the_exposed_critical_cve_first(ds) -> None:
    top = top_risks(ds)
    first = top.iloc[0]
    assert first["name"] == "web-1" and first["top_finding_id"] == "f-001"
    assert first["exposure_factor"] == 1.5
    assert first["score"] == pytest.approx(9.75 * 1.5 * first["blast_factor"], rel=1e-3)


def test_top_risks_ignore_suppressed_and_orphan_findings(ds) -> None:
    names = set(top_risks(ds)["name"])
    assert "audit-logs" not in names and len(names) == 13


@pytest.mark.parametrize("sort_by", ["severity", "risk", "detected_at", "id", "source_tool",
                                     "resource"])
def test_every_sort_order_holds_for_filtered_lists_and_after_suppression_changes(
        ds, sort_by: str) -> None:
    """Each order is sorted once per dataset (and kept over a change of suppression flags):
    what a filter keeps comes out exactly as sorting those rows alone would."""
    from cloudg_nb.estate.models import Severity

    by, ascending = {
        "severity": (["rank", "risk_score", "id"], [False, False, True]),
        "risk": (["risk_score", "id"], [False, True]),
        "detected_at": (["detected_at", "id"], [False, True]),
        "resource": (["resource_id", "id"], [True, True]),
    }.get(sort_by, ([sort_by, "id"], [True, True]))
    rank = {s.value: s.rank for s in Severity}

    def expected(**filters: object) -> list[str]:
        rows = list_findings(ds, sort_by="id", **filters).sample(frac=1, random_state=7)
        rows = rows.assign(rank=rows["severity"].map(rank))
        return rows.sort_values(by, ascending=ascending, kind="stable",
                                na_position="last")["id"].tolist()

    for filters in ({}, {"include_suppressed": True}, {"min_severity": "high"}):
        # (the reference sorts the rows shuffled: every order ends with the unique id)
        assert list_findings(ds, sort_by=sort_by, **filters)["id"].tolist() == expected(
            **filters)
    shown = list_findings(ds, sort_by=sort_by)["id"].tolist()
    ds.suppress_findings(shown[:3], reason="accepted")
    assert list_findings(ds, sort_by=sort_by)["id"].tolist() == shown[3:]
    ds.unsuppress_findings(shown[:3])
    assert list_findings(ds, sort_by=sort_by)["id"].tolist() == shown


def test_the_arrow_sort_orders_as_pandas_stable_sort_with_missing_values_last() -> None:
    """The findings order is computed by Arrow: the same positions as pandas' stable sort,
    missing values (None, NaN) last whichever the direction, text by code point, ties kept in
    row order; a column of other things is left to pandas."""
    import numpy as np
    import pandas as pd

    from cloudg_nb.estate.findings import _arrow_order

    keys = pd.DataFrame({
        "rank": [2, 3, 2, 3, 1, 2, 3, 2],
        "risk": [5.0, np.nan, 5.0, 7.5, np.nan, 1.0, 7.5, np.nan],
        "when": ["2026-01-02", None, "2026-01-02", "2026-01-01", None, "é", "Z", "2026-01-02"],
        "id": ["f8", "f2", "f1", "f7", "f5", "f3", "f4", "f6"],
    }).astype({"when": object, "id": object})
    for by, ascending in ((["rank", "risk", "id"], [False, False, True]),
                          (["risk", "when"], [True, False]),
                          (["when", "rank"], [False, True]),
                          (["when"], [True])):
        expected = keys.sort_values(by, ascending=ascending, kind="stable",
                                    na_position="last").index.to_numpy()
        order = _arrow_order(keys, by, ascending)
        assert order is not None and order.tolist() == expected.tolist(), by
    mixed = pd.DataFrame({"x": ["a", 1, None]}, dtype=object)
    assert _arrow_order(mixed, ["x"], [True]) is None


def test_the_asset_fields_of_findings_are_the_cells_of_their_assets() -> None:
    """Each finding shows its asset's name, type, account and provider (missing outside the
    inventory), whatever the asset columns hold: text, text with gaps, nothing at all, or
    values that are not text."""
    import numpy as np
    import pandas as pd

    from cloudg_nb.estate import Dataset
    from cloudg_nb.estate.findings import _frame
    from cloudg_nb.estate.frames import empty_frame

    assets = pd.DataFrame({c: [None] * 3 for c in empty_frame("assets").columns}, dtype=object)
    assets = assets.assign(id=["a1", "a2", "a3"], name=["web", None, "db"],
                           asset_type=[None, None, None], account_id=[1, "x", None],
                           provider=["aws", "aws", "gcp"], metadata=[{}, {}, {}])
    findings = pd.DataFrame({"id": ["f1", "f2", "f3", "f4"],
                             "resource_id": ["a3", "zz", "a1", "a2"],
                             "resource_arn": [None] * 4, "severity": ["HIGH"] * 4,
                             "risk_score": [1.0] * 4, "is_suppressed": [False] * 4,
                             "compliance_frameworks": [[]] * 4})
    frame = _frame(Dataset(assets, pd.DataFrame(), findings, normalize=False))

    def cells(col: str) -> list[object]:
        return [None if v is None or (isinstance(v, float) and np.isnan(v)) else v
                for v in frame[col].tolist()]

    assert cells("resource_name") == ["db", None, "web", None]
    assert cells("resource_type") == [None] * 4
    assert cells("account_id") == [None, None, 1, "x"]
    assert cells("provider") == ["gcp", None, "aws", "aws"]
    assert frame["in_inventory"].tolist() == [True, False, True, True]
