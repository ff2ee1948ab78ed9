"""Ready-to-paste MCP client configurations for ``cloudg-nb config --client NAME``.

Without a URL the client launches ``cloudg-nb serve --transport stdio`` itself; with one it
connects to a running HTTP server (Claude Desktop through ``mcp-remote``, which bridges its
stdio-only configuration to HTTP). Each entry says where the text goes.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["CLIENTS", "ClientConfig", "client_config", "server_command"]

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
) -> ClientConfig:
    """The configuration registering this server with ``client`` (one of ``CLIENTS``)."""
    if client not in CLIENTS:
        raise ValueError(f"Unknown client; choose one of: {', '.join(CLIENTS)}")
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
