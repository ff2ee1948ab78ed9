"""Drive ``mcp-remote`` (the stdio bridge desktop clients launch) with the official ``mcp``
Python SDK's stdio client, the way Claude Desktop does: the plan's ``command``, ``args`` and
``env`` are the entry ``cloudg-nb config --client claude-desktop`` prints, and
``package_json`` the installed mcp-remote's package.json (its version); see driver.py.
"""

from __future__ import annotations

import json
import os
import warnings
from importlib.metadata import version
from pathlib import Path
from typing import Any

import anyio
from driver import Progress, read_plan, report
from mcp import Client, MCPDeprecationWarning, StdioServerParameters


async def main(plan: dict[str, Any]) -> None:
    warnings.simplefilter("ignore", MCPDeprecationWarning)
    progress = Progress()
    bridge = StdioServerParameters(command=plan["command"], args=plan["args"],
                                   env={**os.environ, **plan["env"]})
    async with Client(bridge, mode="legacy") as client:  # a stdio bridge speaks the handshake
        listed = await client.list_tools()
        read = await client.call_tool(plan["read"]["tool"], plan["read"]["arguments"])
        slow = await client.call_tool(plan["progress"]["tool"], plan["progress"]["arguments"],
                                      progress_callback=progress)
        failed = await client.call_tool(plan["error"]["tool"], plan["error"]["arguments"])
        protocol = client.protocol_version
    bridge_package = json.loads(Path(plan["package_json"]).read_text(encoding="utf-8"))
    report(
        "mcp-remote",
        version_tested=bridge_package["version"],
        stdio_client=f"mcp {version('mcp')}",
        protocol=protocol,
        tools=[tool.name for tool in listed.tools],
        read={"data": read.structured_content, "is_error": read.is_error},
        progress={"data": slow.structured_content, "notifications": progress.seen},
        error={"surfaced_as": "isError result" if failed.is_error else "a plain result",
               "message": " ".join(c.text for c in failed.content if c.type == "text")},
    )


if __name__ == "__main__":
    anyio.run(main, read_plan())
