"""Every use of a private part of ``jupyter_server`` (and of tornado's router), in one module.

Checked against jupyter_server 2.21.1 and tornado 6.6.1. At import this module checks that each
internal below still has the shape relied on and raises ``ServerInternalsChanged`` naming it
and the installed version when not (the extension then fails to load, and the server log says
why); ``tests/jupyter/test_server_internals.py`` has a contract test per internal and fails
when any other module of the extension names one. The internals, and why no public API does:

- ``JupyterHandler._jupyter_current_user`` and ``._token_authenticated``: what Jupyter's
  identity provider sets on a request it authenticated by a token. Set beforehand, ``prepare``
  takes the request as authenticated (no login cookie decoded or signed, no anonymous user
  invented) and skips the XSRF check, as for any token request. The endpoint checks an
  assistant's token and the server's own token itself; Jupyter has no public way to say
  "this request is USER's, authenticated by a token".
- ``JupyterHandler.prepare(_redirect_to_login=False)``: an unauthenticated request is answered
  403, never redirected to the login page (an MCP client cannot log in); Jupyter's own
  websocket handlers pass it.
- ``APIHandler._track_activity``: False keeps a handler's requests out of the server's
  last-activity time, which idle culling reads.
- ``ServerApp._signal_stop``: Jupyter's clean stop from a signal handler (its SIGTERM handler,
  and JupyterHub's SIGINT one); no public method does that.
- tornado's ``Application.default_router.rules``: the application's rule list. A rule put
  first is matched before every route, including those added later (``add_handlers`` inserts
  before the last rule); tornado has no public way to put a rule first.

``ExtensionApp._start_jupyter_server_extension``, though underscored, is jupyter_server's
documented hook for an extension's tasks on the running loop; ``app.py`` overrides it and the
check here makes sure jupyter_server still calls it that.
"""

from __future__ import annotations

import importlib.metadata
import inspect
import signal
import threading
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from jupyter_server.auth.identity import IdentityProvider
from jupyter_server.base.handlers import APIHandler, JupyterHandler
from jupyter_server.extension.application import ExtensionApp
from jupyter_server.serverapp import ServerApp
from tornado import web
from tornado.routing import Rule

if TYPE_CHECKING:
    from jupyter_server.auth.identity import User

__all__ = [
    "CHECKED_VERSIONS",
    "InactiveAPIHandler",
    "JupyterHandlerInternals",
    "ServerInternalsChanged",
    "check",
    "put_rule_first",
    "stop_on_sigint",
]

#: The versions whose internals this module was written against.
CHECKED_VERSIONS: dict[str, str] = {"jupyter_server": "2.21.1", "tornado": "6.6.1"}


class ServerInternalsChanged(ImportError):
    """A private part of jupyter_server (or tornado) this extension relies on moved or changed
    shape (an upgrade). An ``ImportError``: the extension does not load until this module is
    updated."""


def _installed(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "(not installed)"


def changed(internal: str, what: str, distribution: str = "jupyter_server",
            ) -> ServerInternalsChanged:
    """The error for ``internal`` having changed: says which, in which installed version."""
    return ServerInternalsChanged(
        f"{internal} {what} in {distribution} {_installed(distribution)}; cloudg_jupyter relies "
        f"on it as of {distribution} {CHECKED_VERSIONS[distribution]}. Update "
        "cloudg_jupyter/server_internals.py for the new version (or install the checked one)."
    )


# -- JupyterHandler: authenticating a request ourselves ------------------------------------------


class JupyterHandlerInternals(JupyterHandler):
    """Jupyter's handler with the private parts of its authentication behind public names:
    ``authenticate_as`` (a request the handler authenticated by a token itself) and
    ``prepare_without_login`` (403 instead of a login redirect)."""

    def authenticate_as(self, user: User) -> None:
        """This request is ``user``'s, authenticated by a token: Jupyter's ``prepare`` asks
        the identity provider nothing more and checks no XSRF token."""
        self.current_user = self._jupyter_current_user = user
        self._token_authenticated = True

    async def prepare_without_login(self) -> None:
        """Jupyter's ``prepare`` (identity, Host, CORS, XSRF), answering an unauthenticated
        request 403 rather than redirecting it to the login page."""
        await super().prepare(_redirect_to_login=False)


class InactiveAPIHandler(APIHandler):
    """An API handler whose requests are no sign of use: they leave the server's
    last-activity time (which idle culling reads) as it was."""

    _track_activity = False


# -- ServerApp: stopping on SIGINT ---------------------------------------------------------------


def stop_on_sigint(serverapp: Any) -> None:
    """Without a terminal, make SIGINT stop the server as SIGTERM does (as JupyterHub does).

    Jupyter installs its SIGINT handler (a y/n confirmation) only when stdin is a tty;
    otherwise Python's KeyboardInterrupt ends the loop and Jupyter's cleanup never runs:
    kernels, MCP sessions and calls in flight would be abandoned mid-way.
    """
    stop = getattr(serverapp, "_signal_stop", None)
    if stop is None or threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, stop)


