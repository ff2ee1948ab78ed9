"""Untrusted-text sanitising: invisible characters out, prompt injections fenced.

Tag values, names and descriptions in an estate can be written by anyone, including text
aimed at the model ("ignore previous instructions ..."). ``Sanitizer`` strips control,
zero-width, bidi and tag characters from every string (they hide text from the analyst and
split secrets past detectors), and wraps untrusted strings that contain an injection phrase
in ``⟦untrusted⟧ … ⟦/untrusted⟧`` so the model reads them as data. Phrases are looked for on a
skeleton of the text (NFKC, combining marks and fillers out, Cyrillic/Greek look-alikes mapped
to Latin, dotted or spaced-out letters joined), so homoglyphs cannot hide them. Fence
characters inside the text itself are neutralised, so a value cannot close its own fence.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .scan import SEP, _holders, _starts

__all__ = ["Sanitizer", "FENCE_OPEN", "FENCE_CLOSE", "INJECTION_TRIGGERS", "skeleton"]

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

# Character classes exclude NUL: many strings are searched at once, joined with NUL.
_INJECTION_PATTERNS = (
    r"\b(?:ignore|disregard|forget|override|bypass)\b[^.\x00]{0,40}?\b(?:previous|prior|above|"
    r"earlier|preceding|all|any|your|the|system|safety)\b[^.\x00]{0,30}?\b(?:instructions?|"
    r"prompts?|rules|directions|guidelines|guardrails|context|messages?|polic(?:y|ies))\b",
    r"\byou\s+are\s+now\b",
    r"\bnew\s+(?:system\s+)?instructions?\b",
    r"\bsystem\s+prompt\b",
    r"\b(?:do\s+not|don't|never)\s+(?:tell|inform|mention)\b",
    r"\b(?:reveal|print|output|show|leak|exfiltrat\w*|send|dump|repeat|email)\b[^.\x00]{0,30}?"
    r"\b(?:system\s+prompt|instructions|secrets?|credentials|api\s*keys?|passwords?|"
    r"tokens?|private\s+keys?)\b",
    r"<\|?(?:im_start|im_end|system|endoftext|assistant|user)\|?>",
    r"\[/?(?:inst|sys)\]",
    r"<</?sys>>",
    r"\b(?:act\s+as|behave\s+as|pretend\s+to\s+be)\s+(?:an?\s+|the\s+)?(?:admin\w*|root|system|"
    r"developer|jailbroken|unrestricted)",
    r"\bjailbr(?:eak|oken)\b",
    r"\b(?:call|invoke|run|execute|use)\s+the\s+[\w.-]+\s+tool\b",
    # a role label opening a line ("system: you are ..."), not "system:masters"-style names
    r"(?:^|\n|\x00)[^\S\x00]*(?:system|assistant)[^\S\x00]*:[^\S\x00]+\S",
)
INJECTION = re.compile("|".join(f"(?:{p})" for p in _INJECTION_PATTERNS), re.IGNORECASE)

#: Lower-case literals one of which every injection match contains (a cheap pre-check).
INJECTION_TRIGGERS = (
    "ignore", "disregard", "forget", "override", "bypass", "now", "instruction", "prompt",
    "tell", "inform", "mention", "secret", "credential", "key", "password", "token", "<", "[",
    "act", "behave", "pretend", "jailbr", "tool", "system", "assistant",
)

#: Rarer literals one of which every injection match holds (on its skeleton, lower case):
#: they pick the strings worth a regex search out of a whole value.
_HOLDER_TRIGGERS = (
    "ignore", "disregard", "forget", "override", "bypass", "you", "instruction", "prompt",
    "tell", "inform", "mention", "secret", "credential", "key", "password", "token", "<",
    "inst]", "sys]", "act", "behave", "pretend", "jailbr", "tool", "system", "assistant",
)

#: Names and ids ("bypass-all-rules-sg", "system:serviceaccount:kube-system:x"): no spaces,
#: identifier characters only. They are not sentences a model would follow, and fencing them
#: would change identifiers callers pass back.
_IDENTIFIER_LIKE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/@+=-]{0,127}")


def _identifier_like(text: str) -> bool:
    return _IDENTIFIER_LIKE.fullmatch(text) is not None and _SPACED.search(text) is None


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
        if not self.fence_injections or self.is_fenced(text) or _identifier_like(text):
            return False
        skel = skeleton(text)
        if INJECTION.search(skel) is not None:
            return True
        return any(p.search(text) or p.search(skel) for p in self.extra_patterns)

    def may_inject(self, joined_lower: str) -> bool:
        """Cheap test over many lower-cased strings: can any of them hold an injection?"""
        if not self.fence_injections:
            return False
        if self.extra_patterns or not joined_lower.isascii():
            return True
        if _maybe_spaced(joined_lower):
            return True
        return any(t in joined_lower for t in INJECTION_TRIGGERS)

    def injected(self, strings: Sequence[str]) -> list[int]:
        """Indices of the strings holding an injection phrase (fenced ones excepted).

        The strings are joined with NUL and lower-cased once; only the strings holding a
        trigger literal (found with C-level ``str.find``) are searched with the regex, and
        only non-ASCII or spaced-out strings pay for a skeleton of their own."""
        if not self.fence_injections or not strings:
            return []
        big = SEP.join(strings)
        if big.count(SEP) != len(strings) - 1:  # a string holds NUL: one by one
            return [i for i, s in enumerate(strings) if self.has_injection(s)]
        if self.extra_patterns:
            return [i for i, s in enumerate(strings) if self.has_injection(s)]
        low = big.lower()
        if len(low) != len(big):  # case mapping changed lengths
            return [i for i, s in enumerate(strings) if self.has_injection(s)]
        starts: list[int] | None = None
        found: set[int] = set()
        if not big.isascii() or _maybe_spaced(low):
            # the few strings whose skeleton differs from the text are checked on their own
            for i, s in enumerate(strings):
                if not s.isascii() or _SPACED.search(s) is not None:
                    found.add(i)
        for t in _HOLDER_TRIGGERS:
            if t in low:
                if starts is None:
                    starts = _starts(strings)
                found.update(_holders(low, t, starts, strings))
        return [
            i for i in sorted(found)
            if INJECTION.search(skeleton(strings[i])) is not None
            and not self.is_fenced(strings[i]) and not _identifier_like(strings[i])
        ]

    @staticmethod
    def fence(text: str) -> str:
        return f"{FENCE_OPEN}{text}{FENCE_CLOSE}"

    def fence_text(self, text: str) -> str:
        """Fence the injection in ``text``: in a multi-line text only the lines holding one
        (a server-written prompt embedding one tag value stays readable), else the whole
        text; lines already fenced are left alone."""
        if "\n" not in text:
            return text if self.is_fenced(text) else self.fence(text)
        lines = text.split("\n")
        hits = [
            i for i, line in enumerate(lines)
            if not self.is_fenced(line.strip()) and INJECTION.search(skeleton(line))
        ]
        if not hits:
            already = any(self.is_fenced(line.strip()) for line in lines)
            return text if already or self.is_fenced(text) else self.fence(text)
        for i in hits:
            line = lines[i]
            indent = line[: len(line) - len(line.lstrip())]
            lines[i] = indent + self.fence(line.strip())
        return "\n".join(lines)

