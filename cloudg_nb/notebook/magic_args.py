"""Argument parsing for the ``%cloudg`` magics: words, ``key=value`` pairs and options.

A line splits on whitespace outside quotes and brackets, so ``ids=["a", "b"]`` and
``query="web server"`` stay one word. Values are JSON where they parse (numbers, booleans,
lists, objects, quoted strings), else Python literals (what ``$name`` expansion of a list
gives: ``['HIGH']``), else plain strings. Errors are ``MagicArgumentError`` with a message
that says what to write instead; IPython has already expanded ``$name`` / ``{expr}``.
"""

from __future__ import annotations

import ast
import json
import keyword
from dataclasses import dataclass, field
from typing import Any

import yaml

__all__ = [
    "MagicArgumentError", "ParsedLine", "split_words", "split_partial", "unquote", "parse_value",
    "parse_line", "parse_body", "check_variable_name",
]

_OPEN = {"[": "]", "{": "}", "(": ")"}
_CLOSE = {v: k for k, v in _OPEN.items()}


class MagicArgumentError(ValueError):
    """A ``%cloudg`` line that cannot be understood; the message says how to fix it."""


@dataclass
class ParsedLine:
    """Positional words, ``key=value`` arguments and ``--option value`` flags of one line."""

    words: list[str] = field(default_factory=list)
    arguments: dict[str, Any] = field(default_factory=dict)
    options: dict[str, str | None] = field(default_factory=dict)


def split_words(line: str) -> list[str]:
    """Split on whitespace outside quotes and brackets; quotes are kept in the words.

    An unclosed quote or bracket raises ``MagicArgumentError``.
    """
    words, current, quote, stack = _scan(line)
    if quote is not None:
        raise MagicArgumentError(f"Unclosed {quote} quote; close it or drop it.")
    if stack:
        raise MagicArgumentError(
            f"Unclosed '{stack[-1]}'; close it with '{_OPEN[stack[-1]]}'.")
    return [*words, current] if current else words


def split_partial(line: str) -> tuple[list[str], str]:
    """For completion: the finished words and the word being typed ("" after a space),
    tolerating an unclosed quote or bracket in the word being typed."""
    words, current, _, _ = _scan(line)
    return words, current


def _scan(line: str) -> tuple[list[str], str, str | None, list[str]]:
    words: list[str] = []
    current: list[str] = []
    quote: str | None = None
    stack: list[str] = []
    escaped = False
    for ch in line:
        if quote is not None:
            current.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in _OPEN:
            stack.append(ch)
        elif ch in _CLOSE and stack and stack[-1] == _CLOSE[ch]:
            stack.pop()
        elif ch.isspace() and not stack:
            if current:
                words.append("".join(current))
                current = []
            continue
        current.append(ch)
    return words, "".join(current), quote, stack


def unquote(word: str) -> str:
    """``"a b"`` or ``'a b'`` -> ``a b``; anything else unchanged."""
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "\"'":
        value = parse_value(word)
        return value if isinstance(value, str) else word[1:-1]
    return word


def parse_value(text: str) -> Any:
    """JSON where it parses, else a Python literal (lists, dicts, quoted strings, True/False/
    None), else the text itself."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    stripped = text.strip()
    if stripped[:1] in ("[", "{", "(", "'") or stripped in ("True", "False", "None"):
        try:
            value = ast.literal_eval(stripped)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return text
        return list(value) if isinstance(value, (tuple, set, frozenset)) else value
    return text


def check_variable_name(name: str, option: str = "-o") -> str:
    """``name`` when it is a valid Python variable name, else ``MagicArgumentError``."""
    if not name.isidentifier() or keyword.iskeyword(name):
        raise MagicArgumentError(
            f"{option} needs a Python variable name (letters, digits, _), e.g. {option} df.")
    return name


def parse_line(
    line: str,
    *,
    options: dict[str, str] | None = None,
    flags: frozenset[str] = frozenset(),
) -> ParsedLine:
    """Parse ``words key=value --opt value``.

    ``options`` maps each accepted spelling (``-o``, ``--out``) to its canonical name (``out``);
    an option takes the next word as its value. ``flags`` are options without a value. A
    ``key=value`` word becomes an argument (the value parsed with ``parse_value``); a repeated
    key or an unknown ``-x`` option is an error.
    """
    options = options or {}
    parsed = ParsedLine()
    words = split_words(line)
    i = 0
    while i < len(words):
        word = words[i]
        if word.startswith("-") and not _is_number(word):
            name = word.split("=", 1)[0]
            if name in flags:
                parsed.options[name.lstrip("-")] = None
            elif name in options:
                if "=" in word:
                    value = word.split("=", 1)[1]
                elif i + 1 < len(words):
                    i += 1
                    value = words[i]
                else:
                    raise MagicArgumentError(f"{name} needs a value, e.g. {name} NAME.")
                parsed.options[options[name]] = unquote(value)
            else:
                accepted = sorted(set(options) | set(flags))
                hint = f" Accepted here: {', '.join(accepted)}." if accepted else ""
                raise MagicArgumentError(f"Unknown option {name}.{hint}")
        elif _is_assignment(word):
            key, raw = word.split("=", 1)
            if key in parsed.arguments:
                raise MagicArgumentError(f"Argument {key} is given twice; keep one.")
            parsed.arguments[key] = parse_value(raw)
        else:
            parsed.words.append(unquote(word))
        i += 1
    return parsed


def parse_body(body: str) -> dict[str, Any]:
    """A ``%%cloudg call`` cell body: a JSON object, else a YAML mapping; empty -> {}."""
    if not body.strip():
        return {}
    try:
        value = json.loads(body)
    except ValueError:
        try:
            value = yaml.safe_load(body)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" (line {mark.line + 1})" if mark is not None else ""
            raise MagicArgumentError(
                f"The cell body is neither JSON nor YAML{where}; write one mapping of "
                "argument names to values.") from None
    if not isinstance(value, dict):
        raise MagicArgumentError(
            "The cell body must be one mapping of argument names to values "
            "(a JSON object or YAML 'key: value' lines).")
    return {str(k): v for k, v in value.items()}


def _is_assignment(word: str) -> bool:
    key, sep, _ = word.partition("=")
    return bool(sep) and key.isidentifier()


def _is_number(word: str) -> bool:
    try:
        float(word)
    except ValueError:
        return False
    return True
