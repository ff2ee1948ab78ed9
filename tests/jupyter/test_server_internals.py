"""The contract with jupyter_server's (and tornado's) private parts
(``cloudg_jupyter.server_internals``).

One test per internal, on real jupyter_server and tornado objects (an in-process tornado
server with Jupyter's handlers and identity provider): it still exists and behaves as relied
on. After an upgrade a failure here names the internal that moved; fix ``server_internals.py``
(and only it). The last tests keep those names out of every other module of the extension.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import re
import signal
import types
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, ClassVar

import jupyter_server
import pytest
import tornado
from cloudg_jupyter import server_internals
from cloudg_jupyter.server_internals import (
    CHECKED_VERSIONS,
    InactiveAPIHandler,
    JupyterHandlerInternals,
    ServerInternalsChanged,
    put_rule_first,
    stop_on_sigint,
)
from jupyter_server.auth.authorizer import AllowAllAuthorizer
from jupyter_server.auth.identity import IdentityProvider, User
from jupyter_server.base.handlers import APIHandler, JupyterHandler
from jupyter_server.extension.application import ExtensionApp
from jupyter_server.extension.manager import ExtensionPoint
from jupyter_server.serverapp import ServerApp, ServerWebApplication
from tornado import httpclient, httpserver, httputil, testing, web
from tornado.routing import Matcher, PathMatches, Rule

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "jupyter_server_ext" / "cloudg_jupyter"
INTERNALS_MODULE = PACKAGE / "server_internals.py"
TOKEN = "contract-token"


def moved(internal: str, distribution: str = "jupyter_server") -> str:
    return (f"{internal} no longer behaves as cloudg_jupyter relies on (checked with "
            f"{distribution} {CHECKED_VERSIONS[distribution]}): update "
            "cloudg_jupyter/server_internals.py")


# -- an in-process tornado server with Jupyter's handlers -----------------------------------------


class _PlainPage(JupyterHandler):
    """Errors as bare status lines (Jupyter's error pages need its templates)."""

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        self.finish(str(status_code))


class _ActsAsBob(_PlainPage, JupyterHandlerInternals):
    """Authenticates every request as bob itself, then runs Jupyter's ``prepare``."""

    async def prepare(self) -> None:  # type: ignore[override]
        self.authenticate_as(User(username="bob", name="Bob"))
        await self.prepare_without_login()

    def get(self) -> None:
        self.finish({"user": self.current_user.username,
                     "token_authenticated": self.token_authenticated})

    def post(self) -> None:
        self.finish({"user": self.current_user.username})


class _RefusesLogin(_PlainPage, JupyterHandlerInternals):
    async def prepare(self) -> None:  # type: ignore[override]
        await self.prepare_without_login()

    def get(self) -> None:
        self.finish("in")


class _RedirectsToLogin(_PlainPage):
    def get(self) -> None:
        self.finish("in")


class _Tracked(APIHandler):
    def get(self) -> None:
        self.finish("{}")


class _Untracked(InactiveAPIHandler):
    def get(self) -> None:
        self.finish("{}")


class _Server:
    def __init__(self, app: web.Application, port: int) -> None:
        self.app = app
        self.url = f"http://127.0.0.1:{port}"
        self.client = httpclient.AsyncHTTPClient(force_instance=True)

    async def fetch(self, path: str, method: str = "GET",
                    headers: dict[str, str] | None = None) -> httpclient.HTTPResponse:
        return await self.client.fetch(
            self.url + path, method=method, headers=headers or {}, raise_error=False,
            follow_redirects=False, body=b"" if method == "POST" else None)


@pytest.fixture
async def server() -> AsyncIterator[_Server]:
    app = web.Application(
        [("/bob", _ActsAsBob), ("/refuses", _RefusesLogin), ("/redirects", _RedirectsToLogin),
         ("/api/tracked", _Tracked), ("/api/untracked", _Untracked)],
        identity_provider=IdentityProvider(token=TOKEN), authorizer=AllowAllAuthorizer(),
        base_url="/", login_url="/login", cookie_secret="c" * 32)
    sock, port = testing.bind_unused_port()
    http = httpserver.HTTPServer(app)
    http.add_sockets([sock])
    running = _Server(app, port)
    try:
        yield running
    finally:
        running.client.close()
        http.stop()
        await http.close_all_connections()


# -- the import-time check -----------------------------------------------------------------------


def test_the_installed_jupyter_server_passes_the_import_time_check() -> None:
    server_internals.check()


def test_a_changed_internal_fails_naming_it_the_installed_version_and_the_fix() -> None:
    class Upgraded:
        async def _signal_stop(self, sig: Any, frame: Any) -> None: ...

    with pytest.raises(ServerInternalsChanged) as caught:
        server_internals._require_method(Upgraded, "_signal_stop", ("sig", "frame"),
                                         is_async=False)
    message = str(caught.value)
    assert "Upgraded._signal_stop became async" in message
    assert f"as of jupyter_server {CHECKED_VERSIONS['jupyter_server']}" in message
    assert "cloudg_jupyter/server_internals.py" in message
    assert isinstance(caught.value, ImportError)


def test_an_attribute_no_longer_read_fails_naming_it_and_the_reader() -> None:
    class Provider:
        def is_token_authenticated(self, handler: Any) -> bool:
            return bool(handler.token_ok)

    with pytest.raises(ServerInternalsChanged,
                       match=r"handler\._token_authenticated is no longer read by "
                             r"Provider\.is_token_authenticated"):
        server_internals._require_read(Provider, "is_token_authenticated",
                                       "_token_authenticated")


# -- JupyterHandler._jupyter_current_user and ._token_authenticated ------------------------------


async def test_a_request_authenticated_as_a_user_acts_as_that_user(server: _Server) -> None:
    answer = await server.fetch("/bob")
    assert answer.code == 200, moved("JupyterHandler._jupyter_current_user")
    assert json.loads(answer.body) == {"user": "bob", "token_authenticated": True}, \
        moved("JupyterHandler._token_authenticated")


async def test_a_request_authenticated_as_a_user_gets_no_login_cookie(server: _Server) -> None:
    answer = await server.fetch("/bob")
    cookies = answer.headers.get_list("Set-Cookie")
    assert not [c for c in cookies if c.startswith("username-")], \
        moved("JupyterHandler._jupyter_current_user (the provider signed a login cookie)")


async def test_a_post_authenticated_as_a_user_needs_no_xsrf_token(server: _Server) -> None:
    answer = await server.fetch("/bob", method="POST")
    assert answer.code == 200 and json.loads(answer.body) == {"user": "bob"}, \
        moved("JupyterHandler._token_authenticated (the XSRF check ran)")


# -- JupyterHandler.prepare(_redirect_to_login=False) --------------------------------------------


async def test_an_unauthenticated_request_is_refused_not_redirected_to_login(
        server: _Server) -> None:
    ours = await server.fetch("/refuses")
    jupyters = await server.fetch("/redirects")
    assert jupyters.code == 302 and "/login" in jupyters.headers["Location"]
    assert ours.code == 403 and "Location" not in ours.headers, \
        moved("JupyterHandler.prepare(_redirect_to_login=False)")


async def test_a_request_with_the_servers_token_passes_prepare_without_login(
        server: _Server) -> None:
    answer = await server.fetch("/refuses", headers={"Authorization": f"token {TOKEN}"})
    assert (answer.code, answer.body) == (200, b"in")


# -- APIHandler._track_activity -------------------------------------------------------------------


async def test_requests_to_an_inactive_api_handler_leave_the_last_activity_time(
        server: _Server) -> None:
    token = {"Authorization": f"token {TOKEN}"}
    untracked = await server.fetch("/api/untracked", headers=token)
    before = server.app.settings.get("api_last_activity")
    tracked = await server.fetch("/api/tracked", headers=token)
    assert untracked.code == tracked.code == 200
    assert before is None, moved("APIHandler._track_activity")
    assert server.app.settings.get("api_last_activity") is not None


def test_a_setting_ending_in_last_activity_counts_as_server_activity() -> None:
    """Not an internal (jupyter_server documents the hook), but the MCP handler relies on it:
    its ``cloudg_last_activity`` keeps idle culling away while assistants work."""
    started = datetime(2030, 1, 1, tzinfo=UTC)
    ours = started + timedelta(hours=1)
    web_app = types.SimpleNamespace(settings={
        "started": started, "kernel_manager": types.SimpleNamespace(
            last_kernel_activity=started), "last_activity_times": {},
        "cloudg_last_activity": ours})
    assert ServerWebApplication.last_activity(web_app) == ours  # type: ignore[arg-type]


# -- ServerApp._signal_stop ----------------------------------------------------------------------


@pytest.fixture
def sigint() -> Iterator[None]:
    """SIGINT's handler restored after the test."""
    saved = signal.getsignal(signal.SIGINT)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, saved)


