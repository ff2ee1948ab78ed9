"""Tab completion for ``%cloudg`` / ``%%cloudg`` lines through IPython's completer (a v2
context matcher): subcommands, tool names, categories, waiting approval ids, assistant names,
argument names from the tool's input schema, and argument values — enum and boolean values
from the schema, the rest through the client's ``complete()`` (MCP ``completion/complete``:
asset refs, datasets, finding ids ...).

The tools' schemas carry no machine-readable "this is an asset ref" marker, so an argument's
value kind comes from its name, then from its description (``_value_kind``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..layer.wire import CATEGORY_META
from .magic_args import parse_value, split_partial

if TYPE_CHECKING:
    from IPython.core.completer import CompletionContext, SimpleCompletion, SimpleMatcherResult

    from .client import Client

__all__ = ["MagicCompleter"]

logger = logging.getLogger("cloudg.notebook")

#: Subcommands whose first word is a tool name, and whose later words are its arguments.
TOOL_SUBCOMMANDS = frozenset({"call", "describe", "live"})
_ARGUMENT_SUBCOMMANDS = frozenset({"call", "live"})
_MAGIC_LINE = re.compile(r"^\s*%%?cloudg(?:\s|$)")
_YAML_KEY = re.compile(r"^\s*([A-Za-z_]\w*)?$")
_YAML_VALUE = re.compile(r"^\s*([A-Za-z_]\w*):\s*(.*)$")
#: Characters that start a new value inside a list/quoted value: ``ids=["F-1", "F-``.
_VALUE_START = re.compile(r"""[\[,"'\s]""")

# Argument names whose value is always of one kind (the catalog's shared argument names).
_KIND_BY_NAME = {
    "ref": "ref", "source": "ref", "target": "ref", "seeds": "ref", "resource": "ref",
    "dataset": "dataset", "base": "dataset",
    "finding_id": "finding_id", "ids": "finding_id",
    "severity": "severity", "severities": "severity", "min_severity": "severity",
    "framework": "framework",
}


def _value_kind(name: str, schema: Mapping[str, Any]) -> str | None:
    """What an argument's values are: ref, dataset, finding_id, severity, framework or None.

    The description wins over the name where it says "dataset" (``diff_datasets target`` is a
    dataset, ``find_paths target`` an asset) or "finding id".
    """
    description = str(schema.get("description", "")).lower()
    if "new dataset" in description:
        return None
    if "dataset" in description and "asset reference" not in description \
            and "(id, arn or name)" not in description:
        return "dataset"
    if "finding id" in description:
        return "finding_id"
    kind = _KIND_BY_NAME.get(name)
    if kind is not None:
        return kind
    if "asset reference" in description or "(id, arn or name)" in description:
        return "ref"
    return None


def _schema_types(schema: Mapping[str, Any]) -> set[str]:
    types: set[str] = set()
    for part in [schema, *(schema.get("anyOf") or ()), *(schema.get("oneOf") or ())]:
        if isinstance(part, Mapping):
            kind = part.get("type")
            if isinstance(kind, str):
                types.add(kind)
            elif isinstance(kind, list):
                types.update(str(k) for k in kind)
    return types


def _enum_values(schema: Mapping[str, Any]) -> list[str]:
    values: list[str] = []
    for part in [schema, *(schema.get("anyOf") or ()), *(schema.get("oneOf") or ())]:
        if not isinstance(part, Mapping):
            continue
        for source in (part, part.get("items")):
            if isinstance(source, Mapping) and isinstance(source.get("enum"), list):
                values.extend(str(v) for v in source["enum"] if v is not None)
    return list(dict.fromkeys(values))


def _starting_with(values: Iterable[str], prefix: str) -> list[str]:
    low = prefix.lower()
    return [v for v in values if v.lower().startswith(low)]


class MagicCompleter:
    """The ``%cloudg`` matcher: ``ip.Completer.custom_matchers.append(MagicCompleter(...))``.

    ``subcommands`` are the magic's subcommand names; ``client`` returns the client to ask
    (tools, completions) or None when none can be made.
    """

    matcher_api_version = 2
    matcher_priority = 100.0
    matcher_identifier = "cloudg_nb.magic"

    def __init__(self, subcommands: Sequence[str], client: Callable[[], Client | None]) -> None:
        self.subcommands = list(subcommands)
        self._client = client
        # IPython reads the matcher's __qualname__ (as the default of its identifier).
        self.__qualname__ = type(self).__qualname__

    # -- IPython entry point -------------------------------------------------------------------

    def __call__(self, context: CompletionContext) -> SimpleMatcherResult:
        try:
            found = self._complete(context.full_text, context.cursor_line,
                                   context.text_until_cursor)
        except Exception:  # a completion must never break the prompt
            logger.debug("cloudg completion failed", exc_info=True)
            found = None
        return self._result(found)

    def complete_line(self, text_until_cursor: str, first_line: str | None = None
                      ) -> tuple[str, list[str]] | None:
        """``(fragment, candidates)`` for a magic line typed up to the cursor (None when it
        is not a cloudg line); ``first_line`` is the cell's first line for a cell body."""
        lines = [first_line, text_until_cursor] if first_line is not None else [
            text_until_cursor]
        return self._complete("\n".join(lines), len(lines) - 1, text_until_cursor)

    # -- dispatch --------------------------------------------------------------------------------

    def _complete(self, full_text: str, cursor_line: int, before: str
                  ) -> tuple[str, list[str]] | None:
        if cursor_line == 0 or not full_text.startswith("%%cloudg"):
            if not _MAGIC_LINE.match(before):
                return None
            rest = before.lstrip().lstrip("%")[len("cloudg"):]
            words, current = split_partial(rest)
            return self._complete_words(words, current)
        first = full_text.split("\n", 1)[0]
        words, last = split_partial(first.lstrip("%")[len("cloudg"):])
        words = [*words, last] if last else words
        if len(words) >= 2 and words[0] in _ARGUMENT_SUBCOMMANDS:
            return self._complete_body_line(words[1], before)
        return None

    def _complete_words(self, words: list[str], current: str) -> tuple[str, list[str]] | None:
        if not words:
            return current, _starting_with(self.subcommands, current)
        sub = words[0]
        position = len(words)  # index of the word being typed
        if words[-1] in ("-o", "--out", "--token", "--policy"):
            return current, []
        if sub in TOOL_SUBCOMMANDS and position == 1:
            return current, _starting_with(self._tool_names(), current)
        if sub == "tools" and position == 1:
            return current, _starting_with(self._categories(), current)
        if sub == "use" and position == 1:
            return current, self._values("dataset", current, None, {})
        if sub == "diff" and position in (1, 2) and "=" not in current:
            return current, self._values("dataset", current, None, {})
        if sub == "help" and position == 1:
            return current, _starting_with(self.subcommands, current)
        if sub in ("approve", "deny") and position == 1:
            return current, _starting_with(self._waiting_ids(), current)
        if sub == "assistants" and position == 1:
            return current, _starting_with(["revoke"], current)
        if sub == "assistants" and position == 2 and words[1] == "revoke":
            return current, _starting_with(self._assistant_names(), current)
        if sub in _ARGUMENT_SUBCOMMANDS and position >= 2:
            return self._complete_argument(words[1], words[2:], current)
        if sub == "prompt" and position >= 2 and "=" in current:
            name, _, raw = current.partition("=")
            fragment = _VALUE_START.split(raw)[-1]
            client = self._client()
            if client is None:
                return fragment, []
            return fragment, client.complete(name, fragment, prompt=words[1],
                                             context=_filled(words[2:]))
        if sub == "load" and position == 1:
            return None  # a path: IPython's file completer offers them
        return current, []  # a cloudg word with nothing to offer: offer nothing else either

    def _complete_argument(self, tool: str, given: list[str], current: str
                           ) -> tuple[str, list[str]]:
        properties = self._properties(tool)
        if current.startswith("-"):
            return current, _starting_with(["-o"], current)
        if "=" not in current:
            used = {w.split("=", 1)[0] for w in given if "=" in w}
            names = [f"{n}=" for n in properties if n not in used]
            return current, _starting_with(names, current)
        name, _, raw = current.partition("=")
        fragment = _VALUE_START.split(raw)[-1]
        return fragment, self._values_for(tool, name, properties.get(name, {}), fragment,
                                          _filled(given))

    def _complete_body_line(self, tool: str, before: str) -> tuple[str, list[str]] | None:
        properties = self._properties(tool)
        key = _YAML_KEY.match(before)
        if key:
            fragment = key.group(1) or ""
            return fragment, _starting_with([f"{n}: " for n in properties], fragment)
        value = _YAML_VALUE.match(before)
        if value:
            name, raw = value.groups()
            fragment = _VALUE_START.split(raw)[-1]
            return fragment, self._values_for(tool, name, properties.get(name, {}), fragment,
                                              {})
        return None

    # -- sources ---------------------------------------------------------------------------------

    def _tools(self) -> list[dict[str, Any]]:
        client = self._client()
        return client.tools() if client is not None else []

    def _tool_names(self) -> list[str]:
        return [str(t.get("name")) for t in self._tools()]

    def _waiting_ids(self) -> list[str]:
        """Ids of the calls waiting for approval (none where the server serves none)."""
        client = self._client()
        try:
            return [str(a.get("id")) for a in client.approvals()] if client is not None else []
        except Exception:
            return []

    def _assistant_names(self) -> list[str]:
        client = self._client()
        try:
            return [str(n) for n in client.assistants()["name"]] if client is not None else []
        except Exception:
            return []

    def _categories(self) -> list[str]:
        found = [str((t.get("_meta") or {}).get(CATEGORY_META) or "") for t in self._tools()]
        return sorted({c for c in found if c})

    def _properties(self, tool: str) -> dict[str, Any]:
        for spec in self._tools():
            if spec.get("name") == tool:
                schema = spec.get("inputSchema") or {}
                props = schema.get("properties") or {}
                return dict(props) if isinstance(props, Mapping) else {}
        return {}

    def _values_for(self, tool: str, name: str, schema: Mapping[str, Any], fragment: str,
                    context: dict[str, str]) -> list[str]:
        enum = _enum_values(schema)
        if enum:
            return _starting_with(enum, fragment)
        types = _schema_types(schema)
        if types and types <= {"boolean", "null"}:
            return _starting_with(["true", "false"], fragment)
        kind = _value_kind(name, schema)
        if kind is None:
            return []
        return self._values(kind, fragment, tool, context)

    def _values(self, kind: str, fragment: str, tool: str | None,
                context: dict[str, str]) -> list[str]:
        client = self._client()
        if client is None:
            return []
        # The server orders them: values starting with the fragment, then ones containing it
        # (``cust`` also offers ``arn:aws:rds:…:db:customers-db``); IPython replaces the
        # fragment with the chosen one.
        return client.complete(kind, fragment, tool=tool, context=context or None)

    @staticmethod
    def _result(found: tuple[str, list[str]] | None) -> SimpleMatcherResult:
        from IPython.core.completer import SimpleCompletion

        if found is None:
            return {"completions": [], "suppress": False}
        fragment, values = found
        completions: Sequence[SimpleCompletion] = [SimpleCompletion(v, type="cloudg")
                                                    for v in values]
        return {
            "completions": completions or _NO_CANDIDATES,
            "matched_fragment": fragment,
            "suppress": True,
            "ordered": True,
        }


class _NoCandidates(Sequence[Any]):
    """No completions that still count as an answer: IPython lets a matcher silence the
    others only when it has at least one completion (``has_any_completions`` asks ``len``),
    so on a ``%cloudg`` word with nothing to offer (after ``-o``, ``status``, ``describe
    TOOL``) Python keywords, every magic and file names would show instead. This reports a
    length of one and holds nothing, so the others are silenced and nothing is offered."""

    def __len__(self) -> int:
        return 1

    def __getitem__(self, index: Any) -> Any:
        raise IndexError(index)

    def __iter__(self) -> Iterator[Any]:
        return iter(())


_NO_CANDIDATES = _NoCandidates()


def _filled(words: list[str]) -> dict[str, str]:
    """String arguments already on the line (``dataset=demo``), as completion context."""
    filled: dict[str, str] = {}
    for word in words:
        key, sep, raw = word.partition("=")
        if sep and key.isidentifier():
            value = parse_value(raw)
            if isinstance(value, str) and value:
                filled[key] = value
    return filled
