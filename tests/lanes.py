"""What a test starts, named by the markers that choose its lane.

``server`` (a Jupyter or MCP server process), ``kernel`` (an IPython kernel), ``browser``
(Chromium), ``clients`` (the external client frameworks: their venvs, Node). The fast lane is
``-m "not server and not kernel and not browser and not clients"``.

``kinds_reached(item)`` reads a test's kinds off its code before it runs: its folder
(``FOLDERS``), explicit marks, and the helpers (``STARTERS``) that its function and its
fixtures' functions call, following the functions and classes of the suite they name.
``kinds_of_command(argv)`` says which kinds a process is; ``tests/process_guard.py`` uses it
to refuse, at run time, a process whose kind the test is not marked for.
"""

from __future__ import annotations

import inspect
import sys
import types
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

KINDS = ("server", "kernel", "browser", "clients")
ROOT = Path(__file__).resolve().parents[1]

#: Helpers (module.qualname) that start a process of these kinds, whoever calls them.
STARTERS: dict[str, frozenset[str]] = {
    "tests.jupyter.server.start_on_free_port": frozenset({"server"}),
    "tests.jupyter.server.jupyter_server": frozenset({"server"}),
    "tests.protocol.harness.ServerProcess": frozenset({"server"}),
    "tests.protocol.harness.serve_argv": frozenset({"server"}),
    "tests.browser.lab.jupyter_lab": frozenset({"server"}),
    "tests.browser.chrome.headless_chromium": frozenset({"browser"}),
    "tests.notebook.kernel.notebook_server": frozenset({"server", "kernel"}),
    "tests.notebook.kernel.server_kernel": frozenset({"kernel"}),
    "tests.conformance.runner.ensure_suite": frozenset({"clients"}),
    "mcp.client.stdio.StdioServerParameters": frozenset({"server"}),
    "mcp.client.stdio.stdio_client": frozenset({"server"}),
    "nbclient.client.NotebookClient": frozenset({"kernel"}),
    "tests.conformance.runner.run_suite": frozenset({"clients"}),
    # Parametrised over stdio (a server subprocess) and HTTP (``http_server``, requested
    # through ``request.getfixturevalue``, which no code reading sees).
    "tests.protocol.conftest.session": frozenset({"server"}),
}

#: Helpers that start a process of these kinds when code calling them holds this literal.
STARTERS_GIVEN: dict[str, tuple[str, frozenset[str]]] = {
    "tests.protocol.harness.open_session": ("stdio", frozenset({"server"})),
    "tests.protocol.harness.make_client": ("stdio", frozenset({"server"})),
}

#: Every test under these folders of ``tests/`` is of these kinds.
FOLDERS: dict[str, frozenset[str]] = {
    "browser": frozenset({"browser"}),
    "clients": frozenset({"clients"}),
}


