"""What a handler gets as its first argument (``ToolContext``), and who is calling
(``Principal``, defined in ``principal``).

The context carries the adapter's callbacks (progress, log), the request's identity, links
the handler wants attached to its result, and the serving loop, so sync handlers running in
worker threads can still report progress (``report_progress_sync``). A cancelled, timed-out or
abandoned call marks its context; ``check_cancelled()`` then raises ``CallCancelledError``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .content import Annotations, ResourceLink
from .errors import CallCancelledError
from .principal import Principal

if TYPE_CHECKING:
    from .view import LayerView

__all__ = [
    "Principal", "ToolContext", "Completion", "SyncProgress", "LOG_LEVELS", "maybe_await",
]

logger = logging.getLogger("cloudg.mcp")

#: MCP (RFC 5424) log levels mapped to stdlib levels.
LOG_LEVELS: dict[str, int] = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": 25,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": 55,
    "emergency": 60,
}

ProgressCallback = Callable[[float, float | None, str | None], Any]
ElicitUrl = Callable[[str, str, str], Awaitable[str]]
LogCallback = Callable[[str, Any, str | None], Any]


async def maybe_await(value: Any) -> Any:
    """Await ``value`` if it is awaitable, else return it."""
    if inspect.isawaitable(value):
        return await value
    return value


def _as_text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


@dataclass(frozen=True, slots=True)
class Completion:
    """What a completion request asks for: ``argument`` of the prompt or template variable,
    the ``function`` that completes it, and the ``context_arguments`` the client already
    filled in (through the input pipeline, so pseudonyms are reversed)."""

    argument: str
    function: Callable[..., Any]
    context_arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False)
class ToolContext:
    """The first argument of every handler; one per request."""

    layer: LayerView | None = None
    principal: Principal = field(default_factory=Principal.local)
    kind: str = "tool"
    name: str = ""
    request_id: str | int | None = None
    progress_callback: ProgressCallback | None = None
    log_callback: LogCallback | None = None
    links: list[ResourceLink] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    loop: asyncio.AbstractEventLoop | None = None
    #: Set when the request is over (e.g. timed out); later progress and logs are dropped.
    finished: bool = False
    #: The output transform for text this request sends out of band (progress messages, log
    #: data); the layer sets it when the policy's output pipeline is non-empty.
    outbound: Callable[[Any], Any] | None = None
    #: Why the call was cancelled (cancelled | timed out | abandoned); None while it runs.
    cancel_reason: str | None = None
    #: Set on a completion request's context (``kind == "completion"``); None otherwise.
    completion: Completion | None = None
    #: ``await elicit_url(message, url, elicitation_id) -> "accept" | "decline" | "cancel"``:
    #: ask the client to show ``url`` (MCP URL-mode elicitation); None when it cannot.
    elicit_url: ElicitUrl | None = None
    #: ``await elicit_complete(elicitation_id)``: tell the client that elicitation is over.
    elicit_complete: Callable[[str], Awaitable[None]] | None = None
    _last_progress: float | None = field(default=None, repr=False)
    _pending: list[concurrent.futures.Future[Any]] = field(default_factory=list, repr=False)

    # -- cancellation ------------------------------------------------------------------

    @property
    def cancelled(self) -> bool:
        """True once the call was cancelled, timed out or abandoned by its client."""
        return self.cancel_reason is not None

    def cancel(self, reason: str = "cancelled") -> None:
        """Mark the call over: later progress and logs are dropped, and the handler's next
        ``check_cancelled()`` (or ``report_progress_sync``) raises ``CallCancelledError``."""
        if self.cancel_reason is None:
            self.cancel_reason = reason
        self.finished = True

    def check_cancelled(self) -> None:
        """Raise ``CallCancelledError`` if the call was cancelled; cheap, call it often
        (between phases, per graph level, per batch of rows) in long sync handlers."""
        if self.cancel_reason is not None:
            raise CallCancelledError(self.cancel_reason)

    @property
    def progress_sync(self) -> SyncProgress:
        """``report_progress_sync`` as a callable that also carries ``check_cancelled``:
        what a sync handler passes as ``progress=`` to long estate functions."""
        return SyncProgress(self)

    @property
    def workspace(self) -> object:
        """The layer's workspace, typed by nothing of the core's: code written against a
        workspace class narrows it (the catalog's ``conventions.workspace_of``)."""
        if self.layer is None:
            raise RuntimeError("This ToolContext belongs to no layer, so it has no workspace; "
                               "make handler contexts with layer.context(...).")
        return self.layer.workspace

    @property
    def config(self) -> object:
        """The workspace's settings (its ``config``: roots, output folder, limits)."""
        workspace: Any = self.workspace
        return workspace.config

    # -- progress ----------------------------------------------------------------------

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Send progress to the caller; values that do not increase are dropped (MCP rule)."""
        if self.progress_callback is None or self.finished:
            return
        last = self._last_progress
        if last is not None and progress <= last:
            return
        self._last_progress = progress
        try:
            if message and self.outbound is not None:
                message = _as_text(self.outbound(message))
            await maybe_await(self.progress_callback(progress, total, message))
        except Exception:  # a broken client must not break the tool
            logger.debug("progress callback failed", exc_info=True)

    def report_progress_sync(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Schedule ``report_progress`` on the serving loop from a worker thread; no wait.

        Raises ``CallCancelledError`` once the call was cancelled (so the work stops there);
        otherwise does nothing without a callback, without a loop, or when the loop is closed.
        """
        if self.cancel_reason is not None:
            raise CallCancelledError(self.cancel_reason)
        loop = self.loop
        if self.progress_callback is None or self.finished or loop is None or loop.is_closed():
            return
        try:
            fut = asyncio.run_coroutine_threadsafe(
                self.report_progress(progress, total, message), loop
            )
        except RuntimeError:  # loop closed between the check and the call
            return
        self._pending.append(fut)

    async def flush_progress(self) -> None:
        """Wait for progress scheduled by ``report_progress_sync`` (so it precedes results)."""
        pending, self._pending = self._pending, []
        for fut in pending:
            if not fut.done():
                try:
                    await asyncio.wrap_future(fut)
                except Exception:
                    logger.debug("progress delivery failed", exc_info=True)

    # -- logging -----------------------------------------------------------------------

    async def log(self, level: str, data: Any, logger_name: str | None = None) -> None:
        """Log locally on ``cloudg.mcp`` and send an MCP log notification to the caller."""
        level = level if level in LOG_LEVELS else "info"
        logger.log(LOG_LEVELS[level], "%s", data)
        if self.log_callback is None or self.finished:
            return
        try:
            if self.outbound is not None:
                data = self.outbound(data)
                if logger_name:
                    logger_name = _as_text(self.outbound(logger_name))
            await maybe_await(self.log_callback(level, data, logger_name))
        except Exception:
            logger.debug("log callback failed", exc_info=True)

    def log_sync(self, level: str, data: Any, logger_name: str | None = None) -> None:
        """``log`` for sync handlers in worker threads (scheduled on the loop, no wait)."""
        loop = self.loop
        if loop is None or loop.is_closed():
            level = level if level in LOG_LEVELS else "info"
            logger.log(LOG_LEVELS[level], "%s", data)
            return
        try:
            self._pending.append(
                asyncio.run_coroutine_threadsafe(self.log(level, data, logger_name), loop)
            )
        except RuntimeError:
            return

    # -- links ---------------------------------------------------------------------------

    def link(
        self,
        uri: str,
        name: str,
        *,
        title: str | None = None,
        description: str | None = None,
        mime_type: str = "application/json",
        priority: float | None = None,
    ) -> ResourceLink:
        """Attach a resource link to this call's result (after the main content)."""
        link = ResourceLink(
            uri=uri,
            name=name,
            title=title,
            description=description,
            mime_type=mime_type,
            annotations=Annotations(priority=priority) if priority is not None else None,
        )
        self.links.append(link)
        return link




class SyncProgress:
    """A progress callback ``(progress, total, message)`` for code in a worker thread, with
    ``check_cancelled()``: estate functions call it between steps to stop a cancelled call."""

    __slots__ = ("_ctx",)

    def __init__(self, ctx: ToolContext) -> None:
        self._ctx = ctx

    def __call__(self, progress: float, total: float | None = None,
                 message: str | None = None) -> None:
        self._ctx.report_progress_sync(progress, total, message)

    def check_cancelled(self) -> None:
        self._ctx.check_cancelled()
