"""``ClientAPI``: what displays (LiveFrame, ActivityFeed, ApprovalPanel) and the oversight
helpers need from a client — its loop, requests, reads and subscriptions. ``Client`` has it;
typing them against this instead of importing ``Client`` keeps the notebook package free of
import cycles.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .backends import ChangeFn, ProgressFn
    from .loop import LoopThread
    from .result import Result

__all__ = ["ClientAPI"]


class ClientAPI(Protocol):
    """One connection to a cloudg workspace, as code built on it uses it (on its loop)."""

    @property
    def mode(self) -> str:
        """``remote`` (the Jupyter server's workspace) or ``local`` (in-process)."""
        ...

    @property
    def loop(self) -> LoopThread:
        """The loop thread every request runs on."""
        ...

    @property
    def reconnected_at(self) -> float | None:
        """When a new session last replaced one that ended (``time.time()``), or None."""
        ...

    def on_reconnect(self, fn: Callable[[], None]) -> Callable[[], None]:
        """Call ``fn()`` (on the loop) after each reconnection; returns the undo."""
        ...

    async def arequest(self, tool: str, arguments: Mapping[str, Any], /, *,
                       meta: Mapping[str, Any] | None = None,
                       progress: ProgressFn | None = None) -> Result:
        """``tool`` called as plain data; errors come back as error Results."""
        ...

    async def aread(self, uri: str) -> Any:
        """A resource's content; raises CloudGError on failure."""
        ...

    async def atools(self) -> list[dict[str, Any]]:
        """The tools (wire dicts)."""
        ...

    async def asubscribe(self, uri: str, fn: ChangeFn) -> Callable[[], Awaitable[None]]:
        """Call ``fn(uri)`` (on the loop) when ``uri`` changes; returns the unsubscribe."""
        ...
