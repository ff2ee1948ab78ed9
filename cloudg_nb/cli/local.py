"""The in-process commands: ``demo`` (a tour of the demo estate), ``tools``, ``call`` and
``read`` against the layer ``local_layer`` builds. Answers go to stdout; a failed call or read
is said on stderr (its message, then its error data on one line) and exits 1."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from ..layer.wire import ERROR_DATA_META
from .local_layer import local_layer

__all__ = ["cmd_call", "cmd_demo", "cmd_read", "cmd_tools"]

#: Characters of error data shown on the terminal (the rest is cut, marked with ...).
_MAX_ERROR_DATA = 600


def cmd_demo(args: argparse.Namespace) -> int:
    from ..demo import run_demo

    asyncio.run(run_demo(args.policy or "standard"))
    return 0


def cmd_tools(args: argparse.Namespace) -> int:
    tools = local_layer(args).tools_wire()
    if args.json:
        print(json.dumps(tools, indent=2))
    else:
        for tool in tools:
            print(f"{tool['name']:<28} {tool.get('title', '')}")
    return 0


def cmd_call(args: argparse.Namespace) -> int:
    try:
        arguments = json.loads(args.args)
    except json.JSONDecodeError as exc:
        print(f"--args is not valid JSON (line {exc.lineno}, column {exc.colno}); "
              "pass an object such as '{\"limit\": 5}'", file=sys.stderr)
        return 2
    if not isinstance(arguments, dict):
        print("--args must be a JSON object of named arguments", file=sys.stderr)
        return 2
    from ..layer import NotFoundError

    layer = local_layer(args)
    try:
        result = asyncio.run(layer.call_tool(args.tool, arguments))
    except NotFoundError as exc:
        print(exc.message, file=sys.stderr)
        return 2
    if result.is_error:
        _print_error(args.tool, result.text, result.meta.get(ERROR_DATA_META))
        return 1
    if args.text or result.structured is None:
        print(result.text)
    else:
        print(json.dumps(result.structured, indent=2, default=str))
    return 0


def cmd_read(args: argparse.Namespace) -> int:
    from ..layer import MCPLayerError

    layer = local_layer(args)
    try:
        contents = asyncio.run(layer.read_resource(args.uri))
    except MCPLayerError as exc:
        _print_error(args.uri, exc.message, exc.data)
        return 1
    bodies = [_content_body(c.to_wire()) for c in contents]
    if len(bodies) == 1 and isinstance(bodies[0], str):
        print(bodies[0])
    else:
        print(json.dumps(bodies[0] if len(bodies) == 1 else bodies, indent=2, default=str))
    return 0


def _print_error(what: str, message: str, data: Any) -> None:
    """One short block on stderr: the message, then the error data on one line."""
    print(f"cloudg-nb: {what}: {message}", file=sys.stderr)
    if data:
        details = json.dumps(data, default=str)
        if len(details) > _MAX_ERROR_DATA:
            details = details[:_MAX_ERROR_DATA] + " ..."
        print(f"  details: {details}", file=sys.stderr)


def _content_body(wire: dict[str, Any]) -> Any:
    """What a resource content says: parsed JSON for JSON text, the text, else its wire form
    (binary contents)."""
    text = wire.get("text")
    if not isinstance(text, str):
        return wire
    if "json" in str(wire.get("mimeType") or ""):
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            pass
    return text
