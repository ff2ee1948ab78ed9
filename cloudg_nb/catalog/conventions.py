"""The tool conventions every catalog module shares (catalog reference §2).

Argument types with their descriptions and constraints (``DatasetArg``: empty = the active
dataset; ``LimitArg``/``CursorArg`` for paging; ``RefArg`` for asset references), the dataset
lookup, and ``page`` — the paging envelope whose cursor fingerprints the dataset version and
the call's filter arguments, so it goes stale when either changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any

import pandas as pd
from pydantic import Field

from ..estate import DEFAULT_LIMIT, MAX_LIMIT, Dataset, json_safe, paginate
from ..layer.context import ToolContext

__all__ = [
    "DatasetArg", "LimitArg", "CursorArg", "RefArg", "OptionalRefArg", "StrList",
    "dataset_of", "page", "filters", "progress_of",
]

DatasetArg = Annotated[str, Field(
    max_length=64,
    description="Name of a loaded dataset (list_datasets shows them); empty means the active "
                "dataset.")]
LimitArg = Annotated[int, Field(
    ge=1, le=MAX_LIMIT, description=f"Items per page, 1-{MAX_LIMIT} (default {DEFAULT_LIMIT}).")]
CursorArg = Annotated[str | None, Field(
    max_length=40,
    description="The next_cursor of the previous page, to continue; omit for the first page. "
                "It goes stale when the dataset changes or the filters differ.")]
RefArg = Annotated[str, Field(
    min_length=1, max_length=2048,
    description="An asset reference: id, ARN, name, or the text after the last '/' of an ARN "
                "(resolved in that order; ambiguous names list candidates).")]
OptionalRefArg = Annotated[str | None, Field(
    max_length=2048,
    description="An asset reference (id, ARN or name); graph tools also accept 'internet'.")]
#: A list of enum values; one comma-separated string is accepted too.
StrList = list[str] | str | None


def dataset_of(ctx: ToolContext, name: str | None = "") -> Dataset:
    """The dataset ``name`` (the active one when empty); NoDatasetError with a hint else."""
    return ctx.workspace.get(name or "")


def progress_of(ctx: ToolContext) -> Any:
    """The progress callback a sync handler passes to estate functions; it carries the
    call's ``check_cancelled`` so a cancelled call stops between phases and levels."""
    return ctx.progress_sync


def filters(**args: Any) -> dict[str, Any]:
    """The call's filter arguments as the cursor fingerprint sees them (lists kept in order)."""
    return {k: list(v) if isinstance(v, (list, tuple)) else v for k, v in args.items()}


def page(
    ds: Dataset,
    version: int,
    items: pd.DataFrame | Sequence[Any],
    args: Mapping[str, Any],
    limit: int | None,
    cursor: str | None,
    **summary: Any,
) -> dict[str, Any]:
    """``{dataset, dataset_version, **summary, total, offset, returned, next_cursor,
    truncated, items}``.

    ``version`` is the dataset version read before the query ran, so a page computed while
    the dataset changed carries a cursor that is already stale; it is returned as
    ``dataset_version`` (notebook captions show "dataset demo v3").
    """
    envelope = paginate(items, dataset=ds.name, version=version, args=args, limit=limit,
                        cursor=cursor)
    return {"dataset": ds.name, "dataset_version": version, **json_safe(summary), **envelope}
