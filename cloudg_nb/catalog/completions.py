"""Completion functions for template variables and prompt arguments.

Each is ``fn(ctx, partial) -> list[str]``: dataset names, asset references (prefix on name,
ARN or id, then substring), finding ids, severities and compliance frameworks. Reference,
finding and framework completions read the dataset named by an already-filled ``dataset``
(or ``base``/``target``) argument, else the active one; with nothing loaded they offer
nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from .. import estate
from ..layer.context import ToolContext
from .conventions import workspace_of

__all__ = ["complete_dataset", "complete_ref", "complete_finding_id", "complete_severity",
           "complete_framework", "LIMIT"]

LIMIT = 100


def _matching(values: Iterable[str], partial: str) -> list[str]:
    """Values starting with ``partial`` (case-insensitive), then those containing it."""
    p = str(partial or "").lower()
    values = list(values)
    head = [v for v in values if v.lower().startswith(p)]
    rest = [v for v in values if p and p in v.lower() and v not in head]
    return (head + rest)[:LIMIT]


def _dataset(ctx: ToolContext) -> estate.Dataset | None:
    ws = workspace_of(ctx)
    filled = ctx.completion.context_arguments if ctx.completion is not None else {}
    name = filled.get("dataset") or ""
    if name and name in ws:
        return ws.get(name)
    return ws.get("") if ws.active_name() else None


def complete_dataset(ctx: ToolContext, partial: str) -> list[str]:
    return _matching(workspace_of(ctx).names(), partial)


def complete_ref(ctx: ToolContext, partial: str) -> list[str]:
    ds = _dataset(ctx)
    return ds.complete_refs(partial, LIMIT) if ds is not None else []


def complete_finding_id(ctx: ToolContext, partial: str) -> list[str]:
    ds = _dataset(ctx)
    return ds.complete_finding_ids(partial, LIMIT) if ds is not None else []


def complete_severity(ctx: ToolContext, partial: str) -> list[str]:
    return _matching([s.value for s in estate.Severity.ordered()], partial)


def complete_framework(ctx: ToolContext, partial: str) -> list[str]:
    ds = _dataset(ctx)
    return _matching(estate.list_frameworks(ds), partial) if ds is not None else []
