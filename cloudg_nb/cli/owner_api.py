"""The running Jupyter server's owner-only cloudg API (``{server_url}cloudg/api/…``), as
``config --jupyter`` and ``assistants`` call it: which server (``--url``/``--token``, else
discovery), one request with the owner's token, and an answer that is not a success said in
one line that tells what to do."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from ..layer.wire import API_PATH
from .args import UsageError

if TYPE_CHECKING:
    from ..jupyter_discovery import JupyterEndpoint

__all__ = ["Unreachable", "check_owner_token", "find_server", "owner_api", "refusal"]

#: Characters of a server's error message repeated on the terminal.
_MAX_SERVER_MESSAGE = 300


class Unreachable(Exception):
    """Nothing answered at the Jupyter server's address (the text says why, in a few words)."""


def find_server(args: argparse.Namespace) -> JupyterEndpoint:
    """The running Jupyter server ``--url``/``--token`` name, else the one discovery finds."""
    from ..jupyter_discovery import JupyterServerNotFound, find_jupyter_endpoint

    try:
        return find_jupyter_endpoint(args.url, args.token)
    except JupyterServerNotFound as exc:
        raise UsageError(f"{exc}; for this command: --url http://127.0.0.1:8888/ --token "
                         "TOKEN") from None
    except ValueError as exc:
        raise UsageError(f"--url: {exc}") from None


def owner_api(found: JupyterEndpoint, method: str, path: str,
              body: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
    """One request to the extension's owner-only API (``{server_url}cloudg/api/…``) with the
    owner's token: ``(status, JSON body or {})``; raises ``Unreachable``."""
    import urllib.error
    import urllib.request

    headers = {"Accept": "application/json"}
    if found.token:
        headers["Authorization"] = f"token {found.token}"
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(f"{found.server_url}{API_PATH}/{path}", data=data,
                                     headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            status, raw = int(response.status), response.read()
    except urllib.error.HTTPError as exc:
        status, raw = int(exc.code), exc.read()
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc
        text = getattr(reason, "strerror", None) or type(reason).__name__
        raise Unreachable(str(text)) from None
    try:
        parsed = json.loads(raw or b"{}")
    except ValueError:
        parsed = {}
    return status, parsed if isinstance(parsed, dict) else {}


def refusal(found: JupyterEndpoint, status: int, body: dict[str, Any], doing: str) -> str:
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


def check_owner_token(found: JupyterEndpoint) -> None:
    """``UsageError`` when the token found is an assistant's (it opens the MCP endpoint only)."""
    from ..assistants import looks_like_assistant_token

    if looks_like_assistant_token(found.token):
        raise UsageError(f"the token found from {found.found_by} is an assistant's token, "
                         "which opens only the MCP endpoint: pass the Jupyter server's own "
                         "token with --token (`jupyter server list` shows it)")
