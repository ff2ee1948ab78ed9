"""What a test starts, named by the markers that choose its lane.

``server`` (a Jupyter or ``cloudg-nb serve`` process), ``kernel`` (an IPython kernel),
``browser`` (Chromium), ``clients`` (the MCP client frameworks: their venvs, Node scripts),
``hub`` (JupyterHub and its proxy; the single-user servers it spawns are ``server``s).
The fast lane, in-process tests only, is ``-m "not server and not kernel and not browser and
not clients and not hub"`` (``FAST_LANE``).

A test has a kind when it is marked so (a decorator, or the module's ``pytestmark``) or when
a fixture it uses is declared with ``@starts(kind)``; ``tests/process_guard.py`` fails a test
that starts a process of a kind it does not have (``kinds_of_command`` says what a process is).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import pytest

KINDS = ("server", "kernel", "browser", "clients", "hub")
FAST_LANE = " and ".join(f"not {kind}" for kind in KINDS)
STARTS = "__lane_kinds__"

F = TypeVar("F", bound=Callable[..., object])


def starts(*kinds: str) -> Callable[[F], F]:
    """Declare that a fixture starts processes of these kinds: every test using it gets their
    markers. Put it under ``@pytest.fixture``."""
    unknown = set(kinds) - set(KINDS)
    if unknown:
        raise ValueError(f"unknown kinds {sorted(unknown)}: one of {KINDS}")

    def declare(function: F) -> F:
        setattr(function, STARTS, frozenset(kinds))
        return function

    return declare


def kinds_marked(item: pytest.Item) -> set[str]:
    return {kind for kind in KINDS if item.get_closest_marker(kind) is not None}


def kinds_of_fixtures(item: pytest.Item) -> set[str]:
    """Kinds declared by the fixtures the test uses (the definition that applies to it)."""
    info = getattr(item, "_fixtureinfo", None)
    kinds: set[str] = set()
    for definitions in (info.name2fixturedefs.values() if info is not None else ()):
        if definitions:
            kinds |= getattr(definitions[-1].func, STARTS, frozenset())
    return kinds


# --- what a process is ---------------------------------------------------------------------

#: Options that say what a program is without running it.
ONLY_TELLS = {"--help", "--help-all", "-h", "--version", "-V"}
SERVER_MODULES = {"jupyter_server", "jupyterlab", "notebook"}
SERVER_SCRIPTS = {"jupyter-server", "jupyter-lab", "jupyter-notebook", "jupyter-cloudg",
                  "jupyterhub-singleuser", "jupyter-labhub"}
#: JupyterHub (``jupyterhub``, ``python -m jupyterhub``) and its proxy (a Node script).
HUB_PROGRAMS = {"jupyterhub", "configurable-http-proxy"}
#: ``jupyter server|lab`` subcommands that do not serve (``jupyter server extension list``).
SUBCOMMANDS = {"extension", "list", "stop", "password", "build", "path", "paths", "workspaces"}
BROWSERS = {"chromium", "chromium-browser", "chrome", "google-chrome", "chromedriver"}
#: Where the client frameworks live: their venvs, the Node drivers and the conformance suite.
CLIENT_PLACES = (".venv-clients", "tests/clients/", ".cache/conformance/")


def _serves(words: Sequence[str]) -> bool:
    """A server program's arguments serve unless they only ask for help or a subcommand."""
    plain = [word for word in words if not word.startswith("-")]
    return not (ONLY_TELLS & set(words)) and not (plain and plain[0] in SUBCOMMANDS)


def kinds_of_command(argv: Sequence[str]) -> set[str]:
    """The kinds a process with this command line is (empty for any other process)."""
    if not argv:
        return set()
    name = Path(argv[0]).name
    args = list(argv[1:])
    if name in BROWSERS:
        return {"browser"}
    if name in ("node", "nodejs") and args and Path(args[0]).name in HUB_PROGRAMS:
        return {"hub"}
    if any(place in arg for arg in argv for place in CLIENT_PLACES):
        return {"clients"}
    if name.startswith("python") and args:
        if "-m" in args and args.index("-m") + 1 < len(args):
            at = args.index("-m")
            module = args[at + 1]
            if module == "jupyterhub.singleuser":
                return {"server"}
            name, args = module.partition(".")[0], args[at + 2:]
        elif not args[0].startswith("-"):
            name, args = Path(args[0]).name, args[1:]
        else:
            return set()
    name = name.removesuffix(".py")
    if name in HUB_PROGRAMS:
        return {"hub"} if not ONLY_TELLS & set(args) else set()
    if name in ("ipykernel_launcher", "ipykernel"):
        return {"kernel"}
    if name in SERVER_MODULES or name in SERVER_SCRIPTS:
        return {"server"} if _serves(args) else set()
    if name == "jupyter" and args and args[0] in ("server", "lab", "notebook"):
        return {"server"} if _serves(args[1:]) else set()
    if name in ("cloudg_nb", "cloudg-nb") and {"serve", "lab"} & set(args):
        return {"server"} if not ONLY_TELLS & set(args) else set()
    if name == "make" and "demo" in args:
        return {"server"}
    return set()
