"""``ServerDecisions``: the approval panel's browser side, so a busy kernel never delays a
decision.

An anywidget (``static/server_decisions.js``, shipped in the package, no CDN) placed in the
panel: a click on the panel's Approve / Deny is POSTed from the browser to the Jupyter
server's ``APPROVALS_API_PATH`` (with the page's login and XSRF cookie), before the button's
own handler would queue it for the kernel. Where the browser cannot decide (not a Jupyter
page, a server that does not know the call) it sends the decision to the kernel instead:
``on_decide(id, decision, reason)``; ``on_decided(id, state)`` hears decisions the server
took. ``enabled`` False (a local workspace) leaves every click to the kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from ..layer.wire import APPROVALS_API_PATH

__all__ = ["MAX_REASON", "ServerDecisions"]

#: The longest reason a decision carries (the server's limit too).
MAX_REASON = 300
_ESM = (Path(__file__).parent / "static" / "server_decisions.js").read_text(encoding="utf-8")


class ServerDecisions(anywidget.AnyWidget):
    """Decide the panel's waiting calls from the browser, through the Jupyter server."""

    _esm = _ESM
    api_path = traitlets.Unicode(APPROVALS_API_PATH).tag(sync=True)
    enabled = traitlets.Bool(True).tag(sync=True)

    def __init__(self, *, on_decide: Callable[[str, str, str | None], None],
                 on_decided: Callable[[str, str], None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._on_decide = on_decide
        self._on_decided = on_decided
        self.on_msg(self._message)

    def _message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        """A message of the front end (on the kernel's thread): a decision for the kernel to
        take, or one the server took. Anything else is ignored."""
        if not isinstance(content, dict) or not isinstance(content.get("id"), str):
            return
        approval_id = content["id"][:64]
        if content.get("event") == "decide" and content.get("decision") in ("approve", "deny"):
            reason = content.get("reason")
            reason = (reason.strip()[:MAX_REASON] or None) if isinstance(reason, str) else None
            self._on_decide(approval_id, str(content["decision"]), reason)
        elif content.get("event") == "decided" and isinstance(content.get("state"), str):
            self._on_decided(approval_id, content["state"][:32])
