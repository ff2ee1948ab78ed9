"""The extension stands below the console script: no module of ``cloudg_jupyter`` imports
``cloudg_nb.cli``, at module level, inside a function or under TYPE_CHECKING (what both need,
dataset specs and registry loading, lives in ``cloudg_nb`` below both)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "jupyter_server_ext" / "cloudg_jupyter"
CLI = "cloudg_nb.cli"


def _cli_imports(source: str) -> list[str]:
    """Every import of the CLI package or a module in it, wherever it stands, and every
    string naming one (``importlib.import_module``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names = [node.value]
        found += [f"line {node.lineno}: {name}" for name in names
                  if name == CLI or name.startswith(CLI + ".")]
    return found


def test_no_module_of_the_extension_imports_the_console_script() -> None:
    offences = [f"{path.name} {use}" for path in sorted(PACKAGE.glob("*.py"))
                for use in _cli_imports(path.read_text(encoding="utf-8"))]
    assert offences == [], "cloudg_jupyter imports the CLI:\n" + "\n".join(offences)


def test_the_scan_finds_imports_in_functions_and_under_type_checking() -> None:
    source = '''
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from cloudg_nb.cli.args import UsageError
def load():
    from cloudg_nb import cli
    import cloudg_nb.cli.parser
    from cloudg_nb.cli import load_registry
    return importlib.import_module("cloudg_nb.cli")
'''
    lines = {int(use.split(":")[0].removeprefix("line ")) for use in _cli_imports(source)}
    assert lines == {4, 6, 7, 8, 9}
