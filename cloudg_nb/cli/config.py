"""``config``: a ready-to-paste MCP client configuration. With ``--jupyter``, a client that signs
in with OAuth gets the running Jupyter server's endpoint URL alone (the analyst consents in the
browser when it first connects); with ``--token-auth``, and for clients without OAuth, the
server mints the assistant a credential of its own and the configuration holds it (Jupyter
AI's is written into the server's ``.jupyter/mcp_settings.json``); ``--server-token`` is the
escape hatch that hands over the server's own token, with a warning. Without ``--jupyter``
the client launches a stdio server, or connects to ``--url``."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..layer.wire import ENDPOINT_PATH
from .args import UsageError, is_loopback
from .owner_api import Unreachable, check_owner_token, find_server, owner_api, refusal

if TYPE_CHECKING:
    from ..jupyter_discovery import JupyterEndpoint

__all__ = ["OAUTH_NOTE", "SERVER_TOKEN_WARNING", "cmd_config"]


def cmd_config(args: argparse.Namespace) -> int:
    from ..client_config import HTTP_ONLY_CLIENTS, OAUTH_CLIENTS, client_config

    token_auth = getattr(args, "token_auth", False)
    if token_auth and (not args.jupyter or args.server_token):
        raise UsageError("--token-auth goes with --jupyter (without --server-token): it mints "
                         "the assistant a token of its own instead of the OAuth sign-in")
    oauth = args.jupyter and not args.server_token and not token_auth \
        and args.client in OAUTH_CLIENTS
    minting = args.jupyter and not args.server_token and not oauth
    if oauth and (args.profile is not None or args.name is not None):
        raise UsageError(f"{args.client} signs in with OAuth: you name the assistant and pick "
                         "its profile on the consent page when it first connects. To mint a "
                         "token under --name/--profile instead, add --token-auth")
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
    if oauth:
        return _config_for_oauth(args, server_name)
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

    if not is_loopback(urllib.parse.urlsplit(status_url).hostname or ""):
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
    from ..client_config import client_config

    found = find_server(args)
    token_env = found.token_env or "JUPYTER_TOKEN"
    refer = found.token is not None and not args.show_token
    config = client_config(args.client, url=found.address, token=found.token,
                           name=server_name, token_env=token_env if refer else None)
    print(SERVER_TOKEN_WARNING, file=sys.stderr)
    print(f"# MCP endpoint {found.address} (found from {found.found_by})", file=sys.stderr)
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


def under_hub_without_address() -> bool:
    """In a JupyterHub single-user server whose hub gave no public address."""
    from ..jupyter_discovery import hub_public_root

    return bool(os.environ.get("JUPYTERHUB_SERVICE_PREFIX")) and hub_public_root(
        os.environ) is None


def served_address(minted: dict[str, Any], found: JupyterEndpoint) -> str:
    """The endpoint address to give the assistant: the one the server says analysts reach it
    at when that is not loopback (its ``public_url`` setting, or the hub's public address:
    what its approval links use), else what discovery found (the hub's public address when
    the environment names one). Inside a hub, the loopback address is for this shell only."""
    said = minted.get("endpoint")
    if isinstance(said, str):
        parts = urlsplit(said)
        if parts.scheme in ("http", "https") and parts.hostname and not is_loopback(
                parts.hostname) and parts.path.rstrip("/").endswith(ENDPOINT_PATH):
            return said
    return found.address


def _config_for_assistant(args: argparse.Namespace, server_name: str) -> int:
    """``config --jupyter``: mint the assistant's own credential through the running server
    and print (or, for Jupyter AI, write) the configuration holding that token."""
    from pathlib import Path

    from ..assistants import TOKEN_PREFIX, assistant_id, valid_name
    from ..client_config import (
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
    found = find_server(args)
    check_owner_token(found)
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
        status, body = owner_api(found, "POST", "assistants", request)
    except Unreachable as exc:
        raise UsageError(f"cannot reach the Jupyter server at {found.server_url} ({exc}) to "
                         f"{doing}: is it running? (`jupyter server list`; a server that "
                         "crashed leaves its file behind; name one with --url URL --token "
                         "TOKEN)") from None
    token = body.get("token")
    if status != 201 or not isinstance(token, str) or not token.startswith(TOKEN_PREFIX):
        raise UsageError(refusal(found, status, body, doing))
    given = body.get("assistant")
    record: dict[str, Any] = given if isinstance(given, dict) else {}
    profile = record.get("profile") or "the server's assistant profile"
    url = served_address(body, found)
    print(f"# MCP endpoint {url} (found from {found.found_by})", file=sys.stderr)
    if url == found.url and found.public_url is None and under_hub_without_address():
        print(f"# warning: {HUB_LOOPBACK_WARNING}", file=sys.stderr)
    print(f"# minted a credential for assistant {name}: its calls act as "
          f"{record.get('principal') or assistant_id(name)} under {profile}, token "
          f"{record.get('token_hint') or TOKEN_PREFIX + '...'}", file=sys.stderr)
    if compact:
        print(f"# {args.client} takes only so many tools: the {compact} profile lists a "
              "smaller set of them (--profile NAME picks another; assistant lists every tool)",
              file=sys.stderr)
    if body.get("replaced"):
        print(f"# assistant {name} already had a credential: it is replaced, the old token no "
              "longer works and its open sessions end", file=sys.stderr)
    config = client_config(args.client, url=url, token=token, name=server_name)
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


def _config_for_oauth(args: argparse.Namespace, server_name: str) -> int:
    """``config --jupyter`` for a client that signs in with OAuth: the endpoint's URL alone.
    Nothing is minted: the assistant's credential comes from the analyst's consent."""
    from ..client_config import COMPACT_PROFILES, client_config

    found = find_server(args)
    url = found.address  # inside a hub, its public address: the assistant is elsewhere
    config = client_config(args.client, url=url, name=server_name)
    print(f"# MCP endpoint {url} (found from {found.found_by})", file=sys.stderr)
    if url == found.url and found.public_url is None and under_hub_without_address():
        print(f"# warning: {HUB_LOOPBACK_WARNING}", file=sys.stderr)
    warning = _probe_jupyter_endpoint(found.status_url, found.token)
    if warning:
        print(f"# warning: {warning}", file=sys.stderr)
    print(f"# {OAUTH_NOTE}", file=sys.stderr)
    compact = COMPACT_PROFILES.get(args.client)
    if compact:
        print(f"# {args.client} takes only so many tools: pick the {compact} profile on the "
              "consent page", file=sys.stderr)
    print(f"# {config.where}", file=sys.stderr)
    print(config.text)
    return 0


#: What ``config --jupyter`` warns inside a hub that gave no public address.
HUB_LOOPBACK_WARNING = (
    "that is this server's address inside JupyterHub, which an assistant elsewhere cannot "
    "reach: use the address your browser shows (…/user/NAME/cloudg/mcp), and ask the hub's "
    "admin to set JupyterHub.public_url"
)

#: What ``config --jupyter`` says on stderr when it prints the OAuth form.
OAUTH_NOTE = (
    "no token here: the client signs in with OAuth when it first connects. Your browser opens "
    "the Jupyter server's consent page (your Jupyter login); Allow names the assistant and "
    "picks its profile, and the assistant then gets a credential of its own (revoke it in the "
    "cloudg sidebar or with `cloudg-nb assistants revoke NAME`). A client that cannot sign in: "
    "add --token-auth to mint it a token instead."
)

