"""Find the MCP endpoint of a running Jupyter server with the cloudg extension.

Order: an explicit URL (and token); ``$CLOUDG_MCP_URL`` (+ ``$CLOUDG_MCP_TOKEN``); the
server files Jupyter writes (``jpserver-*.json``): the server whose pid is ``$JPY_PARENT_PID``,
else the one whose ``root_dir`` holds the current directory; JupyterHub / Binder variables;
else the only running server. Inside a JupyterHub single-user server the endpoint also has the
address clients elsewhere use (``public_url``, from ``hub_public_root``). Pure look-up:
importing or calling this starts nothing and opens no connection. Used by ``cloudg-nb config
--jupyter``, the notebook client and (``hub_public_root``) the server extension.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

from .layer.wire import ENDPOINT_PATH, STATUS_PATH

__all__ = [
    "ENDPOINT_PATH",
    "JupyterEndpoint",
    "JupyterServerNotFound",
    "endpoint_url",
    "find_jupyter_endpoint",
    "hub_public_root",
]

#: Pages of the Jupyter UI a user may paste instead of the server's root URL.
_UI_SEGMENTS = frozenset({"lab", "tree", "notebooks", "doc", "edit", "view", "terminals"})
_WILDCARD_HOSTS = frozenset({"", "0.0.0.0", "::", "[::]"})


@dataclass(frozen=True)
class JupyterEndpoint:
    """Where a client reaches the extension, and how that was found."""

    url: str  # the MCP endpoint, ``{server_url}cloudg/mcp`` for a Jupyter server
    token: str | None  # the bearer token to send (None: the server needs none)
    found_by: str  # one line for people: which source gave the URL
    server_url: str  # the Jupyter server's root including base_url, ending with "/"
    token_env: str | None = None  # the environment variable that conventionally holds it
    root_dir: str | None = None  # the folder the server serves, when its server file says
    #: The endpoint as clients outside reach it, when that differs from ``url`` (a
    #: JupyterHub single-user server found through its loopback server file).
    public_url: str | None = None

    @property
    def address(self) -> str:
        """The endpoint address to hand to a client elsewhere (an assistant's config)."""
        return self.public_url or self.url

    @property
    def status_url(self) -> str:
        """The extension's status page (authenticated JSON)."""
        return f"{self.server_url}{STATUS_PATH}"


class JupyterServerNotFound(LookupError):
    """No running Jupyter server could be found; ``looked_at`` lists the sources tried."""

    def __init__(self, message: str, looked_at: Iterable[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.looked_at = list(looked_at)

    def __str__(self) -> str:
        return self.message


def _server_root(url: str, base_url: str | None = None) -> str:
    """``scheme://host[:port]{base_url}`` with exactly one slash between parts, ending in "/".

    ``url`` may already carry ``base_url`` (server files do), a UI page (``/lab``) or a
    query (``?token=``); query and fragment are dropped, UI pages cut off.
    """
    parts = urlsplit(url.strip())
    segments = [s for s in parts.path.split("/") if s]
    for i, segment in enumerate(segments):
        if segment in _UI_SEGMENTS:
            segments = segments[:i]
            break
    path = "/" + "".join(f"{s}/" for s in segments)
    if base_url is not None:
        base = "/" + "".join(f"{s}/" for s in base_url.split("/") if s)
        if not path.endswith(base):
            path = path.rstrip("/") + base
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def endpoint_url(server_url: str, base_url: str | None = None) -> str:
    """The extension's MCP endpoint for a Jupyter server at ``server_url``."""
    return _server_root(server_url, base_url) + ENDPOINT_PATH


def _query_token(url: str) -> str | None:
    values = parse_qs(urlsplit(url).query).get("token")
    return values[0] if values and values[0] else None


def _split_endpoint(url: str) -> tuple[str, str]:
    """(endpoint without query, server root) for a URL that names an MCP endpoint."""
    parts = urlsplit(url.strip())
    endpoint = urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))
    if endpoint.endswith("/" + ENDPOINT_PATH):
        return endpoint, endpoint.removesuffix(ENDPOINT_PATH)
    return endpoint, endpoint[: endpoint.rfind("/") + 1]


def _from_explicit(url: str, token: str | None) -> JupyterEndpoint:
    token = token or _query_token(url)
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError("a server URL starts with http:// or https://, for example "
                         "http://127.0.0.1:8888/")
    if parts.path.rstrip("/").endswith("/mcp"):  # already an MCP endpoint
        endpoint, root = _split_endpoint(url)
        return JupyterEndpoint(endpoint, token, "the URL given", root)
    root = _server_root(url)
    return JupyterEndpoint(root + ENDPOINT_PATH, token, "the URL given", root)


def _running_servers(runtime_dir: str | None) -> list[dict[str, Any]]:
    """The server files of live Jupyter servers (Unix-socket servers have no URL an HTTP
    client can use, so they are left out)."""
    if os.name == "nt":  # a live-pid check needs the Win32 API there: Jupyter's own reader
        from jupyter_server.serverapp import list_running_servers

        found: Iterable[dict[str, Any]] = list_running_servers(runtime_dir)
    else:
        found = _server_files(runtime_dir)
    return [s for s in found if not s.get("sock") and s.get("url")]


def _server_files(runtime_dir: str | None) -> list[dict[str, Any]]:
    """``jpserver-*.json`` of live processes, read as ``list_running_servers`` does but
    without importing the server (seconds in a fresh kernel) and without deleting files."""
    from jupyter_core.paths import jupyter_runtime_dir

    folder = Path(runtime_dir or jupyter_runtime_dir())
    servers = []
    for path in sorted(folder.glob("jpserver-*.json")) if folder.is_dir() else ():
        try:
            info = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):  # being written, or not a server file
            continue
        if isinstance(info, dict) and _alive(info.get("pid")):
            servers.append(info)
    return servers


