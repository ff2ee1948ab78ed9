"""Shapes shared by the estate queries: ``QueryResult`` and node/edge/path records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..layer.jsonable import to_jsonable
from .dataset import Dataset
from .finding_exposure import DERIVED_RELATIONSHIP
from .graph import EDGE_TYPES, Adjacency

__all__ = ["QueryResult", "node_frame", "node_record", "arc_records", "path_record",
           "check_depth", "node_matrix", "EDGE_VALUES", "NODE_COLUMNS"]

NODE_COLUMNS = ["id", "name", "type", "provider", "region", "account_id"]


@dataclass
class QueryResult:
    """A query's summary (small dict) and its items (an ordered DataFrame to page)."""

    summary: dict[str, Any]
    items: pd.DataFrame = field(default_factory=pd.DataFrame)

    def to_dict(self, limit: int | None = None) -> dict[str, Any]:
        """Summary plus the first ``limit`` items as records (all when None)."""
        from .paging import frame_records

        items = self.items if limit is None else self.items.head(limit)
        return {**self.summary, "items": frame_records(items)}


def check_depth(depth: Any, *, field: str = "depth", low: int = 1, high: int = 4) -> int:
    from ..layer.errors import InvalidArgumentsError

    try:
        value = int(depth)
    except (TypeError, ValueError):
        value = low - 1
    if not low <= value <= high:
        raise InvalidArgumentsError(f"{field} must be a whole number from {low} to {high}.",
                                    data={"field": field, "min": low, "max": high})
    return value


#: Edge-type value per edge-type code.
EDGE_VALUES = np.array([t.value for t in EDGE_TYPES], dtype=object)
_EDGE_VALUES = EDGE_VALUES


def node_matrix(ds: Dataset) -> np.ndarray:
    """``NODE_COLUMNS`` of every graph node as one (nodes x columns) object array (cached),
    so a set of nodes is gathered with a single fancy index."""

    def build() -> np.ndarray:
        arrays = ds.node_arrays()
        return np.column_stack([arrays[c] for c in NODE_COLUMNS]).astype(object)

    return ds.cached("node_matrix", build, label="node matrix")


def node_frame(ds: Dataset, nodes: np.ndarray) -> pd.DataFrame:
    """NODE_COLUMNS for graph ``nodes`` (assets, the internet node, external endpoints)."""
    arrays = ds.node_arrays()
    idx = np.asarray(nodes, dtype=np.int64)
    return pd.DataFrame({c: pd.Series(arrays[c][idx], dtype=object) for c in NODE_COLUMNS})


def node_record(ds: Dataset, node: int) -> dict[str, Any]:
    arrays = ds.node_arrays()
    return {c: to_jsonable(arrays[c][node]) for c in NODE_COLUMNS}


def arc_records(ds: Dataset, adj: Adjacency, arcs: np.ndarray) -> pd.DataFrame:
    """Per arc: edge id (None for virtual internet links), edge type, stored direction."""
    arcs = np.asarray(arcs, dtype=np.int64)
    rows = adj.arc_edge[arcs]
    ids = ds.edge_ids()
    edge_ids = np.full(len(arcs), None, dtype=object)
    real = rows >= 0
    edge_ids[real] = ids[rows[real]]
    return pd.DataFrame({"edge_id": pd.Series(edge_ids, dtype=object),
                         "edge_type": pd.Series(_EDGE_VALUES[adj.arc_type[arcs]], dtype=object),
                         "forward": adj.arc_forward[arcs]})


def _derived_from(ds: Dataset, row: int) -> str | None:
    """The finding an edge row was derived from (``finding_exposure``), else None."""
    if row < 0 or ds.edges["relationship"].iat[row] != DERIVED_RELATIONSHIP:
        return None
    props = ds.edges["properties"].iat[row]
    return str(props["derived_from_finding"]) if isinstance(props, dict) and \
        props.get("derived_from_finding") else None


def path_record(ds: Dataset, adj: Adjacency, nodes: list[int], arcs: list[int]
                ) -> dict[str, Any]:
    """One path: hops, node records and edge records (id, type, from, to, virtual, and
    ``derived_from_finding`` on an edge derived from a finding)."""
    arrays = ds.node_arrays()
    node_recs = [{c: to_jsonable(arrays[c][v]) for c in NODE_COLUMNS} for v in nodes]
    edge_ids = ds.edge_ids()
    edges = []
    for k, arc in enumerate(arcs):
        row = int(adj.arc_edge[arc])
        edge = {"id": str(edge_ids[row]) if row >= 0 else None,
                "edge_type": _EDGE_VALUES[adj.arc_type[arc]],
                "from": node_recs[k]["id"], "to": node_recs[k + 1]["id"],
                "virtual": row < 0}
        finding = _derived_from(ds, row)
        if finding is not None:
            edge["derived_from_finding"] = finding
        edges.append(edge)
    return {"hops": len(arcs), "nodes": node_recs, "edges": edges}
