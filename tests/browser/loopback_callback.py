"""An OAuth client's loopback redirect target (RFC 8252) for the browser tests: a small HTTP
server on 127.0.0.1 that records the paths the browser landed on, as a desktop MCP client's
callback listener does."""

from __future__ import annotations

import contextlib
import http.server
import threading
from collections.abc import Iterator

from tests.jupyter.server import free_port


class _Callback(http.server.BaseHTTPRequestHandler):
    landed: list[str]

    def do_GET(self) -> None:
        if self.path.startswith("/callback"):  # not the browser's /favicon.ico
            self.landed.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(b"<p>You can close this window.</p>")

    def log_message(self, *args: object) -> None:
        return None


@contextlib.contextmanager
def loopback_callback() -> Iterator[tuple[str, list[str]]]:
    """``(redirect_uri, landed)``: the callback URL, and the paths the browser landed on."""
    landed: list[str] = []
    handler = type("Callback", (_Callback,), {"landed": landed})
    httpd = http.server.HTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}/callback", landed
    finally:
        httpd.shutdown()
        httpd.server_close()
