"""No request stalls the serving loop: attacks on a real Jupyter server with minted assistant
tokens (and the analyst's own token), while a probe process keeps calling ``list_datasets``
as the analyst.

The class, in both protocol eras: huge argument objects (300k keys, sent by the official MCP
client), objects and lists just under the request cap, long strings, escapes, deep nesting,
batch-like bodies, odd ids, resources/read and subscribe by huge URIs, prompts/get and
completion/complete with huge arguments, notifications, and a flood of listings. Each
gets its proper answer (refused small and clear, or answered), and the probe's slowest call
while it is handled stays under a coarse bound: the smallest of two runs' worst latencies, so a
stall (which repeats) fails and a moment of load on a shared 2-core machine does not.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx2
import pytest
from mcp import MCPError

from tests.protocol.harness import TIMEOUT, open_session

from .loop_probe import LoopProbe
from .server import FIXTURE_REGISTRY, JupyterServer, jupyter_server
from .test_assistants import mint as mint_token

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

BASE = "/user/alice/"
MODERN = "2026-07-28"
HANDSHAKE = "2025-11-25"
#: Coarse bound on the probe's slowest call while an attack is handled (the stalls this
#: guards against took 0.2-0.75 s; on a quiet machine the probe's worst is tens of ms).
STALL = 0.2
REPEATS = 2
CALLERS = ("assistant", "analyst")
ERAS = ("2025", "2026")
_META = {"io.modelcontextprotocol/protocolVersion": MODERN,
         "io.modelcontextprotocol/clientCapabilities": {}}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    tmp = tmp_path_factory.mktemp("loop-stall")
    with jupyter_server(tmp, base_url=BASE, extra_args=[FIXTURE_REGISTRY]) as started:
        yield started


@pytest.fixture(scope="module")
def probe(server: JupyterServer) -> Iterator[LoopProbe]:
    with LoopProbe(server.endpoint, {"Authorization": f"token {server.token}"}) as running:
        yield running


_minted = 0


def token_of(server: JupyterServer, caller: str) -> str:
    """The analyst's server token, or a newly minted assistant's (its own rate limits)."""
    global _minted
    if caller == "analyst":
        return server.token
    _minted += 1
    return mint_token(server, f"attacker-{_minted}")


def while_probing(probe: LoopProbe, attack: Callable[[], Any]) -> tuple[Any, float]:
    """Run ``attack`` ``REPEATS`` times: its last outcome, and the smallest of the probe's
    worst latencies during each run."""
    worst = []
    outcome = None
    for _ in range(REPEATS):
        time.sleep(0.05)
        started = time.monotonic()
        outcome = attack()
        worst.append(probe.worst(started, time.monotonic()))
    return outcome, min(worst)


class Raw:
    """One caller's raw JSON-RPC over HTTP in an era (2025: an initialized session)."""

    def __init__(self, server: JupyterServer, token: str, era: str) -> None:
        self.url = server.endpoint
        self.era = era
        self.http = httpx2.Client(timeout=TIMEOUT)
        self.headers = {"content-type": "application/json",
                        "accept": "application/json, text/event-stream",
                        "authorization": f"Bearer {token}"}
        if era == "2025":
            opened = self.http.post(self.url, headers=self.headers, json={
                "jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": HANDSHAKE, "capabilities": {},
                           "clientInfo": {"name": "attacker", "version": "1"}}})
            assert opened.status_code == 200, opened.text
            self.headers.update({"mcp-session-id": opened.headers["mcp-session-id"],
                                 "mcp-protocol-version": HANDSHAKE})
            self.http.post(self.url, headers=self.headers,
                           json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        else:
            self.headers["mcp-protocol-version"] = MODERN

    def close(self) -> None:
        self.http.close()

    def body(self, method: str, params: dict[str, Any], ident: Any = 1) -> bytes:
        if self.era == "2026":
            params = {**params, "_meta": _META}
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if ident is not None:
            message["id"] = ident
        return json.dumps(message, separators=(",", ":")).encode()

    def post(self, body: bytes, method: str, name: str | None = None) -> httpx2.Response:
        headers = dict(self.headers)
        if self.era == "2026":
            headers["mcp-method"] = method
            if name is not None:
                headers["mcp-name"] = name
        return self.http.post(self.url, content=body, headers=headers)


def answer(response: httpx2.Response) -> dict[str, Any]:
    """The JSON-RPC message a response carries (JSON or the SSE event)."""
    text = response.text
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        text = next(line[5:] for line in text.splitlines() if line.startswith("data:"))
    return dict(json.loads(text))


def error_of(response: httpx2.Response) -> tuple[int, str]:
    """(code, message) of a JSON-RPC error, or of a tool's error result."""
    message = answer(response)
    if "error" in message:
        return message["error"]["code"], message["error"]["message"]
    result = message["result"]
    assert result.get("isError"), result
    return result["_meta"]["cloudg/error_code"], result["content"][0]["text"]


@pytest.fixture(params=[(era, caller) for era in ERAS for caller in CALLERS],
                ids=lambda p: f"{p[0]}-{p[1]}")
def raw(request: Any, server: JupyterServer) -> Iterator[Raw]:
    era, caller = request.param
    opened = Raw(server, token_of(server, caller), era)
    yield opened
    opened.close()


def keys(count: int) -> dict[str, int]:
    return {f"k{i:07d}": 0 for i in range(count)}


# -- huge objects ---------------------------------------------------------------------------


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("caller", CALLERS)
def test_a_300k_key_tool_call_from_the_mcp_client_is_refused_without_a_stall(
        server: JupyterServer, probe: LoopProbe, era: str, caller: str) -> None:
    arguments = keys(300_000)
    headers = {"Authorization": f"Bearer {token_of(server, caller)}"}
    with open_session(server.endpoint, era, headers=headers) as session:
        def attack() -> MCPError:
            with pytest.raises(MCPError) as caught:
                session.call_tool("find_assets", arguments)
            return caught.value

        error, worst = while_probing(probe, attack)
        assert session.call_tool("list_datasets", {}).is_error is False  # still connected
    assert error.error.code == -32602
    assert "too many values" in error.error.message and "page large inputs" in error.error.message
    assert worst < STALL


def test_a_300k_key_body_with_an_odd_id_is_refused_unparsed(raw: Raw, probe: LoopProbe) -> None:
    arguments = {"id": {"x": 1}, **keys(300_000)}
    body = raw.body("tools/call", {"name": "find_assets", "arguments": arguments},
                    ident={"odd": True})
    response, worst = while_probing(probe, lambda: raw.post(body, "tools/call", "find_assets"))
    assert response.status_code == 413 and len(response.content) < 1024
    assert "too many values" in answer(response)["error"]["message"]
    assert worst < STALL


def test_an_argument_object_just_under_the_cap_is_answered_by_the_layer(
        raw: Raw, probe: LoopProbe) -> None:
    body = raw.body("tools/call", {"name": "find_assets", "arguments": keys(24_000)})
    response, worst = while_probing(probe, lambda: raw.post(body, "tools/call", "find_assets"))
    assert response.status_code == 200
    code, message = error_of(response)
    assert code == -32602 and "argument count" in message and "k0000063" not in message
    assert worst < STALL


def test_a_large_object_inside_one_argument_is_validated_off_the_loop(
        raw: Raw, probe: LoopProbe) -> None:
    body = raw.body("tools/call", {"name": "find_assets",
                                   "arguments": {"query": keys(24_000)}})
    response, worst = while_probing(probe, lambda: raw.post(body, "tools/call", "find_assets"))
    code, message = error_of(response)
    assert code == -32602 and "query" in message
    assert worst < STALL


# -- long strings, escapes, nesting ------------------------------------------------------------


@pytest.mark.parametrize("text,refusal", [
    ("x" * 3_900_000, "total size in characters"),  # over the bounds: refused on the loop
    ("aws-acct-prod " * 70_000, "query"),  # under: guarded and validated in a worker
    ("\u00e9" * 640_000, "query"),  # 3.8 MB of \\u escapes on the wire
])
def test_a_long_string_argument_is_refused_without_a_stall(
        raw: Raw, probe: LoopProbe, text: str, refusal: str) -> None:
    body = raw.body("tools/call", {"name": "find_assets", "arguments": {"query": text}})
    assert len(body) < 4 * 1024 * 1024
    response, worst = while_probing(probe, lambda: raw.post(body, "tools/call", "find_assets"))
    code, message = error_of(response)
    assert code == -32602 and refusal in message
    assert text[:50] not in response.text  # never echoed
    assert worst < STALL


def test_deep_nesting_is_refused_without_a_stall(raw: Raw, probe: LoopProbe) -> None:
    deep: Any = "x"
    for _ in range(90):  # 180 levels: parsed (the parser's limit is higher), then refused
        deep = {"a": [deep]}
    body = raw.body("tools/call", {"name": "find_assets", "arguments": {"query": deep}})
    response, worst = while_probing(probe, lambda: raw.post(body, "tools/call", "find_assets"))
    code, message = error_of(response)
    assert code == -32602 and "nesting depth" in message
    assert worst < STALL


def test_nesting_too_deep_to_parse_is_a_parse_error(raw: Raw, probe: LoopProbe) -> None:
    body = (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"find_assets",'
            b'"arguments":{"query":' + b"[" * 500_000 + b"]" * 500_000 + b"}}}")
    response, worst = while_probing(probe, lambda: raw.post(body, "tools/call", "find_assets"))
    assert response.status_code == 400
    assert answer(response)["error"]["code"] == -32700
    assert worst < STALL


# -- huge arrays and batch-like bodies ----------------------------------------------------------


def test_a_list_over_the_cap_is_refused_unparsed(raw: Raw, probe: LoopProbe) -> None:
    body = raw.body("tools/call", {"name": "find_assets",
                                   "arguments": {"tag": ["env:prod"] * 99_000}})
    response, worst = while_probing(probe, lambda: raw.post(body, "tools/call", "find_assets"))
    assert response.status_code == 413
    assert worst < STALL


def test_a_list_under_the_cap_is_taken_and_the_call_runs(raw: Raw, probe: LoopProbe) -> None:
    body = raw.body("tools/call", {"name": "find_assets",
                                   "arguments": {"tag": [f"env:t{i}" for i in range(24_000)]}})
    response, worst = while_probing(probe, lambda: raw.post(body, "tools/call", "find_assets"))
    result = answer(response)["result"]
    assert not result.get("isError"), result
    assert worst < STALL


@pytest.mark.parametrize("batch", ["calls", "values"])
def test_a_batch_like_body_is_refused_without_a_stall(raw: Raw, probe: LoopProbe,
                                                      batch: str) -> None:
    if batch == "calls":
        items = [json.loads(raw.body("tools/call", {"name": "list_datasets", "arguments": {}},
                                     ident=i)) for i in range(3_000)]
    else:
        items = [0] * 99_000
    body = json.dumps(items, separators=(",", ":")).encode()
    response, worst = while_probing(probe, lambda: raw.post(body, "tools/call", "list_datasets"))
    assert response.status_code in (400, 413)
    assert "error" in answer(response)
    assert worst < STALL


# -- resources, prompts, completions, notifications --------------------------------------------


@pytest.mark.parametrize("era", ERAS)
def test_reading_a_resource_by_a_huge_uri_is_refused(server: JupyterServer, probe: LoopProbe,
                                                     era: str) -> None:
    uri = "cloudg://assets/" + "a/" * 10_000
    headers = {"Authorization": f"Bearer {token_of(server, 'assistant')}"}
    with open_session(server.endpoint, era, headers=headers) as session:
        def attack() -> MCPError:
            with pytest.raises(MCPError) as caught:
                session.read_resource(uri)
            return caught.value

        error, worst = while_probing(probe, attack)
    assert error.error.code == -32602 and "URI too long" in error.error.message
    assert worst < STALL


@pytest.mark.parametrize("method", ["resources/read", "resources/subscribe"])
def test_a_4mb_uri_is_refused_before_it_is_matched(server: JupyterServer, probe: LoopProbe,
                                                  method: str) -> None:
    raw = Raw(server, token_of(server, "assistant"), "2025")
    body = raw.body(method, {"uri": "cloudg://assets/" + "a/" * 1_900_000})
    response, worst = while_probing(probe, lambda: raw.post(body, method))
    raw.close()
    code, message = error_of(response)
    assert code == -32602 and "URI too long" in message and "a/a/a/" not in response.text
    assert worst < STALL


def test_prompt_arguments_just_under_the_cap_are_refused(raw: Raw, probe: LoopProbe) -> None:
    arguments = {f"k{i}": "v" for i in range(24_000)}
    body = raw.body("prompts/get", {"name": "investigate_asset", "arguments": arguments})
    response, worst = while_probing(probe, lambda: raw.post(body, "prompts/get",
                                                            "investigate_asset"))
    code, message = error_of(response)
    assert code == -32602 and "argument count" in message
    assert worst < STALL


def test_a_long_prompt_argument_is_handled_off_the_loop(raw: Raw, probe: LoopProbe) -> None:
    body = raw.body("prompts/get", {"name": "investigate_asset",
                                    "arguments": {"ref": "aws-acct-prod " * 70_000}})
    response, worst = while_probing(probe, lambda: raw.post(body, "prompts/get",
                                                            "investigate_asset"))
    code, _ = error_of(response)
    assert code in (-32602, -32002)  # refused, or no asset matches that ref
    assert worst < STALL


@pytest.mark.parametrize("part", ["value", "context"])
def test_a_huge_completion_request_is_handled_without_a_stall(raw: Raw, probe: LoopProbe,
                                                             part: str) -> None:
    params: dict[str, Any] = {"ref": {"type": "ref/resource", "uri": "cloudg://assets/{+ref}"},
                              "argument": {"name": "ref", "value": "a"}}
    if part == "value":
        params["argument"]["value"] = "a" * 3_900_000
    else:
        params["context"] = {"arguments": {f"k{i}": "v" for i in range(24_000)}}
    body = raw.body("completion/complete", params)
    response, worst = while_probing(probe, lambda: raw.post(body, "completion/complete"))
    message = answer(response)
    if part == "value":
        assert message["error"]["code"] == -32602
        assert "Arguments too large" in message["error"]["message"]
    else:
        assert "completion" in message["result"]
    assert worst < STALL


def test_a_huge_notification_is_refused_without_a_stall(raw: Raw, probe: LoopProbe) -> None:
    body = raw.body("notifications/cancelled", {"requestId": 5, **keys(99_000)}, ident=None)
    response, worst = while_probing(probe, lambda: raw.post(body, "notifications/cancelled"))
    assert response.status_code == 413
    assert worst < STALL


# -- many small requests ------------------------------------------------------------------------


@pytest.mark.parametrize("era", ERAS)
def test_a_flood_of_small_requests_does_not_hold_up_the_analyst(
        server: JupyterServer, probe: LoopProbe, era: str) -> None:
    raw = Raw(server, token_of(server, "assistant"), era)
    # listings: the flood's cost is all on the loop (tool calls would also fill the layer's
    # server-wide queue of running calls, which the analyst's call waits in: fair share)
    bodies = [raw.body("tools/list", {}, ident=i) for i in range(1_000)]

    async def flood(connections: int) -> list[int]:
        limits = httpx2.Limits(max_connections=connections,
                               max_keepalive_connections=connections)
        async with httpx2.AsyncClient(timeout=TIMEOUT, limits=limits) as http:
            gate = asyncio.Semaphore(connections)
            headers = dict(raw.headers)
            if era == "2026":
                headers["mcp-method"] = "tools/list"

            async def one(body: bytes) -> int:
                async with gate:
                    sent = await http.post(raw.url, content=body, headers=headers)
                    return sent.status_code

            return list(await asyncio.gather(*(one(body) for body in bodies)))

    started = time.monotonic()
    statuses = asyncio.run(flood(200))
    latencies = sorted(probe.latencies(started, time.monotonic()))
    raw.close()
    assert statuses.count(200) == len(statuses)
    assert len(latencies) >= 5
    assert latencies[int(len(latencies) * 0.9)] < 2 * STALL, latencies[-10:]
