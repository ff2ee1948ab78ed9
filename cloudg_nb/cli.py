"""The ``cloudg-nb`` console script: the lab, MCP serving, client configs, in-process commands.

``lab`` starts JupyterLab with the extension; ``serve`` runs the layer over stdio or HTTP;
``config`` prints a client configuration (``--jupyter``: with an assistant credential the running
server mints) and ``assistants`` lists or revokes those; ``demo``, ``tools``, ``call`` and ``read``
use an in-process layer. Answers go to stdout, messages to stderr; exit 1: a failed call, 2: usage.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import ipaddress
import json
import logging
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .assistants import AssistantStore
    from .estate.parse_cache import ParseCache
    from .jupyter_discovery import JupyterEndpoint
    from .layer import CloudGMCPLayer, Registry

__all__ = ["main", "build_parser", "load_registry"]


class UsageError(Exception):
    """A problem with the command line or setup: printed, exit status 2."""


def load_registry(target: str) -> Registry:
    """The registry at ``MODULE:ATTR`` (an attribute, or a function returning one).

    The current directory is importable, as with ``python -m``.
    """
    module_name, sep, attr = target.partition(":")
    if not module_name or not sep or not attr:
        raise UsageError("--registry takes MODULE:ATTR, for example mypkg.tools:registry")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"--registry: cannot import module {module_name!r} ({exc.msg})") from None
    try:
        value = getattr(module, attr)
    except AttributeError:
        raise UsageError(f"--registry: module {module_name!r} has no attribute {attr!r}") from None
    from .layer import Registry

    if not isinstance(value, Registry) and callable(value):
        value = value()
    if not isinstance(value, Registry):
        raise UsageError(f"--registry: {target} is not a cloudg_nb Registry")
    return value


def _layer(args: argparse.Namespace) -> CloudGMCPLayer:
    from .assembly import build_layer
    from .policy import PolicyError
    from .workspace import Workspace

    registry = load_registry(args.registry) if getattr(args, "registry", None) else None
    workspace = Workspace()
    if getattr(args, "dataset", None) and getattr(args, "cache", False):
        from .estate.parse_cache import ParseCache

        workspace.parse_cache = ParseCache()
    try:
        layer = build_layer(workspace=workspace, policy=args.policy, registry=registry)
    except PolicyError as exc:
        raise UsageError(f"--policy: {exc}") from None
    if getattr(args, "dataset", None) or getattr(args, "sample", None):
        # the tools' own log lines would repeat the load report printed for each --dataset
        tool_log = logging.getLogger("cloudg.mcp")
        level = tool_log.level
        tool_log.setLevel(logging.ERROR)
        try:
            asyncio.run(_prepare_workspace(layer, args.dataset or (), args.sample))
        finally:
            tool_log.setLevel(level)
    return layer


def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    asyncio.run(run_demo(args.policy or "standard"))
    return 0


def _cmd_lab(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .lab import LabLaunch, LabStartError, run_lab
    from .policy.document import ENV_VAR as POLICY_ENV_VAR

    launch = LabLaunch(ip=args.ip, port=args.port, root_dir=Path(args.root_dir),
                       notebook=args.notebook,
                       policy=args.policy or os.environ.get(POLICY_ENV_VAR) or None,
                       registry=args.registry)
    if not launch.root_dir.is_dir():
        raise UsageError(f"--root-dir: no such directory: {args.root_dir}")
    try:
        return run_lab(launch)
    except LabStartError as exc:
        raise UsageError(str(exc)) from None


def _cmd_tools(args: argparse.Namespace) -> int:
    tools = _layer(args).tools_wire()
    if args.json:
        print(json.dumps(tools, indent=2))
    else:
        for tool in tools:
            print(f"{tool['name']:<28} {tool.get('title', '')}")
    return 0


def _cmd_call(args: argparse.Namespace) -> int:
    try:
        arguments = json.loads(args.args)
    except json.JSONDecodeError as exc:
        print(f"--args is not valid JSON (line {exc.lineno}, column {exc.colno}); "
              "pass an object such as '{\"limit\": 5}'", file=sys.stderr)
        return 2
    if not isinstance(arguments, dict):
        print("--args must be a JSON object of named arguments", file=sys.stderr)
        return 2
    from .layer import NotFoundError

    layer = _layer(args)
    try:
        result = asyncio.run(layer.call_tool(args.tool, arguments))
    except NotFoundError as exc:
        print(exc.message, file=sys.stderr)
        return 2
    if result.is_error:
        _print_error(args.tool, result.text, result.meta.get("cloudg/error_data"))
        return 1
    if args.text or result.structured is None:
        print(result.text)
    else:
        print(json.dumps(result.structured, indent=2, default=str))
    return 0


#: Characters of error data shown on the terminal (the rest is cut, marked with ...).
_MAX_ERROR_DATA = 600


def _print_error(what: str, message: str, data: Any) -> None:
    """One short block on stderr: the message, then the error data on one line."""
    print(f"cloudg-nb: {what}: {message}", file=sys.stderr)
    if data:
        details = json.dumps(data, default=str)
        if len(details) > _MAX_ERROR_DATA:
            details = details[:_MAX_ERROR_DATA] + " ..."
        print(f"  details: {details}", file=sys.stderr)


def _content_body(wire: dict[str, Any]) -> Any:
    """What a resource content says: parsed JSON for JSON text, the text, else its wire form
    (binary contents)."""
    text = wire.get("text")
    if not isinstance(text, str):
        return wire
    if "json" in str(wire.get("mimeType") or ""):
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            pass
    return text


def _cmd_read(args: argparse.Namespace) -> int:
    from .layer import MCPLayerError

    layer = _layer(args)
    try:
        contents = asyncio.run(layer.read_resource(args.uri))
    except MCPLayerError as exc:
        _print_error(args.uri, exc.message, exc.data)
        return 1
    bodies = [_content_body(c.to_wire()) for c in contents]
    if len(bodies) == 1 and isinstance(bodies[0], str):
        print(bodies[0])
    else:
        print(json.dumps(bodies[0] if len(bodies) == 1 else bodies, indent=2, default=str))
    return 0


async def _prepare_workspace(
    layer: CloudGMCPLayer, datasets: Sequence[str], sample: str | None
) -> None:
    """Load ``--dataset NAME=PATH`` files and the ``--sample`` estate through the layer's tools."""
    from .layer import NotFoundError

    calls: list[tuple[str, str, dict[str, Any]]] = []
    if sample:
        calls.append(("--sample", "sample_estate", {"name": sample}))
    for item in datasets:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise UsageError("--dataset takes NAME=PATH, for example prod=estate/prod.json")
        calls.append(("--dataset", "load_dataset", {"path": path, "name": name}))
    for option, tool, arguments in calls:
        try:
            result = await layer.call_tool(tool, arguments)
        except NotFoundError:
            raise UsageError(
                f"{option} needs the {tool} tool, which this server's catalog does not offer "
                "(check --registry and --policy)"
            ) from None
        if result.is_error:
            data = result.meta.get("cloudg/error_data")
            details = f" (details: {json.dumps(data, default=str)})" if data else ""
            raise UsageError(f"{option} failed: {result.text}{details}")
        if tool == "load_dataset":
            _print_load_report(arguments["name"], result.structured or {},
                               getattr(layer.workspace, "parse_cache", None))