def test_signal_stop_stops_the_server_as_from_a_signal() -> None:
    app = ServerApp()
    stops: list[bool] = []
    app.stop = lambda from_signal=False: stops.append(from_signal)  # type: ignore[method-assign]
    app._signal_stop(signal.SIGTERM, None)
    assert stops == [True], moved("ServerApp._signal_stop")


def test_without_a_terminal_sigint_stops_the_server_cleanly(sigint: None) -> None:
    app = ServerApp()
    signal.signal(signal.SIGINT, signal.default_int_handler)
    stop_on_sigint(app)
    assert signal.getsignal(signal.SIGINT) == app._signal_stop, moved("ServerApp._signal_stop")


def test_a_sigint_handler_someone_else_set_is_kept(sigint: None) -> None:
    def theirs(sig: int, frame: Any) -> None: ...

    signal.signal(signal.SIGINT, theirs)
    stop_on_sigint(ServerApp())
    assert signal.getsignal(signal.SIGINT) is theirs


# -- ExtensionApp._start_jupyter_server_extension (jupyter_server's documented hook) ------------


class _RecordsStart(ExtensionApp):
    name = "contract"
    started: ClassVar[list[Any]] = []

    async def _start_jupyter_server_extension(self, serverapp: Any) -> None:
        self.started.append(serverapp)


