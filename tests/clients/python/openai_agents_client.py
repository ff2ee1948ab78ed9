"""Drive openai-agents' MCP client (``MCPServerStreamableHttp``): build the agent's function
tools with ``convert_schemas_to_strict=True`` (``MCPUtil.get_function_tools``, as an agent
run does; a schema strict mode refuses falls back to non-strict, reported in ``not_strict``)
and invoke them as the agent does. It offers no progress hook. See driver.py.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
from agents import Agent, RunContextWrapper
from agents.mcp import MCPServerStreamableHttp, MCPUtil
from agents.tool_context import ToolContext
from driver import bearer, parse_text, read_plan, report


async def main(plan: dict[str, Any]) -> None:
    server = MCPServerStreamableHttp({"url": plan["url"], "headers": bearer(plan), "timeout": 30},
                                     name="cloudg", client_session_timeout_seconds=120)
    async with server:
        agent = Agent(name="cloudg-compatibility", mcp_servers=[server])
        tools = await MCPUtil.get_function_tools(server, True, RunContextWrapper(context=None),
                                                 agent)
        by_name = {tool.name: tool for tool in tools}

        async def invoke(call: dict[str, Any]) -> Any:
            arguments = json.dumps(call["arguments"])
            context = ToolContext(context=None, tool_name=call["tool"], tool_call_id="call-1",
                                  tool_arguments=arguments)
            return await by_name[call["tool"]].on_invoke_tool(context, arguments)

        read, slow, failed = [await invoke(plan[step]) for step in ("read", "progress", "error")]
        raw = await server.call_tool(plan["error"]["tool"], plan["error"]["arguments"])
        protocol = server.session.protocol_version if server.session else None
    report(
        "openai-agents",
        protocol=protocol,
        tools=[tool.name for tool in tools],
        not_strict=[tool.name for tool in tools if not tool.strict_json_schema],
        read={"data": parse_text(read["text"])},
        progress={"data": parse_text(slow["text"]), "notifications": None},
        error={"surfaced_as": "tool output text (isError result)" if raw.is_error
               else "a plain result", "message": failed["text"]},
    )


if __name__ == "__main__":
    anyio.run(main, read_plan())
