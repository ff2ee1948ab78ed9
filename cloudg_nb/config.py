"""CloudGConfig: settings shared by the workspace and the layer (roots, output, limits).

``allowed_roots`` come from ``$CLOUDG_MCP_ALLOWED_ROOTS`` (``os.pathsep``-separated) unless
given; when empty the workspace allows the current directory (unless that is the file-system
root) and the output directory.
``output_dir`` (``$CLOUDG_MCP_OUTPUT_DIR``, else ``./cloudg-output``) is the only place the
workspace writes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["CloudGConfig", "ROOTS_ENV", "OUTPUT_ENV", "DEFAULT_OUTPUT_DIR",
           "MAX_ASSETS_ENV",
           "MAX_DATASETS_ENV"]

ROOTS_ENV = "CLOUDG_MCP_ALLOWED_ROOTS"
OUTPUT_ENV = "CLOUDG_MCP_OUTPUT_DIR"
DEFAULT_OUTPUT_DIR = "cloudg-output"
MAX_ASSETS_ENV = "CLOUDG_MCP_MAX_ASSETS"
MAX_DATASETS_ENV = "CLOUDG_MCP_MAX_DATASETS"
DEFAULT_MAX_TOTAL_ASSETS = 500_000
DEFAULT_MAX_DATASETS = 16
#: An assistant's own share of the workspace: datasets, and assets across them.
DEFAULT_ASSISTANT_MAX_DATASETS = 4
DEFAULT_ASSISTANT_MAX_ASSETS = 200_000


def _roots_from_env() -> list[Path]:
    raw = os.environ.get(ROOTS_ENV, "")
    return [Path(p).expanduser() for p in raw.split(os.pathsep) if p.strip()]


def _max_assets_from_env() -> int:
    raw = os.environ.get(MAX_ASSETS_ENV, "").strip()
    return int(raw) if raw.isdigit() else DEFAULT_MAX_TOTAL_ASSETS


def _max_datasets_from_env() -> int:
    raw = os.environ.get(MAX_DATASETS_ENV, "").strip()
    return int(raw) if raw.isdigit() and int(raw) >= 1 else DEFAULT_MAX_DATASETS


def _output_from_env() -> Path | None:
    raw = os.environ.get(OUTPUT_ENV, "").strip()
    return Path(raw).expanduser() if raw else None


@dataclass
class CloudGConfig:
    """Where files may be read (``allowed_roots``) and written (``output_dir``), and how many
    datasets the workspace keeps: the analyst's (``max_datasets``, ``max_total_assets``; past
    them the analyst's oldest inactive dataset is evicted) and each assistant's own share
    (``assistant_max_datasets``, ``assistant_max_assets``; past them an assistant's load is
    refused: nothing of anyone's is evicted for it)."""

    allowed_roots: list[Path] = field(default_factory=_roots_from_env)
    output_dir: Path | None = field(default_factory=_output_from_env)
    max_datasets: int = field(default_factory=_max_datasets_from_env)
    #: Assets all datasets may hold together (memory guard; ≈ 2-3 KB each in memory). Past it
    #: the oldest inactive datasets are evicted; one dataset larger than it is refused.
    max_total_assets: int = field(default_factory=_max_assets_from_env)
    assistant_max_datasets: int = DEFAULT_ASSISTANT_MAX_DATASETS
    #: Assets one assistant's datasets may hold together (0: no cap of its own).
    assistant_max_assets: int = DEFAULT_ASSISTANT_MAX_ASSETS
    #: Where whoever runs this workspace allows more folders to read from, and sets the output
    #: folder, in words an error can name: the environment here; the Jupyter extension sets
    #: its traits (``c.CloudGExtension.allowed_roots`` ...).
    roots_setting: str = f"the environment variable {ROOTS_ENV}"
    output_setting: str = f"the environment variable {OUTPUT_ENV}"

    def output_root(self) -> Path:
        """The absolute output directory (``./cloudg-output`` when unset); not created."""
        base = Path(self.output_dir) if self.output_dir is not None else \
            Path.cwd() / DEFAULT_OUTPUT_DIR
        return base.expanduser().resolve()

    def read_roots(self) -> list[Path]:
        """Absolute, symlink-resolved roots reads must stay under; the output root included."""
        roots = [Path(r).expanduser() for r in self.allowed_roots]
        if not roots and Path.cwd() != Path(Path.cwd().anchor):
            roots = [Path.cwd()]  # never the whole disk implicitly (servers started from /)
        out = self.output_root()
        resolved = [r.resolve() for r in roots]
        if out not in resolved:
            resolved.append(out)
        return resolved
