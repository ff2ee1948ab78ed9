"""The remote backend: one MCP session (``mcp.Client``, handshake era) to the cloudg endpoint of
a Jupyter server, authenticated with the server's token, so the notebook shares the server's
workspace with every assistant connected there.

The session is entered and exited by one long-lived owner task on the client loop; requests
run in other tasks on that loop. Progress arrives over the call's SSE stream; cancelling a
request task makes the SDK send ``notifications/cancelled``; ``resources/subscribe`` plus the
message handler deliver ``notifications/resources/updated``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from .backends import ChangeFn, ProgressFn, parse_contents, templates_for_argument
from .result import CloudGError, ErrorInfo, Result, hints_from

__all__ = ["CLIENT_NAME", "RemoteBackend"]

logger = logging.getLogger("cloudg.notebook")

#: The clientInfo name this client sends (the server's status page lists sessions by it).
CLIENT_NAME = "cloudg-nb-kernel"
#: Seconds to wait for a request or an idle read on the HTTP connection (calls that run
#: longer keep their stream open; an interrupt cancels them at any time).
READ_TIMEOUT = 3600.0


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


async def _resource_request(client: Any, uri: str, subscribe: bool) -> None:
    """Send resources/subscribe (or unsubscribe). The SDK marks its helpers deprecated (the
    2026 era replaced them with listen); this client speaks the handshake era, where they are
    the way to hear about changes, so it sends the request itself."""
    import mcp_types as types

    request: Any = (types.SubscribeRequest(params=types.SubscribeRequestParams(uri=uri))
                    if subscribe else
                    types.UnsubscribeRequest(params=types.UnsubscribeRequestParams(uri=uri)))
    await client.session.send_request(request, types.EmptyResult)


#: Code of the SDK's error for requests on a connection that closed.
CONNECTION_CLOSED = -32000
_CLOSED_MESSAGE = ("The connection to the Jupyter server was closed (did the server stop or "
                   "restart?); reconnect with %cloudg connect (or cloudg_nb.connect()).")


class _TracebackToOneLine(logging.Filter):
    """The SDK logs transport failures with a traceback; in a notebook that reads as a crash
    while the call itself returns an error result. Keep the line, drop the traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.exc_info[1] is not None:
            failure = _leaf(record.exc_info[1])
            record.msg = f"{record.getMessage()}: {type(failure).__name__}: {failure}"
            record.args = ()
            record.exc_info = None
            record.exc_text = None
        return True


def _quiet_sdk_tracebacks() -> None:
    sdk = logging.getLogger("mcp.client.streamable_http")
    if not any(isinstance(f, _TracebackToOneLine) for f in sdk.filters):
        sdk.addFilter(_TracebackToOneLine())


def _error_info(exc: Any) -> ErrorInfo:
    """ErrorInfo of an SDK ``MCPError``."""
    if exc.code == CONNECTION_CLOSED:
        return ErrorInfo("connection", _CLOSED_MESSAGE, data={"code": exc.code})
    data = exc.data
    return ErrorInfo(code=exc.code, message=exc.message, hints=hints_from(data),
                     data=data if isinstance(data, dict) else
                     ({} if data is None else {"errors": data}))


