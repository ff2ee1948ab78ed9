"""cloudg_jupyter: the Jupyter server extension serving the cloudg layer over MCP.

Enabled by ``etc/jupyter/jupyter_server_config.d/cloudg_jupyter.json`` (installed with the
package); serves ``{base_url}cloudg/mcp`` and ``{base_url}cloudg/api/status``.
"""

from __future__ import annotations

from typing import Any

from .app import CloudGExtension

__all__ = ["CloudGExtension"]


def _jupyter_server_extension_points() -> list[dict[str, Any]]:
    return [{"module": "cloudg_jupyter", "app": CloudGExtension}]
