"""Internet exposure (entry points, sensitive ports, WAF) and cross-account edges."""

from __future__ import annotations

from cloudg_nb.estate import cross_account_edges, drifted, internet_exposure


def _by_name(result) -> dict:
    return {r["name"]: r for r in result.items.to_dict("records")}


def test_ssh_open_to_the_world_is_reported_on_the_bastion(ds) -> None:
    row = _by_name(internet_exposure(ds))["bastion-1"]
    assert row["sensitive_ports"] == [22] and row["via"] == ["sg-bastion-ssh"]


def test_exposure_lists_every_entry_point_with_its_ports(ds) -> None:
    rows = _by_name(internet_exposure(ds))
    assert set(rows) == {"bastion-1", "vm-jump-01", "kibana-1", "web-alb"}
    assert rows["web-alb"]["open_ports"] == [80, 443] and rows["web-alb"]["sensitive_ports"] == []
    assert rows["vm-jump-01"]["sensitive_ports"] == [3389]


def test_the_load_balancer_is_waf_protected_until_the_waf_is_removed(ds) -> None:
    assert _by_name(internet_exposure(ds))["web-alb"]["protected_by"] == ["web-waf"]
    assert _by_name(internet_exposure(drifted()))["web-alb"]["waf_protected"] is False


def test_exposure_summary_counts(ds) -> None:
    s = internet_exposure(ds).summary
    assert (s["exposed_assets"], s["with_sensitive_ports"], s["waf_protected"]) == (4, 3, 1)
    assert s["sensitive_ports_checked"][:2] == [22, 3389]


def test_sensitive_only_keeps_entry_points_with_sensitive_ports(ds) -> None:
    names = set(internet_exposure(ds, sensitive_only=True).items["name"])
    assert names == {"bastion-1", "vm-jump-01", "kibana-1"}


def test_cross_account_edges_include_the_external_trust(ds) -> None:
    edges = cross_account_edges(ds)
    assert set(edges["id"]) == {"e-partner-trust", "e-deploy-trust"}
    external = cross_account_edges(ds, external_only=True)
    assert external["id"].tolist() == ["e-partner-trust"]
    assert external["target_account"].tolist() == ["999988887777"]