class RemoteBackend:
    """An MCP session to ``url`` (``{server}cloudg/mcp``) with ``token``."""

    mode = "remote"

    def __init__(self, url: str, token: str | None, *, found_by: str = "the URL given") -> None:
        self.url = url
        self._token = token
        self.found_by = found_by
        self.tools_changed: Callable[[], None] | None = None
        self.session_id: str | None = None
        self._client: Any = None
        self._owner: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._lost: BaseException | None = None
        self._subscribers: dict[str, list[ChangeFn]] = {}
        self._templates: list[str] | None = None
        _quiet_sdk_tracebacks()

    @property
    def description(self) -> str:
        server = self.url.removesuffix("cloudg/mcp")
        return f"remote: Jupyter server {server} (found by {self.found_by})"

    def __repr__(self) -> str:  # never shows the token
        return f"RemoteBackend({self.url!r})"

    # -- session lifetime -----------------------------------------------------------------

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()
        self._stop = asyncio.Event()
        self._owner = loop.create_task(self._own(ready), name="cloudg-nb-session")
        try:
            await ready
        except BaseException:
            self._owner.cancel()
            with contextlib.suppress(BaseException):
                await self._owner
            raise

    async def _own(self, ready: asyncio.Future[None]) -> None:
        """Enter the session, signal ``ready``, hold it until ``close``, exit it: all in this
        one task, as anyio's task groups inside the SDK require."""
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client
        from mcp_types import Implementation

        from .. import __version__

        headers = {"Authorization": f"token {self._token}"} if self._token else {}

        async def remember_session(response: httpx2.Response) -> None:
            session = response.headers.get("mcp-session-id")
            if session:
                self.session_id = session

        try:
            async with httpx2.AsyncClient(
                    headers=headers, timeout=httpx2.Timeout(30, read=READ_TIMEOUT),
                    event_hooks={"response": [remember_session]}) as http:
                client = Client(streamable_http_client(self.url, http_client=http),
                                mode="legacy", message_handler=self._on_message,
                                client_info=Implementation(name=CLIENT_NAME,
                                                           version=__version__))
                async with client:
                    self._client = client
                    ready.set_result(None)
                    assert self._stop is not None
                    await self._stop.wait()
        except BaseException as exc:  # reported to the caller waiting in start(), or logged
            failure = _leaf(exc)
            if not ready.done():
                ready.set_exception(failure)
            elif not (self._stop is not None and self._stop.is_set()):
                self._lost = failure
                logger.warning("cloudg: the MCP session ended: %s", failure)
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self._client = None

    async def close(self) -> None:
        if self._stop is not None:
            self._stop.set()
        if self._owner is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._owner), 5)
            except (TimeoutError, Exception):
                self._owner.cancel()
        self._subscribers.clear()

    def _session(self) -> Any:
        if self._client is None:
            why = f" ({self._lost})" if self._lost is not None else ""
            raise CloudGError(ErrorInfo(
                "connection", f"The connection to the server is closed{why}; reconnect with "
                              "%cloudg connect (or cloudg_nb.connect())."))
        return self._client

    async def _on_message(self, message: Any) -> None:
        import mcp_types as types

        if isinstance(message, types.ResourceUpdatedNotification):
            uri = str(message.params.uri)
            for fn in list(self._subscribers.get(uri, ())):
                try:
                    fn(uri)
                except Exception:
                    logger.exception("cloudg: a resource change listener failed")
        elif isinstance(message, types.ToolListChangedNotification):
            if self.tools_changed is not None:
                self.tools_changed()
        elif isinstance(message, types.ResourceListChangedNotification):
            self._templates = None
        elif isinstance(message, Exception):
            logger.debug("cloudg: transport error: %s", message)

    # -- requests -------------------------------------------------------------------------

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        progress: ProgressFn | None = None,
                        meta: dict[str, Any] | None = None) -> Result:
        from mcp.shared.exceptions import MCPError

        client = self._session()
        on_progress = None
        if progress is not None:
            report = progress

            async def on_progress(value: float, total: float | None,
                                  message: str | None) -> None:
                report(value, total, message)

        try:
            result = await client.call_tool(name, arguments, progress_callback=on_progress,
                                            meta=dict(meta) if meta else None)
        except MCPError as exc:
            info = _error_info(exc)
            return Result(tool=name, arguments=dict(arguments), text=info.message,
                          is_error=True, error=info)
        # Only the parts a Result reads (a full model dump of a 1k-row page costs ~ms).
        wire = {"content": [{"type": "text", "text": block.text} for block in result.content
                            if getattr(block, "type", None) == "text"],
                "structuredContent": result.structured_content,
                "isError": bool(result.is_error), "_meta": dict(result.meta or {})}
        return Result.from_wire(name, arguments, wire)

    @staticmethod
    def _raise(exc: Exception) -> None:
        from mcp.shared.exceptions import MCPError

        if isinstance(exc, MCPError):
            raise CloudGError(_error_info(exc)) from None
        raise exc

    async def read_resource(self, uri: str) -> Any:
        try:
            result = await self._session().read_resource(uri)
        except CloudGError:
            raise
        except Exception as exc:
            self._raise(exc)
        return parse_contents(c.model_dump(by_alias=True, mode="json", exclude_none=True)
                              for c in result.contents)

    async def get_prompt(self, name: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
        strings = {k: v if isinstance(v, str) else json.dumps(v)
                   for k, v in arguments.items()}
        try:
            result = await self._session().get_prompt(name, strings)
        except CloudGError:
            raise
        except Exception as exc:
            self._raise(exc)
        return [{"role": m.role, "text": getattr(m.content, "text", "")}
                for m in result.messages]

    async def _template_uris(self) -> list[str]:
        if self._templates is None:
            client = self._session()
            uris: list[str] = []
            cursor = None
            for _ in range(100):
                page = await client.list_resource_templates(cursor=cursor)
                uris.extend(t.uri_template for t in page.resource_templates)
                cursor = page.next_cursor
                if not cursor:
                    break
            self._templates = uris
        return self._templates

    async def complete(self, argument: str, value: str, *, tool: str | None = None,
                       prompt: str | None = None, uri_template: str | None = None,
                       context: dict[str, str] | None = None) -> list[str]:
        from mcp_types import PromptReference, ResourceTemplateReference

        client = self._session()
        refs: list[tuple[Any, str]]
        if prompt is not None:
            refs = [(PromptReference(type="ref/prompt", name=prompt), argument)]
        elif uri_template is not None:
            refs = [(ResourceTemplateReference(type="ref/resource", uri=uri_template), argument)]
        else:
            refs = [(ResourceTemplateReference(type="ref/resource", uri=template), variable)
                    for template, variable in templates_for_argument(
                        argument, await self._template_uris())]
        for ref, name in refs:
            try:
                done = await client.complete(ref, {"name": name, "value": value},
                                             context_arguments=dict(context or {}) or None)
            except Exception as exc:
                self._raise(exc)
            values = [str(v) for v in done.completion.values]
            if values:
                return values
        return []

    async def list_tools(self) -> list[dict[str, Any]]:
        client = self._session()
        tools: list[dict[str, Any]] = []
        cursor = None
        for _ in range(100):
            page = await client.list_tools(cursor=cursor)
            tools.extend(t.model_dump(by_alias=True, mode="json", exclude_none=True)
                         for t in page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    async def subscribe(self, uri: str, fn: ChangeFn) -> Callable[[], Awaitable[None]]:
        client = self._session()
        listeners = self._subscribers.setdefault(uri, [])
        first = not listeners
        listeners.append(fn)
        if first:
            try:
                await _resource_request(client, uri, True)
            except BaseException:
                listeners.remove(fn)
                raise

        async def unsubscribe() -> None:
            current = self._subscribers.get(uri, [])
            if fn in current:
                current.remove(fn)
            if not current and self._subscribers.pop(uri, None) is not None \
                    and self._client is not None:
                with contextlib.suppress(Exception):
                    await _resource_request(self._client, uri, False)

        return unsubscribe

    def status(self) -> dict[str, Any]:
        client = self._client
        info = getattr(client, "server_info", None) if client is not None else None
        return {
            "mode": self.mode,
            "description": self.description,
            "url": self.url,
            "connected": client is not None,
            "session_id": self.session_id,
            "protocol_version": client.protocol_version if client is not None else None,
            "server": f"{info.name} {info.version}" if info is not None else None,
            "subscriptions": sorted(self._subscribers),
        }
