"""Every module of the test suite is imported under one name: ``tests.<its path>``.

A helper reachable under two names (``protocol.harness`` and ``tests.protocol.harness``) is
loaded twice: two copies of its globals, and ``isinstance`` failing across them. Every folder
of ``tests/`` is a package, so siblings import relatively and the rest as ``tests.…``.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
#: Not the suite's modules: client scripts run by other venvs, and npm's packages.
OUTSIDE = (TESTS / "clients" / "python", TESTS / "clients" / "node")


def suite_files() -> Iterator[Path]:
    for path in sorted(TESTS.rglob("*.py")):
        if not any(path.is_relative_to(folder) for folder in OUTSIDE):
            yield path


def dotted_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def local_names() -> set[str]:
    """Top-level names a module of ``tests/`` could be reached by if ``tests/`` or one of
    its folders were on ``sys.path``: every folder and module name in it."""
    names = {path.stem for path in suite_files()} | {
        path.parent.name for path in suite_files() if path.parent != TESTS
    }
    return names - {"__init__", "conftest", "tests"}


def absolute_imports(path: Path) -> Iterator[tuple[int, str]]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module


def test_every_folder_of_the_suite_is_a_package() -> None:
    folders = {path.parent for path in suite_files()}
    assert sorted(str(f.relative_to(ROOT)) for f in folders
                  if not (f / "__init__.py").exists()) == []


def test_no_module_of_the_suite_imports_another_by_a_name_outside_the_tests_package() -> None:
    names = local_names()
    wrong = [
        f"{path.relative_to(ROOT)}:{line}: import {module} (use tests.… or a relative import)"
        for path in suite_files()
        for line, module in absolute_imports(path)
        if module.split(".")[0] in names
    ]
    assert wrong == []


def test_every_loaded_module_of_the_suite_has_its_package_name() -> None:
    """Checked against ``sys.modules`` after collection: a run of the whole suite imports every
    test module and helper; each is loaded once, as ``tests.<path>``."""
    loaded = [
        (name, Path(file).resolve())
        for name, module in list(sys.modules.items())
        if (file := getattr(module, "__file__", None))
        and Path(file).resolve().is_relative_to(TESTS)
    ]
    assert loaded, "the suite's own modules should be in sys.modules"
    misnamed = sorted(f"{name} ({path.relative_to(ROOT)})" for name, path in loaded
                      if name != dotted_name(path))
    assert misnamed == []


@pytest.mark.parametrize("module", ["tests.protocol.harness", "tests.jupyter.server"])
def test_the_shared_harness_is_loaded_once(module: str) -> None:
    __import__(module)
    file = Path(sys.modules[module].__file__ or "").resolve()
    twins = [name for name, loaded in list(sys.modules.items())
             if name != module and getattr(loaded, "__file__", None)
             and Path(loaded.__file__ or "").resolve() == file]
    assert twins == []
