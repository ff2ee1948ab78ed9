"""Plotting helpers on the demo estate, through the layer: what the figures draw (nodes,
edges, colours, labels, bars), not their pixels; and that a kernel shows a figure once, as PNG."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import matplotlib
import nbformat
import pandas as pd
import pytest
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from nbclient import NotebookClient

from cloudg_nb import CloudGMCPLayer
from cloudg_nb.notebook.plots import (
    CATEGORY_COLOURS,
    SEVERITY_COLOURS,
    plot_attack_paths,
    plot_findings_by_severity,
)
from tests.notebook.kernel import install_kernelspec

matplotlib.use("Agg")


async def _demo_results() -> dict[str, Any]:
    layer = CloudGMCPLayer()
    loaded = await layer.call_tool("sample_estate", {"name": "demo"})
    assert not loaded.is_error
    out = {}
    for tool, args in (("attack_paths", {}), ("list_findings", {"limit": 200}),
                       ("findings_summary", {})):
        result = await layer.call_tool(tool, args)
        assert not result.is_error, result.text
        out[tool] = result
    return out


@pytest.fixture(scope="module")
def demo() -> dict[str, Any]:
    return asyncio.run(_demo_results())


@pytest.fixture(scope="module")
def paths_figure(demo: dict[str, Any]) -> Figure:
    return plot_attack_paths(demo["attack_paths"], demo["list_findings"])


def artists(fig: Figure, prefix: str) -> dict[str, Any]:
    """The figure's artists whose gid starts with ``prefix``, by the rest of their gid."""
    found = {}
    for artist in fig.axes[0].get_children():
        gid = artist.get_gid()
        if isinstance(gid, str) and gid.startswith(prefix):
            found[gid[len(prefix):]] = artist
    return found


