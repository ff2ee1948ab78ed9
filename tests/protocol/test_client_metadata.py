"""Which client_id URLs the server would fetch as Client ID Metadata Documents, and that an
unacceptable one is refused before any request."""

from __future__ import annotations

import asyncio

import pytest

from cloudg_nb.protocol.client_metadata import (
    ClientMetadataError,
    fetch_client_metadata,
    is_metadata_url,
)


@pytest.mark.parametrize(("url", "fetched"), [
    ("https://client.example.com/oauth/client.json", True),
    ("http://127.0.0.1:9/client.json", True),
    ("http://localhost/c.json", True),
    ("http://client.example.com/client.json", False),
    ("https://client.example.com/", False),
    ("https://user:pw@client.example.com/c.json", False),
    ("https://client.example.com/c.json#frag", False),
    ("file:///etc/passwd", False),
    ("3f2c1a-uuid-like-id", False),
])
def test_only_https_or_loopback_urls_with_a_path_are_fetched(url: str, fetched: bool) -> None:
    assert is_metadata_url(url) is fetched


@pytest.mark.parametrize("url", ["https://10.0.0.8/client.json",
                                 "https://169.254.169.254/latest/meta-data/x",
                                 "https://[fd00::1]/c.json"])
def test_a_private_address_is_refused_without_a_request(url: str) -> None:
    with pytest.raises(ClientMetadataError):
        asyncio.run(fetch_client_metadata(url, lambda uri: True))
