"""The official TypeScript SDK client connects to the Jupyter endpoint (non-root base_url) with
OAuth from the bare URL: it discovers, registers and sends the user to the authorization URL;
the test plays the analyst's browser (logged-in cookie + XSRF, Allow); the client finishes the
authorization and its tool call runs under the assistant's name in the activity feed."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.jupyter.oauth_client import Analyst, form_consent, query_of
from tests.jupyter.server import JupyterServer, jupyter_server

pytestmark = [pytest.mark.server, pytest.mark.clients]

NODE = Path(__file__).parent / "node"
TIMEOUT = 120.0
REDIRECT = "http://127.0.0.1:8766/callback"


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
