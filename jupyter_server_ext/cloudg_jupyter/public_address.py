"""The address analysts open this server at: the base of every link cloudg hands out.

In order: ``CloudGExtension.public_url`` (a proxy in front of the server); under JupyterHub,
this server's public URL as the hub gives it (``JUPYTERHUB_PUBLIC_URL``, joined with
``JUPYTERHUB_SERVICE_PREFIX`` when it names the hub rather than the server); else Jupyter's
own ``connection_url``, built from its ip/port/base_url settings. Never from a request's
``Host``, ``Origin`` or ``X-Forwarded-*`` headers: those are the caller's to choose.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from jupyter_server.utils import url_path_join

__all__ = ["check_public_url", "public_base_url", "under_jupyterhub"]


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


def _hub_public_url(environ: Mapping[str, str]) -> str | None:
    public = environ.get("JUPYTERHUB_PUBLIC_URL", "")
    if not public:
        return None
    try:
        base = check_public_url(public)
    except ValueError:
        return None
    prefix = environ.get("JUPYTERHUB_SERVICE_PREFIX", "")
    if prefix and not urlsplit(base).path.endswith(prefix):
        base = url_path_join(base, prefix)
    return base if base.endswith("/") else base + "/"


def public_base_url(configured: str, serverapp: Any, environ: Mapping[str, str]) -> str:
    """The base URL of this server's pages as analysts open them (ends with ``/``)."""
    if configured:
        return check_public_url(configured)
    hub = _hub_public_url(environ)
    if hub is not None:
        return hub
    base = str(getattr(serverapp, "connection_url", "") or "/")
    return base if base.endswith("/") else base + "/"
