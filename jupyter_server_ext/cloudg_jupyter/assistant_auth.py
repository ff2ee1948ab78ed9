"""Assistant tokens at the Jupyter edge: read from a request, and refused everywhere but MCP.

An assistant token (``cgat_…``) is valid only on ``{base_url}cloudg/mcp``. ``guard_routes``
puts one rule in front of every Jupyter route (REST API, files, ``/lab``, websockets,
extensions' handlers): a request that carries an assistant token anywhere else is answered
403 before any handler (or kernel, or file read) runs. Requests without one cost a header
lookup.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl

from tornado import httputil, web
from tornado.routing import Matcher, Rule

from cloudg_nb.assistants import TOKEN_PREFIX

from .security_headers import JSON_CSP, merged_csp, security_headers
from .server_internals import put_rule_first

__all__ = [
    "OTHER_SERVER", "UNBOUND", "UNKNOWN", "AssistantRefused", "AssistantRefusedHandler",
    "guard_routes", "presented_assistant_token",
]

_AUTH_HEADER = re.compile(r"^\s*(token|bearer)\s+(\S+)\s*$", re.IGNORECASE)

REFUSED = (
    "Forbidden: this is a cloudg assistant token. It is accepted only on the cloudg MCP "
    "endpoint ({endpoint}); the rest of the Jupyter server (files, kernels, terminals, the "
    "UI) needs the analyst's own login."
)


#: Why a presented assistant token was refused on the MCP endpoint (``AssistantRefused.reason``).
UNKNOWN = "Unknown assistant"
OTHER_SERVER = "Assistant of another server"
UNBOUND = "Assistant of no server"


class AssistantRefused(Exception):
    """An assistant token the MCP endpoint does not accept; ``reason`` says why (one of
    ``UNKNOWN``, ``OTHER_SERVER``, ``UNBOUND``), never the token."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def presented_assistant_token(request: httputil.HTTPServerRequest) -> str | None:
    """An assistant token carried in the header or the query (either, even beside another
    token: an assistant token never adds to what a request may do), else None."""
    header = request.headers.get("Authorization")
    if header and TOKEN_PREFIX in header:
        found = _AUTH_HEADER.match(header)
        if found and found.group(2).startswith(TOKEN_PREFIX):
            return found.group(2)
    query = request.query
    if query and TOKEN_PREFIX in query:
        for key, value in parse_qsl(query, keep_blank_values=False):
            if key == "token" and value.startswith(TOKEN_PREFIX):
                return value
    return None


class _CarriesAssistantToken(Matcher):
    """Matches a request with an assistant token on any path but the allowed ones."""

    def __init__(self, allowed_paths: frozenset[str]) -> None:
        self.allowed_paths = allowed_paths

    def match(self, request: httputil.HTTPServerRequest) -> dict[str, Any] | None:
        if request.path in self.allowed_paths:
            return None
        return {} if presented_assistant_token(request) is not None else None


class AssistantRefusedHandler(web.RequestHandler):
    """403 for every method; says where the token works and never repeats it."""

    def initialize(self, endpoint: str) -> None:
        self.endpoint = endpoint

    def set_default_headers(self) -> None:
        for name, value in security_headers(merged_csp("", JSON_CSP)).items():
            self.set_header(name, value)

    def prepare(self) -> None:
        self.set_status(403)
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps({"message": REFUSED.format(endpoint=self.endpoint),
                                "reason": "assistant_token_out_of_scope"}))

    def check_xsrf_cookie(self) -> None:  # answered in prepare; nothing to check
        return None


def guard_routes(web_app: web.Application, mcp_path: str) -> Rule:
    """Put the assistant-token rule before every route of ``web_app``; returns the rule."""
    return put_rule_first(web_app, Rule(_CarriesAssistantToken(frozenset({mcp_path})),
                                        AssistantRefusedHandler, {"endpoint": mcp_path}))
