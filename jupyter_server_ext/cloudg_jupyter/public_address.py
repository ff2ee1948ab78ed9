"""The address analysts open this server at: the base of every link cloudg hands out.

In order: ``CloudGExtension.public_url``; under JupyterHub, this server's public address as the
hub gives it (``hub_public_root``, which ``cloudg-nb config --jupyter`` reads too); else
Jupyter's own ``connection_url``. Never a request's ``Host``, ``Origin`` or ``X-Forwarded-*``
headers: those are the caller's to choose.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from jupyter_server.utils import url_path_join

from cloudg_nb.jupyter_discovery import hub_public_root
from cloudg_nb.layer.wire import APPROVAL_PAGE_PATH, ENDPOINT_PATH

if TYPE_CHECKING:
    from cloudg_nb.layer import Principal
    from cloudg_nb.oversight import Approval

__all__ = ["PublicAddress", "check_public_url", "public_base_url", "under_jupyterhub"]


def check_public_url(url: str) -> str:
    """``url`` as a base (ending in ``/``); ValueError saying what is wrong with it."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError("give the absolute http(s) URL analysts open this server at, for "
                         "example https://notebooks.example.org/user/alice/")
    if parts.query or parts.fragment:
        raise ValueError("give the URL without a query or fragment")
    return url if url.endswith("/") else url + "/"


def under_jupyterhub(environ: Mapping[str, str]) -> bool:
    """Whether this is a JupyterHub single-user server (the hub sets these for it)."""
    return bool(environ.get("JUPYTERHUB_SERVICE_PREFIX") or environ.get("JUPYTERHUB_PUBLIC_URL"))


def public_base_url(configured: str, serverapp: Any, environ: Mapping[str, str]) -> str:
    """The base URL of this server's pages as analysts open them (ends with ``/``)."""
    if configured:
        return check_public_url(configured)
    hub = hub_public_root(environ)
    if hub is not None:
        return hub
    base = str(getattr(serverapp, "connection_url", "") or "/")
    return base if base.endswith("/") else base + "/"


class PublicAddress:
    """The addresses cloudg hands out for ``serverapp``: its endpoint and approval pages.

    ``configure`` sets ``CloudGExtension.public_url`` (checked); until then, and without one,
    the hub's or Jupyter's own address is used, read afresh each time (the environment too).
    """

    def __init__(self, serverapp: Any, environ: Mapping[str, str] = os.environ) -> None:
        self.serverapp = serverapp
        self.environ = environ
        #: The configured public URL, once checked ("" when none).
        self.configured = ""

    def configure(self, url: str) -> None:
        """Use ``url`` as the base; ValueError saying what is wrong with it."""
        self.configured = check_public_url(url)

    def base(self) -> str:
        """This server's address as analysts open it, ending in ``/``."""
        return public_base_url(self.configured, self.serverapp, self.environ)

    def endpoint_url(self) -> str:
        """The MCP endpoint's address."""
        return url_path_join(self.base(), ENDPOINT_PATH)

    def approval_url(self, approval: Approval, principal: Principal) -> str:
        """The approval page at the server's configured address (whoever asks, and however
        they reached the server)."""
        return url_path_join(self.base(), APPROVAL_PAGE_PATH, approval.id)
