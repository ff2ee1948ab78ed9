"""Drive the official ``mcp`` Python SDK's client over Streamable HTTP (plan ``mode``:
``legacy``, the 2025-11-25 handshake, or ``auto``, the stateless 2026-07-28 era); see driver.py.
"""

from __future__ import annotations

import warnings
from typing import Any

import anyio
import httpx2
from driver import Progress, bearer, read_plan, report
from mcp import Client, MCPDeprecationWarning
from mcp.client.streamable_http import streamable_http_client


async def main(plan: dict[str, Any]) -> None:
    warnings.simplefilter("ignore", MCPDeprecationWarning)
    progress = Progress()
    async with httpx2.AsyncClient(headers=bearer(plan),
                                  timeout=httpx2.Timeout(30, read=300)) as http:
        transport = streamable_http_client(plan["url"], http_client=http)
        async with Client(transport, mode=plan["mode"]) as client:
            listed = await client.list_tools()
            read = await client.call_tool(plan["read"]["tool"], plan["read"]["arguments"])
            slow = await client.call_tool(plan["progress"]["tool"],
                                          plan["progress"]["arguments"],
                                          progress_callback=progress)
            failed = await client.call_tool(plan["error"]["tool"], plan["error"]["arguments"])
            protocol = client.protocol_version
    report(
        "mcp",
        protocol=protocol,
        tools=[tool.name for tool in listed.tools],
        read={"data": read.structured_content, "is_error": read.is_error},
        progress={"data": slow.structured_content, "notifications": progress.seen},
        error={"surfaced_as": "isError result" if failed.is_error else "a plain result",
               "message": " ".join(c.text for c in failed.content if c.type == "text")},
    )


if __name__ == "__main__":
    anyio.run(main, read_plan())