async def test_jupyter_starts_an_extension_app_through_its_start_hook() -> None:
    point = ExtensionPoint(metadata={"module": "cloudg_jupyter", "app": _RecordsStart})
    serverapp = object()
    await point.start(serverapp)
    assert _RecordsStart.started == [serverapp], \
        moved("ExtensionApp._start_jupyter_server_extension")


# -- tornado: Application.default_router.rules ---------------------------------------------------


class _Route(web.RequestHandler):
    pass


class _Guard(web.RequestHandler):
    pass


class _AnyPathBut(Matcher):
    def __init__(self, allowed: str) -> None:
        self.allowed = allowed

    def match(self, request: httputil.HTTPServerRequest) -> dict[str, Any] | None:
        return None if request.path == self.allowed else {}


def _handler_for(app: web.Application, path: str) -> type[web.RequestHandler]:
    request = httputil.HTTPServerRequest(
        start_line=httputil.RequestStartLine("GET", path, "HTTP/1.1"),
        headers=httputil.HTTPHeaders({"Host": "127.0.0.1"}))
    return app.find_handler(request).handler_class


def test_a_rule_put_first_wins_over_every_route_even_ones_added_later() -> None:
    app = web.Application([("/files", _Route), ("/mcp", _Route)])
    put_rule_first(app, Rule(_AnyPathBut("/mcp"), _Guard))
    app.add_handlers(".*$", [("/later", _Route)])  # as Jupyter adds extensions' handlers
    assert _handler_for(app, "/files") is _Guard, moved("Application.default_router.rules",
                                                        "tornado")
    assert _handler_for(app, "/later") is _Guard, moved("Application.default_router.rules",
                                                        "tornado")
    assert _handler_for(app, "/mcp") is _Route


def test_a_rule_put_first_keeps_its_handler_arguments() -> None:
    app = web.Application([])
    kept = put_rule_first(app, Rule(PathMatches("/x"), _Guard, {"endpoint": "/mcp"}))
    assert kept.target_kwargs == {"endpoint": "/mcp"}
    assert app.default_router.rules[0] is kept


