"""diff(base, target): what changed between two estates."""

from __future__ import annotations

from cloudg_nb.estate import Dataset, demo, diff, drifted


def test_diff_of_demo_and_drifted_reports_the_removed_waf_and_resolved_ssh_finding() -> None:
    d = diff(demo(), drifted())
    assert [a["name"] for a in d["assets"]["removed"]] == ["web-waf"]
    assert [e["id"] for e in d["edges"]["removed"]] == ["e-waf-alb"]
    assert [f["id"] for f in d["findings"]["resolved"]] == ["f-002"]
    assert d["summary"]["assets_added"] == 0 and d["findings"]["new"] == []


def test_diff_of_identical_estates_is_empty() -> None:
    assert set(diff(demo(), demo())["summary"].values()) == {0}


def _with(ds: Dataset, **changes) -> Dataset:
    assets = ds.assets.copy()
    row = ds.resolve("customers-db")
    for col, value in changes.items():
        assets.at[row, col] = value
    out = ds.copy("changed")
    out.update(assets=assets, normalize=False)
    return out


def test_diff_reports_changed_fields_and_newly_exposed_assets() -> None:
    base = demo()
    target = _with(base, is_internet_exposed=True, region="us-west-2")
    d = diff(base, target)
    changed = d["assets"]["changed"][0]
    assert changed["name"] == "customers-db"
    assert changed["changes"]["region"] == {"from": "us-east-1", "to": "us-west-2"}
    assert [a["name"] for a in d["newly_internet_exposed"]] == ["customers-db"]


def test_diff_reports_severity_changes() -> None:
    base = demo()
    target = base.copy("t")
    f = target.findings.copy()
    f.loc[f["id"] == "f-006", "severity"] = "HIGH"
    target.update(findings=f)
    assert diff(base, target)["findings"]["severity_changed"] == [
        {"id": "f-006", "title": "KMS key rotation disabled", "from": "LOW", "to": "HIGH"}]
