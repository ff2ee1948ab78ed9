"""Does a secret, or a long piece of it, reach a reader — in clear or still encoded?

Independent of the product's decoders (stdlib only): ``views(text)`` is the text plus
everything a reader could decode out of it — base64 runs (both alphabets, any alignment,
wrapped lines joined; UTF-8, UTF-16, gzip inside), percent-encoding, JSON string escapes —
followed to a depth of 4.
``leaks(strings, secrets)`` names the secrets of which a ``WINDOW``-character piece shows in
any view of any string.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import re
import urllib.parse
import zlib
from collections.abc import Iterable, Mapping

__all__ = ["WINDOW", "leaks", "readable", "views", "visible"]

#: A piece of a secret this long is a leak (as in the other acceptance tests).
WINDOW = 12
_RUN = re.compile(r"[A-Za-z0-9+/_=-]{12,}")
_WRAPPED = re.compile(r"(?:[A-Za-z0-9+/=]{16,}(?:\r?\n|\\r?\\n)[ \t]*)+[A-Za-z0-9+/=]{4,}")
_NEWLINES = re.compile(r"\r?\n[ \t]*|\\r?\\n[ \t]*")
_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|([\"\\/bfnrt]))")
_ESCAPES = {"\"": "\"", "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
            "t": "\t"}


def _printable(text: str) -> bool:
    if not text:
        return False
    good = sum(ch.isprintable() or ch in "\n\r\t" for ch in text)
    return good >= 0.9 * len(text)


def _base64(run: str) -> Iterable[str]:
    for offset in range(4):
        core = run[offset:].replace("=", "")
        core = core[: len(core) - len(core) % 4] if len(core) % 4 == 1 else core
        if len(core) < 8:
            continue
        padded = core + "=" * (-len(core) % 4)
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                raw = decode(padded)
            except (binascii.Error, ValueError):
                continue
            if raw[:2] == b"\x1f\x8b":
                try:
                    raw = gzip.decompress(raw)
                except (OSError, EOFError, zlib.error):
                    continue
            for encoding in ("utf-8", "utf-16-le"):
                text = raw.decode(encoding, errors="ignore")
                if _printable(text):
                    yield text


def _decodings(text: str) -> Iterable[str]:
    if "%" in text:
        yield urllib.parse.unquote(text)
        yield urllib.parse.unquote_plus(text)
    if "\\" in text:
        yield _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)) if m.group(1)
                          else _ESCAPES[m.group(2)], text)
    for m in _WRAPPED.finditer(text):
        yield from _base64(_NEWLINES.sub("", m.group()))
    for run in _RUN.findall(text):
        yield from _base64(run)
        for part in run.split("="):  # name=base64 glued in one run
            if len(part) >= 12:
                yield from _base64(part)


def views(text: str, depth: int = 4) -> set[str]:
    """``text`` and every text decodable from it, to ``depth`` levels of encoding."""
    seen = {text}
    frontier = [text]
    for _ in range(depth):
        nxt = []
        for t in frontier:
            for decoded in _decodings(t):
                if decoded not in seen and len(seen) < 5000:
                    seen.add(decoded)
                    nxt.append(decoded)
        frontier = nxt
    return seen


def _pieces(secret: str) -> set[str]:
    if len(secret) <= WINDOW:
        return {secret}
    return {secret[i:i + WINDOW] for i in range(len(secret) - WINDOW + 1)}


def readable(strings: Iterable[str]) -> str:
    """Every view of ``strings``, joined: what ``leaks`` and ``visible`` search."""
    return "\x00".join(v for s in strings for v in views(s))


def leaks(strings: Iterable[str] | str, secrets: Mapping[str, str]) -> list[str]:
    """Labels of ``secrets`` of which a ``WINDOW``-character piece shows in a view of
    ``strings`` (or in ``readable`` text already computed)."""
    hay = strings if isinstance(strings, str) else readable(strings)
    return sorted(label for label, secret in secrets.items()
                  if any(p in hay for p in _pieces(secret)))


def visible(strings: Iterable[str] | str, secrets: Mapping[str, str]) -> list[str]:
    """Labels of ``secrets`` shown whole in a view of ``strings``."""
    hay = strings if isinstance(strings, str) else readable(strings)
    return sorted(label for label, secret in secrets.items() if secret in hay)