# -- nobody else touches them -------------------------------------------------------------------

#: Private names that a module of the extension may use although jupyter_server defines them.
DOCUMENTED_HOOKS = {"_start_jupyter_server_extension"}
_PRIVATE = re.compile(r"^_[a-z]\w*$")
_ROUTER = re.compile(r"\bdefault_router\b|\.rules\b")


def _third_party_private_names() -> set[str]:
    """Private names jupyter_server and tornado define: methods, parameters, class attributes
    and attributes they assign."""
    found: set[str] = set()
    for top in (Path(jupyter_server.__file__).parent, Path(tornado.__file__).parent):
        for path in top.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names: list[str] = []
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    names.append(node.name)
                    names += [a.arg for a in (*node.args.args, *node.args.kwonlyargs)]
                elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                    names.append(node.attr)
                elif isinstance(node, ast.ClassDef):
                    for item in node.body:
                        targets = (item.targets if isinstance(item, ast.Assign) else
                                   [item.target] if isinstance(item, ast.AnnAssign) else [])
                        names += [t.id for t in targets if isinstance(t, ast.Name)]
                found.update(n for n in names if _PRIVATE.match(n))
    return found


def _extends_third_party(module: types.ModuleType, name: str) -> bool:
    cls = getattr(module, name, None)
    return inspect.isclass(cls) and any(
        base.__module__.split(".")[0] in ("jupyter_server", "tornado") for base in cls.__mro__)


def _private_uses(path: Path) -> list[tuple[int, str]]:
    """Private names a module uses on another object, as a keyword or a string, or anywhere
    in a class that extends a jupyter_server or tornado class (where ``self._x`` may be
    theirs)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module = importlib.import_module(f"cloudg_jupyter.{path.stem}")
    uses: list[tuple[int, str]] = []

    def visit(node: ast.AST, in_their_class: bool) -> None:
        if isinstance(node, ast.ClassDef):
            in_their_class = _extends_third_party(module, node.name)
        name = None
        if isinstance(node, ast.Attribute):
            on_self = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            name = node.attr if in_their_class or not on_self else None
        elif isinstance(node, ast.keyword):
            name = node.arg
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            name = node.value
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and in_their_class:
            name = node.name
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and in_their_class:
            name = node.id
        if name and _PRIVATE.match(name):
            uses.append((getattr(node, "lineno", 0), name))
        for child in ast.iter_child_nodes(node):
            visit(child, in_their_class)

    visit(tree, False)
    return uses


def test_jupyter_server_private_names_appear_only_in_server_internals() -> None:
    theirs = _third_party_private_names()
    offences = []
    for path in sorted(PACKAGE.glob("*.py")):
        if path == INTERNALS_MODULE:
            continue
        offences += [f"{path.relative_to(ROOT)}:{line}: {name}"
                     for line, name in _private_uses(path)
                     if name in theirs and name not in DOCUMENTED_HOOKS]
    assert offences == [], (
        "Private parts of jupyter_server or tornado are used outside "
        "cloudg_jupyter/server_internals.py; add a typed adapter there (with a contract test "
        "here) and use it instead, or rename your own attribute:\n" + "\n".join(offences))


def test_the_router_rule_list_is_touched_only_in_server_internals() -> None:
    offences = [f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
                for path in sorted(PACKAGE.glob("*.py")) if path != INTERNALS_MODULE
                for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                if _ROUTER.search(line)]
    assert offences == []


def test_the_scan_finds_the_private_names_server_internals_uses() -> None:
    """The scan above is not blind: the uses this module replaced are found."""
    theirs = _third_party_private_names()
    assert {"_jupyter_current_user", "_token_authenticated", "_signal_stop",
            "_redirect_to_login", "_track_activity"} <= theirs
    uses = {name for _, name in _private_uses(PACKAGE / "server_internals.py")}
    assert {"_jupyter_current_user", "_token_authenticated", "_redirect_to_login",
            "_track_activity", "_signal_stop"} <= uses
