"""Helpers for the catalog tests: a layer over the real catalog with a temporary workspace,
and calls that assert success (and validate the tool's output schema) or failure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema

from cloudg_nb import CloudGMCPLayer, ToolResult
from cloudg_nb.workspace import Workspace


def make_layer(tmp_path: Path, *, policy: str = "open") -> CloudGMCPLayer:
    """The default catalog over a workspace reading ``tmp_path/data``, writing ``tmp_path/out``."""
    data, out = tmp_path / "data", tmp_path / "out"
    data.mkdir(exist_ok=True)
    out.mkdir(exist_ok=True)
    return CloudGMCPLayer(workspace=Workspace(allowed_roots=[data], output_dir=out),
                          policy=policy)


async def ok(layer: CloudGMCPLayer, name: str, arguments: dict[str, Any] | None = None,
             **kwargs: Any) -> dict[str, Any]:
    """Call ``name``; assert it succeeded and its result matches its output schema."""
    result = await layer.call_tool(name, arguments or {}, **kwargs)
    assert not result.is_error, result.text
    schema = layer.registry.tools[name].output_schema
    if schema is not None:
        jsonschema.validate(result.structured, schema)
    assert result.structured is not None
    return result.structured


async def fail(layer: CloudGMCPLayer, name: str, arguments: dict[str, Any] | None = None
               ) -> ToolResult:
    """Call ``name``; assert it returned an error result."""
    result = await layer.call_tool(name, arguments or {})
    assert result.is_error, result.text
    return result


def error_data(result: ToolResult) -> Any:
    return result.meta.get("cloudg/error_data")


def names(items: list[dict[str, Any]], key: str = "name") -> list[Any]:
    return [i[key] for i in items]
