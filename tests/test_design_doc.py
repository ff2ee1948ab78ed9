"""docs/DESIGN.md matches the code: every path it names exists, and it names every package and
top-level module of ``cloudg_nb`` and every module of ``cloudg_jupyter``."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "DESIGN.md"
EXTENSION = ROOT / "jupyter_server_ext" / "cloudg_jupyter"
#: A repository path in backticks: `cloudg_nb/layer/`, `tests/notebook/test_mcp_http.py`.
PATH = re.compile(r"`((?:cloudg_nb|jupyter_server_ext|labextension|tests|docs|bench)/[\w./-]*)`")


def _text() -> str:
    return DOC.read_text(encoding="utf-8")


def test_every_path_the_design_names_exists() -> None:
    named = PATH.findall(_text())
    assert len(named) > 20
    missing = [path for path in named if not (ROOT / path).exists()]
    assert not missing, f"docs/DESIGN.md names paths that do not exist: {missing}"


def test_the_design_names_every_package_and_top_level_module() -> None:
    named = set(PATH.findall(_text()))
    package = ROOT / "cloudg_nb"
    expected = {f"cloudg_nb/{p.name}/" for p in package.iterdir()
                if (p / "__init__.py").is_file()}
    expected |= {f"cloudg_nb/{p.name}" for p in package.glob("*.py")
                 if p.name not in ("__init__.py", "__main__.py")}
    missing = sorted(expected - named)
    assert not missing, f"docs/DESIGN.md does not say what these are: {missing}"


def test_the_design_names_every_module_of_the_extension() -> None:
    text = _text()
    modules = [p.name for p in EXTENSION.glob("*.py") if p.name != "__init__.py"]
    missing = sorted(name for name in modules if f"`{name}`" not in text
                     and f"cloudg_jupyter/{name}`" not in text)
    assert not missing, f"docs/DESIGN.md does not say what these are: {missing}"


def test_the_one_hand_written_json_rpc_client_is_explained_with_its_conformance_tests() -> None:
    text = _text()
    assert "`cloudg_nb/notebook/mcp_http.py`" in text
    assert "`tests/notebook/test_mcp_http.py`" in text
