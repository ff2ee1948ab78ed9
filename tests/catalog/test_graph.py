"""Graph tools on the demo estate: neighbors, get_edges, find_paths, attack_paths,
lateral_movement_paths, internet_exposure, blast_radius, cross_account_edges, centrality_top,
subgraph_export and graph_stats — the story's known answers."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from .support import error_data, fail, names, ok

PII_DB = "customers-db"
KEY = "prod-data-key"


def _path_names(path: dict) -> list[str]:
    return [n["name"] for n in path["nodes"]]


async def test_attack_paths_to_the_pii_database_go_lb_web_host_app_role(layer) -> None:
    out = await ok(layer, "attack_paths", {"target": PII_DB})
    first = out["paths"][0]
    assert _path_names(first) == ["Internet", "web-alb", "web-1", "app-role", PII_DB]
    assert [(e["id"], e["edge_type"]) for e in first["edges"]] == [
        (None, "INTERNET_EXPOSED"), ("e-alb-web-1", "LOAD_BALANCER_TARGET"),
        ("e-web-1-role", "ASSUMES_ROLE"), ("e-role-app-db", "GRANTS_ACCESS")]
    assert first["entry"]["name"] == "web-alb" and first["target_sensitive"] is True
    assert _path_names(out["paths"][1]) == ["Internet", "web-alb", "web-2", "app-role", PII_DB]


async def test_attack_paths_without_a_target_reach_every_crown_jewel(layer) -> None:
    out = await ok(layer, "attack_paths")
    ends = [(p["nodes"][-1]["name"], p["hops"]) for p in out["paths"]]
    assert ends == [("analytics-raw", 3), ("warehouse-sql", 3), ("kv-prod-secrets", 3),
                    ("analytics-exports", 3), (PII_DB, 4), ("customer-pii-exports", 4),
                    ("db-credentials", 4)]
    assert out["targets_reachable"] == 7 and out["target"] is None


async def test_attack_paths_max_paths_truncates(layer) -> None:
    out = await ok(layer, "attack_paths", {"target": PII_DB, "max_paths": 1})
    assert out["count"] == 1 and out["truncated"] is True


async def test_blast_radius_of_the_shared_kms_key_lists_its_four_dependents(layer) -> None:
    out = await ok(layer, "blast_radius", {"ref": KEY})
    direct = [i for i in out["items"] if i["depth"] == 1]
    assert names(direct) == [PII_DB, "customer-pii-exports", "db-credentials", "audit-logs"]
    assert {i["edge_type"] for i in direct} == {"REFERENCES"}
    assert {i["depends_on_id"] for i in direct} == {"aws-kms-data"}
    assert out["by_depth"] == {"1": 4, "2": 4, "3": 2, "4": 1} and out["total"] == 11
    assert out["accounts_affected"] == ["111122223333"] and out["complete"] is True


async def test_blast_radius_max_depth_stops_at_the_direct_dependents(layer) -> None:
    out = await ok(layer, "blast_radius", {"ref": KEY, "max_depth": 1})
    assert out["total"] == 4 and out["complete"] is False


async def test_blast_radius_pages_its_dependents(layer) -> None:
    first = await ok(layer, "blast_radius", {"ref": KEY, "limit": 4})
    second = await ok(layer, "blast_radius", {"ref": KEY, "limit": 4,
                                              "cursor": first["next_cursor"]})
    assert names(first["items"]) == [PII_DB, "customer-pii-exports", "db-credentials",
                                     "audit-logs"]
    assert second["offset"] == 4 and {i["depth"] for i in second["items"]} == {2}


async def test_neighbors_of_the_app_role(layer) -> None:
    out = await ok(layer, "neighbors", {"ref": "app-role"})
    assert [(i["name"], i["edge_type"], i["edge_direction"]) for i in out["items"]] == [
        ("web-1", "ASSUMES_ROLE", "in"), ("web-2", "ASSUMES_ROLE", "in"),
        ("app-data-access", "IAM_POLICY_ATTACHMENT", "out"),
        (PII_DB, "GRANTS_ACCESS", "out"), ("customer-pii-exports", "GRANTS_ACCESS", "out"),
        ("db-credentials", "GRANTS_ACCESS", "out")]
    assert out["source"]["id"] == "aws-role-app" and out["by_depth"] == {"1": 6}


async def test_neighbors_outgoing_grants_only(layer) -> None:
    out = await ok(layer, "neighbors", {"ref": "app-role", "direction": "OUT",
                                        "edge_types": "grants-access"})
    assert names(out["items"]) == [PII_DB, "customer-pii-exports", "db-credentials"]


async def test_get_edges_on_port_22_finds_the_world_open_ssh_rule(layer) -> None:
    out = await ok(layer, "get_edges", {"port": 22})
    assert [(e["id"], e["source_name"], e["target_name"]) for e in out["items"]] == [
        ("e-rule-ssh-world", "sg-bastion-ssh", "Internet")]
    assert out["items"][0]["ports"] == [22]


async def test_get_edges_leaving_the_load_balancer(layer) -> None:
    out = await ok(layer, "get_edges", {"ref": "web-alb", "direction": "out"})
    assert [(e["target_name"], e["edge_type"]) for e in out["items"]] == [
        ("sg-alb", "ATTACHED_TO"), ("web-1", "LOAD_BALANCER_TARGET"),
        ("web-2", "LOAD_BALANCER_TARGET")]


async def test_find_paths_from_the_load_balancer_to_the_database(layer) -> None:
    out = await ok(layer, "find_paths", {"source": "web-alb", "target": PII_DB})
    assert [_path_names(p) for p in out["paths"]] == [
        ["web-alb", "web-1", "app-role", PII_DB], ["web-alb", "web-2", "app-role", PII_DB]]
    assert out["mode"] == "flow" and out["truncated"] is False


async def test_find_paths_respects_max_depth(layer) -> None:
    out = await ok(layer, "find_paths", {"source": "web-alb", "target": PII_DB,
                                         "max_depth": 2})
    assert out["count"] == 0


async def test_lateral_movement_to_the_audit_logs_starts_at_the_partner(layer) -> None:
    out = await ok(layer, "lateral_movement_paths", {"target": "audit-logs"})
    assert [_path_names(p) for p in out["paths"]] == [
        ["partner-audit-role", "audit-logs"],
        ["partner-audit-co", "partner-audit-role", "audit-logs"]]
    assert {e["edge_type"] for e in out["paths"][1]["edges"]} == {"IAM_TRUST", "GRANTS_ACCESS"}


async def test_lateral_movement_between_two_identities(layer) -> None:
    out = await ok(layer, "lateral_movement_paths", {"source": "partner-audit-co",
                                                     "target": "audit-logs"})
    assert [_path_names(p) for p in out["paths"]] == [
        ["partner-audit-co", "partner-audit-role", "audit-logs"]]


async def test_internet_exposure_lists_ssh_rdp_kibana_and_the_waf_protected_alb(layer) -> None:
    out = await ok(layer, "internet_exposure")
    rows = {i["name"]: i for i in out["items"]}
    assert names(out["items"]) == ["bastion-1", "kibana-1", "vm-jump-01", "web-alb"]
    assert (rows["bastion-1"]["sensitive_ports"], rows["bastion-1"]["via"]) == (
        [22], ["sg-bastion-ssh"])
    assert rows["vm-jump-01"]["sensitive_ports"] == [3389]
    assert rows["kibana-1"]["sensitive_ports"] == [5601]
    assert (rows["web-alb"]["waf_protected"], rows["web-alb"]["protected_by"]) == (
        True, ["web-waf"])
    assert (out["exposed_assets"], out["waf_protected"], out["unprotected"]) == (4, 1, 3)


async def test_internet_exposure_sensitive_only_drops_the_web_load_balancer(layer) -> None:
    out = await ok(layer, "internet_exposure", {"sensitive_only": True})
    assert names(out["items"]) == ["bastion-1", "kibana-1", "vm-jump-01"]


async def test_cross_account_edges_show_the_external_trust(layer) -> None:
    out = await ok(layer, "cross_account_edges")
    assert [(e["id"], e["external"]) for e in out["items"]] == [
        ("e-partner-trust", True), ("e-deploy-trust", False)]
    external = await ok(layer, "cross_account_edges", {"external_only": True})
    assert [(e["source_name"], e["target_name"], e["target_account"])
            for e in external["items"]] == [
        ("partner-audit-role", "partner-audit-co", "999988887777")]


async def test_centrality_top_by_betweenness_puts_the_load_balancer_first(layer) -> None:
    out = await ok(layer, "centrality_top", {"metric": "betweenness", "top": 3})
    assert names(out["items"]) == ["web-alb", "kibana-1", "vm-jump-01"]
    assert out["sampled"] is False


async def test_centrality_top_by_degree(layer) -> None:
    out = await ok(layer, "centrality_top", {"top": 1})
    assert [(i["name"], i["score"]) for i in out["items"]] == [("web-alb", 6.0)]


async def test_subgraph_export_d3_around_a_web_host(layer) -> None:
    out = await ok(layer, "subgraph_export", {"seeds": "web-1"})
    graph = out["graph"]
    assert sorted(n["name"] for n in graph["nodes"]) == [
        "app-role", "private-a", "sg-web", "web-1", "web-alb"]
    assert len(graph["links"]) == out["edge_count"] == 4
    assert out["seeds"] == ["aws-ec2-web-1"]


async def test_subgraph_export_graphml_is_valid_xml(layer) -> None:
    out = await ok(layer, "subgraph_export", {"seeds": ["web-1"], "format": "GraphML"})
    root = ET.fromstring(out["graph"].split("?>", 1)[1])
    ns = "{http://graphml.graphdrawing.org/xmlns}"
    assert len(root.findall(f"{ns}graph/{ns}node")) == 5


async def test_graph_stats_of_the_demo(layer) -> None:
    out = await ok(layer, "graph_stats")
    assert (out["assets"], out["edges"], out["connected_components"]) == (60, 77, 2)
    assert (out["max_degree_asset"], out["internet_entry_points"]) == ("aws-alb-web", 8)
    assert out["edge_types"]["REFERENCES"] == 10


async def test_graph_tools_accept_internet_as_a_node(layer) -> None:
    out = await ok(layer, "find_paths", {"source": "internet", "target": "bastion-1"})
    assert _path_names(out["paths"][0])[0] == "Internet"


async def test_unknown_edge_type_lists_close_matches(layer) -> None:
    result = await fail(layer, "neighbors", {"ref": "app-role", "edge_types": ["ASUMES_ROLE"]})
    assert result.error_code == -32602
    assert error_data(result)["close_matches"][0] == "ASSUMES_ROLE"
