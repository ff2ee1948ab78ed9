"""Ready-to-paste MCP client configurations for ``cloudg-nb config --client NAME``.

Without a URL the client launches ``cloudg-nb serve --transport stdio`` itself; with one it
connects to a running HTTP server (Claude Desktop through ``mcp-remote``, which bridges its
stdio-only configuration to HTTP). With ``token_env`` the token itself is left out: each client
reads it in its own way (shell variable, ``${env:…}``, a VS Code password prompt, or a
placeholder to fill in). Each entry says where the text goes.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["CLIENTS", "ClientConfig", "TOKEN_PLACEHOLDER", "client_config", "server_command"]

#: Stands in for the token in a Claude Desktop configuration made with ``token_env``.
TOKEN_PLACEHOLDER = "<paste the token here>"

CLIENTS = ("claude-desktop", "claude-code", "cursor", "vscode")


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
    """The configuration registering this server with ``client`` (one of ``CLIENTS``).

    With ``url`` and ``token_env`` (an environment variable name such as ``JUPYTER_TOKEN``)
    the text refers to the token instead of containing it; ``token`` is then ignored.
    """
    if client not in CLIENTS:
        raise ValueError(f"Unknown client; choose one of: {', '.join(CLIENTS)}")
    if url and token_env:
        return _referring_config(client, url, name, token_env)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
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
            args = ["-y", "mcp-remote", url]
            for key, value in headers.items():
                args += ["--header", f"{key}:{value}"]
            entry: dict = {"command": "npx", "args": args}
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

    entry = ({"type": "http", "url": url, **({"headers": headers} if headers else {})}
             if url else {"type": "stdio", "command": argv[0], "args": argv[1:], "env": env})
    return ClientConfig(json.dumps({"servers": {name: entry}}, indent=2),
                        "merge into .vscode/mcp.json in your workspace")


def _referring_config(client: str, url: str, name: str, token_env: str) -> ClientConfig:
    """An HTTP configuration whose bearer token comes from ``$token_env`` (or a prompt)."""
    if client == "claude-code":
        # Double quotes: the shell expands the variable when the command runs.
        cmd = shlex.join(["claude", "mcp", "add", "--transport", "http", name, url])
        return ClientConfig(f'{cmd} --header "Authorization: Bearer ${token_env}"',
                            f"run this in a shell where ${token_env} holds the token (add "
                            "--scope user to share it across projects)")
    if client == "claude-desktop":
        # mcp-remote expands ${AUTH_HEADER} from its env; Claude Desktop has no shell env.
        entry = {"command": "npx",
                 "args": ["-y", "mcp-remote", url, "--header", "Authorization:${AUTH_HEADER}"],
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
