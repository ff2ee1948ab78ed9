"""Approval links point at the server's configured address whatever the assistant sends
(issue 36, finding 6), on real Jupyter servers with real MCP clients and minted tokens.

An assistant that reaches the server under another loopback name or port (``Host:
localhost:OTHER``, ``127.0.0.2``, ``[::1]``), with forwarding headers (``X-Forwarded-*``,
``Forwarded``, ``X-Scheme``; the server trusts X-headers), or with a matching ``Origin``,
still gets the server's own address in the progress message, the URL-mode elicitation and
``cloudg://approvals``; the analyst sees the same link, and the endpoint address the owner
API reports agrees. Behind a proxy the configured ``CloudGExtension.public_url`` is used,
under JupyterHub the hub's public URL of the server.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from tests.protocol.harness import TIMEOUT, open_session

from .server import FIXTURE_REGISTRY, JupyterServer, jupyter_server
from .test_assistants import _in_background, _pending, bearer, mint, owner
from .test_auth import request

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

BASE = "/user/alice/"
PROXY = "https://notebooks.example.org/user/alice/"
HUB = "https://hub.example.org/user/alice/"
ARGS = [FIXTURE_REGISTRY, "--ServerApp.trust_xheaders=True",
        "--CloudGExtension.approval_timeout=20"]


def _start(tmp: Path, **kwargs: Any) -> Iterator[JupyterServer]:
    with jupyter_server(tmp, base_url=BASE, **kwargs) as started:
        yield started


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    yield from _start(tmp_path_factory.mktemp("local"), extra_args=ARGS)


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    yield from _start(tmp_path_factory.mktemp("proxied"),
                      extra_args=[*ARGS, f"--CloudGExtension.public_url={PROXY}"])


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    yield from _start(tmp_path_factory.mktemp("hub"), extra_args=ARGS, env={
        "JUPYTERHUB_SERVICE_PREFIX": BASE, "JUPYTERHUB_PUBLIC_URL": HUB})


def spoofs(port: int) -> dict[str, dict[str, str]]:
    """Headers an assistant may send to make the server on ``port`` believe it has another
    address."""
    other = port + 1
    return {
        "another local port": {"Host": f"localhost:{other}"},
        "another loopback address": {"Host": f"127.0.0.2:{port}"},
        "IPv6 loopback on another port": {"Host": f"[::1]:{other}"},
        "localhost without a port": {"Host": "localhost"},
        "an Origin to match": {"Host": f"localhost:{other}", "Origin": f"http://localhost:{other}"},
        "X-Forwarded headers": {"X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "https",
                                "X-Forwarded-Port": "8443", "X-Forwarded-Prefix": "/evil/"},
        "Forwarded": {"Forwarded": "for=1.2.3.4;host=evil.example;proto=https"},
        "X-Scheme": {"X-Scheme": "https", "X-Real-Ip": "1.2.3.4"},
    }


SPOOF_IDS = list(spoofs(1))


def links_of_one_approval(server: JupyterServer, token: str, spoof: dict[str, str],
                          era: str = "2025") -> dict[str, str]:
    """An assistant (sending ``spoof``) asks for a sensitive call, which the analyst denies:
    every link to that call's approval page the assistant and the analyst are given."""
    asked: list[str] = []
    progress: list[str] = []

    async def elicit(ctx: Any, params: Any) -> types.ElicitResult:
        asked.append(params.url)
        return types.ElicitResult(action="cancel")  # dismissed: the call keeps waiting

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(message or "")

    with open_session(server.endpoint, era, headers={**bearer(token), **spoof},
                      elicitation_callback=elicit) as bot, \
            open_session(server.endpoint, "2025", headers=server.headers) as analyst:
        thread, out = _in_background(lambda: bot.call_tool(
            "suppress_findings", {"ids": ["f-001"], "reason": "r"},
            progress_callback=on_progress))
        waiting = _pending(analyst, "suppress_findings")
        analyst.wait_for(lambda: asked)  # offered mid-call (2025) or in the first round (2026)
        analyst.call_tool("decide_approval", {"approval_id": waiting["id"], "decision": "deny"})
        thread.join(TIMEOUT)
        own = json.loads(bot.read_resource("cloudg://approvals").contents[0].text)
    assert out["result"].is_error and "denied" in out["result"].content[0].text
    (mine,) = [a for a in own["recent"] if a["id"] == waiting["id"]]
    (said,) = {m for m in progress if "waiting for analyst approval" in m}  # 2026: each round
    in_progress = re.search(r" at (\S+)$", said)
    assert in_progress is not None, said
    links = {"progress": in_progress.group(1), "assistant's cloudg://approvals": mine["url"],
             "analyst's cloudg://approvals": waiting["url"]}
    (links["elicitation"],) = asked
    return {"id": waiting["id"], **links}


