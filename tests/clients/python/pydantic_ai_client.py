"""Drive pydantic-ai's MCP client (``MCPToolset`` over Streamable HTTP, headers and a progress
handler as its users pass them): list the tools, call them as the agent does
(``direct_call_tool``); a tool error reaches the agent as ``ModelRetry``. See driver.py.
"""

from __future__ import annotations

from typing import Any

import anyio
from driver import Progress, bearer, read_plan, report
from pydantic_ai.exceptions import ModelRetry
from pydantic_ai.mcp import MCPToolset


async def main(plan: dict[str, Any]) -> None:
    progress = Progress()
    toolset: MCPToolset[None] = MCPToolset(plan["url"], headers=bearer(plan),
                                           progress_handler=progress)
    async with toolset:
        listed = await toolset.list_tools()
        read = await toolset.direct_call_tool(plan["read"]["tool"], plan["read"]["arguments"])
        slow = await toolset.direct_call_tool(plan["progress"]["tool"],
                                              plan["progress"]["arguments"])
        try:
            await toolset.direct_call_tool(plan["error"]["tool"], plan["error"]["arguments"])
            error = {"surfaced_as": "a plain result", "message": ""}
        except ModelRetry as exc:
            error = {"surfaced_as": "ModelRetry", "message": exc.message}
        protocol = toolset.client.protocol_version
    report(
        "pydantic-ai-slim",
        protocol=protocol,
        tools=[tool.name for tool in listed],
        read={"data": read},
        progress={"data": slow, "notifications": progress.seen},
        error=error,
    )


if __name__ == "__main__":
    anyio.run(main, read_plan())
