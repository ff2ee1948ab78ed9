"""CloudGConfig: settings shared by the workspace and the layer (roots, limits)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["CloudGConfig"]

ROOTS_ENV = "CLOUDG_MCP_ALLOWED_ROOTS"


def _roots_from_env() -> list[Path]:
    raw = os.environ.get(ROOTS_ENV, "")
    return [Path(p).expanduser() for p in raw.split(os.pathsep) if p.strip()]


@dataclass
class CloudGConfig:
    """Where files may be read (``allowed_roots``) and written (``output_dir``)."""

    allowed_roots: list[Path] = field(default_factory=_roots_from_env)
    output_dir: Path | None = None
    max_datasets: int = 16
