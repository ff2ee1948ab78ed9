"""Client ID Metadata Documents: a client whose ``client_id`` is an https URL publishes its
registration there as JSON (the MCP spec's preferred way since 2025-11; Claude Code and VS Code
use it). ``fetch_client_metadata`` reads one, safely, and checks it.

The server fetches a URL an unauthenticated caller chose, so: https only (http only to a
loopback host, for local clients and tests), no redirects, no credentials, a few seconds and a
few kilobytes at most; the document must name itself as ``client_id`` and register only
redirect URIs this server accepts. Results (good or bad) are cached for a few minutes.
"""

from __future__ import annotations

import ipaddress
import json
import time
from typing import Any
from urllib.parse import urlsplit

import httpx2

__all__ = ["MAX_BYTES", "ClientMetadataError", "fetch_client_metadata", "is_metadata_url"]

#: The longest document read.
MAX_BYTES = 16 * 1024
#: Seconds a fetch may take.
TIMEOUT = 5.0
#: Seconds a fetched document (or a failure) is reused.
CACHE_SECONDS = 300.0
_LOOPBACK = {"localhost", "127.0.0.1", "::1"}
_cache: dict[str, tuple[float, dict[str, Any] | str]] = {}


class ClientMetadataError(ValueError):
    """The document could not be fetched or is not acceptable (the message says which)."""


def is_metadata_url(client_id: str) -> bool:
    """Whether ``client_id`` is a URL this server would fetch as a metadata document."""
    parts = urlsplit(client_id)
    if parts.fragment or parts.username or parts.password or not parts.hostname:
        return False
    if parts.path in ("", "/"):
        return False
    if parts.scheme == "https":
        return True
    return parts.scheme == "http" and parts.hostname in _LOOPBACK


def _literal_private(host: str) -> bool:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return not address.is_global and not address.is_loopback


async def fetch_client_metadata(client_id: str, redirect_ok: Any) -> dict[str, Any]:
    """The checked document at ``client_id`` (``redirect_ok(uri)`` judges its redirect URIs);
    ClientMetadataError when it cannot be used."""
    now = time.monotonic()
    cached = _cache.get(client_id)
    if cached is not None and cached[0] > now:
        if isinstance(cached[1], str):
            raise ClientMetadataError(cached[1])
        return cached[1]
    try:
        document = await _fetch(client_id, redirect_ok)
    except ClientMetadataError as exc:
        _cache[client_id] = (now + CACHE_SECONDS, str(exc))
        raise
    if len(_cache) > 256:
        _cache.clear()
    _cache[client_id] = (now + CACHE_SECONDS, document)
    return document


async def _fetch(client_id: str, redirect_ok: Any) -> dict[str, Any]:
    host = urlsplit(client_id).hostname or ""
    if not is_metadata_url(client_id) or _literal_private(host):
        raise ClientMetadataError("client_id URLs must be https (http only on a loopback host)")
    try:
        async with httpx2.AsyncClient(timeout=TIMEOUT, follow_redirects=False,
                                      trust_env=False) as http:
            body = await _read(http, client_id)
    except httpx2.HTTPError:
        raise ClientMetadataError("the client's metadata document could not be fetched") from None
    try:
        document = json.loads(body)
    except ValueError:
        raise ClientMetadataError("the client's metadata document is not JSON") from None
    if not isinstance(document, dict) or document.get("client_id") != client_id:
        raise ClientMetadataError("the client's metadata document must name its own URL as "
                                  "client_id")
    uris = document.get("redirect_uris")
    if not isinstance(uris, list) or not uris or not all(
            isinstance(u, str) and redirect_ok(u) for u in uris):
        raise ClientMetadataError("the client's metadata document must list redirect_uris "
                                  "that are https, or http on a loopback host")
    return document


async def _read(http: httpx2.AsyncClient, url: str) -> bytes:
    """The body at ``url`` (200 only), at most ``MAX_BYTES``."""
    async with http.stream("GET", url, headers={"Accept": "application/json"}) as response:
        if response.status_code != 200:
            raise ClientMetadataError(
                f"the client's metadata document answered {response.status_code}")
        body = b""
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > MAX_BYTES:
                raise ClientMetadataError("the client's metadata document is too large")
        return body
