"""What a browser makes of a response's security headers, for tests that cannot run one.

``framing_allowed`` follows CSP Level 3 ``frame-ancestors`` (every enforced policy must allow
the ancestor; several policies may come in one header, comma-separated, or in several) and
falls back to ``X-Frame-Options`` only when no policy has ``frame-ancestors``, as Chromium and
Firefox do. A source expression it does not model counts as allowing (so a test errs towards
failing).
"""

from __future__ import annotations

from urllib.parse import urlsplit

__all__ = ["framing_allowed", "policies"]


def policies(headers: dict[str, list[str]]) -> list[str]:
    """The enforced Content-Security-Policy policies of a response (lower-case header names)."""
    return [policy.strip() for value in headers.get("content-security-policy", [])
            for policy in value.split(",") if policy.strip()]


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, (parts.hostname or ""), parts.port or default


def _source_allows(source: str, parent: str, page: str) -> bool:
    scheme, host, port = _origin(parent)
    lowered = source.lower()
    if lowered == "'none'":
        return False
    if lowered == "'self'":
        return _origin(parent) == _origin(page)
    if lowered == "*":
        return scheme in ("http", "https")
    if lowered.endswith(":") and "/" not in lowered:  # a scheme source, e.g. https:
        return scheme == lowered[:-1]
    if "://" in lowered:
        s_scheme, s_host, s_port = _origin(lowered)
        if s_host.startswith("*."):
            return scheme == s_scheme and host.endswith(s_host[1:])
        return (scheme, host, port) == (s_scheme, s_host, s_port)
    return True  # an expression this model does not know: assume it allows


def framing_allowed(headers: dict[str, list[str]], parent: str, page: str) -> bool:
    """Whether a browser shows a response with ``headers`` from origin ``page`` in a frame of
    a document from origin ``parent``."""
    governed = False
    for policy in policies(headers):
        for directive in policy.split(";"):
            tokens = directive.split()
            if tokens and tokens[0].lower() == "frame-ancestors":
                governed = True
                sources = tokens[1:]
                if not any(_source_allows(s, parent, page) for s in sources):
                    return False
                break  # a policy's first frame-ancestors is the one that counts
    if governed:
        return True
    values = [v.strip().lower() for value in headers.get("x-frame-options", [])
              for v in value.split(",") if v.strip()]
    if "deny" in values:
        return False
    if values and all(v == "sameorigin" for v in values):
        return _origin(parent) == _origin(page)
    return True
