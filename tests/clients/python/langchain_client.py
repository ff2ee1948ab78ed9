"""Drive langchain-mcp-adapters (``MultiServerMCPClient.get_tools()`` over Streamable HTTP, an
``on_progress`` callback) and invoke the LangChain tools with a tool call, as an agent does:
an error comes back as a ``ToolMessage`` with ``status="error"``. See driver.py.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

import anyio
from driver import Progress, bearer, parse_text, read_plan, report
from langchain_mcp_adapters.callbacks import Callbacks
from langchain_mcp_adapters.client import MultiServerMCPClient


def text_of(message: Any) -> str:
    return " ".join(block["text"] for block in message.content if block.get("type") == "text")


async def main(plan: dict[str, Any]) -> None:
    progress = Progress()
    client = MultiServerMCPClient(
        {"cloudg": {"transport": "streamable_http", "url": plan["url"], "headers": bearer(plan)}},
        callbacks=Callbacks(on_progress=progress))
    tools = await client.get_tools()
    by_name = {tool.name: tool for tool in tools}
    messages = {}
    for step in ("read", "progress", "error"):
        call = plan[step]
        messages[step] = await by_name[call["tool"]].ainvoke(
            {"name": call["tool"], "args": call["arguments"], "id": f"call-{step}",
             "type": "tool_call"})
    failed = messages["error"]
    report(
        "langchain-mcp-adapters",
        mcp_version=version("mcp"),
        tools=[tool.name for tool in tools],
        read={"data": parse_text(text_of(messages["read"]))},
        progress={"data": parse_text(text_of(messages["progress"])),
                  "notifications": progress.seen},
        error={"surfaced_as": f"ToolMessage status={failed.status}", "message": text_of(failed)},
    )


if __name__ == "__main__":
    anyio.run(main, read_plan())
