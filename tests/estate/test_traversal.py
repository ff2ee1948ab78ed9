"""Graph traversals on the demo estate: neighbours, edges, paths, attack and lateral-movement
paths, blast radius and dependencies, with their known answers."""

from __future__ import annotations

import pytest

from cloudg_nb.estate import (
    ReferenceNotFoundError,
    attack_paths,
    blast_radius,
    dependents,
    depends_on,
    find_paths,
    get_edges,
    lateral_movement_paths,
    neighbors,
    scaled,
)
from cloudg_nb.layer.errors import InvalidArgumentsError


def _names(path: dict) -> list[str]:
    return [n["name"] for n in path["nodes"]]


def test_attack_paths_to_the_pii_database_start_with_lb_web_role_db(ds) -> None:
    result = attack_paths(ds, "customers-db")
    assert _names(result["paths"][0]) == ["Internet", "web-alb", "web-1", "app-role",
                                          "customers-db"]
    assert result["paths"][0]["entry"]["name"] == "web-alb"
    assert result["paths"][0]["target_sensitive"] is True


def test_attack_paths_are_shortest_first_and_simple(ds) -> None:
    paths = attack_paths(ds, "customers-db", max_paths=20)["paths"]
    hops = [p["hops"] for p in paths]
    assert hops == sorted(hops)
    assert all(len(set(_names(p))) == len(p["nodes"]) for p in paths)


def test_attack_paths_without_target_reach_crown_jewels_including_pii(ds) -> None:
    result = attack_paths(ds)
    targets = {p["nodes"][-1]["name"] for p in result["paths"]}
    assert {"customers-db", "customer-pii-exports", "analytics-raw"} <= targets
    assert all(p["nodes"][0]["id"] == "internet" for p in result["paths"])


def test_attack_paths_edges_name_each_hop(ds) -> None:
    path = attack_paths(ds, "customers-db")["paths"][0]
    assert [e["edge_type"] for e in path["edges"]] == [
        "INTERNET_EXPOSED", "LOAD_BALANCER_TARGET", "ASSUMES_ROLE", "GRANTS_ACCESS"]
    assert path["edges"][0]["virtual"] is True and path["edges"][3]["id"] == "e-role-app-db"


def test_blast_radius_of_the_shared_kms_key_lists_its_four_dependents(ds) -> None:
    result = blast_radius(ds, "prod-data-key")
    first = result.items[result.items["depth"] == 1]
    assert set(first["name"]) == {"customers-db", "customer-pii-exports", "db-credentials",
                                  "audit-logs"}
    assert result.summary["by_depth"][1] == 4


def test_blast_radius_is_transitive_and_names_accounts(ds) -> None:
    result = blast_radius(ds, "prod-data-key")
    assert {"app-role", "web-1", "web-alb"} <= set(result.items["name"])
    assert result.summary["accounts_affected"] == ["111122223333"]
    assert result.summary["complete"] is True


def test_blast_radius_depth_limit_marks_the_result_incomplete(ds) -> None:
    result = blast_radius(ds, "prod-data-key", max_depth=1)
    assert result.summary["total"] == 4 and result.summary["complete"] is False


def test_depends_on_and_dependents_are_opposite_directions(ds) -> None:
    needs = depends_on(ds, "customers-db")
    assert {"prod-data-key", "sg-db", "private-b"} <= set(needs.items["name"])
    assert "app-role" in set(dependents(ds, "customers-db").items["name"])


def test_neighbors_depth_one_both_directions(ds) -> None:
    result = neighbors(ds, "web-1")
    assert set(result.items["name"]) == {"web-alb", "sg-web", "app-role", "private-a"}


def test_neighbors_follow_direction_and_edge_types(ds) -> None:
    out = neighbors(ds, "app-role", direction="out", edge_types=["GRANTS_ACCESS"])
    assert set(out.items["name"]) == {"customers-db", "customer-pii-exports", "db-credentials"}
    inc = neighbors(ds, "app-role", direction="in")
    assert set(inc.items["name"]) == {"web-1", "web-2"}


def test_neighbors_depth_is_limited_to_four(ds) -> None:
    with pytest.raises(InvalidArgumentsError):
        neighbors(ds, "web-1", depth=5)


def test_neighbors_of_the_internet_are_the_entry_points(ds) -> None:
    names = set(neighbors(ds, "internet", direction="out").items["name"])
    assert {"web-alb", "bastion-1", "vm-jump-01", "kibana-1"} <= names


def test_get_edges_filters_by_port(ds) -> None:
    assert get_edges(ds, port=22)["id"].tolist() == ["e-rule-ssh-world"]
    assert set(get_edges(ds, port=443)["id"]) >= {"e-rule-alb-https", "e-rule-web-from-alb"}


def test_get_edges_filters_by_asset_direction_and_type(ds) -> None:
    edges = get_edges(ds, ref="app-role", direction="out", edge_types="GRANTS_ACCESS")
    assert set(edges["target_name"]) == {"customers-db", "customer-pii-exports",
                                         "db-credentials"}


def test_find_paths_modes_differ(ds) -> None:
    flow = find_paths(ds, "web-1", "customers-db", mode="flow")
    assert _names(flow["paths"][0]) == ["web-1", "app-role", "customers-db"]
    assert find_paths(ds, "customers-db", "web-1", mode="flow")["count"] == 0
    assert find_paths(ds, "customers-db", "web-1", mode="undirected")["count"] > 0


def test_find_paths_respects_max_depth_and_max_paths(ds) -> None:
    result = find_paths(ds, "internet", "customers-db", max_depth=4, max_paths=2)
    assert result["count"] == 2 and all(p["hops"] <= 4 for p in result["paths"])


def test_unknown_path_endpoint_is_not_found_with_close_matches(ds) -> None:
    with pytest.raises(ReferenceNotFoundError) as err:
        find_paths(ds, "web-1", "customer-db")
    assert err.value.data["field"] == "target"
    assert "customers-db" in err.value.data["close_matches"]


def test_lateral_movement_from_the_external_account_reaches_audit_logs(ds) -> None:
    result = lateral_movement_paths(ds, "partner-audit-co", "audit-logs")
    assert _names(result["paths"][0]) == ["partner-audit-co", "partner-audit-role", "audit-logs"]
    assert [e["edge_type"] for e in result["paths"][0]["edges"]] == ["IAM_TRUST",
                                                                      "GRANTS_ACCESS"]


def test_lateral_movement_uses_identity_edges_only(ds) -> None:
    result = lateral_movement_paths(ds)
    kinds = {e["edge_type"] for p in result["paths"] for e in p["edges"]}
    assert kinds <= {"IAM_TRUST", "IAM_POLICY_ATTACHMENT", "ASSUMES_ROLE", "GRANTS_ACCESS"}
    assert ["web-1", "app-role", "customers-db"] in [_names(p) for p in result["paths"]]


def test_lateral_movement_to_a_target_lists_who_can_reach_it(ds) -> None:
    result = lateral_movement_paths(ds, target="audit-logs")
    assert [_names(p) for p in result["paths"]] == [
        ["partner-audit-role", "audit-logs"],
        ["partner-audit-co", "partner-audit-role", "audit-logs"]]


def test_blast_radius_progress_on_a_large_estate_strictly_increases() -> None:
    big = scaled(50_000)
    seen: list[float] = []
    key = big.assets["id"][big.assets["asset_type"] == "KMS_KEY"].iat[0]
    blast_radius(big, key, progress=lambda p, total, msg: seen.append(p))
    assert len(seen) >= 3 and seen == sorted(set(seen))
    assert seen[-1] == 100
