"""MCP clients from npm connect to the Jupyter endpoint (non-root base_url) with OAuth from the
bare URL: the official TypeScript SDK client (the test plays the analyst's browser: logged-in
cookie + XSRF, Allow) and mcp-remote (its browser step automated through $BROWSER); each tool
call runs under the assistant's name in the activity feed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, MCPDeprecationWarning, StdioServerParameters

from tests.jupyter.oauth_client import Analyst, form_consent, query_of
from tests.jupyter.server import JupyterServer, free_port, jupyter_server

pytestmark = [pytest.mark.server, pytest.mark.clients]

NODE = Path(__file__).parent / "node"
TIMEOUT = 120.0
REDIRECT = "http://127.0.0.1:8766/callback"
#: The analyst's browser for mcp-remote ($BROWSER): answers the consent page, opens the callback.
BROWSER_SCRIPT = Path(__file__).parent / "python" / "consenting_browser.py"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    with jupyter_server(tmp_path_factory.mktemp("oauth-clients"), base_url="/user/ana/",
                        other_extensions=False) as s:
        yield s


def _send(proc: subprocess.Popen[str], value: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(value) + "\n")
    proc.stdin.flush()


def _receive(proc: subprocess.Popen[str]) -> dict[str, Any]:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        proc.wait(timeout=TIMEOUT)
        raise AssertionError(f"the client ended: {proc.stderr.read() if proc.stderr else ''}")
    return dict(json.loads(line))


def test_the_typescript_sdk_connects_with_oauth_after_the_analyst_allows_it(
        server: JupyterServer) -> None:
    script = NODE / "ts_sdk_oauth_client.mjs"
    assert (NODE / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir(), (
        "tests/clients/node/node_modules is missing: run `make client-deps`")
    proc = subprocess.Popen(["node", str(script)], cwd=NODE, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _send(proc, {"url": server.endpoint, "redirect_uri": REDIRECT,
                     "tool": "count_assets", "arguments": {"group_by": "provider"}})
        asked = _receive(proc)
        landed = form_consent(Analyst.login(server), name="ts-sdk")(asked["authorize"])
        _send(proc, {"code": query_of(landed)["code"]})
        report = _receive(proc)
        proc.wait(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert report["result"] == {"data": report["result"]["data"], "is_error": False}
    assert report["result"]["data"]["total"] == 60
    assert report["tokens"] == {"access_prefix": "cgat_oa_", "has_refresh": True}
    feed = server.get_json(f"{server.url}cloudg/api/activity")[1]["entries"]
    assert any(e["principal"] == "assistant:ts-sdk" and e["name"] == "count_assets"
               for e in feed)


def test_mcp_remote_connects_with_oauth_its_browser_step_automated(
        server: JupyterServer, tmp_path: Path) -> None:
    bridge = NODE / "node_modules" / ".bin" / "mcp-remote"
    assert bridge.exists(), "tests/clients/node/node_modules is missing: run `make client-deps`"
    analyst = Analyst.login(server)
    browser = tmp_path / "browser"
    browser.write_text(f"#!/bin/sh\nexec {sys.executable} {BROWSER_SCRIPT} \"$@\"\n")
    browser.chmod(0o755)
    env = {**os.environ, "BROWSER": str(browser), "MCP_REMOTE_CONFIG_DIR": str(tmp_path / "cfg"),
           "CLOUDG_TEST_COOKIE": analyst.jar, "CLOUDG_TEST_XSRF": analyst.cookies["_xsrf"],
           "CLOUDG_TEST_NAME": "bridged", "DISPLAY": "", "WAYLAND_DISPLAY": ""}
    params = StdioServerParameters(command=str(bridge), args=[
        server.endpoint, str(free_port()), "--allow-http"], env=env)

    async def run() -> Any:
        async with Client(params, mode="legacy") as client:
            return await client.call_tool("count_assets", {"group_by": "provider"})

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        result = anyio.run(run)
    assert not result.is_error and result.structured_content["total"] == 60
    feed = server.get_json(f"{server.url}cloudg/api/activity")[1]["entries"]
    assert any(e["principal"] == "assistant:bridged" and e["name"] == "count_assets"
               for e in feed)