def _alive(pid: Any) -> bool:
    if type(pid) is not int or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    except OSError:
        return False
    return True


def _contains(root: str, cwd: Path) -> bool:
    try:
        return cwd.is_relative_to(Path(root).resolve())
    except (OSError, ValueError):
        return False


def _local_url(info: Mapping[str, Any]) -> str:
    """The server file's URL, with a wildcard bind address replaced by loopback."""
    url = str(info["url"])
    if str(info.get("hostname", "")) in _WILDCARD_HOSTS:
        parts = urlsplit(url)
        port = f":{parts.port}" if parts.port else ""
        url = urlunsplit((parts.scheme, f"127.0.0.1{port}", parts.path, "", ""))
    return url


def _from_server_file(info: Mapping[str, Any], found_by: str,
                      env: Mapping[str, str]) -> JupyterEndpoint:
    base_url = str(info.get("base_url") or "/")
    root = _server_root(_local_url(info), base_url)
    token: str | None = str(info.get("token") or "") or None
    token_env: str | None = "JUPYTER_TOKEN" if token else None
    if token is None and env.get("JUPYTERHUB_API_TOKEN"):
        # A JupyterHub single-user server authenticates with the Hub's API token.
        token, token_env = env["JUPYTERHUB_API_TOKEN"], "JUPYTERHUB_API_TOKEN"
    public = None
    if _same_path(base_url, env.get("JUPYTERHUB_SERVICE_PREFIX", "")):
        # This is the hub's server: reached here on loopback, elsewhere at the hub's address.
        hub_root = hub_public_root(env)
        public = hub_root + ENDPOINT_PATH if hub_root else None
    return JupyterEndpoint(root + ENDPOINT_PATH, token, found_by, root, token_env,
                           str(info.get("root_dir") or "") or None, public)


def _same_path(one: str, other: str) -> bool:
    return bool(one and other) and one.strip("/") == other.strip("/")


def hub_public_root(env: Mapping[str, str]) -> str | None:
    """This JupyterHub single-user server's public root (``https://HUB/user/NAME/``), from the
    variables the hub sets: ``JUPYTERHUB_PUBLIC_URL`` (the server's own, when the hub's
    ``public_url`` is set), else the origin of ``JUPYTERHUB_PUBLIC_HUB_URL``,
    ``JUPYTERHUB_EXTERNAL_URL`` or ``JUPYTERHUB_HOST`` joined with
    ``JUPYTERHUB_SERVICE_PREFIX``. None outside a hub, or when the hub gave no public address
    (its internal ``JUPYTERHUB_SERVICE_URL`` is no address for anyone elsewhere)."""
    prefix = env.get("JUPYTERHUB_SERVICE_PREFIX", "")
    public = urlsplit(env.get("JUPYTERHUB_PUBLIC_URL") or "")
    if public.scheme in ("http", "https") and public.netloc:
        path = public.path
        if prefix and not path.rstrip("/").endswith(prefix.rstrip("/")):
            path = path.rstrip("/") + "/" + prefix.strip("/")
        return _server_root(urlunsplit((public.scheme, public.netloc, path, "", "")))
    if not prefix:
        return None
    for name in ("JUPYTERHUB_PUBLIC_HUB_URL", "JUPYTERHUB_EXTERNAL_URL", "JUPYTERHUB_HOST"):
        parts = urlsplit(env.get(name) or "")
        if parts.scheme in ("http", "https") and parts.netloc:
            return _server_root(f"{parts.scheme}://{parts.netloc}/", prefix)
    return None


def _describe(info: Mapping[str, Any]) -> str:
    return f"pid {info.get('pid')}, {_server_root(_local_url(info))}, root {info.get('root_dir')}"


