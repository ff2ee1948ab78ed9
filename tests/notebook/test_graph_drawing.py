"""What the graph widget sends to the browser, on the demo estate and on a generated one with
a 14,408-asset blast radius: a legend of what is drawn, the findings of each node (web-1's
CRITICAL xz backdoor), arrows in the direction of reach, groups instead of thousands of nodes
(by type or account, within each hop; expandable; never a tall column) and a summary of what
the groups hide. (In a real browser: tests/browser/test_graph_in_browser.py.)"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

import cloudg_nb
from cloudg_nb.notebook.call_result import Result
from cloudg_nb.notebook.client import Client
from cloudg_nb.notebook.graph_drawing import (
    GROUP_ABOVE,
    LAYER_GROUPS_MAX,
    MEMBERS_PER_EXPAND,
    ROWS_MAX,
    draw,
)
from cloudg_nb.notebook.graph_findings import findings_by_asset, severity_rank
from cloudg_nb.notebook.graph_model import GraphModel, model_of
from cloudg_nb.notebook.graph_view import graph_elements, graph_view, is_graph_result
from cloudg_nb.notebook.graph_widget import GraphView

BIG = "scaled-100k"
#: The organisation-wide key of scaled(100_000): 14,408 assets depend on it.
BIG_KEY = "key-82013"
BIG_TOTAL = 14_408


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    opened = cloudg_nb.local()
    loaded = opened.call("sample_estate", name="scaled", n=100_000, dataset_name=BIG,
                         activate=False, replace=True, progress=False)
    assert not loaded.is_error, loaded.text
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def paths(client: Client) -> Result:
    return client.call("attack_paths", target="customers-db", progress=False)


@pytest.fixture(scope="module")
def demo_findings(client: Client) -> Any:
    return client.frame("list_findings", progress=False)


@pytest.fixture(scope="module")
def big_blast(client: Client) -> Result:
    result = client.call("blast_radius", ref=BIG_KEY, dataset=BIG, progress=False)
    assert not result.is_error and result.data["total"] == BIG_TOTAL
    return result


@pytest.fixture(scope="module")
def big_view(client: Client, big_blast: Result) -> GraphView:
    view = graph_view(big_blast, client=client)
    assert isinstance(view, GraphView)
    return view


def named(nodes: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {n["name"]: n for n in nodes}


def label_box(node: dict[str, Any]) -> tuple[float, float, float, float]:
    """The room a node and its label take (12 px text, about 7 px a character, wrapped at
    the label width the front end sets), as (left, top, right, bottom)."""
    size = float(node["size"])
    lines = str(node["label"]).split("\n")
    width = min(170.0, max(len(line) for line in lines) * 7.2)
    rows = sum(max(1, -(-int(len(line) * 7.2) // 170)) for line in lines)
    half = max(size, width) / 2
    return (node["x"] - half, node["y"] - size / 2, node["x"] + half,
            node["y"] + size / 2 + 5 + rows * 14)


def overlapping(nodes: list[dict[str, Any]]) -> list[tuple[str, str]]:
    boxes = [(n["id"], label_box(n)) for n in nodes]
    return [(a, b) for i, (a, p) in enumerate(boxes) for b, q in boxes[i + 1:]
            if p[0] < q[2] and q[0] < p[2] and p[1] < q[3] and q[1] < p[3]]


def tallest_column(nodes: list[dict[str, Any]]) -> int:
    return max(Counter(n["x"] for n in nodes).values())


# -- the demo estate: every asset drawn, with its findings -------------------------------------


def test_web_1s_node_lists_its_critical_xz_backdoor_finding(
        paths: Result, demo_findings: Any) -> None:
    _, nodes, _ = graph_elements(paths, demo_findings)
    web1 = named(nodes)["web-1"]
    assert web1["severity"] == "CRITICAL" and web1["findings_total"] == 1
    finding = web1["findings"][0]
    assert finding["id"] == "f-001" and finding["severity"] == "CRITICAL"
    assert "xz" in finding["title"]


def test_a_nodes_findings_are_its_open_ones_worst_first() -> None:
    findings = [
        {"id": "a", "resource_id": "x", "severity": "LOW", "risk_score": 9},
        {"id": "b", "resource_id": "x", "severity": "HIGH", "risk_score": 1},
        {"id": "c", "resource_id": "x", "severity": "CRITICAL", "is_suppressed": True},
        {"id": "d", "resource_id": "x", "severity": "HIGH", "risk_score": 5},
        {"id": "e", "resource_id": "y", "severity": "INFO"},
    ]
    by_asset = findings_by_asset(findings)
    assert [f["id"] for f in by_asset["x"]] == ["d", "b", "a"]
    assert findings_by_asset(findings, assets={"y"}) == {"y": [by_asset["y"][0]]}
    assert severity_rank("critical") < severity_rank("INFO") < severity_rank(None)


def test_with_a_client_the_graph_fetches_the_findings_itself(
        paths: Result, client: Client) -> None:
    view = graph_view(paths, client=client)
    web1 = named(view.nodes)["web-1"]
    assert web1["severity"] == "CRITICAL" and web1["findings"][0]["id"] == "f-001"
    assert view.findings("aws-ec2-web-1")[0]["title"].startswith("CVE-2024-3094")


def test_the_legend_names_the_fills_rings_edges_and_marks_drawn(
        paths: Result, demo_findings: Any) -> None:
    view = graph_view(paths, demo_findings)
    legend = view.legend
    drawn_categories = {n["category"] for n in view.nodes}
    assert {c["key"] for c in legend["categories"]} == drawn_categories
    severities = {s["key"]: s["assets"] for s in legend["severities"]}
    assert severities["critical"] == sum(n["severity"] == "CRITICAL" for n in view.nodes) >= 1
    assert severities["none"] == sum(n["severity"] is None for n in view.nodes)
    kinds = {e["kind"]: e["count"] for e in legend["edges"]}
    assert sum(kinds.values()) == len(view.edges)
    assert kinds["INTERNET_EXPOSED"] >= 1 and any(e["virtual"] for e in legend["edges"])
    assert {m["key"] for m in legend["marks"]} == {"entry", "sensitive"}
    assert "from the internet towards the target" in legend["direction"]


def test_attack_path_arrows_point_from_the_internet_towards_the_target(
        paths: Result) -> None:
    _, nodes, edges = graph_elements(paths)
    x = {n["id"]: n["x"] for n in nodes}
    assert all(e["directed"] for e in edges)
    into_internet = [e for e in edges if e["target"] == "internet"]
    assert into_internet == [] and any(e["source"] == "internet" for e in edges)
    assert sum(x[e["source"]] < x[e["target"]] for e in edges) > len(edges) / 2


def test_blast_radius_arrows_point_from_the_source_to_what_depends_on_it(
        client: Client) -> None:
    blast = client.call("blast_radius", ref="customers-db", progress=False)
    view = graph_view(blast)
    depth = {n["id"]: n["attributes"]["depth"] for n in view.nodes}
    assert view.edges and all(e["directed"] for e in view.edges)
    assert all(depth[e["target"]] == depth[e["source"]] + 1 for e in view.edges)
    assert "from an asset to what depends on it" in view.legend["direction"]


def test_a_small_result_draws_every_asset_and_hides_nothing(paths: Result) -> None:
    view = graph_view(paths)
    assert len(view.nodes) == 9 <= GROUP_ABOVE
    assert all(n["kind"] == "asset" for n in view.nodes)
    assert view.legend["hidden"]["assets"] == 0 and "group" not in view.summary


def test_the_demo_graphs_labels_do_not_overlap(paths: Result, client: Client) -> None:
    blast = client.call("blast_radius", ref="customers-db", progress=False)
    for result in (paths, blast):
        _, nodes, _ = graph_elements(result)
        assert overlapping(nodes) == []


# -- a 14,408-asset blast radius: groups, not a line of dots ----------------------------------


def test_a_paged_blast_radius_is_fetched_whole_through_the_client(
        big_blast: Result, big_view: GraphView) -> None:
    assert len(big_blast.data["items"]) < BIG_TOTAL  # one page came with the call
    hidden = big_view.legend["hidden"]
    shown = hidden["shown"] + hidden["assets"]
    assert shown == BIG_TOTAL + 1 and hidden["not_fetched"] == 0  # every asset, the key too
    assert big_view.title == f"Blast radius of {BIG_KEY} · 14,408 assets · dataset {BIG}"


def test_a_large_result_is_drawn_as_groups_by_type_within_each_hop(
        big_view: GraphView, big_blast: Result) -> None:
    groups = [n for n in big_view.nodes if n["kind"] == "group"]
    singles = [n for n in big_view.nodes if n["kind"] == "asset"]
    assert 5 <= len(big_view.nodes) <= 60 and len(groups) >= 20
    assert sum(g["count"] for g in groups) + len(singles) == BIG_TOTAL + 1  # the key too
    # a hop whose assets fit one column is drawn one by one, a larger one as groups
    singles_by_hop = Counter(int(a["attributes"]["depth"]) for a in singles)
    by_depth = {int(k): v for k, v in big_blast.data["by_depth"].items()}
    assert singles_by_hop == {0: 1, **{h: n for h, n in by_depth.items() if n <= ROWS_MAX}}
    assert {g["attributes"]["hop"] for g in groups} == {
        h for h, n in by_depth.items() if n > ROWS_MAX}
    members = big_view.groups()
    for group in groups:
        hop, by = group["id"].split(":")[1:3]
        assert by == "type" and group["attributes"]["hop"] == int(hop)
        assert group["count"] == len(members[group["id"]])
    # one group per hop and type: the same type at two hops is two groups
    assert len({g["id"] for g in groups}) == len(groups)
    assert len({(g["attributes"]["hop"], g["type"]) for g in groups}) == len(groups)


def test_a_large_result_never_draws_a_column_taller_than_the_limit(
        big_view: GraphView) -> None:
    assert tallest_column(big_view.nodes) <= ROWS_MAX
    assert len({n["x"] for n in big_view.nodes}) >= 5  # the hops side by side
    assert overlapping(big_view.nodes) == []


def test_a_groups_ring_is_the_worst_finding_among_its_assets(
        client: Client, big_view: GraphView) -> None:
    findings = client.frame("list_findings", dataset=BIG, progress=False)
    worst = {a: fs[0]["severity"] for a, fs in findings_by_asset(findings).items()}
    members = big_view.groups()
    for group in (n for n in big_view.nodes if n["kind"] == "group"):
        theirs = [worst[a] for a in members[group["id"]] if a in worst]
        expected = min(theirs, key=severity_rank) if theirs else None
        assert group["severity"] == expected
        assert sum(group["by_severity"].values()) == len(theirs)
        named_worst = [worst[a["id"]] for a in group["worst_assets"]]  # the panel names them
        assert named_worst == sorted(theirs, key=severity_rank)[:len(named_worst)]
        assert len(named_worst) == min(5, len(theirs))


def test_the_summary_says_what_the_groups_hide(big_view: GraphView) -> None:
    hidden = big_view.legend["hidden"]
    groups = [n for n in big_view.nodes if n["kind"] == "group"]
    assert hidden["assets"] == sum(g["count"] for g in groups) > BIG_TOTAL - 20
    assert hidden["groups"] == len(groups) and hidden["by"] == "type"
    assert hidden["shown"] + hidden["assets"] == BIG_TOTAL + 1
    assert big_view.summary.startswith(f"{BIG_TOTAL + 1:,} assets, {BIG_TOTAL:,} edges · "
                                       f"{hidden['assets']:,} of them in {hidden['groups']} "
                                       f"groups by type and hop; {hidden['shown']} drawn one "
                                       "by one")
    assert "click a group to expand it" in big_view.summary
    assert {m["key"] for m in big_view.legend["marks"]} == {"group"}


def test_edges_between_groups_are_one_arrow_with_their_count(big_view: GraphView) -> None:
    ids = {n["id"] for n in big_view.nodes}
    assert all(e["source"] in ids and e["target"] in ids and e["directed"]
               for e in big_view.edges)
    assert len({(e["source"], e["target"]) for e in big_view.edges}) == len(big_view.edges)
    assert sum(e["count"] for e in big_view.edges) == BIG_TOTAL  # one per reached asset
    assert max(e["count"] for e in big_view.edges) > 1000


def test_expanding_a_group_shows_its_worst_assets_and_keeps_the_rest_grouped(
        client: Client, big_blast: Result) -> None:
    view = graph_view(big_blast, client=client)
    group = max((n for n in view.nodes if n["kind"] == "group"), key=lambda n: n["count"])
    members = view.groups()[group["id"]]
    view.expanded = [group["id"]]  # what a click on the group in the browser sets
    shown = [n for n in view.nodes if n.get("group") == group["id"]]
    assert len(shown) == MEMBERS_PER_EXPAND and {n["id"] for n in shown} <= set(members)
    rest = next(n for n in view.nodes if n["id"] == f"{group['id']}:more")
    assert rest["count"] == len(members) - MEMBERS_PER_EXPAND
    assert rest["expand"] == group["id"] and rest["label"].endswith(
        f"+{rest['count']:,} more")
    ranks = sorted(severity_rank(view.findings(a)[0]["severity"] if view.findings(a) else None)
                   for a in members)
    assert sorted(severity_rank(n["severity"]) for n in shown) == ranks[:MEMBERS_PER_EXPAND]
    assert tallest_column(view.nodes) <= ROWS_MAX and overlapping(view.nodes) == []
    view.expand(group["id"])  # a click on "+N more" shows more again
    assert sum(n.get("group") == group["id"] for n in view.nodes) == 2 * MEMBERS_PER_EXPAND
    view.collapse(group["id"])
    assert any(n["id"] == group["id"] and n["count"] == len(members) for n in view.nodes)
    assert not any(n.get("group") for n in view.nodes)


def test_a_large_result_may_be_grouped_by_account(
        client: Client, big_blast: Result) -> None:
    view = graph_view(big_blast, client=client, group_by="account")
    groups = [n for n in view.nodes if n["kind"] == "group"]
    assert groups and all(g["id"].split(":")[2] == "account" for g in groups)
    assert sum(g["count"] for g in groups) + sum(
        n["kind"] == "asset" for n in view.nodes) == BIG_TOTAL + 1
    # 40 accounts at a hop: the largest keep a group each, the others share one
    per_hop = Counter(g["attributes"]["hop"] for g in groups)
    assert max(per_hop.values()) <= LAYER_GROUPS_MAX
    other = next(g for g in groups if g["id"].endswith(":*other*"))
    assert other["attributes"]["accounts"] > 1 and "other accounts" in other["name"]
    view.expand(other["id"])  # the others come out as groups of their own
    assert not any(n["id"] == other["id"] for n in view.nodes)
    assert tallest_column(view.nodes) <= ROWS_MAX


def test_fetching_for_the_graph_leaves_the_clients_last_result_alone(
        client: Client, big_blast: Result) -> None:
    mine = client.call("dataset_summary", progress=False)
    graph_view(big_blast, client=client)
    assert client.last is mine


def test_a_blast_radius_sent_as_columns_is_drawn_whole(
        client: Client, big_blast: Result) -> None:
    # (as the tools send a list the notebook asks for whole: Arrow columns)
    from cloudg_nb.catalog.frame_columns import FrameColumns

    frame = client.frame("blast_radius", ref=BIG_KEY, dataset=BIG, progress=False)
    data = {k: v for k, v in big_blast.data.items() if k not in ("items", "next_cursor")}
    data["columns"] = FrameColumns(frame).encode(None)
    assert is_graph_result("blast_radius", data)
    model = model_of(data)
    assert len(model.assets) == BIG_TOTAL + 1 and len(model.edges) == BIG_TOTAL


def test_grouping_can_be_turned_off_and_is_named_when_wrong(big_blast: Result) -> None:
    model = model_of(big_blast)  # the first page only: no client
    assert len(model.assets) == len(big_blast.data["items"]) + 1
    every = draw(model, group_by=None)
    assert len(every.nodes) == len(model.assets) and not every.groups
    assert tallest_column(every.nodes) <= ROWS_MAX  # still no vertical line of dots
    assert "not fetched" in draw(model).summary
    with pytest.raises(ValueError, match="group_by must be one of"):
        draw(model, group_by="colour")


def test_grouped_paths_keep_their_few_sensitive_targets_in_sight() -> None:
    model = GraphModel("paths", "many paths", starts={"internet"}, sensitive={"db-1", "db-2"})
    model.assets["internet"] = {"id": "internet", "name": "Internet", "type": "INTERNET",
                                "category": "internet", "depth": 0}
    for i in range(60):
        kind = "RDS_INSTANCE" if i < 30 else "EC2"
        asset_id = f"db-{i}" if i < 30 else f"vm-{i}"
        model.assets[asset_id] = {"id": asset_id, "name": asset_id, "type": kind,
                                  "category": "data" if i < 30 else "compute",
                                  "depth": 1 if i >= 30 else 2}
    drawing = draw(model)
    drawn = {n["id"]: n for n in drawing.nodes}
    assert drawn["db-1"]["kind"] == "asset" and drawn["db-1"]["sensitive"]
    assert drawn["group:2:type:RDS_INSTANCE"]["count"] == 28  # the other databases
    assert drawn["group:1:type:EC2"]["count"] == 30