def qualified(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', '')}"


def _names(code: types.CodeType) -> Iterator[str]:
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def _literals(code: types.CodeType) -> Iterator[object]:
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _literals(const)
        else:
            yield const


def _functions(obj: Any) -> Iterator[types.FunctionType]:
    """The plain functions inside a function or class (unwrapped)."""
    if inspect.isclass(obj):
        for member in vars(obj).values():
            if isinstance(member, staticmethod | classmethod):
                member = member.__func__
            elif isinstance(member, property):
                member = member.fget
            if member is not None:
                yield from _functions(member)
        return
    obj = inspect.unwrap(obj) if callable(obj) else obj
    if isinstance(obj, types.FunctionType):
        yield obj


_REACHED: dict[Any, frozenset[str]] = {}


def reached(obj: Any) -> frozenset[str]:
    """Kinds that calling ``obj`` starts: ``obj`` itself in ``STARTERS``, or a starter named
    in its code or in the code of a function or class of the suite (``tests.…``) it names."""
    key = getattr(obj, "__code__", None) or obj
    if key not in _REACHED:
        _REACHED[key] = frozenset(_reached(obj, set()))
    return _REACHED[key]


def _reached(obj: Any, seen: set[int]) -> set[str]:
    if id(obj) in seen:
        return set()
    seen.add(id(obj))
    if qualified(obj) in STARTERS:
        return set(STARTERS[qualified(obj)])
    kinds: set[str] = set()
    for function in _functions(obj):
        if qualified(function) in STARTERS:
            kinds |= STARTERS[qualified(function)]
            continue
        names = set(_names(function.__code__))
        literals: set[object] | None = None
        for name in names:
            # A global, or a module imported inside the function (``from tests.x import y``
            # names both ``tests.x`` and ``y``).
            found = function.__globals__.get(name) or sys.modules.get(name)
            candidates = [found]
            if isinstance(found, types.ModuleType) and found.__name__.startswith("tests."):
                candidates = [getattr(found, attr, None) for attr in names]
            for candidate in candidates:
                if candidate is None:
                    continue
                if qualified(candidate) in STARTERS:
                    kinds |= STARTERS[qualified(candidate)]
                elif qualified(candidate) in STARTERS_GIVEN:
                    literal, given = STARTERS_GIVEN[qualified(candidate)]
                    literals = set(_literals(function.__code__)) if literals is None else literals
                    if literal in literals:
                        kinds |= given
                elif (str(getattr(candidate, "__module__", "")).startswith("tests.")
                      and (inspect.isclass(candidate) or callable(candidate))):
                    kinds |= _reached(candidate, seen)
    return kinds


def kinds_reached(item: pytest.Item) -> set[str]:
    kinds: set[str] = set()
    path = Path(str(item.path)).resolve()
    if path.is_relative_to(ROOT / "tests"):
        parts = path.relative_to(ROOT / "tests").parts
        if len(parts) > 1:
            kinds |= FOLDERS.get(parts[0], frozenset())
    function = getattr(item, "function", None)
    if function is not None:
        kinds |= reached(function)
    info = getattr(item, "_fixtureinfo", None)
    for name in getattr(item, "fixturenames", ()):
        definitions = info.name2fixturedefs.get(name) if info is not None else None
        if definitions:
            kinds |= reached(definitions[-1].func)
    return kinds


def kinds_marked(item: pytest.Item) -> set[str]:
    return {kind for kind in KINDS if item.get_closest_marker(kind) is not None}


# --- processes --------------------------------------------------------------------------

PYTHON_OPTIONS_WITH_VALUE = {"-W", "-X", "--check-hash-based-pycs"}
JUPYTER_SERVERS = {"jupyter_server", "jupyterlab", "notebook"}
KERNELS = {"ipykernel_launcher", "ipykernel"}
BROWSERS = {"chromium", "chromium-browser", "chrome", "google-chrome", "chromedriver",
            "headless_shell"}
NODE = {"node", "npm", "npx"}
#: ``jupyter server|lab …`` subcommands that do not serve.
SUBCOMMANDS = {"extension", "list", "stop", "password", "build", "path", "paths", "workspaces"}


def _python_target(args: Sequence[str]) -> tuple[str, str, list[str]]:
    """``("-m", module, rest)``, ``("-c", code, rest)`` or ``("", script, rest)``."""
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in ("-m", "-c"):
            return arg, args[index + 1] if index + 1 < len(args) else "", list(args[index + 2:])
        if arg in PYTHON_OPTIONS_WITH_VALUE:
            index += 2
            continue
        if arg.startswith("-"):
            index += 1
            continue
        return "", arg, list(args[index + 1:])
    return "", "", []


def _starts_a_server(program: str, args: Sequence[str]) -> bool:
    """``cloudg-nb … serve|lab`` and ``jupyter server|lab|notebook`` (not their subcommands,
    e.g. ``jupyter server extension list``)."""
    words = [arg for arg in args if not arg.startswith("-")]
    if program == "cloudg_nb":
        return "serve" in words or "lab" in words
    if program == "jupyter":
        return bool(words) and words[0] in ("server", "lab", "notebook") and (
            len(words) == 1 or words[1] not in SUBCOMMANDS)
    return program in JUPYTER_SERVERS and not (words and words[0] in SUBCOMMANDS)


def kinds_of_command(argv: Sequence[str]) -> set[str]:
    """The kinds a process with this command line is (empty for any other process)."""
    if not argv:
        return set()
    executable = Path(str(argv[0]))
    name = executable.name
    args = [str(arg) for arg in argv[1:]]
    if name in BROWSERS:
        return {"browser"}
    if name in NODE:
        return {"clients"}
    if name == "make":
        return {"server"}
    if any(part.startswith(".venv-clients") for part in executable.parts):
        return {"clients"}
    if name.startswith("python") or str(executable) == sys.executable:
        how, target, rest = _python_target(args)
        if how == "-m":
            module = target.split(".")[0]
            if module in KERNELS:
                return {"kernel"}
            if _starts_a_server(module, rest):
                return {"server"}
        elif how == "" and target:
            script = Path(target).name.removesuffix(".py").replace("-", "_")
            if _starts_a_server(script, rest) or script in ("jupyter_lab", "jupyter_server"):
                return {"server"}
        return set()
    program = name.replace("-", "_")
    if program in ("jupyter_lab", "jupyter_server", "jupyter_notebook"):
        return {"server"}
    if _starts_a_server(program, args):
        return {"server"}
    return set()