#: Skipped records and notes of a load listed on the terminal (load_report has up to 50).
_MAX_LISTED = 5


def _print_load_report(name: str, loaded: dict[str, Any], cache: ParseCache | None) -> None:
    """What a ``--dataset`` load did, on stderr: its counts explained, the first skipped
    records and notes by index, warnings, and whether the parse came from the cache."""
    report = loaded.get("load_report")
    cached = " (cached parse)" if getattr(cache, "last", None) == "hit" else ""
    if not isinstance(report, dict):
        print(f"cloudg-nb: dataset {name}: {loaded.get('assets', 0)} assets, "
              f"{loaded.get('findings', 0)} findings{cached}", file=sys.stderr)
        return
    print(f"cloudg-nb: dataset {name} ({report.get('file')}): {report.get('explanation')}"
          f"{cached}", file=sys.stderr)
    for label, key in (("skipped", "skipped_records"), ("note on", "notes")):
        items = report.get(key) or []
        for item in items[:_MAX_LISTED]:
            where = f" of {item['file']}" if item.get("file") else ""
            print(f"  {label} record #{item.get('index')}{where}: {item.get('field')}: "
                  f"{item.get('reason')}", file=sys.stderr)
        if len(items) > _MAX_LISTED:
            print(f"  ... and more {key.replace('_', ' ')} (load_report lists them)",
                  file=sys.stderr)
    for warning in report.get("warnings") or []:
        print(f"  warning: {warning}", file=sys.stderr)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _cmd_serve(args: argparse.Namespace) -> int:
    from .protocol import BearerTokens

    try:
        tokens = BearerTokens.from_specs(args.auth_token or ())
    except ValueError as exc:
        raise UsageError(f"--auth-token: {exc}") from None
    layer = _layer(args)
    if args.transport == "stdio":
        if tokens or args.allowed_host or args.allowed_origin:
            raise UsageError("--auth-token, --allowed-host and --allowed-origin apply to "
                             "--transport http only")
        from .protocol import run_stdio

        run_stdio(layer)
        return 0
    from .protocol import run_http

    if not args.path.startswith("/"):
        raise UsageError("--path must start with '/', for example /mcp")
    if not tokens and not args.allow_anonymous and not _is_loopback(args.host):
        raise UsageError(
            "--host is not a loopback address and no --auth-token was given, so anyone who "
            "can reach this machine could call the tools; add --auth-token TOKEN:ROLES:ID "
            "(or --allow-anonymous if that is really intended)"
        )
    from .protocol.sessions import SessionLimits

    per_caller = args.max_sessions_per_caller
    limits = SessionLimits(
        idle_timeout=args.session_idle_timeout or None,
        max_sessions=args.max_sessions or None,
        **({"per_principal": per_caller, "anonymous": per_caller} if per_caller else {}),
    )
    try:
        run_http(
            layer, host=args.host, port=args.port, path=args.path, tokens=tokens or None,
            allowed_hosts=args.allowed_host or (), allowed_origins=args.allowed_origin or (),
            session_limits=limits,
        )
    except OSError as exc:
        raise UsageError(f"cannot listen on {args.host}:{args.port} ({exc.strerror})") from None
    return 0


