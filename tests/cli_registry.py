"""Test-only registry standing in for the catalog's workspace tools in CLI tests.

``load_dataset`` and ``sample_estate`` record what ``cloudg-nb serve --dataset/--sample``
asked for (``load_dataset`` refuses paths that do not exist); ``loaded`` reports it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cloudg_nb.layer import NotFoundError, Registry, ToolContext

registry = Registry()
_loaded: list[dict[str, str]] = []


@registry.tool
def load_dataset(ctx: ToolContext, path: str, name: str) -> dict[str, Any]:
    """Record a dataset load; a missing file is an error result."""
    if not Path(path).is_file():
        raise NotFoundError("No estate file there; check the path.", data={"name": name})
    _loaded.append({"name": name, "path": path})
    return {"loaded": name}


@registry.tool
def sample_estate(ctx: ToolContext, name: str) -> dict[str, Any]:
    """Record a sample-estate load."""
    _loaded.append({"sample": name})
    return {"loaded": name}


@registry.tool
def loaded(ctx: ToolContext) -> dict[str, Any]:
    """What was loaded so far, in order."""
    return {"loaded": list(_loaded)}
