"""The ``cloudg-nb`` console script: demo, list tools, call a tool, read a resource.

All commands run an in-process layer (no server needed); JSON goes to stdout, messages to
stderr, and a bad command line exits with status 2.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["main"]


def _layer(args: argparse.Namespace) -> Any:
    from .layer import CloudGMCPLayer

    return CloudGMCPLayer(policy=args.policy)


def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    asyncio.run(run_demo())
    return 0


def _cmd_tools(args: argparse.Namespace) -> int:
    tools = _layer(args).tools_wire()
    if args.json:
        print(json.dumps(tools, indent=2))
    else:
        for tool in tools:
            print(f"{tool['name']:<28} {tool.get('title', '')}")
    return 0


def _cmd_call(args: argparse.Namespace) -> int:
    try:
        arguments = json.loads(args.args)
    except json.JSONDecodeError as exc:
        print(f"--args is not valid JSON (line {exc.lineno}, column {exc.colno}); "
              "pass an object such as '{\"limit\": 5}'", file=sys.stderr)
        return 2
    if not isinstance(arguments, dict):
        print("--args must be a JSON object of named arguments", file=sys.stderr)
        return 2
    from .layer import NotFoundError

    try:
        result = asyncio.run(_layer(args).call_tool(args.tool, arguments))
    except NotFoundError as exc:
        print(exc.message, file=sys.stderr)
        return 2
    print(json.dumps(result.to_wire(), indent=2))
    return 1 if result.is_error else 0


def _cmd_read(args: argparse.Namespace) -> int:
    from .layer import MCPLayerError

    try:
        contents = asyncio.run(_layer(args).read_resource(args.uri))
    except MCPLayerError as exc:
        print(exc.message, file=sys.stderr)
        return 2
    print(json.dumps([c.to_wire() for c in contents], indent=2))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cloudg-nb", description="Analyse a cloud estate through a governed MCP layer."
    )
    parser.add_argument(
        "--policy", default=None,
        help="policy profile, file or JSON (default: $CLOUDG_MCP_POLICY or 'standard')",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="walk through the layer in-process").set_defaults(fn=_cmd_demo)
    tools = sub.add_parser("tools", help="list the tools")
    tools.add_argument("--json", action="store_true", help="print the MCP tool definitions")
    tools.set_defaults(fn=_cmd_tools)
    call = sub.add_parser("call", help="call a tool and print the MCP result")
    call.add_argument("tool")
    call.add_argument("--args", default="{}", help="arguments as a JSON object")
    call.set_defaults(fn=_cmd_call)
    read = sub.add_parser("read", help="read a resource and print its contents")
    read.add_argument("uri")
    read.set_defaults(fn=_cmd_read)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.fn(args))


if __name__ == "__main__":
    sys.exit(main())
