"""The committed JupyterLab extension (labextension/prebuilt/) is exactly what its sources
build: a copy of the sources and package-lock.json, installed with `npm ci` and built with
`npm run build` in a temporary folder, gives the same files, byte for byte. So CI fails when
the shipped bundle does not match its sources. Needs Node.js and npm (`make client-deps`
checks for them) and the npm registry or a warm npm cache.
"""

from __future__ import annotations

import filecmp
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.test_labextension_bundle import PREBUILT, REBUILD, SOURCE, SOURCE_DIRS, SOURCE_FILES

#: What it starts (npm, Node): tests/lanes.py.
pytestmark = [pytest.mark.npm, pytest.mark.clients]

#: npm ci of ~220 packages with a cold cache on a slow line, then the build.
TIMEOUT = 600


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        raise RuntimeError("Rebuilding the lab extension needs Node.js 20.19+ and npm; install "
                           "Node.js (`make client-deps` checks for it)")
    return npm


def _files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def test_building_the_sources_gives_the_committed_bundle_byte_for_byte(tmp_path: Path) -> None:
    npm = _npm()
    work = tmp_path / "labextension"
    work.mkdir()
    for name in SOURCE_FILES:
        shutil.copy2(SOURCE / name, work / name)
    for folder in SOURCE_DIRS:
        shutil.copytree(SOURCE / folder, work / folder)
    for argv in ([npm, "ci", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"],
                 [npm, "run", "build"]):
        done = subprocess.run(argv, cwd=work, capture_output=True, text=True, timeout=TIMEOUT)
        assert done.returncode == 0, f"{' '.join(argv[1:])}:\n{done.stdout[-3000:]}" \
                                     f"\n{done.stderr[-3000:]}"

    rebuilt = work / "prebuilt"
    assert _files(rebuilt) == _files(PREBUILT), f"other files than the committed ones: {REBUILD}"
    _, differ, errors = filecmp.cmpfiles(rebuilt, PREBUILT, sorted(_files(PREBUILT)),
                                         shallow=False)
    assert not differ and not errors, f"{differ + errors} differ from the rebuild: {REBUILD}"
