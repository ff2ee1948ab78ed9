"""Secrets inside encoded values: base64, percent-encoding, JSON escapes, JSON and config text.

A ``Decoder`` belongs to a ``Scanner`` and adds, for one string, the secret and credential
findings its encoded parts hide: a base64 run (standard or URL-safe, padded or not, wrapped
over lines; UTF-8, UTF-16 or gzip inside) that decodes to text holding a secret, or to
``user:password`` (HTTP Basic, ``.dockerconfigjson`` ``auth``), is redacted whole; a secret
in percent-encoded or JSON-escaped text is found on the decoded text and redacted in place
(its escapes included). Decoded text is scanned by the same scanner, so nested encodings
(base64 of JSON holding base64) are followed, to a depth of ``MAX_DEPTH``. With key rules,
JSON and config text held in a string is judged by its key names (``named_text.py``). A
high-entropy guess that is base64 of harmless text (prose, JSON, an ARN) is ``benign``.

Cheap by construction: base64 is tried only on runs of at least ``MIN_BASE64`` characters
that have the shape of encoded ASCII text (the first character of every 4-character group
encodes a byte below 0x80), escapes only where ``%XX`` or ``\\`` occur; outcomes are cached
per distinct run and string. Our own code: the stdlib decodes, but no library decodes while
mapping positions back to the encoded text, which in-place redaction needs.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import re
import zlib
from collections.abc import Callable, Iterator, Sequence

from .detectors import Detector, Finding
from .keys import KeyRules
from .named_text import NAMED_IN_TEXT, Span, config_text_spans, json_text_spans

__all__ = ["DECODER_DETECTORS", "Decoder", "MAX_DEPTH", "MIN_BASE64"]

#: Encodings followed inside one another (base64 of JSON holding base64 is 3).
MAX_DEPTH = 3
#: Shortest base64 run tried: 12 bytes once decoded (``user:password`` fits).
MIN_BASE64 = 16
#: Outcomes remembered per decoder (runs and strings); emptied when full.
CACHE_SIZE = 16_384
#: Longer strings are decoded each time they are met (they rarely repeat): the memory the
#: cache keeps alive stays under CACHE_SIZE * CACHE_CHARS characters.
CACHE_CHARS = 1024
#: At most this many bytes are inflated from a gzip-compressed base64 value.
GUNZIP_LIMIT = 1 << 20

_KINDS = frozenset(("secret", "credential"))
_NEVER = re.compile(r"(?!)")
#: ``user:password`` once decoded (HTTP Basic, a registry ``auth``).
CREDENTIALS = Detector(
    "encoded_credentials", "secret", _NEVER,
    "base64 of user:password (HTTP Basic values, .dockerconfigjson auth entries)",
)
#: The detectors findings of the decoder itself are reported under.
DECODER_DETECTORS = (CREDENTIALS, NAMED_IN_TEXT)

_B64_PIECE = re.compile(r"[A-Za-z0-9+/_-]+={0,2}")
_B64_RUN = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}+={0,2}(?![A-Za-z0-9+/=_-])")
#: Base64 wrapped over lines (``base64`` output, MIME): full lines of one width, a last one.
_B64_WRAPPED = re.compile(
    r"(?<![A-Za-z0-9+/=])(?:[A-Za-z0-9+/]{20,}(?:\r?\n|\\r?\\n)[ \t]*)+[A-Za-z0-9+/]{2,}={0,2}"
    r"(?![A-Za-z0-9+/=])"
)
_WRAP = re.compile(r"\r?\n[ \t]*|\\r?\\n[ \t]*")
#: Characters that may start a 4-character group of base64 encoding ASCII (bytes < 0x80).
_ASCII_LEADS = str.maketrans(dict.fromkeys(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef"))
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_PERCENT = re.compile(r"%([0-7][0-9A-Fa-f])")
_JSON_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|([\"\\/bfnrt]))")
_JSON_CHARS = {"\"": "\"", "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
               "t": "\t"}
_PAIR = re.compile(r"([^\s:\x00]{1,128}):([^\s\x00]{3,256})")
_PLAIN_WORD = re.compile(r"[a-z]+|[A-Z][a-z]+|[A-Z]+")

Scan = Callable[[str, int], "list[Finding]"]


class Decoder:
    """Findings hidden in the encoded parts of strings, for one scanner."""

    def __init__(self, scan: Scan, keys: KeyRules | None = None) -> None:
        #: The scanner's own scan of a decoded text (at a depth).
        self._scan = scan
        self.keys = keys if keys is not None and keys.secrets else None
        self._runs: dict[str, tuple[str, Detector, int] | None] = {}
        #: Runs that decode to text holding no secret: prose, JSON, ids, ``host:port``.
        self._benign: set[str] = set()
        self._texts: dict[str, tuple[Span, ...]] = {}

    def forget(self) -> None:
        """Forget every decoded outcome (benchmarks start cold)."""
        self._runs.clear()
        self._benign.clear()
        self._texts.clear()

    def benign(self, run: str) -> bool:
        """Whether token run ``run`` (a high-entropy guess) is base64 of text that holds no
        secret and reads as prose or structure (words and spaces, JSON, an ARN, a pair of
        words, ``host:port``), so not a key."""
        pieces = _pieces(run)
        if not pieces or len("".join(pieces)) + 8 < len(run):
            return False  # mostly not base64
        for piece in pieces:
            if piece in self._runs:
                if piece not in self._benign:
                    return False
            elif not self._outcome(piece, 0)[1]:
                return False
        return True

    # -- many strings ----------------------------------------------------------------------

    def scan_many(self, strings: Sequence[str], big: str, starts: list[int],
                  mixed: list[int], sub: str, runs: list[str]
                  ) -> Iterator[tuple[int, list[Finding]]]:
        """(string index, findings) for the strings of one batch whose encoded parts hide a
        secret. ``big`` is the strings joined with NUL (``starts`` their offsets), ``mixed``
        the indices of the strings not all lower case, ``sub`` those joined and ``runs`` the
        token runs of at least ``MIN_BASE64`` characters found there."""
        todo: set[int] = set()
        if runs:
            known = self._runs
            found = [piece for run in set(runs) for piece in _pieces(run)
                     if (known[piece] if piece in known else self._run(piece, 0)) is not None]
            if found:
                sub_starts = _offsets(mixed, strings)
                for piece in found:
                    i = sub.find(piece)
                    while i != -1:
                        todo.add(mixed[bisect.bisect_right(sub_starts, i) - 1])
                        i = sub.find(piece, i + 1)
        for mark in ("%", "\\", "\n"):
            if mark in big:
                todo.update(holders(big, mark, starts))
        if self.keys is not None:
            if strings and strings[0].lstrip()[:1] in ("{", "["):
                todo.add(0)
            for head in ("{", "["):  # (one character: a memchr-fast search)
                i = big.find(head)
                while i != -1:
                    if i and big[i - 1] == "\x00":
                        todo.add(bisect.bisect_right(starts, i) - 1)
                    i = big.find(head, i + 1)
        for i in sorted(todo):
            spans = self.spans(strings[i], 0)
            if spans:
                yield i, _findings(spans)

    # -- one string ------------------------------------------------------------------------

    def find(self, text: str, depth: int) -> list[Finding]:
        """The findings hidden in ``text``'s encoded parts (``depth``: how deep ``text``
        itself was found)."""
        spans = self.spans(text, depth)
        return _findings(spans) if spans else []

    def spans(self, text: str, depth: int) -> tuple[Span, ...]:
        """(start, end, entity, detector, rank) of each secret ``text`` hides."""
        cached = self._texts.get(text) if depth == 0 else None
        if cached is not None:
            return cached
        out: list[Span] = []
        if not (text.islower() or text.isupper()):
            runs = self._runs
            for m in _B64_RUN.finditer(text):
                run = m.group()
                hit = runs[run] if run in runs else self._run(run, depth)
                if hit is not None:
                    out.append((m.start(), m.end(), *hit))
        if "\n" in text or "\\n" in text:
            for m in _B64_WRAPPED.finditer(text):
                hit = self._run(_WRAP.sub("", m.group()), depth, remember=False)
                if hit is not None:
                    out.append((m.start(), m.end(), *hit))
        if "%" in text:
            out.extend(self._escaped(text, _PERCENT, _unpercent, depth))
        if "\\" in text:
            out.extend(self._escaped(text, _JSON_ESCAPE, _unjson, depth))
        keys = self.keys
        if keys is not None:
            head = text.lstrip()[:1]
            if head in ("{", "[") and text.rstrip()[-1:] in ("}", "]"):
                out.extend(json_text_spans(text, keys))
            if "\n" in text:
                out.extend(config_text_spans(text, keys))
        result = tuple(out)
        if depth == 0 and len(text) <= CACHE_CHARS:
            if len(self._texts) >= CACHE_SIZE:
                self._texts.clear()
            self._texts[text] = result
        return result

    # -- base64 ----------------------------------------------------------------------------

    def _run(self, run: str, depth: int, *, remember: bool = True
             ) -> tuple[str, Detector, int] | None:
        """(entity, detector, rank) when base64 ``run`` hides a secret, else None."""
        return self._outcome(run, depth, remember)[0]

    def _outcome(self, run: str, depth: int, remember: bool = True
                 ) -> tuple[tuple[str, Detector, int] | None, bool]:
        """What base64 ``run`` hides (as ``_run``) and whether it is benign; remembered
        for runs up to ``CACHE_CHARS`` long."""
        if depth >= MAX_DEPTH:
            return None, False  # (not remembered: met higher up, the run is followed)
        hit = None
        text = _base64_text(run)
        if text is not None:
            inner = [f for f in self._scan(text, depth + 1) if f.detector.kind in _KINDS
                     and not f.detector.shield_only]
            if inner:
                best = min(inner, key=lambda f: f.rank)
                entity = best.entity
                hit = (entity if entity.startswith("encoded_") else f"encoded_{entity}",
                       best.detector, best.rank)
            elif _credentials(text):
                hit = ("encoded_credentials", CREDENTIALS, 0)
        benign = hit is None and text is not None and _readable(text)
        if remember and len(run) <= CACHE_CHARS:
            if len(self._runs) >= CACHE_SIZE:
                self._runs.clear()
                self._benign.clear()
            self._runs[run] = hit
            if benign:
                self._benign.add(run)
        return hit, benign

    # -- escapes ---------------------------------------------------------------------------

    def _escaped(self, text: str, escape: re.Pattern[str],
                 decode: Callable[[re.Match[str]], str | None], depth: int) -> list[Span]:
        """Secrets found in ``text`` once its escapes are decoded, mapped back onto ``text``
        (a span covers every escape sequence of the characters it found)."""
        if depth >= MAX_DEPTH:
            return []
        pieces: list[str] = []
        origin: list[int] = []  # where each decoded character starts in ``text``
        pos = 0
        for m in escape.finditer(text):
            char = decode(m)
            if char is None:
                continue
            start = m.start()
            pieces.append(text[pos:start])
            origin.extend(range(pos, start))
            pieces.append(char)
            origin.append(start)
            pos = m.end()
        if not pieces:
            return []
        pieces.append(text[pos:])
        origin.extend(range(pos, len(text)))
        origin.append(len(text))
        decoded = "".join(pieces)
        return [(origin[f.start], origin[f.end], f.entity, f.detector, f.rank)
                for f in self._scan(decoded, depth + 1)
                if f.detector.kind in _KINDS and not f.detector.shield_only]


# -- helpers -------------------------------------------------------------------------------

def _findings(spans: tuple[Span, ...] | list[Span]) -> list[Finding]:
    return [Finding(*span) for span in spans]


def _pieces(run: str) -> list[str]:
    """The base64 candidates of a token run: the run, or its parts between ``=`` signs
    (``auth=dXNlcjpw…``), each with its padding."""
    if "=" not in run.rstrip("="):
        return [run]
    return [p for p in _B64_PIECE.findall(run) if len(p.rstrip("=")) >= MIN_BASE64]


def _offsets(idx: list[int], strings: Sequence[str]) -> list[int]:
    out = []
    pos = 0
    for i in idx:
        out.append(pos)
        pos += len(strings[i]) + 1
    return out


def holders(big: str, mark: str, starts: list[int]) -> list[int]:
    """Indices of the strings of ``big`` (strings joined, each starting at ``starts[i]``)
    holding ``mark``: one find per holder, as after a hit the search resumes at the next
    string."""
    out: list[int] = []
    last = len(starts) - 1
    i = big.find(mark)
    while i != -1:
        idx = bisect.bisect_right(starts, i) - 1
        out.append(idx)
        if idx >= last:
            break
        i = big.find(mark, starts[idx + 1])
    return out


def _base64_text(run: str) -> str | None:
    """The text ``run`` encodes in base64, if it is text (not bytes, not a word or an id):
    UTF-8, UTF-16 (PowerShell ``-EncodedCommand``) or gzip-compressed (``H4sI…``, as EC2
    user data often is)."""
    core = run.rstrip("=")
    n = len(core)
    if n < MIN_BASE64 or n % 4 == 1 or core.islower() or core.isupper():
        return None
    url = "-" in core or "_" in core
    if url and ("+" in core or "/" in core):
        return None
    gzipped = core.startswith("H4sI")
    if not gzipped:
        leads = core[::4]
        if len(leads.translate(_ASCII_LEADS)) * 8 > len(leads):
            return None  # not ASCII text (more than one group in 8 starts a byte >= 0x80)
    try:
        raw = (base64.urlsafe_b64decode if url else base64.b64decode)(core + "=" * (-n % 4))
        if gzipped:
            raw = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw, GUNZIP_LIMIT)
        if len(raw) >= 4 and raw[1::2].count(0) * 10 >= len(raw) // 2 * 9:
            text = raw.decode("utf-16-le")
        else:
            text = raw.decode("utf-8")
    except (binascii.Error, ValueError, zlib.error):
        return None
    if not text or _CONTROL.search(text) is not None:
        return None
    return text


def _credentials(text: str) -> bool:
    """Whether decoded ``text`` is ``user:password`` (not a word pair, a time, a host:port,
    a URL, an ARN or a digest)."""
    m = _PAIR.fullmatch(text.strip())
    if m is None:
        return False
    user, password = m.groups()
    if password.startswith("//") or user.lower() in ("arn", "urn", "sha1", "sha256", "sha512",
                                                     "md5", "http", "https", "mailto"):
        return False
    if password.isdigit() and len(password) <= 5:
        return False  # host:port, a time
    return _PLAIN_WORD.fullmatch(password) is None  # "environment:production" is a tag


def _readable(text: str) -> bool:
    """Decoded text that reads as prose or structure rather than a key: spaces between
    words, JSON, an ARN or URI, a pair of words, ``host:port``, a date."""
    stripped = text.strip()
    if any(c.isspace() for c in stripped) or stripped[:1] in ("{", "["):
        return True
    m = _PAIR.fullmatch(stripped)
    if m is None:
        return False
    return not _credentials(stripped)


def _unpercent(m: re.Match[str]) -> str | None:
    return chr(int(m.group(1), 16))


def _unjson(m: re.Match[str]) -> str | None:
    code = m.group(1)
    return chr(int(code, 16)) if code is not None else _JSON_CHARS[m.group(2)]
