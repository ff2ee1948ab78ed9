"""Centrality and graph statistics."""

from __future__ import annotations

import pytest

from cloudg_nb.estate import centrality_top, graph_stats, scaled
from cloudg_nb.layer.errors import InvalidArgumentsError


def test_degree_centrality_ranks_the_load_balancer_first(ds) -> None:
    top = centrality_top(ds, metric="degree", top=3).items
    assert top["rank"].tolist() == [1, 2, 3]
    assert top["name"].iat[0] == "web-alb" and top["score"].iat[0] == 6


def test_betweenness_is_exact_on_small_graphs_and_sampled_on_large_ones(ds) -> None:
    assert centrality_top(ds, metric="betweenness").summary["sampled"] is False
    big = centrality_top(scaled(3_000), metric="betweenness", samples=16)
    assert big.summary["sampled"] is True and big.summary["samples"] == 16
    assert len(big.items) == 20


def test_betweenness_puts_the_load_balancer_on_top(ds) -> None:
    assert centrality_top(ds, metric="betweenness", top=1).items["name"].iat[0] == "web-alb"


def test_unknown_metric_has_close_matches(ds) -> None:
    with pytest.raises(InvalidArgumentsError) as err:
        centrality_top(ds, metric="betweeness")
    assert err.value.data["close_matches"] == ["betweenness"]


def test_graph_stats_describe_the_demo(ds) -> None:
    s = graph_stats(ds)
    assert (s["assets"], s["edges"]) == (60, 77)
    assert s["edge_types"]["REFERENCES"] == 10
    assert s["internet_entry_points"] == 8
    assert s["connected_components"] == 2
