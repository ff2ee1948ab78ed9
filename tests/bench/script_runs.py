"""Running a bench script the way its smoke tests need: as ``__main__`` in a fresh
interpreter from the repository root, optionally with a peer library made unimportable (to
check the script's install hint when that peer is missing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_without(script: Path, module: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run ``script`` as ``__main__`` with ``module`` unimportable (as if not installed)."""
    code = (f"import runpy, sys; sys.modules[{module!r}] = None; "
            f"runpy.run_path({str(script)!r}, run_name='__main__')")
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, check=False)
