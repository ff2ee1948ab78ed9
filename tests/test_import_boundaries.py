"""The core is framework-free: importing it pulls in no protocol, server or widget code, and
none of its modules imports another cloudg package, in any way. No import circles anywhere.

The import graph is read from the source (``ast``), counting every kind of import: at module
level, inside functions (lazy), and under ``if TYPE_CHECKING:`` (the rules are in
``_import_graph``'s docstring).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
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


def test_a_layer_given_its_collaborators_loads_no_data_stack_catalog_or_estate() -> None:
    loaded = _loaded_after(
        "from cloudg_nb.layer import CloudGMCPLayer, Registry; "
        "policy = type('Policy', (), {'vault': None})(); "
        "CloudGMCPLayer(workspace=object(), policy=policy, registry=Registry())")
    assert "cloudg_nb.layer.layer" in loaded
    assert sorted(m for m in (*HEAVY_MODULES, "cloudg_nb.assembly") if m in loaded) == []


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


# -- the import graph ----------------------------------------------------------------------

REPO = Path(__file__).resolve().parents[1]
#: Where each top-level package's source lives.
SOURCES = {"cloudg_nb": REPO, "cloudg_jupyter": REPO / "jupyter_server_ext"}
#: How an import runs: at module level, inside a function (lazy), or for type checkers only.
MODULE, LAZY, TYPING = "module level", "in a function", "under TYPE_CHECKING"


@dataclass(frozen=True)
class Import:
    """One edge: ``source`` imports ``target`` (both our modules) at ``line``, as ``kind``."""

    source: str
    target: str
    line: int
    kind: str

    def __str__(self) -> str:
        return f"{self.source} -> {self.target} (line {self.line}, {self.kind})"


def _modules() -> dict[str, Path]:
    """Every module of our packages by dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for top, base in SOURCES.items():
        for path in sorted((base / top).rglob("*.py")):
            parts = list(path.relative_to(base).with_suffix("").parts)
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return any((isinstance(n, ast.Name) and n.id == "TYPE_CHECKING")
               or (isinstance(n, ast.Attribute) and n.attr == "TYPE_CHECKING")
               for n in ast.walk(test))


