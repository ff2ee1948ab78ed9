"""Pictures of results for notebooks: attack paths as a graph, findings by severity as bars.

Input: a ``Result``, a layer ``ToolResult`` or its structured dict; output: a matplotlib
``Figure`` closed to pyplot (a notebook shows it once, as the cell's value), its artists tagged
``node:ID`` / ``entry:ID`` / ``edge:A->B`` / ``label:ID`` / ``bar:SEVERITY`` by gid. The path
subgraph (tens of nodes) is laid out in layers by hop count: no graph-layout library needed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "CATEGORY_COLOURS", "SEVERITY_COLOURS", "SEVERITY_ORDER", "layered_positions",
    "plot_attack_paths", "plot_findings_by_severity",
]

#: Worst first, as findings tools report them.
SEVERITY_ORDER = ("CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO", "UNKNOWN")
#: Shown only when a finding has it (a scanner record without a usable severity).
_OPTIONAL_SEVERITIES = ("UNKNOWN",)
#: Severity colours (warm, for rings and bars); ``None``: no open finding on the asset.
SEVERITY_COLOURS: dict[str | None, str] = {
    "CRITICAL": "#a50026", "HIGH": "#f46d43", "MEDIUM": "#fdae61", "LOW": "#fee08b",
    "INFO": "#74add1", "UNKNOWN": "#969696", None: "#bdbdbd",
}
#: Node fill by asset category (cool colours, distinct from the severity ones).
CATEGORY_COLOURS = {
    "internet": "#525252", "network": "#9ecae1", "compute": "#bcbddc", "identity": "#99d8c9",
    "data": "#a1d99b", "keys": "#d9f0a3", "organization": "#d9d9d9", "other": "#f0f0f0",
}
_INTERNET_TYPE = "INTERNET"
_ENTRY_RING = "#111111"


def _structured(result: Any, tool: str) -> Mapping[str, Any]:
    """The structured data of a ``Result`` / ``ToolResult`` / dict; a readable error else."""
    if isinstance(result, Mapping):
        return result
    if getattr(result, "is_error", False):
        text = getattr(result, "text", "")
        text = text() if callable(text) else text
        reason = text or "the tool reported an error"
        raise ValueError(f"cannot plot a failed {tool} call: {reason}")
    for name in ("data", "structured"):
        value = getattr(result, name, None)
        if isinstance(value, Mapping):
            return value
    raise TypeError(f"expected the result of {tool} (a Result, a ToolResult or its structured "
                    f"data as a dict), got {type(result).__name__}")


def _finding_records(findings: Any) -> list[Mapping[str, Any]]:
    """Findings as dicts: from a list_findings result, its data, a DataFrame or a list."""
    if findings is None:
        return []
    if hasattr(findings, "to_dict") and hasattr(findings, "columns"):  # a DataFrame
        return list(findings.to_dict("records"))
    if not isinstance(findings, Mapping | list | tuple):
        findings = _structured(findings, "list_findings")
    if isinstance(findings, Mapping):
        findings = findings.get("items", [])
    return [f for f in findings if isinstance(f, Mapping)]


def _worst_severity(findings: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """Per resource id, the worst severity among its open (not suppressed) findings."""
    rank = {severity: i for i, severity in enumerate(SEVERITY_ORDER)}
    worst: dict[str, str] = {}
    for finding in findings:
        if finding.get("is_suppressed"):
            continue
        resource, severity = finding.get("resource_id"), str(finding.get("severity", "")).upper()
        if not resource or severity not in rank:
            continue
        current = worst.get(str(resource))
        if current is None or rank[severity] < rank[current]:
            worst[str(resource)] = severity
    return worst


def _category(asset_type: str) -> str:
    from cloudg_nb.estate.models import ASSET_TYPE_INFO, AssetType

    if asset_type == _INTERNET_TYPE:
        return "internet"
    try:
        return str(ASSET_TYPE_INFO[AssetType(asset_type)]["category"])
    except (ValueError, KeyError):
        return "other"


def _new_axes(ax: Axes | None, size: tuple[float, float]) -> tuple[Figure, Axes]:
    if ax is not None:
        return ax.figure, ax  # type: ignore[return-value]
    import matplotlib.pyplot as plt

    fig, new_ax = plt.subplots(figsize=size)
    plt.close(fig)  # shown as the cell's value only, never again by the inline backend
    return fig, new_ax


def _layout(paths: Sequence[Mapping[str, Any]]) -> tuple[dict[str, tuple[float, float]],
                                                          dict[str, Mapping[str, Any]]]:
    """Node positions of the paths' subgraph (``layered_positions`` by hop count) and the
    nodes by id."""
    nodes: dict[str, Mapping[str, Any]] = {}
    depth: dict[str, int] = {}
    preds: dict[str, set[str]] = {}
    for path in paths:
        ids = [str(node["id"]) for node in path.get("nodes", [])]
        for i, node in enumerate(path.get("nodes", [])):
            nodes.setdefault(ids[i], node)
            depth[ids[i]] = min(depth.get(ids[i], i), i)
            if i:
                preds.setdefault(ids[i], set()).add(ids[i - 1])
    names = {node_id: str(node.get("name", node_id)) for node_id, node in nodes.items()}
    return layered_positions(depth, preds, names), nodes


def layered_positions(depth: Mapping[str, int], preds: Mapping[str, Iterable[str]],
                      names: Mapping[str, str]) -> dict[str, tuple[float, float]]:
    """Positions of a layered graph: x = a node's ``depth``; y spreads each layer, ordered by
    the mean height of the nodes that lead into it (``preds``; fewer crossing edges), then by
    name. Nodes keep their first-seen order in ``depth`` within a tie."""
    layers: dict[int, list[str]] = {}
    for node_id in depth:  # first-seen order within a layer
        layers.setdefault(depth[node_id], []).append(node_id)
    positions: dict[str, tuple[float, float]] = {}
    for level in sorted(layers):
        members = layers[level]

        def barycentre(node_id: str) -> float:
            ys = [positions[p][1] for p in preds.get(node_id, ()) if p in positions]
            return -sum(ys) / len(ys) if ys else 0.0

        members.sort(key=lambda n: (barycentre(n), names.get(n, n)))
        top = (len(members) - 1) / 2
        for i, node_id in enumerate(members):
            positions[node_id] = (float(level), top - i)
    return positions


def plot_attack_paths(result: Any, findings: Any = None, *, ax: Axes | None = None,
                      title: str | None = None, edge_labels: bool = True) -> Figure:
    """The subgraph of ``attack_paths`` (or ``find_paths``) results as a picture.

    Nodes are filled by asset category and ringed by the worst open finding on the asset
    (``findings``: a ``list_findings`` result, its data, a DataFrame or a list of dicts with
    ``resource_id`` and ``severity``; grey rings without it). Entry points (the first asset
    after the source) get a dashed black outer ring; data stores a path ends at as sensitive
    are labelled in bold. Returns the figure.
    """
    data = _structured(result, "attack_paths")
    paths = [p for p in data.get("paths", []) if isinstance(p, Mapping) and p.get("nodes")]
    positions, nodes = _layout(paths)
    layers = max((int(x) for x, _ in positions.values()), default=0) + 1
    tallest = max((sum(1 for x, _ in positions.values() if int(x) == level)
                   for level in range(layers)), default=1)
    fig, ax = _new_axes(ax, (max(6.0, 2.7 * layers + 2.5), max(3.5, 1.25 * tallest + 1.8)))
    dataset = data.get("dataset")
    ax.set_title(title or "Attack paths from the internet"
                 + (f" · dataset {dataset}" if dataset else "") + f" · {len(paths)} paths",
                 fontsize=11)
    ax.set_axis_off()
    if not paths:
        ax.text(0.5, 0.5, "No attack paths found", ha="center", va="center",
                transform=ax.transAxes, gid="empty")
        return fig

    worst = _worst_severity(_finding_records(findings))
    entries = {str(p["entry"]["id"]) for p in paths if isinstance(p.get("entry"), Mapping)}
    sensitive = {str(p["nodes"][-1]["id"]) for p in paths if p.get("target_sensitive")}

    drawn: set[tuple[str, str]] = set()
    for path in paths:
        for edge in path.get("edges", []):
            key = (str(edge.get("from")), str(edge.get("to")))
            if key in drawn or key[0] not in positions or key[1] not in positions:
                continue
            drawn.add(key)
            (x0, y0), (x1, y1) = positions[key[0]], positions[key[1]]
            bend = 0.0 if x1 > x0 else 0.35  # same layer or backwards: arc around
            ax.annotate("", xy=(x1, y1), xytext=(x0, y0), gid=f"edge:{key[0]}->{key[1]}",
                        arrowprops={"arrowstyle": "-|>", "color": "#737373", "lw": 1.2,
                                    "shrinkA": 17, "shrinkB": 17,
                                    "connectionstyle": f"arc3,rad={bend}"})
            if edge_labels and edge.get("edge_type"):
                ax.text((x0 + x1) / 2, (y0 + y1) / 2 + 0.08,
                        str(edge["edge_type"]).lower().replace("_", " "), fontsize=6.5,
                        color="#525252", ha="center", va="bottom",
                        gid=f"edge-label:{key[0]}->{key[1]}")

    for node_id, (x, y) in positions.items():
        node = nodes[node_id]
        asset_type = str(node.get("type") or "")
        category = _category(asset_type)
        severity = worst.get(node_id)
        is_internet = asset_type == _INTERNET_TYPE
        if node_id in entries:
            ax.scatter([x], [y], s=1500, facecolors="none", edgecolors=_ENTRY_RING,
                       linewidths=1.4, linestyles="--", zorder=2, gid=f"entry:{node_id}")
        ax.scatter([x], [y], s=700, marker="D" if is_internet else "o",
                   c=[CATEGORY_COLOURS[category]], edgecolors=[SEVERITY_COLOURS[severity]],
                   linewidths=4.0 if severity else 1.5, zorder=3, gid=f"node:{node_id}")
        name = str(node.get("name") or node_id)
        label = name if is_internet else f"{name}\n{asset_type}"
        if node_id in entries:
            label += "\nentry point"
        ax.text(x, y - 0.3, label, ha="center", va="top", fontsize=7.5, zorder=4,
                fontweight="bold" if node_id in sensitive else "normal", gid=f"label:{node_id}")

    xs = [x for x, _ in positions.values()]
    ys = [y for _, y in positions.values()]
    ax.set_xlim(min(xs) - 0.6, max(xs) + 0.6)
    ax.set_ylim(min(ys) - 0.95, max(ys) + 0.5)
    _legends(ax, {_category(str(n.get("type") or "")) for n in nodes.values()},
             {worst.get(n) for n in nodes})
    return fig


def _legends(ax: Axes, categories: set[str], severities: set[str | None]) -> None:
    from matplotlib.lines import Line2D

    def handle(face: str, edge: str, width: float) -> Line2D:
        return Line2D([], [], marker="o", linestyle="none", markersize=10,
                      markerfacecolor=face, markeredgecolor=edge, markeredgewidth=width)

    kinds = [c for c in CATEGORY_COLOURS if c in categories]
    first = ax.legend([handle(CATEGORY_COLOURS[c], "#bdbdbd", 1.0) for c in kinds], kinds,
                      title="asset (fill)", loc="upper left", bbox_to_anchor=(1.0, 1.0),
                      fontsize=7.5, title_fontsize=8, frameon=False)
    ax.add_artist(first)
    rings: list[str | None] = [s for s in SEVERITY_ORDER if s in severities]
    if None in severities:
        rings.append(None)
    ax.legend([handle("white", SEVERITY_COLOURS[s], 3.0) for s in rings],
              [s.lower() if s else "no open finding" for s in rings],
              title="worst finding (ring)", loc="lower left", bbox_to_anchor=(1.0, 0.0),
              fontsize=7.5, title_fontsize=8, frameon=False)


def _count_by_severity(findings: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    counts = dict.fromkeys(SEVERITY_ORDER, 0)
    for finding in findings:
        severity = str(finding.get("severity", "")).upper()
        if severity in counts and not finding.get("is_suppressed"):
            counts[severity] += 1
    return counts


def plot_findings_by_severity(result: Any, *, ax: Axes | None = None,
                              title: str | None = None) -> Figure:
    """Open findings per severity as bars (worst first, severity colours, counts on top).

    ``result``: a ``findings_summary`` result (its ``by_severity``), or findings as
    ``list_findings`` returns them (a result, its data, a DataFrame or a list of dicts);
    suppressed findings are not counted.
    """
    dataset = None
    if hasattr(result, "columns") or isinstance(result, list | tuple):
        counts = _count_by_severity(_finding_records(result))
    else:
        data = _structured(result, "findings_summary")
        dataset = data.get("dataset")
        if "by_severity" in data:
            by_severity = data.get("by_severity") or {}
            counts = {s: int(by_severity.get(s, 0)) for s in SEVERITY_ORDER}
        else:
            counts = _count_by_severity(_finding_records(data))
    counts = {s: n for s, n in counts.items() if n or s not in _OPTIONAL_SEVERITIES}
    fig, ax = _new_axes(ax, (6.0, 3.4))
    bars = ax.bar(list(counts), list(counts.values()),
                  color=[SEVERITY_COLOURS[s] for s in counts], edgecolor="#525252", linewidth=0.6)
    for severity, bar in zip(counts, bars, strict=True):
        bar.set_gid(f"bar:{severity}")
    ax.bar_label(bars, fontsize=9)
    total = sum(counts.values())
    ax.set_title(title or f"Open findings by severity · {total} in all"
                 + (f" · dataset {dataset}" if dataset else ""), fontsize=11)
    ax.set_ylabel("findings")
    ax.set_ylim(0, max(counts.values(), default=0) * 1.2 + 1)
    ax.spines[["top", "right"]].set_visible(False)
    return fig
