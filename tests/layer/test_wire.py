"""``cloudg_nb.layer.wire``: the one home of error codes and header names.

Its numbers and names are the SDK's own where the SDK has them, the layer's errors go out with
them, it imports nothing of ours, and no other module spells them out.
"""

from __future__ import annotations

import ast
from pathlib import Path

import mcp_types
from mcp.server import streamable_http
from mcp.shared import inbound

from cloudg_nb.layer import wire
from cloudg_nb.layer.errors import (
    AccessDeniedError,
    InputRejectedError,
    InvalidArgumentsError,
    MCPLayerError,
    NotFoundError,
    RateLimitedError,
)

ROOT = Path(__file__).resolve().parents[2]
WIRE = ROOT / "cloudg_nb" / "layer" / "wire.py"

CODES = {name: getattr(wire, name) for name in wire.__all__
         if isinstance(getattr(wire, name), int)}
HEADERS = {name: getattr(wire, name) for name in wire.__all__ if name.endswith("_HEADER")}


def test_json_rpc_and_sdk_codes_are_the_sdks_own() -> None:
    for name in ("PARSE_ERROR", "INVALID_REQUEST", "METHOD_NOT_FOUND", "INVALID_PARAMS",
                 "INTERNAL_ERROR", "CONNECTION_CLOSED"):
        assert CODES[name] == getattr(mcp_types, name), name
    assert wire.REQUEST_CANCELLED == streamable_http.REQUEST_CANCELLED


def test_header_names_are_the_sdks_own() -> None:
    assert wire.MCP_SESSION_ID_HEADER == streamable_http.MCP_SESSION_ID_HEADER
    assert wire.LAST_EVENT_ID_HEADER == streamable_http.LAST_EVENT_ID_HEADER
    assert wire.MCP_PROTOCOL_VERSION_HEADER == inbound.MCP_PROTOCOL_VERSION_HEADER
    assert wire.MCP_METHOD_HEADER == inbound.MCP_METHOD_HEADER
    assert wire.MCP_NAME_HEADER == inbound.MCP_NAME_HEADER


def test_codes_are_distinct() -> None:
    assert len(set(CODES.values())) == len(CODES)


def test_layer_errors_go_out_with_the_wire_codes() -> None:
    assert MCPLayerError("x").code == wire.INTERNAL_ERROR
    assert InvalidArgumentsError("x").code == wire.INVALID_PARAMS
    assert InputRejectedError("x").code == wire.INVALID_PARAMS
    assert NotFoundError("x").code == wire.INVALID_PARAMS
    assert AccessDeniedError("x").code == wire.ACCESS_DENIED
    assert RateLimitedError("x").code == wire.RATE_LIMITED
    assert {NotFoundError.code, wire.RESOURCE_NOT_FOUND} == wire.NOT_FOUND_CODES


def test_error_response_is_a_json_rpc_error_with_data_only_when_given() -> None:
    assert wire.error_response(wire.INVALID_REQUEST, "bad") == {
        "jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "bad"}}
    assert wire.error_response(wire.REQUEST_CANCELLED, "gone", {"k": 1}, request_id=7) == {
        "jsonrpc": "2.0", "id": 7, "error": {"code": -32800, "message": "gone", "data": {"k": 1}}}


def test_wire_imports_only_the_standard_library() -> None:
    imported = {node.module for node in ast.walk(ast.parse(WIRE.read_text()))
                if isinstance(node, ast.ImportFrom)}
    imported |= {a.name for node in ast.walk(ast.parse(WIRE.read_text()))
                 if isinstance(node, ast.Import) for a in node.names}
    assert imported <= {"__future__", "typing"}


def _literals(tree: ast.AST) -> list[int | str]:
    """Negative int literals and string literals in ``tree``."""
    out: list[int | str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) \
                and isinstance(node.operand, ast.Constant) and type(node.operand.value) is int:
            out.append(-node.operand.value)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append(node.value.lower())
    return out


def test_no_other_module_spells_out_a_code_or_header_name() -> None:
    wanted = set(CODES.values()) | set(HEADERS.values())
    found: set[tuple[str, int | str]] = set()
    for top in ("cloudg_nb", "jupyter_server_ext"):
        for path in sorted((ROOT / top).rglob("*.py")):
            if path == WIRE:
                continue
            where = path.relative_to(ROOT).as_posix()
            found |= {(where, value) for value in _literals(ast.parse(path.read_text()))
                      if value in wanted}
    assert found == set(), "import these from cloudg_nb.layer.wire instead of spelling them out"
