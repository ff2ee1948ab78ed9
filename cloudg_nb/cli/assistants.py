"""``assistants list`` and ``assistants revoke NAME``: the credentials ``config --jupyter``
mints, managed through the running Jupyter server's owner API when one is found (its own
credentials), else in the local credential store file (every server's; a running server reads
it again at once). Listings show no tokens, only their hints."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .args import UsageError
from .owner_api import Unreachable, check_owner_token, owner_api, refusal

if TYPE_CHECKING:
    from ..assistants import AssistantStore
    from ..jupyter_discovery import JupyterEndpoint

__all__ = ["cmd_assistants_list", "cmd_assistants_revoke"]


#: The SERVER cell of a credential minted before credentials were bound to their server.
_UNBOUND_CELL = "(none: mint again)"


def cmd_assistants_list(args: argparse.Namespace) -> int:
    from ..assistants import AssistantStoreError

    answer = _api_or_store(args, "GET", "assistants", "list its assistants")
    out: dict[str, Any]
    if answer is not None:
        found, status, body = answer
        if status != 200 or not isinstance(body.get("assistants"), list):
            raise UsageError(refusal(found, status, body, "list its assistants"))
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



def cmd_assistants_revoke(args: argparse.Namespace) -> int:
    from ..assistants import AssistantStoreError, assistant_id, valid_name

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
            raise UsageError(refusal(found, status, body, doing))
        print(f"revoked assistant {name} ({body.get('principal') or assistant_id(name)}): "
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



def _assistants_server(args: argparse.Namespace) -> JupyterEndpoint | None:
    """The server whose assistants the command manages; None: no server runs (the local
    credential store file is used; said on stderr)."""
    from ..assistants import default_store_path
    from ..jupyter_discovery import JupyterServerNotFound, find_jupyter_endpoint

    try:
        found = find_jupyter_endpoint(args.url, args.token)
    except JupyterServerNotFound:
        print(f"# no running Jupyter server found: using the credential store file "
              f"{default_store_path()} (a server reads it again on its next request)",
              file=sys.stderr)
        return None
    except ValueError as exc:
        raise UsageError(f"--url: {exc}") from None
    check_owner_token(found)
    return found



def _api_or_store(args: argparse.Namespace, method: str, path: str, doing: str,
                  ) -> tuple[JupyterEndpoint, int, dict[str, Any]] | None:
    """The owner API's answer, or None when the command works on the local store instead
    (no server found, or a discovered one that does not answer)."""
    from ..assistants import default_store_path

    found = _assistants_server(args)
    if found is None:
        return None
    try:
        status, body = owner_api(found, method, path)
    except Unreachable as exc:
        if args.url:
            raise UsageError(f"cannot reach the Jupyter server at {found.server_url} ({exc}) "
                             f"to {doing}: check the address") from None
        print(f"# the Jupyter server at {found.server_url} (from {found.found_by}) does not "
              f"answer ({exc}): using the credential store file {default_store_path()} "
              "instead", file=sys.stderr)
        return None
    return found, status, body



def _local_store() -> AssistantStore:
    from ..assistants import AssistantStore

    return AssistantStore()



def _table(rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
                     .rstrip() for row in rows)
