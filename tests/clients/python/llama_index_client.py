"""Drive llama-index-tools-mcp: ``McpToolSpec(BasicMCPClient(url, headers=...))`` gives the
agent's ``FunctionTool`` list, called as an agent does (a tool error is the ``ToolOutput``'s
``raw_output.is_error``); its tools take no progress callback, ``BasicMCPClient.call_tool``
does, so progress is observed there. See driver.py.
"""

from __future__ import annotations

from typing import Any

import anyio
from driver import Progress, bearer, read_plan, report
from llama_index.tools.mcp import BasicMCPClient, McpToolSpec


async def main(plan: dict[str, Any]) -> None:
    client = BasicMCPClient(plan["url"], headers=bearer(plan), timeout=120)
    tools = await McpToolSpec(client=client).to_tool_list_async()
    by_name = {tool.metadata.name: tool for tool in tools}
    read = await by_name[plan["read"]["tool"]].acall(**plan["read"]["arguments"])
    failed = await by_name[plan["error"]["tool"]].acall(**plan["error"]["arguments"])
    progress = Progress()
    slow = await client.call_tool(plan["progress"]["tool"], plan["progress"]["arguments"],
                                  progress_callback=progress)
    raw = failed.raw_output
    message = " ".join(c.text for c in raw.content if c.type == "text")
    report(
        "llama-index-tools-mcp",
        tools=[tool.metadata.name for tool in tools],
        read={"data": read.raw_output.structured_content},
        progress={"data": slow.structured_content, "notifications": progress.seen},
        error={"surfaced_as": "ToolOutput raw_output.is_error" if raw.is_error
               else "a plain result",
               "message": message,
               # What the agent hands its model: the ToolOutput's text holds the message too.
               "in_tool_output": bool(message) and message in failed.content},
    )


if __name__ == "__main__":
    anyio.run(main, read_plan())