# -- tornado: a rule before every route ----------------------------------------------------------


def put_rule_first(web_app: web.Application, rule: Rule) -> Rule:
    """Put ``rule`` before every route of ``web_app`` (and before any added later); returns
    the rule as the router keeps it."""
    router = web_app.default_router
    kept = router.process_rule(rule)
    router.rules.insert(0, kept)
    return kept


# -- the import-time check -----------------------------------------------------------------------

_MISSING = object()


def _names_in(code: types.CodeType) -> set[str]:
    """Attribute names and string constants a function's code (and its nested code) uses."""
    found = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, str):
            found.add(const)
        elif isinstance(const, types.CodeType):
            found |= _names_in(const)
    return found


def _require_method(owner: type, name: str, params: tuple[str, ...], *, is_async: bool,
                    distribution: str = "jupyter_server") -> Callable[..., Any]:
    """``owner.name`` exists, is (not) a coroutine function and takes ``self`` + ``params``."""
    internal = f"{owner.__name__}.{name}"
    method = inspect.getattr_static(owner, name, None)
    if not inspect.isfunction(method):
        raise changed(internal, "is gone (or no longer a plain method)", distribution)
    if inspect.iscoroutinefunction(method) != is_async:
        raise changed(internal, "became async" if not is_async else "is no longer async",
                      distribution)
    found = tuple(inspect.signature(method).parameters)
    if found != ("self", *params):
        raise changed(internal, f"takes {found} instead of {('self', *params)}", distribution)
    return method


def _require_read(owner: type, method: str, attribute: str) -> None:
    """``owner.method`` still reads the handler attribute ``attribute``."""
    function = inspect.getattr_static(owner, method, None)
    code = getattr(function, "__code__", None)
    if code is None or attribute not in _names_in(code):
        raise changed(f"handler.{attribute}", f"is no longer read by {owner.__name__}.{method}")


def check() -> None:
    """Raise ``ServerInternalsChanged`` unless every internal above has the shape relied on."""
    _require_read(IdentityProvider, "_get_user", "_jupyter_current_user")
    _require_read(IdentityProvider, "is_token_authenticated", "_token_authenticated")
    _require_read(JupyterHandler, "check_xsrf_cookie", "_jupyter_current_user")
    prepare = inspect.getattr_static(JupyterHandler, "prepare", None)
    parameter = (inspect.signature(prepare).parameters.get("_redirect_to_login")
                 if inspect.isfunction(prepare) else None)
    if parameter is None or parameter.kind is not inspect.Parameter.KEYWORD_ONLY:
        raise changed("JupyterHandler.prepare(_redirect_to_login=)", "is gone")
    if not isinstance(inspect.getattr_static(APIHandler, "_track_activity", _MISSING), bool):
        raise changed("APIHandler._track_activity", "is no longer a bool class attribute")
    _require_read(APIHandler, "update_api_activity", "_track_activity")
    _require_method(ServerApp, "_signal_stop", ("sig", "frame"), is_async=False)
    _require_method(ExtensionApp, "_start_jupyter_server_extension", ("serverapp",),
                    is_async=True)
    rules = getattr(getattr(web.Application(), "default_router", None), "rules", _MISSING)
    if not isinstance(rules, list):
        raise changed("tornado.web.Application.default_router.rules", "is no longer a list",
                      "tornado")


check()
