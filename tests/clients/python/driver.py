"""What every Python client driver shares: the plan it reads and the report it prints.

A driver connects one MCP client framework to the endpoint in the plan (JSON on stdin), lists
the tools and makes the plan's three calls (``read``, ``progress``, ``error``) the way that
framework's users do. Its report is one JSON line on stdout, which
``tests/clients/test_client_frameworks.py`` asserts on. Drivers run in the client venvs.
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import version
from typing import Any


def read_plan() -> dict[str, Any]:
    """The plan: ``url``, ``token`` and the ``read`` / ``progress`` / ``error`` calls, each
    ``{"tool": NAME, "arguments": {...}}`` (and what a driver needs besides, e.g. ``mode``)."""
    return dict(json.load(sys.stdin))


def bearer(plan: dict[str, Any]) -> dict[str, str]:
    """The header the assistant's credential goes in."""
    return {"Authorization": f"Bearer {plan['token']}"}


def report(package: str, *, version_tested: str | None = None, **fields: Any) -> None:
    """Print the report: the package tested, its installed version (``version_tested`` for
    one that is no Python distribution) and what was seen.

    ``tools``: the names listed; ``read`` and ``progress``: ``{"data": the result as a dict,
    "notifications": [[progress, total, message], ...] or None when the framework offers no
    way to observe progress}``; ``error``: ``{"surfaced_as": how the framework hands the
    error to its caller, "message": the text it carries}``.
    """
    out = {"package": package, "version": version_tested or version(package), **fields}
    sys.stdout.write(json.dumps(out, default=str) + "\n")


def parse_text(text: str) -> dict[str, Any]:
    """A tool result's text content, which holds the result as JSON."""
    data = json.loads(text)
    if not isinstance(data, dict):
        raise TypeError(f"expected a JSON object in the tool's text, got {type(data).__name__}")
    return data


class Progress:
    """A progress callback that records every notification as ``[progress, total, message]``
    (frameworks pass extra arguments, e.g. LangChain's callback context, which are ignored)."""

    def __init__(self) -> None:
        self.seen: list[list[Any]] = []

    async def __call__(self, progress: float, total: float | None = None,
                       message: str | None = None, *_context: Any) -> None:
        self.seen.append([progress, total, message])
