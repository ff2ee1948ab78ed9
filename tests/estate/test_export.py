"""Subgraph export in d3, cytoscape and GraphML."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from cloudg_nb.estate import subgraph_export


def test_d3_export_has_nodes_and_links_around_the_seed(ds) -> None:
    out = subgraph_export(ds, ["app-role"], depth=1, format="d3")
    ids = {n["id"] for n in out["graph"]["nodes"]}
    assert ids == {"aws-role-app", "aws-ec2-web-1", "aws-ec2-web-2", "aws-policy-app-data",
                   "aws-rds-customers", "aws-s3-customer-pii", "aws-secret-db"}
    assert out["edge_count"] == len(out["graph"]["links"]) == 6


def test_cytoscape_export_wraps_elements(ds) -> None:
    out = subgraph_export(ds, "app-role", format="cytoscape")
    assert {"nodes", "edges"} == set(out["graph"]["elements"])
    assert out["graph"]["elements"]["nodes"][0]["data"]["id"] == "aws-role-app"


def test_graphml_export_is_valid_xml_with_every_node(ds) -> None:
    out = subgraph_export(ds, "web-alb", depth=1, format="graphml")
    root = ET.fromstring(out["graph"])
    ns = "{http://graphml.graphdrawing.org/xmlns}"
    assert len(root.findall(f"{ns}graph/{ns}node")) == out["node_count"]


def test_export_truncates_at_max_nodes(ds) -> None:
    out = subgraph_export(ds, "internet", depth=3, max_nodes=5)
    assert out["node_count"] == 5 and out["truncated"] is True