def _cmd_config(args: argparse.Namespace) -> int:
    from .protocol.client_config import HTTP_ONLY_CLIENTS, client_config

    minting = args.jupyter and not args.server_token
    if args.server_token and not args.jupyter:
        raise UsageError("--server-token goes with --jupyter")
    if args.show_token and not args.server_token:
        raise UsageError("--show-token goes with --jupyter --server-token (an assistant's own "
                         "token is always in the configuration; with --url, --token is "
                         "printed as given)")
    if args.profile is not None and not minting:
        raise UsageError("--profile names the policy profile of an assistant credential: it "
                         "goes with --jupyter (without --server-token)")
    if args.name is not None and args.server_name is not None and not minting:
        raise UsageError("--name and --server-name both name the client's server entry here; "
                         "give only --server-name")
    if args.client in HTTP_ONLY_CLIENTS:
        if args.server_token:
            raise UsageError(f"{args.client} runs inside the Jupyter server: give it a "
                             "credential of its own (drop --server-token)")
        if not args.jupyter and not args.url:
            raise UsageError(f"{args.client} cannot launch a stdio server, it connects over "
                             "HTTP: add --jupyter to give it a credential of its own on the "
                             "running Jupyter server")
    server_name = args.server_name or (None if minting else args.name) or "cloudg"
    if minting:
        return _config_for_assistant(args, server_name)
    if args.jupyter:
        return _config_with_server_token(args, server_name)
    if args.token and not args.url:
        raise UsageError("--token goes with --url (a stdio server needs no token)")

    server_args: list[str] = []
    if args.policy:
        server_args += ["--policy", args.policy]
    if getattr(args, "registry", None):
        server_args += ["--registry", args.registry]
    config = client_config(args.client, url=args.url, token=args.token, name=server_name,
                           server_args=server_args)
    print(f"# {config.where}", file=sys.stderr)
    print(config.text)
    return 0


def _probe_jupyter_endpoint(status_url: str, token: str | None) -> str | None:
    """A warning when a local server does not answer the extension's status page, else None."""
    import urllib.error
    import urllib.parse
    import urllib.request

    if not _is_loopback(urllib.parse.urlsplit(status_url).hostname or ""):
        return None  # a remote (Hub) address: not probed from here
    headers = {"Authorization": f"token {token}"} if token else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(status_url, headers=headers),
                                    timeout=5):
            return None
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return ("that server has no cloudg endpoint: enable the extension "
                    "(`jupyter server extension enable cloudg_jupyter`) and restart the server")
        if exc.code == 403:
            return "that server refused the token: check it with `jupyter server list`"
        return f"that server answered {exc.code} on its cloudg status page; see its log"
    except (urllib.error.URLError, OSError):
        return ("nothing answers at that address: is the Jupyter server running? (a server "
                "that crashed leaves its file behind; give the address with --url)")