def owner_api_endpoints(server: JupyterServer, spoof: dict[str, str]) -> set[str]:
    """The endpoint address the owner API reports (status, assistants) to a request with
    ``spoof``."""
    found = set()
    for path in ("cloudg/api/status", "cloudg/api/assistants"):
        status, _, raw = request(server, "GET", f"{BASE}{path}",
                                 headers={**owner(server), **spoof})
        assert status == 200, raw
        found.add(json.loads(raw)["endpoint"])
    return found


@pytest.mark.parametrize("spoof", SPOOF_IDS)
def test_approval_links_use_the_servers_own_address(local: JupyterServer, spoof: str) -> None:
    headers = spoofs(local.port)[spoof]
    links = links_of_one_approval(local, mint(local, "spoofer"), headers)
    page = f"http://127.0.0.1:{local.port}{BASE}cloudg/approvals/{links.pop('id')}"
    assert set(links) == {"progress", "elicitation", "assistant's cloudg://approvals",
                          "analyst's cloudg://approvals"}
    assert set(links.values()) == {page}, links


@pytest.mark.parametrize("spoof", SPOOF_IDS)
def test_the_endpoint_address_reported_to_the_owner_ignores_request_headers(
        local: JupyterServer, spoof: str) -> None:
    assert owner_api_endpoints(local, spoofs(local.port)[spoof]) == {local.endpoint}


def test_approval_links_in_the_stateless_era_use_the_servers_own_address(
        local: JupyterServer) -> None:
    headers = spoofs(local.port)["another local port"]
    links = links_of_one_approval(local, mint(local, "modern"), headers, era="2026")
    page = f"http://127.0.0.1:{local.port}{BASE}cloudg/approvals/{links.pop('id')}"
    assert "elicitation" in links and set(links.values()) == {page}, links


def test_behind_a_proxy_links_use_the_configured_public_url(proxied: JupyterServer) -> None:
    forged = spoofs(proxied.port)
    headers = {**forged["another local port"], **forged["X-Forwarded headers"]}
    links = links_of_one_approval(proxied, mint(proxied, "proxied"), headers)
    page = f"{PROXY}cloudg/approvals/{links.pop('id')}"
    assert set(links.values()) == {page}, links
    assert owner_api_endpoints(proxied, headers) == {f"{PROXY}cloudg/mcp"}


def test_under_jupyterhub_links_use_the_hubs_public_url(hub: JupyterServer) -> None:
    headers = spoofs(hub.port)["another local port"]
    links = links_of_one_approval(hub, mint(hub, "hubbed"), headers)
    page = f"{HUB}cloudg/approvals/{links.pop('id')}"
    assert set(links.values()) == {page}, links
    assert owner_api_endpoints(hub, headers) == {f"{HUB}cloudg/mcp"}


def test_a_public_url_that_is_not_absolute_stops_the_endpoint_with_the_setting_named(
        tmp_path: Path) -> None:
    with jupyter_server(tmp_path, base_url=BASE, wait_for_extension=False, extra_args=[
            "--CloudGExtension.public_url=/user/alice/"]) as server:
        status, body = server.get_json(server.status_url)
    assert status == 200 and not body["ready"]
    (problem,) = body["problems"]
    assert problem.startswith("CloudGExtension.public_url:") and "absolute" in problem
