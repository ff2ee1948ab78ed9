"""The ``cloudg-nb`` argument parser: every command, its options and help, and the function
that runs it (``args.fn``). Options shared by commands are added by one helper each."""

from __future__ import annotations

import argparse

from .args import count, port, seconds
from .assistants import cmd_assistants_list, cmd_assistants_revoke
from .config import cmd_config
from .local import cmd_call, cmd_demo, cmd_read, cmd_tools
from .oauth_clients import cmd_oauth_clients_add, cmd_oauth_clients_list, cmd_oauth_clients_remove
from .serve import cmd_lab, cmd_serve

__all__ = ["build_parser"]


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
                        help="load an estate file into the workspace first (repeatable; "
                             "NAME=sample:demo loads a generated sample estate)"
                             + ("; the parse is cached in $XDG_CACHE_HOME/cloudg-nb (default "
                                "~/.cache/cloudg-nb) while the file is unchanged" if cache
                                else ""))
    if cache:
        parser.add_argument("--no-cache", dest="cache", action="store_false",
                            help="parse --dataset files afresh and do not store the parse")
    parser.add_argument("--sample", metavar="NAME",
                        help="load a generated sample estate (e.g. demo) into the workspace "
                             "first")



def build_parser() -> argparse.ArgumentParser:
    from ..client_config import ALL_CLIENTS

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
    lab.add_argument("--port", type=port, default=8888,
                     help="port (default 8888, or a free one if it is taken; 0 picks one)")
    lab.add_argument("--root-dir", default=".", help="folder the lab serves (default: here)")
    lab.add_argument("--notebook", default="notebooks/01-quickstart.ipynb",
                     help="notebook to open, relative to --root-dir")
    _add_layer_options(lab, argparse.SUPPRESS)
    lab.set_defaults(fn=cmd_lab)
    demo = sub.add_parser("demo", help="tour the built-in demo estate in-process (no server)")
    demo.set_defaults(fn=cmd_demo)
    tools = sub.add_parser("tools", help="list the tools")
    tools.add_argument("--json", action="store_true", help="print the MCP tool definitions")
    tools.set_defaults(fn=cmd_tools)
    call = sub.add_parser(
        "call", help="call a tool and print its structured result (JSON)",
        description="Call a tool in-process and print its structured result as JSON (or its "
                    "text when it has none). An error is printed on stderr and exits 1.")
    call.add_argument("tool")
    call.add_argument("--args", default="{}", help="arguments as a JSON object")
    call.add_argument("--text", action="store_true",
                      help="print the result's text content instead of the structured JSON")
    call.set_defaults(fn=cmd_call)
    read = sub.add_parser("read", help="read a resource and print its contents (JSON as JSON)")
    read.add_argument("uri")
    read.set_defaults(fn=cmd_read)
    for command in (call, read):
        _add_data_options(command, cache=True)

    serve = sub.add_parser("serve", help="serve the layer to MCP clients (stdio or HTTP)")
    serve.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    serve.add_argument("--host", default="127.0.0.1", help="HTTP: address to listen on")
    serve.add_argument("--port", type=port, default=8765,
                       help="HTTP: port (0 picks a free one)")
    serve.add_argument("--path", default="/mcp", help="HTTP: endpoint path")
    _add_layer_options(serve, argparse.SUPPRESS)
    _add_data_options(serve)
    serve.add_argument("--allow-anonymous", action="store_true",
                       help="HTTP: accept callers without a token on a non-loopback --host")
    serve.add_argument("--auth-token", action="append", metavar="TOKEN:ROLES:ID",
                       help="HTTP: accept this bearer token as principal ID with ROLES "
                            "(comma-separated); repeatable; without any, callers are anonymous")
    serve.add_argument("--oauth", action="store_true",
                       help="HTTP: MCP authorization (OAuth): clients connect with the bare URL "
                            "and the owner allows each on a consent page, typing an "
                            "--auth-token token there (needs one)")
    serve.add_argument("--allowed-host", action="append", metavar="HOST[:PORT]",
                       help="HTTP: accept this Host header besides the loopback names")
    serve.add_argument("--allowed-origin", action="append", metavar="ORIGIN",
                       help="HTTP: accept requests from this web origin (e.g. https://x.org)")
    serve.add_argument("--session-idle-timeout", type=seconds, default=600.0,
                       metavar="SECONDS",
                       help="HTTP: end a handshake-era session after this long with no request "
                            "in flight (default 600; 0 never)")
    serve.add_argument("--max-sessions", type=count, default=1000, metavar="N",
                       help="HTTP: open sessions in all (default 1000; 0 no limit); at a limit "
                            "the longest-idle session is closed, and only busy ones refuse")
    serve.add_argument("--max-sessions-per-caller", type=count, default=0, metavar="N",
                       help="HTTP: open sessions per token principal, and for all anonymous "
                            "callers together (default: 100 per principal, 200 anonymous)")
    serve.set_defaults(fn=cmd_serve)

    config = sub.add_parser(
        "config", help="print a ready-to-paste MCP client configuration",
        description="Print an MCP client configuration. With --jupyter, a client that signs "
                    "in with OAuth (claude-code, cursor, vscode, claude-desktop through "
                    "mcp-remote) gets the running Jupyter server's endpoint URL alone: when "
                    "it first connects, you consent in your browser and the assistant gets a "
                    "credential of its own. With --token-auth (and always for jupyter-ai), "
                    "the server mints that credential now: a token that opens only the "
                    "cloudg MCP endpoint, runs under the assistant policy profile and is "
                    "revoked with `cloudg-nb assistants revoke NAME`. It is shown only once, "
                    "in the configuration (jupyter-ai: written into the server's "
                    ".jupyter/mcp_settings.json).")
    config.add_argument("--client", choices=ALL_CLIENTS, required=True)
    config.add_argument("--url", help="without --jupyter: connect to this running HTTP server "
                                      "instead of launching a stdio one; with --jupyter: the "
                                      "Jupyter server's address")
    config.add_argument("--token", help="without --jupyter: the bearer token the client should "
                                        "send (with --url); with --jupyter: the Jupyter "
                                        "server's own token, used only to mint the credential")
    config.add_argument("--name", default=None,
                        help="with --jupyter --token-auth (or jupyter-ai): the assistant's "
                             "name (default: the client name); a name that exists gets a new "
                             "token and the old one stops working. Without --jupyter (and "
                             "with --server-token): the server entry name in the client, as "
                             "--server-name")
    config.add_argument("--server-name", default=None, metavar="NAME",
                        help="the server entry name in the client's configuration (default: "
                             "cloudg)")
    config.add_argument("--profile", default=None,
                        help="with --jupyter --token-auth (or jupyter-ai): the policy "
                             "profile the assistant's calls run under (default: the server's "
                             "assistant profile; for cursor, which takes about 40 tools, "
                             "assistant-compact)")
    config.add_argument("--jupyter", action="store_true",
                        help="connect to the cloudg endpoint of the running Jupyter server "
                             "(found from $CLOUDG_MCP_URL, Jupyter's server files or "
                             "JupyterHub; --url names the server instead) with a credential "
                             "of the assistant's own (OAuth sign-in, or --token-auth)")
    config.add_argument("--token-auth", action="store_true",
                        help="with --jupyter: mint the assistant a token of its own and put "
                             "it in the configuration, instead of the OAuth sign-in (for a "
                             "client that cannot sign in; jupyter-ai always gets a token)")
    config.add_argument("--server-token", action="store_true",
                        help="with --jupyter: escape hatch, NOT recommended: give the "
                             "assistant the Jupyter server's own token (referred to as "
                             "$JUPYTER_TOKEN), which also opens files and kernels and "
                             "bypasses the governed layer")
    config.add_argument("--show-token", action="store_true",
                        help="with --jupyter --server-token: put the server's token itself "
                             "in the configuration (default: refer to $JUPYTER_TOKEN)")
    config.set_defaults(fn=cmd_config)

    assistants = sub.add_parser(
        "assistants", help="list or revoke the assistants' own credentials",
        description="Manage the credentials `config --jupyter` mints: through the running "
                    "Jupyter server when one is found (its own credentials: each is bound "
                    "to the server that minted it), else in the local credential store file, "
                    "for every server (a running server reads it again at once).")
    actions = assistants.add_subparsers(dest="action", required=True)
    listing = actions.add_parser("list", help="the assistants with a credential (no tokens)")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(fn=cmd_assistants_list)
    revoking = actions.add_parser("revoke", help="revoke an assistant's credential now")
    revoking.add_argument("assistant", metavar="NAME")
    revoking.set_defaults(fn=cmd_assistants_revoke)
    clients = sub.add_parser(
        "oauth-clients", help="register OAuth clients ahead, for clients that cannot "
                              "register themselves",
        description="Most MCP clients register themselves when they first connect (or "
                    "publish a Client ID Metadata Document). For one that cannot, register "
                    "its client_id and redirect URIs here, on the running Jupyter server: "
                    "https redirect URIs match exactly, http ones must be on a loopback "
                    "host (127.0.0.1, localhost, [::1]), where any port matches. You still "
                    "consent in your browser when it connects.")
    client_actions = clients.add_subparsers(dest="action", required=True)
    client_list = client_actions.add_parser("list", help="the clients registered ahead")
    client_list.add_argument("--json", action="store_true", help="print JSON")
    client_list.set_defaults(fn=cmd_oauth_clients_list)
    client_add = client_actions.add_parser("add", help="register a client")
    client_add.add_argument("client_id", metavar="CLIENT_ID")
    client_add.add_argument("--redirect-uri", action="append", required=True, metavar="URI",
                            help="where the client receives its sign-in answer (repeat for "
                                 "several)")
    client_add.add_argument("--name", default=None,
                            help="what the consent page calls the client (default: its id)")
    client_add.set_defaults(fn=cmd_oauth_clients_add)
    client_remove = client_actions.add_parser(
        "remove", help="remove a client: it signs in no more, and its sign-ins end")
    client_remove.add_argument("client_id", metavar="CLIENT_ID")
    client_remove.set_defaults(fn=cmd_oauth_clients_remove)
    for action in (listing, revoking, client_list, client_add, client_remove):
        action.add_argument("--url", help="the Jupyter server's address (default: discovery, "
                                          "as config --jupyter)")
        action.add_argument("--token", help="the Jupyter server's own token")
    return parser
