"""``HostOriginGuard`` decisions: which Host and Origin headers pass (the HTTP status codes
themselves are checked against a real server in ``test_http``)."""

from __future__ import annotations

from cloudg_nb.protocol import HostOriginGuard


def _guard(**kwargs: object) -> HostOriginGuard:
    async def app(scope, receive, send) -> None:  # pragma: no cover - never reached here
        raise AssertionError

    return HostOriginGuard(app, **kwargs)  # type: ignore[arg-type]


def test_loopback_hosts_pass_on_any_port() -> None:
    guard = _guard()
    for host in ("localhost", "localhost:8765", "127.0.0.1:1", "[::1]:9000", "LOCALHOST:80"):
        assert guard.host_allowed(host), host


def test_other_or_missing_hosts_are_refused() -> None:
    guard = _guard()
    for host in ("evil.example.com", "127.0.0.2:80", "localhost.evil.com", "", None):
        assert not guard.host_allowed(host), host


def test_allowed_host_with_a_port_allows_only_that_port() -> None:
    guard = _guard(allowed_hosts=["mcp.internal:8443", "lab.example.org"])
    assert guard.host_allowed("mcp.internal:8443")
    assert not guard.host_allowed("mcp.internal:9000")
    assert guard.host_allowed("lab.example.org:1234")


def test_loopback_and_same_origin_origins_pass() -> None:
    guard = _guard(allowed_hosts=["lab.example.org"])
    assert guard.origin_allowed("http://localhost:3000", "127.0.0.1:8765")
    assert guard.origin_allowed("http://[::1]:3000", "127.0.0.1:8765")
    assert guard.origin_allowed("https://lab.example.org:8443", "lab.example.org:8443")


def test_foreign_null_and_malformed_origins_are_refused() -> None:
    guard = _guard()
    for origin in ("http://evil.example.com", "null", "file://", "javascript:alert(1)",
                   "http://localhost.evil.com"):
        assert not guard.origin_allowed(origin, "127.0.0.1:8765"), origin


def test_allowed_origin_entries_match_exactly_or_by_bare_host() -> None:
    guard = _guard(allowed_origins=["https://notebooks.example.org", "tools.example.org"])
    assert guard.origin_allowed("https://notebooks.example.org", "127.0.0.1:1")
    assert not guard.origin_allowed("http://notebooks.example.org", "127.0.0.1:1")
    assert guard.origin_allowed("http://tools.example.org:8080", "127.0.0.1:1")
