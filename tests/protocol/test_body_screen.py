"""The body screen: what a POST may hold before the SDK parses it on the serving loop."""

from __future__ import annotations

import json

from cloudg_nb.protocol.body_screen import INLINE_PARSE_BYTES, MAX_REQUEST_VALUES, screen_body


def _call(arguments: object, ident: object = 1) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": ident, "method": "tools/call",
                       "params": {"name": "find_assets", "arguments": arguments}},
                      separators=(",", ":")).encode()


async def test_a_body_with_more_separators_than_the_cap_is_refused_with_413() -> None:
    refusal = await screen_body(_call({f"k{i}": 0 for i in range(MAX_REQUEST_VALUES + 1)}))
    assert refusal is not None
    assert (refusal.status, refusal.code) == (413, -32602)
    assert "too many values" in refusal.message and "page large inputs" in refusal.message


async def test_the_cap_is_applied_without_parsing_the_body() -> None:
    not_json = b"{" + b"0," * (MAX_REQUEST_VALUES + 1)
    refusal = await screen_body(not_json)
    assert refusal is not None and refusal.status == 413


async def test_a_body_at_the_cap_passes() -> None:
    # a JSON-RPC call's own separators plus its arguments' stay within the cap
    assert await screen_body(_call(list(range(MAX_REQUEST_VALUES - 10)))) is None


async def test_an_odd_id_is_an_invalid_request() -> None:
    refusal = await screen_body(_call({}, ident={"x": 1}))
    assert refusal is not None and (refusal.status, refusal.code) == (400, -32600)
    assert "string or an integer" in refusal.message


async def test_an_odd_id_in_a_large_body_is_found_too() -> None:
    body = _call({"query": "x" * (2 * INLINE_PARSE_BYTES)}, ident=1.5)
    assert len(body) > INLINE_PARSE_BYTES
    refusal = await screen_body(body)
    assert refusal is not None and refusal.status == 400


async def test_an_id_key_inside_the_arguments_is_just_an_argument() -> None:
    assert await screen_body(_call({"id": {"nested": True}})) is None


async def test_an_error_reply_may_carry_a_null_id() -> None:
    reply = json.dumps({"jsonrpc": "2.0", "id": None,
                        "error": {"code": -32600, "message": "bad"}}).encode()
    assert await screen_body(reply) is None


async def test_a_body_that_is_not_json_is_left_to_the_sdk() -> None:
    assert await screen_body(b'{"id": {') is None
    assert await screen_body(b"") is None
