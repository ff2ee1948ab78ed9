"""Security headers on every response of every cloudg route, errors included.

Jupyter's handlers send ``Content-Security-Policy: frame-ancestors 'self'; report-uri …`` (or
the operator's policy from ``ServerApp.tornado_settings["headers"]``) and no
``X-Frame-Options``. ``SecurityHeaders`` keeps that policy's other directives, overrides the
ones a cloudg handler sets itself, and always sends ``frame-ancestors 'none'``: no page, not
even another app proxied on the same origin, may frame an approval (a click on Approve is the
analyst's decision). It also sends ``X-Frame-Options: DENY`` (older browsers),
``X-Content-Type-Options: nosniff`` and ``Referrer-Policy: no-referrer``. The headers are set
in ``set_default_headers``, which tornado runs again when it clears a response for an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

__all__ = ["FRAME_ANCESTORS", "JSON_CSP", "SecurityHeaders", "merged_csp", "security_headers"]

#: The directive every cloudg response carries.
FRAME_ANCESTORS = ("frame-ancestors", "'none'")
#: The policy of cloudg's JSON and event-stream responses: nothing to load, run or frame.
JSON_CSP: Mapping[str, str] = {"default-src": "'none'"}


def merged_csp(jupyter_csp: str, page: Mapping[str, str]) -> str:
    """``jupyter_csp`` with the directives of ``page`` in place of its own, and framing denied.

    Directive names are case-insensitive and the first occurrence of a name is the one a
    browser honours; later duplicates are dropped here so that nothing reads differently.
    """
    wanted = {name.lower(): value for name, value in page.items()}
    wanted[FRAME_ANCESTORS[0]] = FRAME_ANCESTORS[1]
    kept: list[str] = []
    seen: set[str] = set()
    for part in jupyter_csp.split(";"):
        tokens = part.split()
        if not tokens:
            continue
        name = tokens[0].lower()
        if name in seen or name in wanted:
            continue
        seen.add(name)
        kept.append(" ".join(tokens))
    return "; ".join([*(f"{name} {value}" for name, value in wanted.items()), *kept])


def security_headers(csp: str) -> dict[str, str]:
    """The headers a cloudg response carries besides its policy ``csp``."""
    return {"Content-Security-Policy": csp, "X-Frame-Options": "DENY",
            "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


class SecurityHeaders:
    """Mixin for cloudg's Jupyter handlers (put it before the Jupyter base class).

    ``page_csp`` holds the directives of the handler's own content (default: JSON, which
    loads nothing); Jupyter's policy contributes the rest (its ``report-uri``, an operator's
    extra directives), never ``frame-ancestors``.
    """

    page_csp: ClassVar[Mapping[str, str]] = JSON_CSP

    @property
    def content_security_policy(self) -> str:
        base: str = super().content_security_policy  # type: ignore[misc]
        return merged_csp(base, self.page_csp)

    def set_default_headers(self: Any) -> None:
        super().set_default_headers()  # type: ignore[misc]
        for name, value in security_headers(self.content_security_policy).items():
            self.set_header(name, value)
