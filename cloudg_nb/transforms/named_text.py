"""Text held in a string that is judged by its key names, as a structured value's keys are.

JSON text (``'{"cookie": "…"}'``), ``name: value`` / ``NAME=value`` lines of YAML, ``.env``,
ini or properties text, and the ``data`` block of a Kubernetes Secret manifest: each value a
key rule (``keys.py``) names secret becomes a span to redact, unless it is a reference, a
placeholder, a boolean or prose. ``secret_object`` tells a Kubernetes Secret (whose ``data``
values are all secrets) from other mappings. The decoder (``encoded.py``) calls these.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from .detectors import Detector
from .keys import REFERENCE, SECRET_ENTITIES, KeyRules

__all__ = ["NAMED_IN_TEXT", "Span", "config_text_spans", "json_text_spans", "secret_object"]

#: (start, end, entity, detector, rank) of a secret in a text.
Span = tuple[int, int, str, Detector, int]
_NEVER = re.compile(r"(?!)")
#: A value a key rule names secret, inside JSON or config text held in a string.
NAMED_IN_TEXT = Detector(
    "named_in_text", "secret", _NEVER,
    "Values under secret key names inside JSON, YAML or .env text held in a string, and a "
    "Kubernetes Secret's data values in a manifest",
    entities=SECRET_ENTITIES,
)
#: ``NAME=value`` / ``name: value`` lines of config text (YAML, .env, ini, properties).
_LINE = re.compile(
    r"(?m)^[ \t]*(?:export[ \t]+|-[ \t]+)?[\"']?([A-Za-z_][\w.-]{0,63})[\"']?[ \t]*[:=][ \t]*"
    r"(?![|>][-+]?[ \t]*$)([^\n]*?)[ \t]*\r?$"
)
_BLOCK = re.compile(r"(?m)^([ \t]*)(?:data|stringData):[ \t]*\r?$")
#: Words and spaces only: a sentence after ``Token:``, not a value.
_PROSE = re.compile(r"[A-Za-z]+(?:[ \t]+[A-Za-z]+)+[.!?]?")
_PLAIN_VALUES = frozenset(("true", "false", "null", "none", "yes", "no", "on", "off", "~",
                           "''", '""', "[]", "{}"))
_PLACEHOLDER = re.compile(r"\$\{[^}]*\}|\$\([^)]*\)|\{\{[^}]*\}\}|<[^<>]*>|\*+|x{3,}|\.\.\.")
_SECRET_KINDS = frozenset(("Opaque",))


def json_text_spans(text: str, keys: KeyRules) -> list[Span]:
    """Values under secret key names in JSON text held in a string."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return []
    out: list[Span] = []
    for entity, secret in _named(value, _decide(keys), None):
        for needle in dict.fromkeys((json.dumps(secret)[1:-1],
                                     json.dumps(secret, ensure_ascii=False)[1:-1])):
            quoted = f'"{needle}"'
            i = text.find(quoted)
            while i != -1:
                out.append((i + 1, i + 1 + len(needle), entity, NAMED_IN_TEXT, 0))
                i = text.find(quoted, i + 1)
    return out

def config_text_spans(text: str, keys: KeyRules) -> list[Span]:
    """Values of ``name: value`` / ``NAME=value`` lines whose name says secret, and the
    values of a Kubernetes Secret's ``data`` / ``stringData`` block."""
    out: list[Span] = []
    for m in _LINE.finditer(text):
        entity = keys.decide(m.group(1)).secret
        if entity is None:
            continue
        start, end = m.span(2)
        quoted = _unquoted(text, start, end)
        if quoted == (start, end) and _PROSE.fullmatch(text[start:end]) is not None:
            continue  # unquoted words: prose ("Token: see below"), not a value
        start, end = quoted
        if _secret_text(text[start:end]):
            out.append((start, end, entity, NAMED_IN_TEXT, 0))
    if "kind: Secret" in text or "kind: \"Secret\"" in text:
        for block in _BLOCK.finditer(text):
            out.extend(_block_values(text, block))
    return out


def _decide(keys: KeyRules) -> Callable[[str], str | None]:
    return lambda name: keys.decide(name).secret


def _named(value: Any, decide: Callable[[str], str | None],
           entity: str | None) -> Iterator[tuple[str, str]]:
    """(entity, string) for the strings of parsed JSON that key rules make secret (a
    Kubernetes Secret's ``data`` / ``stringData`` values too)."""
    if isinstance(value, str):
        if entity is not None and value and REFERENCE.fullmatch(value) is None:
            yield entity, value
    elif isinstance(value, dict):
        secret_maps = secret_object(value)
        for k, v in value.items():
            inner = entity
            if inner is None and isinstance(k, str):
                inner = decide(k)
                if inner is None and secret_maps and k in ("data", "stringData"):
                    inner = "secret_data"
            yield from _named(v, decide, inner)
    elif isinstance(value, list):
        for v in value:
            yield from _named(v, decide, entity)


def secret_object(value: dict[str, Any]) -> bool:
    """A Kubernetes Secret (``kind: Secret`` or a Secret ``type``) with a data map."""
    kind = value.get("kind")
    kind_type = value.get("type")
    return (kind == "Secret" or kind_type in _SECRET_KINDS or (
        isinstance(kind_type, str) and kind_type.startswith("kubernetes.io/"))) and (
        isinstance(value.get("data"), dict) or isinstance(value.get("stringData"), dict))


def _unquoted(text: str, start: int, end: int) -> tuple[int, int]:
    if end - start >= 2 and text[start] in "\"'" and text[end - 1] == text[start]:
        return start + 1, end - 1
    return start, end


def _secret_text(value: str) -> bool:
    """Whether a config value under a secret name holds a secret (not empty, a boolean, a
    placeholder or a reference)."""
    if len(value) < 3 or value.lower() in _PLAIN_VALUES or value.isdigit():
        return False
    if _PLACEHOLDER.fullmatch(value) is not None:
        return False
    return REFERENCE.fullmatch(value) is None


def _block_values(text: str, block: re.Match[str]) -> Iterator[Span]:
    """The values of the lines indented under a Secret's ``data:`` line."""
    indent = len(block.group(1).expandtabs())
    pos = block.end() + 1
    while pos < len(text):
        nl = text.find("\n", pos)
        line_end = len(text) if nl == -1 else nl
        line = text[pos:line_end]
        stripped = line.lstrip()
        if stripped and len(line) - len(stripped) <= indent:
            break
        colon = line.find(":")
        if stripped and colon != -1:
            start = pos + colon + 1
            end = line_end
            while start < end and text[start] in " \t":
                start += 1
            while end > start and text[end - 1] in " \t\r":
                end -= 1
            start, end = _unquoted(text, start, end)
            if end > start:
                yield (start, end, "secret_data", NAMED_IN_TEXT, 0)
        pos = line_end + 1
