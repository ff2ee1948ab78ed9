"""Assistants for notebook tests: a credential minted through the server's REST API (as
``cloudg-nb config --jupyter`` does), an MCP session acting as ``assistant:NAME`` with it, and
a call run in a background thread (a sensitive call blocks there until it is decided)."""

from __future__ import annotations

import contextlib
import json
import threading
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

from tests.jupyter.server import JupyterServer
from tests.protocol.harness import ClientSession, open_session


def mint(server: JupyterServer, name: str) -> str:
    """A new assistant token for ``name`` (``POST cloudg/api/assistants`` as the owner)."""
    request = urllib.request.Request(
        f"{server.url}cloudg/api/assistants", method="POST",
        data=json.dumps({"name": name, "client": "other"}).encode(),
        headers={"Authorization": f"token {server.token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 201
        token = json.loads(response.read())["token"]
    assert token.startswith("cgat_")
    return str(token)


@contextlib.contextmanager
def assistant(server: JupyterServer, name: str, era: str = "2025") -> Iterator[ClientSession]:
    """An MCP session on the server acting as ``assistant:{name}`` (a fresh credential)."""
    token = mint(server, name)
    with open_session(server.endpoint, era, headers={"Authorization": f"Bearer {token}"}) as s:
        yield s


class Background:
    """``fn()`` running in a daemon thread: ``join()`` returns its result or raises its error."""

    def __init__(self, fn: Callable[[], Any]) -> None:
        self._out: dict[str, Any] = {}
        self.thread = threading.Thread(target=self._run, args=(fn,), daemon=True)
        self.thread.start()

    def _run(self, fn: Callable[[], Any]) -> None:
        try:
            self._out["result"] = fn()
        except BaseException as exc:  # handed to join()
            self._out["error"] = exc

    @property
    def running(self) -> bool:
        return self.thread.is_alive()

    def join(self, timeout: float = 30.0) -> Any:
        self.thread.join(timeout)
        assert not self.thread.is_alive(), f"still running after {timeout:g} s"
        if "error" in self._out:
            raise self._out["error"]
        return self._out["result"]
