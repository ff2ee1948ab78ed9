"""A stand-in for the analyst's browser, for clients that open one (mcp-remote runs
``$BROWSER URL`` through xdg-open): it follows the authorization URL, answers the consent page
as the logged-in analyst (the cookies and XSRF token in ``CLOUDG_TEST_COOKIE`` /
``CLOUDG_TEST_XSRF``, Allow, assistant ``CLOUDG_TEST_NAME``) and then opens the client's
callback URL, as a browser follows the redirect. Standard library only.
"""

from __future__ import annotations

import http.client
import os
import sys
import urllib.request
from urllib.parse import urlencode, urljoin, urlsplit


def _request(method: str, url: str, body: bytes | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, str]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.netloc, timeout=30)
    try:
        conn.request(method, parts.path + (f"?{parts.query}" if parts.query else ""),
                     body=body, headers=headers or {})
        response = conn.getresponse()
        response.read()
        return response.status, urljoin(url, response.getheader("Location") or "")
    finally:
        conn.close()


def main(url: str) -> int:
    cookie = os.environ["CLOUDG_TEST_COOKIE"]
    status, consent = _request("GET", url)
    if status != 302:
        return 1
    form = urlencode({"_xsrf": os.environ["CLOUDG_TEST_XSRF"], "decision": "allow",
                      "name": os.environ.get("CLOUDG_TEST_NAME", "bridged")}).encode()
    status, callback = _request("POST", consent, form, {
        "Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"})
    if status != 302:
        return 2
    with urllib.request.urlopen(callback, timeout=30) as response:
        response.read()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[-1]))