def _find_server(args: argparse.Namespace) -> JupyterEndpoint:
    """The running Jupyter server ``--url``/``--token`` name, else the one discovery finds."""
    from .jupyter_discovery import JupyterServerNotFound, find_jupyter_endpoint

    try:
        return find_jupyter_endpoint(args.url, args.token)
    except JupyterServerNotFound as exc:
        raise UsageError(f"{exc}; for this command: --url http://127.0.0.1:8888/ --token "
                         "TOKEN") from None
    except ValueError as exc:
        raise UsageError(f"--url: {exc}") from None


#: The warning ``config --jupyter --server-token`` prints (the escape hatch).
SERVER_TOKEN_WARNING = (
    "# WARNING: --server-token gives the assistant the Jupyter server's own token. That token "
    "also opens /api/contents and /api/kernels (read and write every file the server serves, "
    "run any code), so an assistant holding it can bypass the governed MCP layer altogether; "
    "on the endpoint it acts as you, under your policy, and it cannot be revoked without "
    "restarting the server with a new token. Drop --server-token to give the assistant a "
    "credential of its own instead."
)


def _config_with_server_token(args: argparse.Namespace, server_name: str) -> int:
    """``config --jupyter --server-token``: the escape hatch, refers to the server's token."""
    from .protocol.client_config import client_config

    found = _find_server(args)
    token_env = found.token_env or "JUPYTER_TOKEN"
    refer = found.token is not None and not args.show_token
    config = client_config(args.client, url=found.url, token=found.token, name=server_name,
                           token_env=token_env if refer else None)
    print(SERVER_TOKEN_WARNING, file=sys.stderr)
    print(f"# MCP endpoint {found.url} (found from {found.found_by})", file=sys.stderr)
    warning = _probe_jupyter_endpoint(found.status_url, found.token)
    if warning:
        print(f"# warning: {warning}", file=sys.stderr)
    if refer:
        if os.environ.get(token_env) == found.token:
            print(f"# ${token_env} in this shell holds this server's token", file=sys.stderr)
        else:
            print(f"# the token is not printed: set {token_env} to it (`jupyter server list` "
                  "shows it), or rerun with --show-token to include it", file=sys.stderr)
    print(f"# {config.where}", file=sys.stderr)
    print(config.text)
    return 0


class _Unreachable(Exception):
    """Nothing answered at the Jupyter server's address (the text says why, in a few words)."""


#: Characters of a server's error message repeated on the terminal.
_MAX_SERVER_MESSAGE = 300


