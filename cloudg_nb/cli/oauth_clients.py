"""``oauth-clients list | add | remove``: OAuth clients registered ahead on the running Jupyter
server, for MCP clients that cannot register dynamically (most register themselves, or publish
a Client ID Metadata Document, and need none of this). Through the server's owner API only:
a client is bound to its server, so there is nothing to do without one running."""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from typing import TYPE_CHECKING, Any

from .args import UsageError
from .owner_api import Unreachable, check_owner_token, find_server, owner_api, refusal

if TYPE_CHECKING:
    from ..jupyter_discovery import JupyterEndpoint

__all__ = ["cmd_oauth_clients_add", "cmd_oauth_clients_list", "cmd_oauth_clients_remove"]

_PATH = "oauth/clients"


def _ask(args: argparse.Namespace, method: str, path: str, doing: str,
         body: dict[str, Any] | None = None) -> tuple[JupyterEndpoint, int, dict[str, Any]]:
    found = find_server(args)
    check_owner_token(found)
    try:
        status, answer = owner_api(found, method, path, body)
    except Unreachable as exc:
        raise UsageError(f"cannot reach the Jupyter server at {found.server_url} ({exc}) to "
                         f"{doing}: is it running? (--url names another one)") from None
    if status == 404 and "Nothing is served" in str(answer.get("message", "")):
        raise UsageError(f"the Jupyter server at {found.server_url} has no OAuth clients API: "
                         "OAuth is off there (CloudGExtension.oauth = False) or its "
                         "cloudg_jupyter is older (pip install -U cloudg-nb, then restart it)")
    if status in (404, 409) and answer.get("message"):
        raise UsageError(f"the Jupyter server did not {doing}: "
                         + " ".join(str(answer["message"]).split())[:300])
    return found, status, answer


def _when(stamp: Any) -> str:
    if not isinstance(stamp, int | float):
        return "-"
    return datetime.datetime.fromtimestamp(stamp, datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")


def cmd_oauth_clients_list(args: argparse.Namespace) -> int:
    doing = "list its OAuth clients"
    found, status, body = _ask(args, "GET", _PATH, doing)
    if status != 200 or not isinstance(body.get("clients"), list):
        raise UsageError(refusal(found, status, body, doing))
    if args.json:
        print(json.dumps({"clients": body["clients"], "endpoint": body.get("endpoint")},
                         indent=2))
        return 0
    if not body["clients"]:
        print("# no OAuth client is registered ahead: `cloudg-nb oauth-clients add CLIENT_ID "
              "--redirect-uri URI` registers one", file=sys.stderr)
        return 0
    for client in body["clients"]:
        print(f"{client['client_id']}  ({client['name']}; registered "
              f"{_when(client.get('registered'))})")
        for uri in client.get("redirect_uris") or []:
            print(f"  redirect: {uri}")
        assistants = ", ".join(client.get("assistants") or []) or "none yet"
        print(f"  assistants connected through it: {assistants}")
    return 0


def cmd_oauth_clients_add(args: argparse.Namespace) -> int:
    doing = f"register the OAuth client {args.client_id[:60]!r}"
    fields = {"client_id": args.client_id, "name": args.name or "",
              "redirect_uris": args.redirect_uri}
    found, status, body = _ask(args, "POST", _PATH, doing, fields)
    if status != 201 or not isinstance(body.get("client"), dict):
        raise UsageError(refusal(found, status, body, doing))
    client = body["client"]
    print(f"registered OAuth client {client['client_id']} ({client['name']}) on the Jupyter "
          f"server at {found.server_url}")
    print(f"configure the client with: MCP server URL {body.get('endpoint')}, client_id "
          f"{client['client_id']}, no client secret (it signs in with PKCE), and one of its "
          "registered redirect URIs; you consent in your browser when it first connects")
    print(f"remove with `cloudg-nb oauth-clients remove {client['client_id']}`", file=sys.stderr)
    return 0


def cmd_oauth_clients_remove(args: argparse.Namespace) -> int:
    doing = f"remove the OAuth client {args.client_id[:60]!r}"
    if "/" in args.client_id or not args.client_id:
        raise UsageError("no client registered ahead has that client_id: `cloudg-nb "
                         "oauth-clients list` shows them")
    found, status, body = _ask(args, "DELETE", f"{_PATH}/{args.client_id}", doing)
    if status != 200:
        raise UsageError(refusal(found, status, body, doing))
    assistants = ", ".join(body.get("assistants") or []) or "none"
    print(f"removed OAuth client {args.client_id}: it can no longer sign in; "
          f"{body.get('grants_ended', 0)} sign-in(s) ended (assistants: {assistants}; "
          "`cloudg-nb assistants revoke NAME` removes an assistant itself)")
    return 0
