"""A scripted assistant for the example notebooks: a credential of its own, minted through the
Jupyter server's owner API (``POST {server}cloudg/api/assistants``, as ``cloudg-nb config
--jupyter`` does; never the server's token), and one MCP call made with it in a background
thread, so the notebook can show the call waiting for the analyst's approval and decide it.
It speaks MCP through the official SDK client (imported only when a call starts), as a real
assistant does; the kernel's own small client serves the analyst, not assistants.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..layer.wire import ASSISTANTS_API_PATH

if TYPE_CHECKING:
    from ..jupyter_discovery import JupyterEndpoint
    from .client import Client

__all__ = ["Asking", "ScriptedAssistant"]

#: Seconds a scripted call may wait for its answer (the approval included).
CALL_TIMEOUT = 120.0


@dataclass
class Asking:
    """A call running in the background: ``done``, ``result()`` (the MCP result) once the
    server answered (after the analyst decided, for a call that needs approval)."""

    tool: str
    _thread: threading.Thread | None = None
    _out: dict[str, Any] = field(default_factory=dict)

    @property
    def done(self) -> bool:
        return self._thread is not None and not self._thread.is_alive()

    def result(self, timeout: float = CALL_TIMEOUT) -> Any:
        """The call's result (``is_error``, ``content``, ``structured_content``); raises what
        the call raised, or TimeoutError when it has not been answered in ``timeout``."""
        assert self._thread is not None
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise TimeoutError(f"{self.tool} was not answered within {timeout:g} s")
        if "error" in self._out:
            raise self._out["error"]
        return self._out["result"]


@dataclass
class ScriptedAssistant:
    """An assistant acting as ``principal`` with its own credential on ``endpoint``."""

    name: str
    endpoint: JupyterEndpoint = field(repr=False)  # it holds the owner's token
    _token: str = field(repr=False)
    token_hint: str = ""

    @property
    def principal(self) -> str:
        return f"assistant:{self.name}"

    @classmethod
    def mint(cls, endpoint: JupyterEndpoint, name: str) -> ScriptedAssistant:
        """A fresh credential for assistant ``name`` (one of that name is replaced), minted
        with the owner's token the endpoint was found with."""
        request = urllib.request.Request(
            f"{endpoint.server_url}{ASSISTANTS_API_PATH}", method="POST",
            data=json.dumps({"name": name, "client": "other"}).encode(),
            headers={"Content-Type": "application/json", "Accept": "application/json",
                     **({"Authorization": f"token {endpoint.token}"} if endpoint.token else {})})
        with urllib.request.urlopen(request, timeout=30) as response:
            body = json.loads(response.read())
        token = str(body["token"])
        return cls(name, endpoint, token, token_hint=token[:9])

    def ask(self, tool: str, **arguments: Any) -> Asking:
        """Start calling ``tool`` in a background thread; the call may wait for approval."""
        asking = Asking(tool)

        def run() -> None:
            try:
                asking._out["result"] = asyncio.run(self._call(tool, arguments))
            except BaseException as exc:  # handed to Asking.result()
                while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
                    exc = exc.exceptions[0]  # the SDK's task group wraps the one error
                asking._out["error"] = exc

        asking._thread = threading.Thread(target=run, name=f"assistant-{self.name}",
                                          daemon=True)
        asking._thread.start()
        return asking

    def waiting_approval(self, client: Client, asking: Asking, timeout: float = 30.0,
                         ) -> dict[str, Any] | None:
        """The call ``asking`` waiting for approval, as the analyst's ``client.approvals()``
        lists it (id, principal, tool, summary, arguments ...); None when it no longer waits
        (answered: it expired, or someone decided it) or did not wait within ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            done = asking.done  # read first: a call seen done before the listing is over
            for approval in client.approvals():
                if (approval.get("principal") == self.principal
                        and approval.get("tool") == asking.tool):
                    return approval
            if done or time.monotonic() > deadline:
                return None
            time.sleep(0.1)

    async def _call(self, tool: str, arguments: dict[str, Any]) -> Any:
        import httpx2
        from mcp import Client as MCPClient
        from mcp.client.streamable_http import streamable_http_client
        from mcp_types import Implementation

        info = Implementation(name=f"scripted-{self.name}", version="1.0")
        headers = {"Authorization": f"Bearer {self._token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=CALL_TIMEOUT) as http:
            transport = streamable_http_client(self.endpoint.url, http_client=http)
            async with MCPClient(transport, mode="legacy", client_info=info) as session:
                return await session.call_tool(tool, arguments)
