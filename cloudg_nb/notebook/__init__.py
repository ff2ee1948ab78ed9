"""The kernel side of cloudg-nb: the ``Client`` (remote or local), ``%cloudg`` magics,
progress displays, LiveFrames, the oversight displays (ActivityFeed, ApprovalPanel) and
``table(frame)``, any DataFrame as the magics show tables.
Names load on first use, so importing this package (or ``cloudg_nb``) imports neither mcp,
IPython nor ipywidgets.
"""

from __future__ import annotations

from ..layer.lazy_names import lazy_names

__all__ = ["ActivityFeed", "ApprovalPanel", "CloudGError", "Client", "ErrorInfo", "LiveFrame",
           "Result", "connect", "default_client", "load_ipython_extension", "local",
           "set_default_client", "table", "unload_ipython_extension"]

_LAZY = {
    "Client": ".client",
    "connect": ".client",
    "local": ".client",
    "default_client": ".client",
    "set_default_client": ".client",
    "Result": ".call_result",
    "ErrorInfo": ".call_result",
    "CloudGError": ".call_result",
    "table": ".render",
    "LiveFrame": ".live",
    "ActivityFeed": ".activity_feed",
    "ApprovalPanel": ".approval_panel",
    "load_ipython_extension": ".magics",
    "unload_ipython_extension": ".magics",
}


__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())
