"""What the notebook client needs from a connection: the ``Backend`` protocol, shared by the
remote backend (``remote.py``: an MCP session to the Jupyter server) and the local one
(``local.py``: an in-process layer). Every coroutine runs on the client's loop thread;
``ProgressFn`` and ``ChangeFn`` are plain functions called on that thread.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Protocol

from .call_result import Result

__all__ = ["Backend", "ChangeFn", "ProgressFn", "parse_contents", "templates_for_argument"]

ProgressFn = Callable[[float, float | None, str | None], None]
ChangeFn = Callable[[str], None]


class Backend(Protocol):
    mode: str  # "remote" | "local"

    @property
    def description(self) -> str:
        """One line: which server or layer, and how it was found."""
        ...

    #: Called (on the loop thread) when the server's tool list changed.
    tools_changed: Callable[[], None] | None
    #: Called (on the loop thread) with the reason when a new session replaced one that
    #: ended; the backend then tells every subscriber to read afresh (remote only).
    reconnected: Callable[[str], None] | None

    async def start(self) -> None: ...

    async def close(self) -> None: ...

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        progress: ProgressFn | None = None,
                        meta: dict[str, Any] | None = None) -> Result:
        """``meta``: ``cloudg/`` request ``_meta`` entries (e.g. ``cloudg/changed_since``)."""
        ...

    async def read_resource(self, uri: str) -> Any: ...

    async def get_prompt(self, name: str, arguments: dict[str, Any]) -> list[dict[str, Any]]: ...

    async def complete(self, argument: str, value: str, *, tool: str | None = None,
                       prompt: str | None = None, uri_template: str | None = None,
                       context: dict[str, str] | None = None) -> list[str]: ...

    async def list_tools(self) -> list[dict[str, Any]]: ...

    async def subscribe(self, uri: str, fn: ChangeFn) -> Callable[[], Awaitable[None]]: ...

    def status(self) -> dict[str, Any]: ...


def parse_contents(contents: Iterable[Mapping[str, Any]]) -> Any:
    """A resource's value: the JSON of its (first) text part when it parses, else the text;
    several parts give a list; a blob part stays a dict ``{uri, blob, mimeType}``."""
    values: list[Any] = []
    for part in contents:
        if "text" in part:
            text = str(part.get("text") or "")
            try:
                values.append(json.loads(text))
            except ValueError:
                values.append(text)
        else:
            values.append(dict(part))
    if len(values) == 1:
        return values[0]
    return values


_VARIABLE = re.compile(r"\{[+#./;?&]?([A-Za-z0-9_]+)(?:\*|:\d+)?\}")


def _singular(name: str) -> str:
    if name.endswith("ies"):
        return name[:-3] + "y"
    if name.endswith("s") and not name.endswith("ss"):
        return name[:-1]
    return name


def templates_for_argument(argument: str, templates: Iterable[str]) -> list[tuple[str, str]]:
    """Resource templates that can complete a tool argument named ``argument`` (or its
    singular, ``severities`` -> ``severity``): ``(template, variable)`` pairs, the templates
    with fewest variables first (they complete the argument on its own)."""
    wanted = [argument] if _singular(argument) == argument else [argument, _singular(argument)]
    found: list[tuple[int, str, str]] = []
    for template in templates:
        names = _VARIABLE.findall(template)
        for name in wanted:
            if name in names:
                found.append((len(names), template, name))
                break
    found.sort(key=lambda item: item[0])
    return [(template, name) for _, template, name in found]
