"""``DisplayFactories``: the Client's methods that make displays following the workspace —
``live`` (a LiveFrame), ``activity_feed``, ``approval_panel`` — each with its awaitable twin.
Widgets must be made on the calling thread, so here the blocking method is written out beside
the awaitable one (not made by ``twins.blocking``, which runs on the loop thread). The display
modules load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .activity_feed import ActivityFeed
    from .approval_panel import ApprovalPanel
    from .backends import ProgressFn
    from .client_api import ClientAPI
    from .live import LiveFrame

__all__ = ["DisplayFactories"]


class DisplayFactories:
    """Mixed into ``Client``: displays made for ``self``."""

    def live(self: ClientAPI, tool: str, /, *, progress: bool | ProgressFn = True,
             **args: Any) -> LiveFrame:
        """A LiveFrame: the query's DataFrame, re-run whenever the workspace data changes.
        ``progress`` as for ``call``: the first load (seconds at 500k rows) shows a progress
        display; later refreshes show in the frame's caption."""
        from .live import LiveFrame

        return LiveFrame(self, tool, dict(args), progress=progress)

    async def alive(self: ClientAPI, tool: str, /, *, progress: bool | ProgressFn = True,
                    **args: Any) -> LiveFrame:
        """``live`` from async code: the first load is awaited without blocking the caller's
        loop; a progress function hears its reports (no display is shown)."""
        from .live import LiveFrame

        return await LiveFrame.aopen(self, tool, dict(args),
                                     progress=progress if callable(progress) else False)

    def activity_feed(self: ClientAPI) -> ActivityFeed:
        """An ActivityFeed: the activity as one table that follows the server live."""
        from .activity_feed import ActivityFeed

        return ActivityFeed(self)

    async def aactivity_feed(self: ClientAPI) -> ActivityFeed:
        """``activity_feed`` from async code (the first read awaited)."""
        from .activity_feed import ActivityFeed

        return await ActivityFeed.aopen(self)

    def approval_panel(self: ClientAPI) -> ApprovalPanel:
        """An ApprovalPanel: waiting calls with Approve / Deny buttons, following the server."""
        from .approval_panel import ApprovalPanel

        return ApprovalPanel(self)

    async def aapproval_panel(self: ClientAPI) -> ApprovalPanel:
        """``approval_panel`` from async code (the first read awaited)."""
        from .approval_panel import ApprovalPanel

        return await ApprovalPanel.aopen(self)