def path_nodes(data: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {n["id"]: n for path in data["paths"] for n in path["nodes"]}


def test_attack_path_figure_draws_every_node_of_the_paths_once(
        demo: dict[str, Any], paths_figure: Figure) -> None:
    expected = path_nodes(demo["attack_paths"].structured)
    assert set(artists(paths_figure, "node:")) == set(expected)
    assert len(expected) == 15  # the demo's 7 paths share the internet and their entries


def test_attack_path_figure_draws_each_distinct_edge_once(
        demo: dict[str, Any], paths_figure: Figure) -> None:
    expected = {f"{e['from']}->{e['to']}" for path in demo["attack_paths"].structured["paths"]
                for e in path["edges"]}
    assert set(artists(paths_figure, "edge:")) == expected


def test_attack_path_nodes_are_filled_by_asset_category(paths_figure: Figure) -> None:
    nodes = artists(paths_figure, "node:")
    fill = {node_id: to_hex(node.get_facecolors()[0]) for node_id, node in nodes.items()}
    assert fill["internet"] == CATEGORY_COLOURS["internet"]
    assert fill["aws-alb-web"] == CATEGORY_COLOURS["network"]
    assert fill["aws-ec2-web-1"] == CATEGORY_COLOURS["compute"]
    assert fill["aws-role-app"] == CATEGORY_COLOURS["identity"]
    assert fill["aws-rds-customers"] == CATEGORY_COLOURS["data"]
    assert fill["az-kv-prod"] == CATEGORY_COLOURS["keys"]


def test_attack_path_nodes_are_ringed_by_their_worst_open_finding(
        demo: dict[str, Any], paths_figure: Figure) -> None:
    findings = pd.DataFrame(demo["list_findings"].structured["items"])
    open_findings = findings[~findings["is_suppressed"]]
    web_1 = set(open_findings[open_findings["resource_id"] == "aws-ec2-web-1"]["severity"])
    assert "CRITICAL" in web_1
    rings = {node_id: to_hex(node.get_edgecolors()[0])
             for node_id, node in artists(paths_figure, "node:").items()}
    assert rings["aws-ec2-web-1"] == SEVERITY_COLOURS["CRITICAL"]
    without = set(path_nodes(demo["attack_paths"].structured)) - set(open_findings["resource_id"])
    assert without, "the demo has path assets without findings"
    assert {rings[node_id] for node_id in without} == {SEVERITY_COLOURS[None]}


def test_attack_path_figure_marks_each_entry_point(demo: dict[str, Any],
                                                   paths_figure: Figure) -> None:
    entries = {path["entry"]["id"] for path in demo["attack_paths"].structured["paths"]}
    assert set(artists(paths_figure, "entry:")) == entries
    labels = artists(paths_figure, "label:")
    assert all("entry point" in labels[node_id].get_text() for node_id in entries)
    assert "entry point" not in labels["aws-role-app"].get_text()


def test_attack_path_labels_give_each_asset_name_and_type(paths_figure: Figure) -> None:
    labels = artists(paths_figure, "label:")
    assert labels["aws-rds-customers"].get_text().splitlines()[:2] == ["customers-db",
                                                                        "RDS_INSTANCE"]
    assert labels["internet"].get_text() == "Internet"


def test_attack_path_figure_without_findings_rings_every_node_grey(
        demo: dict[str, Any]) -> None:
    fig = plot_attack_paths(demo["attack_paths"].structured)
    rings = {to_hex(node.get_edgecolors()[0]) for node in artists(fig, "node:").values()}
    assert rings == {SEVERITY_COLOURS[None]}


def test_attack_path_figure_of_no_paths_says_none_were_found() -> None:
    fig = plot_attack_paths({"dataset": "empty", "paths": [], "count": 0})
    assert artists(fig, "node:") == {}
    assert artists(fig, "empty")[""].get_text() == "No attack paths found"


def test_plotting_a_failed_call_raises_the_tools_message() -> None:
    async def failed() -> Any:
        layer = CloudGMCPLayer()
        return await layer.call_tool("attack_paths", {})  # no dataset loaded

    result = asyncio.run(failed())
    assert result.is_error
    with pytest.raises(ValueError, match="cannot plot a failed attack_paths call"):
        plot_attack_paths(result)


def test_severity_bars_show_the_summary_counts_in_severity_order(
        demo: dict[str, Any]) -> None:
    summary = demo["findings_summary"].structured
    fig = plot_findings_by_severity(demo["findings_summary"])
    bars = artists(fig, "bar:")
    assert list(bars) == ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"]
    shown = {s: n for s, n in summary["by_severity"].items() if n or s != "UNKNOWN"}
    assert {s: int(bar.get_height()) for s, bar in bars.items()} == shown
    assert {s: to_hex(bar.get_facecolor()) for s, bar in bars.items()} == \
        {s: SEVERITY_COLOURS[s] for s in bars}
    assert f"{summary['open']} in all" in fig.axes[0].get_title()


def test_severity_bars_from_a_findings_frame_count_only_open_findings(
        demo: dict[str, Any]) -> None:
    frame = pd.DataFrame(demo["list_findings"].structured["items"])
    frame.loc[frame["severity"] == "CRITICAL", "is_suppressed"] = True
    fig = plot_findings_by_severity(frame)
    heights = {s: int(bar.get_height()) for s, bar in artists(fig, "bar:").items()}
    assert heights["CRITICAL"] == 0
    assert heights["HIGH"] == int(((frame["severity"] == "HIGH") & ~frame["is_suppressed"]).sum())


@pytest.mark.kernel
def test_a_kernel_shows_a_returned_figure_once_as_png(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("data", "runtime", "config"):
        folder = tmp_path / f"jupyter-{name}"
        folder.mkdir()
        monkeypatch.setenv(f"JUPYTER_{name.upper()}_DIR", str(folder))
    monkeypatch.delenv("MPLBACKEND", raising=False)
    install_kernelspec(tmp_path / "jupyter-data")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "from cloudg_nb.notebook.plots import plot_findings_by_severity\n"
        "plot_findings_by_severity({'by_severity': {'HIGH': 3, 'LOW': 1}})"
    )])
    NotebookClient(notebook, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute(
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    outputs = notebook.cells[0].outputs
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 1, outputs
    assert [o.get("output_type") for o in outputs] == ["execute_result"]
