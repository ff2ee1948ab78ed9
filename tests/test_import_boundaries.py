"""The core is framework-free: importing it pulls in no protocol, server or widget code."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

EDGE_MODULES = ("mcp", "tornado", "IPython", "ipywidgets", "jupyter_server", "starlette")


#: Both packages load their names on first use: ``import *`` loads every one of them.
EVERY_NAME = {"cloudg_nb.layer": "from cloudg_nb.layer import *", "cloudg_nb": "import cloudg_nb"}


@pytest.mark.parametrize("module", ["cloudg_nb.layer", "cloudg_nb"])
def test_importing_the_core_imports_no_edge_framework(module: str) -> None:
    code = (
        f"{EVERY_NAME[module]}; import sys, json; "
        f"print(json.dumps(sorted(set({EDGE_MODULES!r}) & set(sys.modules))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_public_api_is_reexported_from_the_package() -> None:
    import cloudg_nb

    names = [
        "CloudGMCPLayer", "CallInfo", "Registry", "ToolSpec", "ResourceSpec",
        "ResourceTemplateSpec", "PromptSpec", "PromptArgument", "ToolResult", "TextContent",
        "ImageContent", "AudioContent", "ResourceLink", "EmbeddedResource",
        "TextResourceContents", "BlobResourceContents", "PromptMessage", "PromptResult",
        "Principal", "ToolContext", "MCPLayerError", "InvalidArgumentsError", "NotFoundError",
        "AccessDeniedError", "RateLimitedError", "Sensitivity", "Capability", "Policy",
        "Workspace", "TransformContext", "Pipeline", "default_registry", "AuditLogMiddleware",
        "MetricsMiddleware", "CachingMiddleware", "ConcurrencyLimitMiddleware", "RetryMiddleware",
    ]
    missing = [n for n in names if not hasattr(cloudg_nb, n)]
    assert missing == []
    assert set(names) <= set(cloudg_nb.__all__)


def test_domain_and_privacy_types_are_importable_from_the_package() -> None:
    import cloudg_nb
    from cloudg_nb.estate import Dataset, DatasetLoadError
    from cloudg_nb.transforms.vault import Vault

    assert cloudg_nb.Dataset is Dataset
    assert cloudg_nb.DatasetLoadError is DatasetLoadError
    assert cloudg_nb.Vault is Vault
    assert {"PolicyError", "InputRejectedError", "NoDatasetError"} <= set(cloudg_nb.__all__)


# -- the core loads alone -----------------------------------------------------------------

#: What the layer must never load: the data stack, policy files' parser, the domain and tools.
HEAVY_MODULES = ("pandas", "numpy", "yaml", "mcp", "cloudg_nb.catalog", "cloudg_nb.estate",
                 "cloudg_nb.policy", "cloudg_nb.transforms", "cloudg_nb.workspace")
#: Third-party distributions the layer may import: pydantic and what pydantic itself imports.
PYDANTIC_PARTS = {"pydantic", "pydantic_core", "typing_extensions", "annotated_types",
                  "typing_inspection"}
# (How long the import takes is measured by bench/import_time.py, next to the MCP SDK's and
# FastMCP's imports, against its 150 ms target: a speed target is a benchmark's figure, not a
# timed test that a busy machine fails.)


def _fresh_interpreter(code: str) -> str:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout


def _loaded_after(statement: str) -> set[str]:
    out = _fresh_interpreter(
        f"{statement}; import sys, json; print(json.dumps(sorted(sys.modules)))")
    return set(json.loads(out))


def _loaded_after_import(module: str) -> set[str]:
    return _loaded_after(f"import {module}")


def test_importing_the_layer_loads_no_data_stack_catalog_or_estate() -> None:
    loaded = _loaded_after(EVERY_NAME["cloudg_nb.layer"])
    assert sorted(m for m in HEAVY_MODULES if m in loaded) == []


def test_importing_the_layer_loads_only_the_standard_library_and_pydantic() -> None:
    loaded = _loaded_after(EVERY_NAME["cloudg_nb.layer"])
    assert "cloudg_nb.layer.layer" in loaded and "pydantic" in loaded  # the names did load
    # ``site``'s start-up modules load before the import; ``_sysconfigdata_*`` is the
    # interpreter's generated build data that the stdlib ``sysconfig`` reads.
    before = _loaded_after_import("sys")
    tops = {m.split(".")[0] for m in loaded - before if not m.startswith("_sysconfigdata_")}
    assert tops - set(sys.stdlib_module_names) - PYDANTIC_PARTS == {"cloudg_nb"}
    ours = {m for m in loaded if m.startswith("cloudg_nb.")}
    assert {m for m in ours if not m.startswith("cloudg_nb.layer")} == set()


def test_importing_the_package_loads_no_data_stack_catalog_or_estate() -> None:
    loaded = _loaded_after_import("cloudg_nb")
    assert sorted(m for m in HEAVY_MODULES if m in loaded) == []


def test_every_exported_name_resolves_from_the_lazy_package() -> None:
    code = ("import cloudg_nb, json; "
            "print(json.dumps([n for n in cloudg_nb.__all__ if not hasattr(cloudg_nb, n)]))")
    assert json.loads(_fresh_interpreter(code)) == []


def test_every_name_of_the_lazy_layer_resolves_and_the_wire_constants_load_alone() -> None:
    code = ("import cloudg_nb.layer as layer, json; "
            "print(json.dumps([n for n in layer.__all__ if not hasattr(layer, n)]))")
    assert json.loads(_fresh_interpreter(code)) == []
    # what a kernel's remote client needs from the core: the wire constants, not the core
    # (the package root itself loads its lazy names, its version and the defaults seam)
    loaded = _loaded_after("import cloudg_nb.layer.wire")
    assert {m for m in loaded if m.startswith("cloudg_nb.layer.")} == {
        "cloudg_nb.layer.wire", "cloudg_nb.layer.lazy_names", "cloudg_nb.layer.version",
        "cloudg_nb.layer.defaults"}
    assert "pydantic" not in loaded


def test_an_unknown_package_attribute_raises_attribute_error() -> None:
    import cloudg_nb

    with pytest.raises(AttributeError, match="no_such_name"):
        _ = cloudg_nb.no_such_name  # type: ignore[attr-defined]


# -- no import cycles ----------------------------------------------------------------------

PACKAGE_ROOT = Path(__file__).resolve().parents[1] / "cloudg_nb"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _module_level_statements(tree: ast.Module) -> Iterator[ast.stmt]:
    """Statements run at import: the body, both arms of ``if``/``try``, never
    ``if TYPE_CHECKING:`` blocks (annotations only) nor function bodies (lazy imports)."""
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.If):
            if "TYPE_CHECKING" not in ast.unparse(node.test):
                pending.extend([*node.body, *node.orelse])
        elif isinstance(node, ast.Try):
            pending.extend([*node.body, *node.orelse, *node.finalbody])
            for handler in node.handlers:
                pending.extend(handler.body)
        else:
            yield node


def _module_imports() -> dict[str, set[str]]:
    """Each cloudg_nb module -> the cloudg_nb modules its module-level imports load."""
    paths = {_module_name(p): p for p in PACKAGE_ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in _module_level_statements(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                found.add(base)
                found.update(f"{base}.{alias.name}" for alias in node.names)
        graph[name] = {m for m in found if m in paths and m != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _subpackage(module: str) -> str:
    """``cloudg_nb.layer.specs`` -> ``cloudg_nb.layer``; top-level modules stand alone."""
    return ".".join(module.split(".")[:2])


def test_no_import_cycles_between_subpackages() -> None:
    # The root package is lazy (it imports nothing at module level) and is left out.
    graph: dict[str, set[str]] = {}
    for module, imported in _module_imports().items():
        if module == "cloudg_nb":
            continue
        graph.setdefault(_subpackage(module), set()).update(
            _subpackage(m) for m in imported
            if m != "cloudg_nb" and _subpackage(m) != _subpackage(module))
    assert _cycles(graph) == []


def test_no_import_cycles_between_modules() -> None:
    graph = {m: deps - {"cloudg_nb"} for m, deps in _module_imports().items() if m != "cloudg_nb"}
    assert _cycles(graph) == []


def test_the_layer_imports_no_other_cloudg_nb_package_at_module_level() -> None:
    imports = _module_imports()
    outward = {(m, d) for m, deps in imports.items() if m.startswith("cloudg_nb.layer")
               for d in deps if not d.startswith("cloudg_nb.layer")}
    assert outward == set()
