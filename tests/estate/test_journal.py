"""The dataset's change journal: which findings and assets each recent mutation changed."""

from __future__ import annotations

from cloudg_nb.estate import sample


def test_a_suppression_records_the_finding_and_its_asset() -> None:
    ds = sample("demo")
    finding = ds.findings.iloc[0]
    ds.suppress_findings([finding["id"]], reason="accepted")
    findings, assets = ds.changes_since(1) or ((), ())
    assert findings == {finding["id"]}
    assert finding["resource_id"] in assets


def test_changes_accumulate_over_several_versions() -> None:
    ds = sample("demo")
    first, second = ds.findings["id"].iloc[0], ds.findings["id"].iloc[1]
    ds.suppress_findings([first])
    ds.suppress_findings([second])
    ds.unsuppress_findings([first])
    assert ds.version == 4
    assert (ds.changes_since(1) or ((),))[0] == {first, second}
    assert (ds.changes_since(3) or ((),))[0] == {first}
    assert ds.changes_since(4) == (frozenset(), frozenset())


def test_a_whole_frame_update_cannot_be_described_by_ids() -> None:
    ds = sample("demo")
    ds.suppress_findings([ds.findings["id"].iloc[0]])
    ds.update(assets=ds.assets)
    assert ds.changes_since(1) is None
    assert ds.changes_since(2) is None
    assert ds.changes_since(3) == (frozenset(), frozenset())


def test_versions_the_dataset_never_had_are_unknown() -> None:
    ds = sample("demo")
    assert ds.changes_since(0) is None
    assert ds.changes_since(2) is None


def test_a_reloaded_dataset_has_another_epoch() -> None:
    assert sample("demo").epoch != sample("demo").epoch