def _owner_api(found: JupyterEndpoint, method: str, path: str,
               body: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
    """One request to the extension's owner-only API (``{server_url}cloudg/api/…``) with the
    owner's token: ``(status, JSON body or {})``; raises ``_Unreachable``."""
    import urllib.error
    import urllib.request

    headers = {"Accept": "application/json"}
    if found.token:
        headers["Authorization"] = f"token {found.token}"
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(f"{found.server_url}cloudg/api/{path}", data=data,
                                     headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            status, raw = int(response.status), response.read()
    except urllib.error.HTTPError as exc:
        status, raw = int(exc.code), exc.read()
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc
        text = getattr(reason, "strerror", None) or type(reason).__name__
        raise _Unreachable(str(text)) from None
    try:
        parsed = json.loads(raw or b"{}")
    except ValueError:
        parsed = {}
    return status, parsed if isinstance(parsed, dict) else {}


def _refusal(found: JupyterEndpoint, status: int, body: dict[str, Any], doing: str) -> str:
    """A one-line UsageError text for an owner API answer that is not a success."""
    message = " ".join(str(body.get("message") or "").split())[:_MAX_SERVER_MESSAGE]
    if status in (401, 403):
        if found.token is None:
            return (f"the Jupyter server at {found.server_url} needs the owner's token to "
                    f"{doing}: pass it with --token (`jupyter server list` shows it)")
        return (f"the Jupyter server at {found.server_url} refused the token ({status}; "
                f"server and token from {found.found_by}), so it did not {doing}: pass the "
                "server's own token with --token (`jupyter server list` shows it)")
    if status == 404 and not message:
        return (f"the Jupyter server at {found.server_url} has no cloudg assistants API: "
                "enable a cloudg_jupyter that has it (`jupyter server extension list`; pip "
                "install -U cloudg-nb) and restart the server")
    if status == 400 and message:
        return f"the Jupyter server did not {doing}: {message}"
    return (f"the Jupyter server at {found.server_url} answered {status} when asked to "
            f"{doing}{': ' + message if message else ''}; see its log")


def _owner_token_check(found: JupyterEndpoint) -> None:
    from .assistants import looks_like_assistant_token

    if looks_like_assistant_token(found.token):
        raise UsageError(f"the token found from {found.found_by} is an assistant's token, "
                         "which opens only the MCP endpoint: pass the Jupyter server's own "
                         "token with --token (`jupyter server list` shows it)")


def _config_for_assistant(args: argparse.Namespace, server_name: str) -> int:
    """``config --jupyter``: mint the assistant's own credential through the running server
    and print (or, for Jupyter AI, write) the configuration holding that token."""
    from pathlib import Path

    from .assistants import TOKEN_PREFIX, valid_name
    from .protocol.client_config import (
        COMPACT_PROFILES,
        JUPYTER_AI_SETTINGS,
        client_config,
        merge_jupyter_ai_settings,
        read_jupyter_ai_settings,
    )

    name = args.name or args.client
    if not valid_name(name):
        raise UsageError("--name: an assistant name is 1-48 lower-case letters, digits, '.', "
                         "'_' or '-', starting with a letter or digit (for example "
                         "'claude-code' or 'cursor-2')")
    found = _find_server(args)
    _owner_token_check(found)
    settings = None
    if args.client == "jupyter-ai":
        # Jupyter does not serve hidden folders by default, so the token in .jupyter/ is not
        # readable through /api/contents.
        settings = Path(found.root_dir or os.getcwd()) / JUPYTER_AI_SETTINGS
        try:  # before minting: a file we would not overwrite leaves no orphan credential
            read_jupyter_ai_settings(settings)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    request: dict[str, Any] = {"name": name, "client": args.client}
    compact = None if args.profile else COMPACT_PROFILES.get(args.client)
    if args.profile or compact:
        request["profile"] = args.profile or compact
    doing = f"mint a credential for assistant {name}"
    try:
        status, body = _owner_api(found, "POST", "assistants", request)
    except _Unreachable as exc:
        raise UsageError(f"cannot reach the Jupyter server at {found.server_url} ({exc}) to "
                         f"{doing}: is it running? (`jupyter server list`; a server that "
                         "crashed leaves its file behind; name one with --url URL --token "
                         "TOKEN)") from None
    token = body.get("token")
    if status != 201 or not isinstance(token, str) or not token.startswith(TOKEN_PREFIX):
        raise UsageError(_refusal(found, status, body, doing))
    given = body.get("assistant")
    record: dict[str, Any] = given if isinstance(given, dict) else {}
    profile = record.get("profile") or "the server's assistant profile"
    print(f"# MCP endpoint {found.url} (found from {found.found_by})", file=sys.stderr)
    print(f"# minted a credential for assistant {name}: its calls act as "
          f"{record.get('principal') or 'assistant:' + name} under {profile}, token "
          f"{record.get('token_hint') or TOKEN_PREFIX + '...'}", file=sys.stderr)
    if compact:
        print(f"# {args.client} takes only so many tools: the {compact} profile lists a "
              "smaller set of them (--profile NAME picks another; assistant lists every tool)",
              file=sys.stderr)
    if body.get("replaced"):
        print(f"# assistant {name} already had a credential: it is replaced, the old token no "
              "longer works and its open sessions end", file=sys.stderr)
    config = client_config(args.client, url=found.url, token=token, name=server_name)
    revoke = f"revoke with `cloudg-nb assistants revoke {name}`"
    if settings is not None:
        try:
            merge_jupyter_ai_settings(settings, config)
        except OSError as exc:
            raise UsageError(f"cannot write {settings} ({exc.strerror}); the credential just "
                             f"minted is unused: {revoke}") from None
        print(f"# wrote the {server_name!r} entry with assistant {name}'s token into "
              f"{settings} (mode 0600; other entries kept); the token is shown nowhere else; "
              f"{revoke}", file=sys.stderr)
        return 0
    print(f"# the configuration below holds assistant {name}'s own token (it opens the MCP "
          f"endpoint only): store it in the client; it is shown only now; {revoke}",
          file=sys.stderr)
    print(f"# {config.where}", file=sys.stderr)
    print(config.text)
    return 0


def _assistants_server(args: argparse.Namespace) -> JupyterEndpoint | None:
    """The server whose assistants the command manages; None: no server runs (the local
    credential store file is used; said on stderr)."""
    from .assistants import default_store_path
    from .jupyter_discovery import JupyterServerNotFound, find_jupyter_endpoint

    try:
        found = find_jupyter_endpoint(args.url, args.token)
    except JupyterServerNotFound:
        print(f"# no running Jupyter server found: using the credential store file "
              f"{default_store_path()} (a server reads it again on its next request)",
              file=sys.stderr)
        return None
    except ValueError as exc:
        raise UsageError(f"--url: {exc}") from None
    _owner_token_check(found)
    return found


def _api_or_store(args: argparse.Namespace, method: str, path: str, doing: str,
                  ) -> tuple[JupyterEndpoint, int, dict[str, Any]] | None:
    """The owner API's answer, or None when the command works on the local store instead
    (no server found, or a discovered one that does not answer)."""
    from .assistants import default_store_path

    found = _assistants_server(args)
    if found is None:
        return None
    try:
        status, body = _owner_api(found, method, path)
    except _Unreachable as exc:
        if args.url:
            raise UsageError(f"cannot reach the Jupyter server at {found.server_url} ({exc}) "
                             f"to {doing}: check the address") from None
        print(f"# the Jupyter server at {found.server_url} (from {found.found_by}) does not "
              f"answer ({exc}): using the credential store file {default_store_path()} "
              "instead", file=sys.stderr)
        return None
    return found, status, body


def _local_store() -> AssistantStore:
    from .assistants import AssistantStore

    return AssistantStore()


def _table(rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
                     .rstrip() for row in rows)


#: The SERVER cell of a credential minted before credentials were bound to their server.
_UNBOUND_CELL = "(none: mint again)"


def _cmd_assistants_list(args: argparse.Namespace) -> int:
    from .assistants import AssistantStoreError

    answer = _api_or_store(args, "GET", "assistants", "list its assistants")
    out: dict[str, Any]
    if answer is not None:
        found, status, body = answer
        if status != 200 or not isinstance(body.get("assistants"), list):
            raise UsageError(_refusal(found, status, body, "list its assistants"))
        out = {"assistants": body["assistants"], "endpoint": body.get("endpoint") or found.url}
    else:
        store = _local_store()
        try:
            records = store.records()
        except AssistantStoreError as exc:
            raise UsageError(str(exc)) from None
        out = {"assistants": [{**r.public(), "last_used": None, "sessions": None}
                              for r in records], "store": str(store.path)}
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    items = [a for a in out["assistants"] if isinstance(a, dict)]
    if not items:
        print("# no assistant has a credential: mint one with `cloudg-nb config --client "
              "CLIENT --jupyter`", file=sys.stderr)
        return 0

    def cell(value: Any, empty: str = "-") -> str:
        return empty if value is None or value == "" else str(value)

    rows = [("NAME", "CLIENT", "PROFILE", "TOKEN", "CREATED", "LAST USED", "SESSIONS",
             "SERVER")]
    rows += [(cell(a.get("name")), cell(a.get("client")), cell(a.get("profile"), "(default)"),
              cell(a.get("token_hint")), cell(a.get("created")), cell(a.get("last_used")),
              cell(a.get("sessions")), cell(a.get("server"), _UNBOUND_CELL)) for a in items]
    print(_table(rows))
    if any(not a.get("server") for a in items):
        print("# a credential of no server was minted before credentials were bound to their "
              "server: no server accepts it; revoke it and mint a new one with `cloudg-nb "
              "config --client CLIENT --jupyter`", file=sys.stderr)
    return 0


def _cmd_assistants_revoke(args: argparse.Namespace) -> int:
    from .assistants import AssistantStoreError, valid_name

    name = args.assistant
    if not valid_name(name):
        raise UsageError(f"no assistant can be named {name[:60]!r}: names are lower-case "
                         "letters, digits, '.', '_' or '-' (`cloudg-nb assistants list` shows "
                         "them)")
    doing = f"revoke assistant {name}"
    answer = _api_or_store(args, "DELETE", f"assistants/{name}", doing)
    missing = (f"no assistant is named {name}: `cloudg-nb assistants list` shows the "
               "assistants with a credential")
    if answer is not None:
        found, status, body = answer
        if status == 404 and body.get("message"):
            raise UsageError(missing)
        if status != 200:
            raise UsageError(_refusal(found, status, body, doing))
        print(f"revoked assistant {name} ({body.get('principal') or 'assistant:' + name}): "
              f"its token no longer works; {body.get('sessions_ended', 0)} open session(s) "
              f"ended, {body.get('calls_denied', 0)} waiting call(s) denied")
        return 0
    store = _local_store()
    try:
        removed = store.revoke(name)
    except AssistantStoreError as exc:
        raise UsageError(str(exc)) from None
    if not removed:
        raise UsageError(missing)
    servers = ", ".join(r.server or "no server" for r in removed)
    print(f"revoked assistant {name} ({removed[0].principal_id}; server {servers}) in "
          f"{store.path}: a running server refuses its token from its next request and ends "
          "its sessions within a fraction of a second")
    return 0


def _add_layer_options(parser: argparse.ArgumentParser, default: str | None) -> None:
    parser.add_argument(
        "--policy", default=default,
        help="policy profile, file or JSON (default: $CLOUDG_MCP_POLICY or 'standard')",
    )
    parser.add_argument(
        "--registry", default=default, metavar="MODULE:ATTR",
        help="serve this Registry instead of the built-in catalog",
    )


def _add_data_options(parser: argparse.ArgumentParser, *, cache: bool = False) -> None:
    parser.add_argument("--dataset", action="append", metavar="NAME=PATH",
                        help="load an estate file into the workspace first (repeatable)"
                             + ("; the parse is cached in $XDG_CACHE_HOME/cloudg-nb (default "
                                "~/.cache/cloudg-nb) while the file is unchanged" if cache
                                else ""))
    if cache:
        parser.add_argument("--no-cache", dest="cache", action="store_false",
                            help="parse --dataset files afresh and do not store the parse")
    parser.add_argument("--sample", metavar="NAME",
                        help="load a generated sample estate (e.g. demo) into the workspace "
                             "first")


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("a port is a number from 0 to 65535") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError("a port is a number from 0 to 65535")
    return port


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("a number of seconds, such as 600 or 0.5") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError("a number of seconds, 0 or more")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("a whole number, 0 or more") from None
    if value < 0:
        raise argparse.ArgumentTypeError("a whole number, 0 or more")
    return value


def build_parser() -> argparse.ArgumentParser:
    from .protocol.client_config import ALL_CLIENTS

    parser = argparse.ArgumentParser(
        prog="cloudg-nb", description="Analyse a cloud estate through a governed MCP layer."
    )
    _add_layer_options(parser, None)
    sub = parser.add_subparsers(dest="command", required=True)
    lab = sub.add_parser(
        "lab", help="the main job: JupyterLab with the cloudg MCP endpoint and the demo estate",
        description="Start JupyterLab with the cloudg extension (demo estate loaded), opened "
                    "on the quickstart notebook; print its URL, the MCP endpoint and a "
                    "command that connects an assistant. No browser is opened.")
    lab.add_argument("--ip", default="127.0.0.1",
                     help="address to listen on (default loopback; use an SSH tunnel)")
    lab.add_argument("--port", type=_port, default=8888,
                     help="port (default 8888, or a free one if it is taken; 0 picks one)")
    lab.add_argument("--root-dir", default=".", help="folder the lab serves (default: here)")
    lab.add_argument("--notebook", default="notebooks/01-quickstart.ipynb",
                     help="notebook to open, relative to --root-dir")
    _add_layer_options(lab, argparse.SUPPRESS)
    lab.set_defaults(fn=_cmd_lab)
    demo = sub.add_parser("demo", help="tour the built-in demo estate in-process (no server)")
    demo.set_defaults(fn=_cmd_demo)
    tools = sub.add_parser("tools", help="list the tools")
    tools.add_argument("--json", action="store_true", help="print the MCP tool definitions")
    tools.set_defaults(fn=_cmd_tools)
    call = sub.add_parser(
        "call", help="call a tool and print its structured result (JSON)",
        description="Call a tool in-process and print its structured result as JSON (or its "
                    "text when it has none). An error is printed on stderr and exits 1.")
    call.add_argument("tool")
    call.add_argument("--args", default="{}", help="arguments as a JSON object")
    call.add_argument("--text", action="store_true",
                      help="print the result's text content instead of the structured JSON")
    call.set_defaults(fn=_cmd_call)
    read = sub.add_parser("read", help="read a resource and print its contents (JSON as JSON)")
    read.add_argument("uri")
    read.set_defaults(fn=_cmd_read)
    for command in (call, read):
        _add_data_options(command, cache=True)

    serve = sub.add_parser("serve", help="serve the layer to MCP clients (stdio or HTTP)")
    serve.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    serve.add_argument("--host", default="127.0.0.1", help="HTTP: address to listen on")
    serve.add_argument("--port", type=_port, default=8765,
                       help="HTTP: port (0 picks a free one)")
    serve.add_argument("--path", default="/mcp", help="HTTP: endpoint path")
    _add_layer_options(serve, argparse.SUPPRESS)
    _add_data_options(serve)
    serve.add_argument("--allow-anonymous", action="store_true",
                       help="HTTP: accept callers without a token on a non-loopback --host")
    serve.add_argument("--auth-token", action="append", metavar="TOKEN:ROLES:ID",
                       help="HTTP: accept this bearer token as principal ID with ROLES "
                            "(comma-separated); repeatable; without any, callers are anonymous")
    serve.add_argument("--allowed-host", action="append", metavar="HOST[:PORT]",
                       help="HTTP: accept this Host header besides the loopback names")
    serve.add_argument("--allowed-origin", action="append", metavar="ORIGIN",
                       help="HTTP: accept requests from this web origin (e.g. https://x.org)")
    serve.add_argument("--session-idle-timeout", type=_seconds, default=600.0,
                       metavar="SECONDS",
                       help="HTTP: end a handshake-era session after this long with no request "
                            "in flight (default 600; 0 never)")
    serve.add_argument("--max-sessions", type=_count, default=1000, metavar="N",
                       help="HTTP: open sessions in all (default 1000; 0 no limit); at a limit "
                            "the longest-idle session is closed, and only busy ones refuse")
    serve.add_argument("--max-sessions-per-caller", type=_count, default=0, metavar="N",
                       help="HTTP: open sessions per token principal, and for all anonymous "
                            "callers together (default: 100 per principal, 200 anonymous)")
    serve.set_defaults(fn=_cmd_serve)

    config = sub.add_parser(
        "config", help="print a ready-to-paste MCP client configuration",
        description="Print an MCP client configuration. With --jupyter, the assistant gets a "
                    "credential of its own from the running Jupyter server: a token that "
                    "opens only the cloudg MCP endpoint, runs under the assistant policy "
                    "profile and is revoked with `cloudg-nb assistants revoke NAME`. It is "
                    "shown only once, in the configuration (jupyter-ai: written into the "
                    "server's .jupyter/mcp_settings.json).")
    config.add_argument("--client", choices=ALL_CLIENTS, required=True)
    config.add_argument("--url", help="without --jupyter: connect to this running HTTP server "
                                      "instead of launching a stdio one; with --jupyter: the "
                                      "Jupyter server's address")
    config.add_argument("--token", help="without --jupyter: the bearer token the client should "
                                        "send (with --url); with --jupyter: the Jupyter "
                                        "server's own token, used only to mint the credential")
    config.add_argument("--name", default=None,
                        help="with --jupyter: the assistant's name (default: the client "
                             "name); a name that exists gets a new token and the old one "
                             "stops working. Without --jupyter (and with --server-token): "
                             "the server entry name in the client, as --server-name")
    config.add_argument("--server-name", default=None, metavar="NAME",
                        help="the server entry name in the client's configuration (default: "
                             "cloudg)")
    config.add_argument("--profile", default=None,
                        help="with --jupyter: the policy profile the assistant's calls run "
                             "under (default: the server's assistant profile; for cursor, "
                             "which takes about 40 tools, assistant-compact)")
    config.add_argument("--jupyter", action="store_true",
                        help="connect to the cloudg endpoint of the running Jupyter server "
                             "(found from $CLOUDG_MCP_URL, Jupyter's server files or "
                             "JupyterHub; --url names the server instead) with a credential "
                             "of the assistant's own")
    config.add_argument("--server-token", action="store_true",
                        help="with --jupyter: escape hatch, NOT recommended: give the "
                             "assistant the Jupyter server's own token (referred to as "
                             "$JUPYTER_TOKEN), which also opens files and kernels and "
                             "bypasses the governed layer")
    config.add_argument("--show-token", action="store_true",
                        help="with --jupyter --server-token: put the server's token itself "
                             "in the configuration (default: refer to $JUPYTER_TOKEN)")
    config.set_defaults(fn=_cmd_config)

    assistants = sub.add_parser(
        "assistants", help="list or revoke the assistants' own credentials",
        description="Manage the credentials `config --jupyter` mints: through the running "
                    "Jupyter server when one is found (its own credentials: each is bound "
                    "to the server that minted it), else in the local credential store file, "
                    "for every server (a running server reads it again at once).")
    actions = assistants.add_subparsers(dest="action", required=True)
    listing = actions.add_parser("list", help="the assistants with a credential (no tokens)")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(fn=_cmd_assistants_list)
    revoking = actions.add_parser("revoke", help="revoke an assistant's credential now")
    revoking.add_argument("assistant", metavar="NAME")
    revoking.set_defaults(fn=_cmd_assistants_revoke)
    for action in (listing, revoking):
        action.add_argument("--url", help="the Jupyter server's address (default: discovery, "
                                          "as config --jupyter)")
        action.add_argument("--token", help="the Jupyter server's own token")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.fn(args))
    except UsageError as exc:
        print(f"cloudg-nb: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
