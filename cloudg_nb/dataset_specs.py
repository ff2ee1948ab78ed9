"""Dataset specs: ``NAME=PATH`` (an estate file or folder) or ``NAME=sample:KIND`` (a generated
sample estate), as ``cloudg-nb --dataset`` and ``CloudGExtension.datasets`` take them.

``parse_dataset_spec`` reads one; ``DatasetSpec.load`` loads it through the layer's own tools
(``load_dataset`` / ``sample_estate``), so policy, audit and path safety apply as to any call.
Each caller words its own errors and decides what a failed load means.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .layer import CloudGMCPLayer, ToolResult

__all__ = ["SAMPLE_PREFIX", "DatasetSpec", "DatasetSpecError", "parse_dataset_spec"]

#: A PATH starting with this names a generated sample estate (``sample:demo``).
SAMPLE_PREFIX = "sample:"


class DatasetSpecError(ValueError):
    """A spec that is not ``NAME=PATH`` (a name and a path, both non-empty)."""


@dataclass(frozen=True)
class DatasetSpec:
    """One dataset to load: ``name`` in the workspace, from ``source`` (a path, or the kind
    of sample estate when ``sample``)."""

    name: str
    source: str
    sample: bool = False

    @property
    def tool(self) -> str:
        """The catalog tool that loads it (unprefixed)."""
        return "sample_estate" if self.sample else "load_dataset"

    def arguments(self) -> dict[str, Any]:
        """The arguments of ``tool``."""
        if self.sample:
            return {"name": self.source, "dataset_name": self.name}
        return {"path": self.source, "name": self.name}

    async def load(self, layer: CloudGMCPLayer) -> ToolResult:
        """Call ``tool`` on ``layer`` (under its name prefix) as the layer's local user;
        raises what ``call_tool`` raises (``NotFoundError``: the catalog lacks the tool)."""
        return await layer.call_tool(layer.exposed_name(self.tool), self.arguments())


def parse_dataset_spec(text: str) -> DatasetSpec:
    """The spec ``text`` names; ``DatasetSpecError`` when it is not ``NAME=PATH``."""
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise DatasetSpecError("a dataset is NAME=PATH or NAME=sample:KIND")
    if path.startswith(SAMPLE_PREFIX):
        return DatasetSpec(name, path[len(SAMPLE_PREFIX):], sample=True)
    return DatasetSpec(name, path)
