"""The analyst's oversight API as JupyterLab calls it, for the tests: ``api`` (a JSON request
to ``{base}cloudg/api/...`` as the owner) and ``Waiting`` (an assistant's sensitive call, made
by a real MCP client with a minted credential, waiting for the analyst in a thread)."""

from __future__ import annotations

import getpass
import http.client
import json
import threading
import time
from typing import Any

from tests.protocol.harness import open_session

from .server import JupyterServer
from .test_assistants import bearer, mint

#: The base_url the oversight tests serve under.
BASE = "/user/alice/"
#: The analyst's finding the assistants' calls would suppress.
FINDING = "f-004"
#: A value only an argument holds (the reason of a suppression).
PLANTED = "planted-reason-7f3a"
#: Who the server token acts as: the local user (Jupyter's single user).
OWNER = getpass.getuser()


def api(server: JupyterServer, method: str, path: str, body: Any = None,
        headers: dict[str, str] | None = None) -> tuple[int, dict[str, list[str]], Any]:
    """A request to ``{base}cloudg/api/{path}`` as the owner (the server token) unless
    ``headers`` say otherwise: (status, headers, JSON body)."""
    sent = {"Authorization": f"token {server.token}"} if headers is None else dict(headers)
    if body is not None:
        sent.setdefault("Content-Type", "application/json")
    conn = http.client.HTTPConnection(server.host_port, timeout=30)
    try:
        payload = body if isinstance(body, bytes | None) else json.dumps(body).encode()
        conn.request(method, f"{BASE}cloudg/api/{path}", body=payload, headers=sent)
        response = conn.getresponse()
        found: dict[str, list[str]] = {}
        for name, value in response.getheaders():
            found.setdefault(name.lower(), []).append(value)
        raw = response.read()
    finally:
        conn.close()
    try:
        return response.status, found, json.loads(raw or b"{}")
    except ValueError:
        return response.status, found, raw


class Waiting:
    """An assistant's sensitive call (a suppression of the analyst's finding), waiting."""

    def __init__(self, server: JupyterServer, name: str) -> None:
        self.server, self.name = server, name
        self.token = mint(server, name)
        self.out: dict[str, Any] = {}
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        self.id = self._wait_for_id()

    def _run(self) -> None:
        try:
            with open_session(self.server.endpoint, "2025", headers=bearer(self.token)) as bot:
                self.out["called"] = time.monotonic()
                self.out["result"] = bot.call_tool("suppress_findings", {
                    "ids": [FINDING], "reason": PLANTED})
                self.out["done"] = time.monotonic()
        except BaseException as exc:
            self.out["error"] = exc

    def _wait_for_id(self) -> str:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert "error" not in self.out, self.out["error"]
            _, _, body = api(self.server, "GET", "approvals")
            mine = [a for a in body["pending"] if a["principal"] == f"assistant:{self.name}"]
            if mine:
                return str(mine[0]["id"])
            time.sleep(0.05)
        raise AssertionError(f"no waiting call of assistant:{self.name}")

    def result(self, timeout: float = 30) -> Any:
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the assistant's call still runs"
        if "error" in self.out:
            raise self.out["error"]
        return self.out["result"]


def unsuppress(server: JupyterServer) -> None:
    """Undo an approved suppression (as the analyst)."""
    with open_session(server.endpoint, "2025", headers=server.headers) as analyst:
        assert not analyst.call_tool("unsuppress_findings", {"ids": [FINDING]}).is_error
