"""Ready-to-paste MCP client configurations for ``cloudg-nb config --client NAME``.

Without a URL the client launches ``cloudg-nb serve --transport stdio`` itself; with one it
connects to a running HTTP server (Claude Desktop through ``mcp-remote``; Jupyter AI through
its workspace ``.jupyter/mcp_settings.json``, which ``merge_jupyter_ai_settings`` writes). A URL
without a token is the OAuth form for ``OAUTH_CLIENTS`` (they sign in themselves). With
``token_env`` the token itself is left out and each client reads it in its own way. Each entry
says where the text goes.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["ALL_CLIENTS", "CLIENTS", "CLIENT_LABELS", "COMPACT_PROFILES", "CONFIG_PATHS",
           "HTTP_ONLY_CLIENTS", "JUPYTER_AI_SETTINGS", "OAUTH_CLIENTS", "ClientConfig",
           "TOKEN_PLACEHOLDER", "client_config", "merge_jupyter_ai_settings",
           "read_jupyter_ai_settings", "server_command"]

#: Stands in for the token in a Claude Desktop configuration made with ``token_env``.
TOKEN_PLACEHOLDER = "<paste the token here>"

#: Clients that can launch a stdio server as well as connect over HTTP.
CLIENTS = ("claude-desktop", "claude-code", "cursor", "vscode")
#: Clients that only connect to a running HTTP endpoint (Jupyter AI lives in the server).
HTTP_ONLY_CLIENTS = ("jupyter-ai",)
ALL_CLIENTS = CLIENTS + HTTP_ONLY_CLIENTS
#: Clients that sign in to an MCP server with OAuth themselves (MCP's authorization flow:
#: they open the user's browser on the server's consent page and keep their tokens), so their
#: configuration for a Jupyter server is the endpoint's URL alone. Claude Desktop does it
#: through mcp-remote. Jupyter AI does not: it gets a minted token.
OAUTH_CLIENTS = ("claude-code", "cursor", "vscode", "claude-desktop")
#: The profile an assistant credential of these clients runs under when none is named: they
#: take only so many tools (Cursor about 40, across all its MCP servers), and the default
#: assistant profile lists more.
COMPACT_PROFILES = {"cursor": "assistant-compact"}
#: Jupyter AI's per-workspace MCP settings, relative to the Jupyter server's root dir.
JUPYTER_AI_SETTINGS = Path(".jupyter") / "mcp_settings.json"
#: The clients as people name them, in the order a picker offers them.
CLIENT_LABELS = {"claude-code": "Claude Code", "cursor": "Cursor", "vscode": "VS Code",
                 "claude-desktop": "Claude Desktop", "jupyter-ai": "Jupyter AI"}
#: Where each client keeps the configuration ``client_config`` gives for a running server
#: (Claude Code's is a command to run; Jupyter AI's is under the Jupyter server's root dir).
CONFIG_PATHS: dict[str, str | None] = {
    "claude-code": None, "cursor": "~/.cursor/mcp.json", "vscode": ".vscode/mcp.json",
    "claude-desktop": "claude_desktop_config.json (Settings > Developer > Edit Config)",
    "jupyter-ai": JUPYTER_AI_SETTINGS.as_posix()}


@dataclass(frozen=True)
class ClientConfig:
    text: str  # what to paste (JSON or a shell command)
    where: str  # where it goes


def server_command(extra: Sequence[str] = ()) -> list[str]:
    """The argv that starts the stdio server: the installed console script when on PATH
    (absolute, since desktop clients start with a minimal PATH), else this interpreter."""
    script = shutil.which("cloudg-nb")
    base = [script] if script else [sys.executable, "-m", "cloudg_nb"]
    return [*base, *extra, "serve", "--transport", "stdio"]


def client_config(
    client: str,
    *,
    url: str | None = None,
    token: str | None = None,
    name: str = "cloudg",
    server_args: Sequence[str] = (),
    token_env: str | None = None,
) -> ClientConfig:
    """The configuration registering this server with ``client`` (one of ``ALL_CLIENTS``).

    With ``url`` and ``token_env`` (an environment variable name such as ``JUPYTER_TOKEN``)
    the text refers to the token instead of containing it; ``token`` is then ignored.
    """
    if client not in ALL_CLIENTS:
        raise ValueError(f"Unknown client; choose one of: {', '.join(ALL_CLIENTS)}")
    if client in HTTP_ONLY_CLIENTS and not url:
        raise ValueError(f"{client} connects to a running server over HTTP only: give its URL")
    if url and token_env:
        return _referring_config(client, url, name, token_env)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if client == "jupyter-ai":
        assert url is not None
        item: dict[str, Any] = {"type": "http", "name": name, "url": url}
        if token:
            item["headers"] = [{"name": "Authorization", "value": f"Bearer {token}"}]
        return ClientConfig(json.dumps({"mcp_servers": [item]}, indent=2),
                            f"merge into {JUPYTER_AI_SETTINGS} in the Jupyter server's root dir "
                            "(the workspace Jupyter AI reads its MCP servers from)")
    argv = server_command(server_args)
    # Desktop clients often start servers from "/"; pin the readable roots to the folder the
    # configuration was made in, so the server never reads more than the user meant.
    env = {"CLOUDG_MCP_ALLOWED_ROOTS": os.environ.get("CLOUDG_MCP_ALLOWED_ROOTS")
           or os.getcwd()}

    if client == "claude-code":
        if url:
            cmd = ["claude", "mcp", "add", "--transport", "http", name, url]
            for key, value in headers.items():
                cmd += ["--header", f"{key}: {value}"]
        else:
            cmd = ["claude", "mcp", "add", "--transport", "stdio", name,
                   *[f"--env={k}={v}" for k, v in env.items()], "--", *argv]
        return ClientConfig(shlex.join(cmd), "run this in a shell (add --scope user to share "
                                             "it across projects)")

    if client == "claude-desktop":
        if url:
            # The endpoint speaks Streamable HTTP only: http-only keeps mcp-remote from ever
            # trying the old SSE transport.
            entry: dict[str, Any] = {"command": "npx", "args": [
                "-y", "mcp-remote", url, "--transport", "http-only"]}
            if token:
                # As mcp-remote recommends: the header value (it has a space) comes from its
                # env, since some clients mangle spaces inside args.
                entry["args"] += ["--header", "Authorization:${AUTH_HEADER}"]
                entry["env"] = {"AUTH_HEADER": f"Bearer {token}"}
        else:
            entry = {"command": argv[0], "args": argv[1:], "env": env}
        return ClientConfig(
            json.dumps({"mcpServers": {name: entry}}, indent=2),
            "merge into claude_desktop_config.json (Settings > Developer > Edit Config)",
        )

    if client == "cursor":
        entry = {"url": url, **({"headers": headers} if headers else {})} if url else {
            "command": argv[0], "args": argv[1:], "env": env}
        return ClientConfig(json.dumps({"mcpServers": {name: entry}}, indent=2),
                            "merge into ~/.cursor/mcp.json (or .cursor/mcp.json in a project)")

    # A token given here goes inline in the header, not through a promptString input: it is
    # an assistant's own credential (revocable, good for the MCP endpoint only) or one the
    # user passed explicitly, and a prompt would make them copy it from the terminal a second
    # time. Only the server-token escape hatch (_referring_config) prompts for it.
    entry = ({"type": "http", "url": url, **({"headers": headers} if headers else {})}
             if url else {"type": "stdio", "command": argv[0], "args": argv[1:], "env": env})
    where = "merge into .vscode/mcp.json in your workspace"
    if token:
        where += (" (or your user mcp.json: MCP: Open User Configuration); the file then "
                  "holds the token, so keep it out of version control")
    return ClientConfig(json.dumps({"servers": {name: entry}}, indent=2), where)


def _referring_config(client: str, url: str, name: str, token_env: str) -> ClientConfig:
    """An HTTP configuration whose bearer token comes from ``$token_env`` (or a prompt)."""
    if client in HTTP_ONLY_CLIENTS:
        raise ValueError(f"{client} takes the token itself in its settings file, not a "
                         "variable: give the token")
    if client == "claude-code":
        # Double quotes: the shell expands the variable when the command runs.
        cmd = shlex.join(["claude", "mcp", "add", "--transport", "http", name, url])
        return ClientConfig(f'{cmd} --header "Authorization: Bearer ${token_env}"',
                            f"run this in a shell where ${token_env} holds the token (add "
                            "--scope user to share it across projects)")
    if client == "claude-desktop":
        # mcp-remote expands ${AUTH_HEADER} from its env; Claude Desktop has no shell env.
        entry = {"command": "npx",
                 "args": ["-y", "mcp-remote", url, "--transport", "http-only", "--header",
                          "Authorization:${AUTH_HEADER}"],
                 "env": {"AUTH_HEADER": f"Bearer {TOKEN_PLACEHOLDER}"}}
        return ClientConfig(
            json.dumps({"mcpServers": {name: entry}}, indent=2),
            f"merge into claude_desktop_config.json (Settings > Developer > Edit Config) and "
            f"replace {TOKEN_PLACEHOLDER} with the token (${token_env})",
        )
    if client == "cursor":
        entry = {"url": url, "headers": {"Authorization": f"Bearer ${{env:{token_env}}}"}}
        return ClientConfig(json.dumps({"mcpServers": {name: entry}}, indent=2),
                            f"merge into ~/.cursor/mcp.json (or .cursor/mcp.json in a "
                            f"project); start Cursor where ${token_env} holds the token")
    input_id = f"{name}-token"
    config = {
        "inputs": [{"type": "promptString", "id": input_id, "password": True,
                    "description": f"Token of the Jupyter server (${token_env})"}],
        "servers": {name: {"type": "http", "url": url,
                           "headers": {"Authorization": f"Bearer ${{input:{input_id}}}"}}},
    }
    return ClientConfig(json.dumps(config, indent=2),
                        "merge into .vscode/mcp.json in your workspace; VS Code asks for the "
                        "token once and keeps it in its secret storage")


def read_jupyter_ai_settings(path: Path) -> dict[str, Any]:
    """The settings in ``path`` ({} when there is no file). A file that is not a JSON object
    with an ``mcp_servers`` list raises ValueError saying so (it is never overwritten)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ValueError(f"cannot read {path} ({exc.strerror})") from None
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not valid JSON (line {exc.lineno}); fix it or move it "
                         "away, then run this again") from None
    if not isinstance(data, dict) or not isinstance(data.get("mcp_servers", []), list):
        raise ValueError(f"{path} is not Jupyter AI MCP settings (a JSON object with an "
                         "mcp_servers list); fix it or move it away, then run this again")
    return data


def merge_jupyter_ai_settings(path: Path, config: ClientConfig) -> Path:
    """Put the entry of a ``jupyter-ai`` ``config`` into the settings file ``path``: an entry
    of the same name is replaced, other entries and keys are kept. The file is written
    atomically with mode 0600 (it holds a token); its folder is made if missing."""
    (entry,) = json.loads(config.text)["mcp_servers"]
    data = read_jupyter_ai_settings(path)
    servers = [s for s in data.get("mcp_servers", [])
               if not (isinstance(s, dict) and s.get("name") == entry["name"])]
    data["mcp_servers"] = [*servers, entry]
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=2)
            out.write("\n")
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path