def _import_nodes(tree: ast.Module) -> Iterator[tuple[ast.Import | ast.ImportFrom, str]]:
    """Every import statement of ``tree`` with how it runs (a lazy import under
    ``TYPE_CHECKING`` counts as typing)."""
    pending: list[tuple[ast.AST, str]] = [(node, MODULE) for node in tree.body]
    while pending:
        node, kind = pending.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, kind
            continue
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            pending.extend((child, TYPING) for child in node.body)
            pending.extend((child, kind) for child in node.orelse)
            continue
        inner = LAZY if kind == MODULE and isinstance(
            node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) else kind
        pending.extend((child, inner) for child in ast.iter_child_nodes(node))


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute name ``from <node.module>`` means inside ``module``."""
    if not node.level:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    anchor = package[: len(package) - node.level + 1]
    return ".".join([*anchor, *([node.module] if node.module else [])])


def _import_graph() -> list[Import]:
    """Every import between our modules (``cloudg_nb``, ``cloudg_jupyter``), of every kind.

    What an import statement counts as:
    - ``import a.b.c``: an edge to ``a.b.c`` (the deepest of ``a.b.c``, ``a.b``, ``a`` that is
      ours);
    - ``from p import n``: an edge to the submodule ``p.n`` when there is one, else to ``p``
      itself (``n`` is a name ``p`` defines or re-exports in its ``__init__``); relative
      imports are resolved first;
    - the packages Python runs before a module (``a/__init__`` before ``a.b``) are no edges:
      otherwise every package that re-exports its submodules would be a circle with each of
      them. So a package importing its own submodules is no circle, unless one of them
      imports the package (a name from its ``__init__``) back, which is an explicit edge.
    Names a package loads on first use (``layer.lazy_names``) are imported again under
    ``TYPE_CHECKING`` for type checkers, so those imports count too.
    """
    modules = _modules()
    edges: list[Import] = []
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_package = path.name == "__init__.py"
        for node, kind in _import_nodes(tree):
            if isinstance(node, ast.Import):
                targets = []
                for alias in node.names:
                    target = alias.name
                    while target and target not in modules:
                        target = target.rpartition(".")[0]
                    targets.append(target)
            else:
                base = _absolute(name, is_package, node)
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules
                           else base for alias in node.names]
            edges.extend(Import(name, target, node.lineno, kind) for target in targets
                         if target in modules and target != name)
    return edges


def _circles(edges: list[Import]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    graph: dict[str, set[str]] = {}
    for edge in edges:
        graph.setdefault(edge.source, set()).add(edge.target)
        graph.setdefault(edge.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def _described(circle: frozenset[str], edges: list[Import]) -> str:
    inside = sorted({str(e) for e in edges if e.source in circle and e.target in circle})
    return f"{sorted(circle)}:\n    " + "\n    ".join(inside)


# -- the core imports no other cloudg package ---------------------------------------------

def _in_layer(module: str) -> bool:
    return module == "cloudg_nb.layer" or module.startswith("cloudg_nb.layer.")


def _imports_of_the_layer() -> list[Import]:
    """Every import, of every kind, by a module of ``cloudg_nb.layer``, by absolute name
    (resolved as in ``_import_graph``), whether or not the imported module exists."""
    modules = _modules()
    found: list[Import] = []
    for name, path in modules.items():
        if not _in_layer(name):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node, kind in _import_nodes(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = _absolute(name, path.name == "__init__.py", node)
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules
                           else base for alias in node.names]
            found.extend(Import(name, target, node.lineno, kind) for target in targets)
    return found


def test_the_layer_imports_no_other_cloudg_package_in_any_way() -> None:
    outward = [e for e in _imports_of_the_layer()
               if e.target.startswith("cloudg") and not _in_layer(e.target)]
    assert not outward, "cloudg_nb.layer imports other cloudg modules:\n" + "\n".join(
        map(str, outward))


def test_the_layer_imports_no_edge_framework_in_any_way() -> None:
    edges = [e for e in _imports_of_the_layer() if e.target.split(".")[0] in EDGE_MODULES]
    assert not edges, "cloudg_nb.layer imports edge frameworks:\n" + "\n".join(map(str, edges))


def test_the_import_graph_sees_every_kind_of_import() -> None:
    # the boundary test above is only as good as the graph: each kind of import is found
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "from .a import x\n"
        "if TYPE_CHECKING:\n    from ..b import y\n"
        "def f():\n    import cloudg_nb.c\n"
        "class K:\n    def g(self):\n        from . import d\n"
        "    if TYPE_CHECKING:\n        from .e import z\n")
    found = {(n.module if isinstance(n, ast.ImportFrom) else n.names[0].name, kind)
             for n, kind in _import_nodes(tree)}
    assert found == {("typing", MODULE), ("a", MODULE), ("b", TYPING), ("cloudg_nb.c", LAZY),
                     (None, LAZY), ("e", TYPING)}
    node = ast.parse("from .. import __version__").body[0]
    assert isinstance(node, ast.ImportFrom)
    assert _absolute("cloudg_nb.layer.layer", False, node) == "cloudg_nb"
    assert _absolute("cloudg_nb.layer", True, node) == "cloudg_nb"


# -- no import circles ---------------------------------------------------------------------

def test_no_import_circle_in_either_package() -> None:
    """Counting lazy and TYPE_CHECKING imports: a circle means two modules cannot be read (or
    moved) apart, so there are none."""
    edges = _import_graph()
    circles = _circles(edges)
    assert not circles, "import circles:\n" + "\n".join(_described(c, edges) for c in circles)


def test_the_circle_finder_finds_each_circle_once() -> None:
    def edge(a: str, b: str) -> Import:
        return Import(a, b, 1, MODULE)

    edges = [edge("a", "b"), edge("b", "c"), edge("c", "a"), edge("c", "d"),
             edge("d", "e"), edge("e", "d"), edge("f", "a")]
    assert sorted(sorted(c) for c in _circles(edges)) == [["a", "b", "c"], ["d", "e"]]


def _subpackage(module: str) -> str:
    """``cloudg_nb.layer.specs`` -> ``cloudg_nb.layer``; top-level modules stand alone."""
    return ".".join(module.split(".")[:2])


def test_no_import_cycles_between_subpackages_of_cloudg_nb() -> None:
    # The root package only re-exports (it imports the core's defaults seam and version).
    edges = [Import(_subpackage(e.source), _subpackage(e.target), e.line, e.kind)
             for e in _import_graph()
             if e.source.startswith("cloudg_nb.") and e.target.startswith("cloudg_nb.")
             and _subpackage(e.source) != _subpackage(e.target)]
    circles = _circles(edges)
    assert not circles, "subpackage circles:\n" + "\n".join(
        _described(c, edges) for c in circles)
