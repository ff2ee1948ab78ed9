"""Untrusted-text sanitising: invisible characters out, prompt injections fenced.

``Sanitizer`` strips control, zero-width, bidi and tag characters from every string, and fences
strings that read as an injection (``injection``, on a homoglyph-proof skeleton) in
``⟦untrusted⟧ … ⟦/untrusted⟧``; fence characters in a value are neutralised. Idempotent."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import compress

from .encoded import holders
from .injection import (
    INJECTION_TRIGGERS,
    RULE_ORDER,
    TRIGGER_RULES,
    Rule,
    reads_as_injection,
    verdict,
)
from .scan import SEP, _starts

__all__ = ["Sanitizer", "FENCE_OPEN", "FENCE_CLOSE", "INJECTION_TRIGGERS", "reads_as_injection",
           "skeleton"]

FENCE_OPEN = "⟦untrusted⟧ "
FENCE_CLOSE = " ⟦/untrusted⟧"

_INVISIBLE_CLASS = (
    "\x01-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u034f\u061c\u115f\u1160\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef"
)
#: Invisible characters in one string (NUL included).
INVISIBLE = re.compile(f"[\x00{_INVISIBLE_CLASS}⟦⟧]")
#: The same in NUL-joined text (NUL is the separator there).
INVISIBLE_JOINED = re.compile(f"[{_INVISIBLE_CLASS}⟦⟧]")
INVISIBLE_ASCII_JOINED = re.compile("[\x01-\x08\x0b\x0c\x0e-\x1f\x7f]")

#: Names and ids ("bypass-all-rules-sg", "system:serviceaccount:kube-system:x"): no spaces,
#: identifier characters only. They are not sentences a model would follow, and fencing them
#: would change identifiers callers pass back.
_IDENTIFIER_LIKE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/@+=-]{0,127}")


def _identifier_like(text: str) -> bool:
    return _IDENTIFIER_LIKE.fullmatch(text) is not None and _SPACED.search(text) is None


_READABLE_MARKS = (" ", "\n", "\t", "\r", "<", "[")


def _not_ascii(text: str) -> bool:
    return not text.isascii()


def _opening(low: str, trigger: str) -> list[int]:
    """Indices of the NUL-joined strings of ``low`` that open with ``trigger`` minus its
    leading NUL."""
    out = [0] if low.startswith(trigger[1:]) else []
    idx = last = 0
    pos = low.find(trigger)
    while pos != -1:
        idx += low.count(SEP, last, pos) + 1  # the NUL at ``pos`` opens string idx
        last = pos + 1
        out.append(idx)
        pos = low.find(trigger, last)
    return out


def _strings_with(big: str, mark: str) -> list[int]:
    """Indices of the NUL-joined strings of ``big`` that hold ``mark`` (C-level finds and
    counts, a few per holder string: no offset table needed)."""
    out: list[int] = []
    idx = last = 0
    pos = big.find(mark)
    while pos != -1:
        idx += big.count(SEP, last, pos)
        out.append(idx)
        end = big.find(SEP, pos)
        if end == -1:
            break
        idx += 1
        last = end + 1
        pos = big.find(mark, last)
    return out


def _readable(text: str) -> bool:
    """Whether ``text`` can read as an instruction: a sentence or markup (white space, ``<``
    or ``[``) or non-ASCII text; never an identifier-like name."""
    if not text.isascii():
        return not _identifier_like(text)
    return any(m in text for m in _READABLE_MARKS)


# -- the detection skeleton ------------------------------------------------------------------

#: Blank-looking fillers read as a space; other invisible characters as nothing.
_FILLERS = {0x3164: " ", 0x115F: " ", 0x1160: " ", 0xFFA0: " ", 0x00A0: " ", 0x2028: "\n",
            0x2029: "\n"}
#: Cyrillic and Greek letters that look like Latin ones (plus a few Latin look-alikes).
_CONFUSABLES = str.maketrans({
    **dict(zip("аеорсухіјѕһԁԛԝӏвкмнтгпьɡɪʏ", "aeopcyxijshdqwlbkmhtrnbgiy", strict=True)),
    **dict(zip("АВЕКМНОРСТХУІЈЅԌԚԜӀЗ", "ABEKMHOPCTXYIJSGQWI3", strict=True)),
    **dict(zip("αβεικνορτυχγωϲϳ", "abeiknoptuxywcj", strict=True)),
    **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧϹ", "ABEZHIKMNOPTYXC", strict=True)),
})
_MARKS = re.compile(
    "[\u0300-\u036f\u0483-\u0489\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]"
)
#: Single letters separated by dots, dashes, stars, underscores or single spaces:
#: "I.g.n.o.r.e", "i g n o r e".
_SPACED = re.compile(r"(?<![^\W\d_])[^\W\d_](?:(?:[.\-_*·•]\s?|\s)[^\W\d_](?![^\W\d_])){3,}")
_SPACED_SEP = re.compile(r"[.\-_*·•\s]")
#: Cheap literal-first hints of spaced-out letters in lower-case text (``_SPACED`` starts with
#: a character class, which the regex engine cannot skip ahead to).
_SPACED_HINTS = tuple(
    re.compile(f"{re.escape(sep)}[a-z]{re.escape(sep)}[a-z]{re.escape(sep)}[a-z]")
    for sep in (".", ". ", " ", "-", "_", "*")
)


def _maybe_spaced(lowered: str) -> bool:
    return any(p.search(lowered) is not None for p in _SPACED_HINTS)


def _join_letters(m: re.Match[str]) -> str:
    return _SPACED_SEP.sub("", m.group(0))


def skeleton(text: str) -> str:
    """What ``text`` reads as: the text injection phrases are looked for in."""
    if not text.isascii():
        text = text.translate(_FILLERS)
        text = INVISIBLE_JOINED.sub("", text)
        text = _MARKS.sub("", unicodedata.normalize("NFKD", text))
        text = unicodedata.normalize("NFKC", text.translate(_CONFUSABLES))
    elif INVISIBLE_ASCII_JOINED.search(text) is not None:
        text = INVISIBLE_ASCII_JOINED.sub("", text)
    if _SPACED.search(text) is not None:  # one string: the full pattern is cheap enough
        text = _SPACED.sub(_join_letters, text)
    return text


@dataclass
class Sanitizer:
    """Options and string operations of the sanitize transform."""

    strip_invisible: bool = True
    fence_injections: bool = True
    extra_patterns: tuple[re.Pattern[str], ...] = ()

    @classmethod
    def build(
        cls, *, strip_invisible: bool = True, fence_injections: bool = True,
        extra_phrases: Iterable[str] = (),
    ) -> Sanitizer:
        return cls(
            strip_invisible, fence_injections,
            tuple(re.compile(p, re.IGNORECASE) for p in extra_phrases),
        )

    @staticmethod
    def is_fenced(text: str) -> bool:
        """Whether ``text`` is exactly one well-formed fence (fencing is idempotent)."""
        if not (text.startswith(FENCE_OPEN) and text.endswith(FENCE_CLOSE)):
            return False
        inner = text[len(FENCE_OPEN):len(text) - len(FENCE_CLOSE)]
        return "⟦" not in inner and "⟧" not in inner

    def strip(self, text: str) -> tuple[str, int]:
        """``text`` without invisible characters (fence characters become brackets)."""
        if self.is_fenced(text):
            inner, removed = self.strip(text[len(FENCE_OPEN):len(text) - len(FENCE_CLOSE)])
            return self.fence(inner), removed
        if not self.strip_invisible:
            if "⟦" in text or "⟧" in text:
                return text.replace("⟦", "[").replace("⟧", "]"), 0
            return text, 0
        removed = 0

        def sub(m: re.Match[str]) -> str:
            nonlocal removed
            ch = m.group(0)
            if ch == "⟦":
                return "["
            if ch == "⟧":
                return "]"
            removed += 1
            return ""

        return INVISIBLE.sub(sub, text), removed

    def has_injection(self, text: str, lowered: str | None = None) -> bool:
        if not self.fence_injections or self.is_fenced(text) or not _readable(text):
            return False
        skel = skeleton(text)
        if reads_as_injection(skel):
            return True
        return any(p.search(text) or p.search(skel) for p in self.extra_patterns)

    def injected(self, strings: Sequence[str]) -> list[int]:
        """Indices of the strings holding an injection (fenced ones excepted).

        Only sentences and markup can (strings with white space, ``<`` or ``[``, found with
        C-level ``str`` calls, plus non-ASCII ones): they are joined with NUL and lower-cased
        once, and only those holding a trigger literal pay for the full test; strings whose
        skeleton differs from their text (non-ASCII, spaced-out letters, control characters)
        always do."""
        if not self.fence_injections or not strings:
            return []
        big = SEP.join(strings)
        if big.count(SEP) != len(strings) - 1 or self.extra_patterns:  # one by one
            return [i for i, s in enumerate(strings) if self.has_injection(s)]
        marks = [m for m in _READABLE_MARKS if m in big]
        ascii_only = big.isascii()
        if not marks and ascii_only:
            return []
        if len(marks) == 1:
            readable = _strings_with(big, marks[0])
        else:
            readable = sorted({i for m in marks for i in _strings_with(big, m)})
        if not ascii_only:
            readable = sorted({*readable, *compress(range(len(strings)),
                                                    map(_not_ascii, strings))})
        if not readable:
            return []
        # each distinct text once (findings repeat their check's title and description)
        back = readable[::-1]
        firsts = dict(zip(map(strings.__getitem__, back), back, strict=True))  # text -> 1st index
        if len(firsts) < len(readable):
            copies = readable
            readable = sorted(firsts.values())
        else:
            copies = None
        hay_strings = [strings[i] for i in readable]
        hay = SEP.join(hay_strings)
        low = hay.lower()
        if len(low) != len(hay):  # case mapping changed lengths
            return [i for i in (copies or readable) if self.has_injection(strings[i])]
        full: set[int] = set()  # tested with every rule
        if not ascii_only or INVISIBLE_ASCII_JOINED.search(hay) is not None or (
                _maybe_spaced(low)):
            # the few strings whose skeleton differs from the text are tested on their own
            full.update(
                i for i in readable if not strings[i].isascii()
                or _SPACED.search(strings[i]) is not None
                or INVISIBLE_ASCII_JOINED.search(strings[i]) is not None)
        hits: dict[int, set[Rule]] = {}  # the rules whose literals a string holds
        starts: list[int] | None = None
        for t, rules in TRIGGER_RULES.items():
            if t[0] == SEP:  # a string's start: the NUL before it, or the start of the text
                found = _opening(low, t)
            elif t in low:
                if starts is None:
                    starts = _starts(hay_strings)
                found = holders(low, t, starts)
            else:
                continue
            for j in found:
                hits.setdefault(readable[j], set()).update(rules)
        fenced: set[str] = set()
        for i in full | hits.keys():
            text = strings[i]
            if self.is_fenced(text) or not _readable(text):
                continue
            if i in full:
                if reads_as_injection(skeleton(text)):
                    fenced.add(text)
            elif verdict(text, sorted(hits[i], key=RULE_ORDER.__getitem__)):
                fenced.add(text)
        if not fenced:
            return []
        return [i for i in (copies or readable) if strings[i] in fenced]

    @staticmethod
    def fence(text: str) -> str:
        return f"{FENCE_OPEN}{text}{FENCE_CLOSE}"

    def fence_text(self, text: str) -> str:
        """Fence the injection in ``text``: in a multi-line text only the lines holding one
        (a server-written prompt embedding one tag value stays readable), else the whole
        text; lines already fenced are left alone. The whole text is fenced too when a hit
        line is a header ("Message for the AI:") or the other lines still read as one."""
        if self.is_fenced(text):
            return text
        if "\n" not in text:
            return self.fence(text)
        lines = text.split("\n")
        hits = [
            i for i, line in enumerate(lines)
            if not self.is_fenced(line.strip()) and reads_as_injection(skeleton(line))
        ]
        if not hits:
            already = any(self.is_fenced(line.strip()) for line in lines)
            return text if already else self.fence(text)
        rest = "\n".join(line for i, line in enumerate(lines) if i not in hits)
        if any(lines[i].rstrip().endswith((":", "：")) for i in hits) or (
                rest.strip() and reads_as_injection(skeleton(rest))):
            return self.fence("\n".join(self._inner(line) for line in lines))
        for i in hits:
            line = lines[i]
            indent = line[: len(line) - len(line.lstrip())]
            lines[i] = indent + self.fence(line.strip())
        return "\n".join(lines)

    def _inner(self, line: str) -> str:
        """``line`` without its fence, if it is one fenced value."""
        stripped = line.strip()
        if not self.is_fenced(stripped):
            return line
        indent = line[: len(line) - len(line.lstrip())]
        return indent + stripped[len(FENCE_OPEN):len(stripped) - len(FENCE_CLOSE)]