def _from_hub(env: Mapping[str, str]) -> JupyterEndpoint | None:
    """The single-user server of a JupyterHub (or Binder) session, from its variables."""
    prefix = env.get("JUPYTERHUB_SERVICE_PREFIX")
    if not prefix:
        return None
    token = env.get("JUPYTERHUB_API_TOKEN") or None
    token_env = "JUPYTERHUB_API_TOKEN" if token else None
    public = hub_public_root(env)
    if public:
        return JupyterEndpoint(public + ENDPOINT_PATH, token,
                               "the JupyterHub variables ($JUPYTERHUB_PUBLIC_URL or the hub's "
                               "address + $JUPYTERHUB_SERVICE_PREFIX)", public, token_env)
    internal = env.get("JUPYTERHUB_SERVICE_URL")  # where the server listens, inside the pod
    if internal:
        parts = urlsplit(internal)
        host = parts.hostname or ""
        if host in _WILDCARD_HOSTS or host == "::":
            port = f":{parts.port}" if parts.port else ""
            internal = urlunsplit((parts.scheme, f"127.0.0.1{port}", parts.path, "", ""))
        root = _server_root(internal, prefix)
        return JupyterEndpoint(
            root + ENDPOINT_PATH, token,
            "$JUPYTERHUB_SERVICE_URL (JupyterHub; an address inside the session: from "
            "elsewhere use the address your browser shows)", root, token_env)
    return None


def find_jupyter_endpoint(
    url: str | None = None,
    token: str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    runtime_dir: str | None = None,
) -> JupyterEndpoint:
    """The MCP endpoint of the Jupyter server this process belongs to (see module docstring).

    ``environ``, ``cwd`` and ``runtime_dir`` default to this process's. Raises
    ``JupyterServerNotFound`` (saying what to do) when nothing fits, ``ValueError`` for a
    malformed explicit URL.
    """
    env = os.environ if environ is None else environ
    if url:
        return _from_explicit(url, token)
    if env.get("CLOUDG_MCP_URL"):
        endpoint, root = _split_endpoint(env["CLOUDG_MCP_URL"])
        env_token = env.get("CLOUDG_MCP_TOKEN") or _query_token(env["CLOUDG_MCP_URL"])
        token_env = "CLOUDG_MCP_TOKEN" if env.get("CLOUDG_MCP_TOKEN") and not token else None
        return JupyterEndpoint(endpoint, token or env_token, "$CLOUDG_MCP_URL", root, token_env)

    def chosen(found: JupyterEndpoint) -> JupyterEndpoint:
        if token:  # an explicit token wins over the discovered one
            return replace(found, token=token, token_env=None)
        return found

    servers = _running_servers(runtime_dir)
    parent = env.get("JPY_PARENT_PID", "")
    for info in servers:
        if parent and str(info.get("pid")) == parent:
            return chosen(_from_server_file(
                info, f"the Jupyter server running this kernel (pid {parent})", env))
    here = Path(cwd if cwd is not None else os.getcwd()).resolve()
    holding = [s for s in servers if s.get("root_dir") and _contains(str(s["root_dir"]), here)]
    if holding:
        # The most specific root wins; among equals the newest process (highest pid, roughly).
        holding.sort(key=lambda s: (len(str(s["root_dir"])), int(s.get("pid") or 0)),
                     reverse=True)
        best = holding[0]
        note = f" ({len(holding)} servers serve it; chose pid {best.get('pid')})" if len(
            holding) > 1 else ""
        return chosen(_from_server_file(
            best, f"the Jupyter server whose root_dir holds the current folder{note}", env))
    hub = _from_hub(env)
    if hub is not None:
        return chosen(hub)
    if len(servers) == 1:
        return chosen(_from_server_file(
            servers[0], "the only running Jupyter server (its root_dir does not hold the "
                        "current folder)", env))

    from jupyter_core.paths import jupyter_runtime_dir

    where = runtime_dir or jupyter_runtime_dir()
    looked_at = ["$CLOUDG_MCP_URL (unset)",
                 f"{len(servers)} running server file(s) in {where}",
                 "JupyterHub variables ($JUPYTERHUB_SERVICE_PREFIX unset)"]
    if servers:
        listing = "; ".join(_describe(s) for s in servers)
        raise JupyterServerNotFound(
            f"{len(servers)} Jupyter servers are running and none serves the current folder "
            f"({listing}); name one with its URL, or run from inside its root_dir", looked_at)
    raise JupyterServerNotFound(
        "No running Jupyter server found: start one (`jupyter lab` or `jupyter server`) with "
        "the cloudg extension enabled, or give the server's URL and token (or set "
        "CLOUDG_MCP_URL and CLOUDG_MCP_TOKEN)", looked_at)
