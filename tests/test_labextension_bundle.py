"""The prebuilt JupyterLab extension in labextension/prebuilt/ (what the wheel installs, so a
machine with Python and no Node gets it) was built from the sources beside it, and the wheel
ships it where JupyterLab looks. Needs no Node: the build records the SHA-256 of its sources
(labextension/scripts/build.mjs), and this recomputes it the same way. The rebuild from the
sources, byte for byte, is tests/clients/test_labextension_build.py (needs npm).
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "labextension"
PREBUILT = SOURCE / "prebuilt"
#: What the bundle is made from (SOURCE_FILES and SOURCE_DIRS of scripts/build.mjs).
SOURCE_FILES = ("package.json", "package-lock.json", "tsconfig.json", "rspack.config.js",
                "install.json")
SOURCE_DIRS = ("src", "style", "scripts")
REBUILD = "run `make labextension` and commit labextension/prebuilt/"


def sources() -> list[str]:
    """The sources' POSIX paths under labextension/, sorted."""
    found = [SOURCE / name for name in SOURCE_FILES]
    for folder in SOURCE_DIRS:
        found += [p for p in (SOURCE / folder).rglob("*") if p.is_file()]
    return sorted(p.relative_to(SOURCE).as_posix() for p in found)


def sources_digest(files: list[str]) -> str:
    digest = hashlib.sha256()
    for name in files:
        digest.update(name.encode() + b"\0")
        digest.update((SOURCE / name).read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_committed_bundle_was_built_from_the_sources_in_the_repository() -> None:
    recorded = load(PREBUILT / "build-sources.json")
    files = sources()
    assert recorded["files"] == files, f"sources were added or removed: {REBUILD}"
    assert recorded["sources_sha256"] == sources_digest(files), f"sources changed: {REBUILD}"


def test_the_bundle_names_an_entry_point_and_style_that_it_holds() -> None:
    built = load(PREBUILT / "package.json")
    build = built["jupyterlab"]["_build"]
    assert (PREBUILT / build["load"]).is_file()
    assert build["extension"] == "./extension" and build["style"] == "./style"
    static = {p.name for p in (PREBUILT / "static").iterdir()}
    assert build["load"].removeprefix("static/") in static
    source = load(SOURCE / "package.json")
    assert {k: v for k, v in built.items() if k != "jupyterlab"} == {
        k: v for k, v in source.items() if k != "jupyterlab"}


def test_the_wheel_installs_the_bundle_where_jupyterlab_finds_it_as_part_of_cloudg_nb() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    shared = pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["shared-data"]
    name = load(SOURCE / "package.json")["name"]
    assert shared["labextension/prebuilt"] == f"share/jupyter/labextensions/{name}"
    install = load(PREBUILT / "install.json")
    assert install == load(SOURCE / "install.json")
    assert install["packageManager"] == "python"
    assert install["packageName"] == pyproject["project"]["name"]
