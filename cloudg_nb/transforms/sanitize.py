"""Untrusted-text sanitising: invisible characters out, prompt injections fenced.

Tag values, names and descriptions in an estate can be written by anyone, including text
aimed at the model ("ignore previous instructions ..."). ``Sanitizer`` strips control,
zero-width, bidi and tag characters from every string (they hide text from the analyst and
split secrets past detectors), and wraps untrusted strings that contain an injection phrase
in ``⟦untrusted⟧ … ⟦/untrusted⟧`` so the model reads them as data. Fence characters inside the
text itself are neutralised, so a value cannot close its own fence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Sanitizer", "FENCE_OPEN", "FENCE_CLOSE", "INJECTION_TRIGGERS"]

FENCE_OPEN = "⟦untrusted⟧ "
FENCE_CLOSE = " ⟦/untrusted⟧"

_INVISIBLE_CLASS = (
    "\x01-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000e0000-\U000e007f\U000e0100-\U000e01ef"
)
#: Invisible characters in one string (NUL included).
INVISIBLE = re.compile(f"[\x00{_INVISIBLE_CLASS}⟦⟧]")
#: The same in NUL-joined text (NUL is the separator there).
INVISIBLE_JOINED = re.compile(f"[{_INVISIBLE_CLASS}⟦⟧]")
INVISIBLE_ASCII_JOINED = re.compile("[\x01-\x08\x0b\x0c\x0e-\x1f\x7f]")

_INJECTION_PATTERNS = (
    r"\b(?:ignore|disregard|forget|override|bypass)\b[^.\n]{0,40}?\b(?:previous|prior|above|"
    r"earlier|preceding|all|any|your|the|system|safety)\b[^.\n]{0,30}?\b(?:instructions?|"
    r"prompts?|rules|directions|guidelines|guardrails|context|messages?|polic(?:y|ies))\b",
    r"\byou\s+are\s+now\b",
    r"\bnew\s+(?:system\s+)?instructions?\b",
    r"\bsystem\s+prompt\b",
    r"\b(?:do\s+not|don't|never)\s+(?:tell|inform|mention)\b",
    r"\b(?:reveal|print|output|show|leak|exfiltrat\w*|send|dump|repeat|email)\b[^.\n]{0,30}?"
    r"\b(?:system\s+prompt|instructions|secrets?|credentials|api\s*keys?|passwords?|"
    r"tokens?|private\s+keys?)\b",
    r"<\|?(?:im_start|im_end|system|endoftext|assistant|user)\|?>",
    r"\[/?(?:inst|sys)\]",
    r"<</?sys>>",
    r"\b(?:act\s+as|behave\s+as|pretend\s+to\s+be)\s+(?:an?\s+|the\s+)?(?:admin\w*|root|system|"
    r"developer|jailbroken|unrestricted)",
    r"\bjailbr(?:eak|oken)\b",
    r"\b(?:call|invoke|run|execute|use)\s+the\s+[\w.-]+\s+tool\b",
    r"(?:^|\n)\s*(?:system|assistant)\s*:",
)
INJECTION = re.compile("|".join(f"(?:{p})" for p in _INJECTION_PATTERNS), re.IGNORECASE)

#: Lower-case literals one of which every injection match contains (a cheap pre-check).
INJECTION_TRIGGERS = (
    "ignore", "disregard", "forget", "override", "bypass", "now", "instruction", "prompt",
    "tell", "inform", "mention", "secret", "credential", "key", "password", "token", "<", "[",
    "act", "behave", "pretend", "jailbr", "tool", "system", "assistant",
)


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
        if not self.fence_injections or self.is_fenced(text):
            return False
        low = text.lower() if lowered is None else lowered
        if any(t in low for t in INJECTION_TRIGGERS) and INJECTION.search(text):
            return True
        return any(p.search(text) for p in self.extra_patterns)

    def may_inject(self, joined_lower: str) -> bool:
        """Cheap test over many lower-cased strings: can any of them hold an injection?"""
        if not self.fence_injections:
            return False
        if self.extra_patterns:
            return True
        return any(t in joined_lower for t in INJECTION_TRIGGERS)

    @staticmethod
    def fence(text: str) -> str:
        return f"{FENCE_OPEN}{text}{FENCE_CLOSE}"
