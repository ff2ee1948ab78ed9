"""Finding detector matches in many strings at once.

The strings of one value are joined with NUL (which no pattern can match) so each detector
costs one C-level pass over the whole text instead of one Python call per string. A pattern
that starts with a literal runs over the joined text (the engine skips ahead to the literal);
a detector with triggers finds the strings holding one (and all its required literals,
looked up first: ``://`` is in most cloud values, ``@`` in few) and runs its regex on those
only; anything else runs over the joined text, each match mapped back to its string. Overlapping
matches are settled by priority (detector order: secrets, credentials, identifiers ...),
after shields (ids, public keys, certificates) have dropped the secret findings inside them:
shield detectors that report nothing run only on strings that hold a secret finding.
Overlapping secret findings are merged, and an open-ended value (``password=…``) is carried
over the punctuation inside it, so a redaction never leaves part of a secret. With
``decode``, a ``Decoder`` (``encoded.py``) adds the secrets hidden in encoded parts.
Strings a scan found clean are remembered (a bounded set keyed by the exact string, per
scanner, so the same detectors decided): most values of a result repeat from call to call
(types, regions, account ids, names), and a known-clean string is not scanned again.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from itertools import accumulate, compress
from operator import not_

from .detectors import RANDOM_RUN, Detector, Finding
from .encoded import Decoder
from .encoded import holders as holders_of
from .keys import KeyRules

__all__ = ["Finding", "Scanner"]

SEP = "\x00"
_RUN_20 = RANDOM_RUN % 20
#: Token runs of at least 16 characters: the decoder's base64 candidates, and (20 and more)
#: the high-entropy detector's matches, from one pass.
_RUNS = re.compile(RANDOM_RUN % 16)
#: Clean strings remembered per scanner; the set is emptied when full (cheap, rare).
CLEAN_MEMO_SIZE = 65_536
#: Longer strings (descriptions, evidence) rarely repeat: not remembered.
CLEAN_MEMO_CHARS = 512
#: A position anchor (``^``, ``$``, ``\A``, ``\Z``) in a pattern run over the joined text
#: would make a string's result depend on its neighbours: such a scanner remembers nothing.
_POSITIONAL = re.compile(r"(?<![\[\\])\^|(?<!\\)\$|\\[AZ]")


class Scanner:
    """Runs an ordered list of detectors over strings."""

    def __init__(self, detectors: Sequence[Detector], shields: Sequence[Detector] = (), *,
                 decode: bool = False, keys: KeyRules | None = None) -> None:
        self.detectors = list(detectors)
        #: Finds secrets inside encoded values (base64, escapes, JSON and config text).
        self.decoder = Decoder(self._scan, keys) if decode and self.detectors else None
        #: Shields not among ``detectors``: run lazily, where a secret finding needs them.
        self.shields = [d for d in shields if d not in self.detectors]
        #: Strings found clean (no finding): a batch scan finds per string exactly what a scan
        #: of that string alone finds, so the answer holds wherever the string appears again.
        #: None when a pattern over the joined text has a position anchor.
        self._clean: dict[str, None] | None = None if any(
            d.anchor is None and _POSITIONAL.search(d.pattern.pattern) is not None
            for d in self.detectors) else {}

    def __bool__(self) -> bool:
        return bool(self.detectors)

    def forget(self) -> None:
        """Forget the strings remembered clean and what was decoded: the next scans are cold
        (benchmarks)."""
        if self._clean is not None:
            self._clean.clear()
        if self.decoder is not None:
            self.decoder.forget()

    # -- one string ------------------------------------------------------------------------

    def scan(self, text: str) -> list[Finding]:
        """Findings in ``text``, overlaps settled, ordered by position."""
        if not text:
            return []
        clean = self._clean
        if clean is not None and text in clean:
            return []
        found = self._scan(text)
        if not found and clean is not None:
            self._remember(clean, [text])
        return found

    def _scan(self, text: str, depth: int = 0) -> list[Finding]:
        found: list[Finding] = []
        lowered: str | None = None
        for rank, det in enumerate(self.detectors):
            if det.anchor is not None and det.anchor.search(text) is None:
                continue
            if det.triggers and not det.literal:
                if det.lower:
                    if lowered is None:
                        lowered = text.lower()
                    hay = lowered
                else:
                    hay = text
                if not any(t in hay for t in det.triggers):
                    continue
                if det.requires and not all(r in hay for r in det.requires):
                    continue
            _collect(det, rank, text, found)
        if self.decoder is not None:
            found.extend(self.decoder.find(text, depth))
            if any(f.detector.weak for f in found):
                found = self._not_benign(text, found)
        if self.shields and any(f.detector.kind in _GUARDED for f in found):
            self._shield(text, found)
        return settle(found)

    def _not_benign(self, text: str, found: list[Finding]) -> list[Finding]:
        """``found`` without the high-entropy guesses that are base64 of harmless text."""
        assert self.decoder is not None
        benign = self.decoder.benign
        return [f for f in found if not (f.detector.weak and benign(text[f.start:f.end]))]

    def _shield(self, text: str, found: list[Finding]) -> None:
        rank = len(self.detectors)
        for det in self.shields:
            if det.triggers and not det.literal:
                hay = text.lower() if det.lower else text
                if not any(t in hay for t in det.triggers):
                    continue
            _collect(det, rank, text, found)
            rank += 1

    # -- many strings ----------------------------------------------------------------------

    def scan_many(self, strings: Sequence[str], *,
                  remember: bool = True) -> dict[int, list[Finding]]:
        """Findings per string index (only strings with findings), overlaps settled.

        Strings remembered clean are skipped; the others are scanned together and those
        found clean (short enough) are remembered, unless ``remember`` is false (a caller
        that remembers its own outcomes: the distinct values of a column)."""
        if not strings or not self.detectors:
            return {}
        clean = self._clean
        if clean is None:
            return self._scan_many(strings)
        known = list(map(clean.__contains__, strings))
        if any(known):
            todo = list(compress(range(len(strings)), map(not_, known)))
            if not todo:
                return {}
            found = self._scan_many(list(map(strings.__getitem__, todo)))
            if remember:
                self._remember(clean, [strings[i] for j, i in enumerate(todo) if j not in found])
            return {todo[j]: f for j, f in found.items()}
        found = self._scan_many(strings)
        if remember:
            self._remember(clean, [s for i, s in enumerate(strings) if i not in found])
        return found

    @staticmethod
    def _remember(clean: dict[str, None], strings: list[str]) -> None:
        if len(clean) + len(strings) > CLEAN_MEMO_SIZE:
            clean.clear()
        for s in strings:
            if len(s) <= CLEAN_MEMO_CHARS:
                clean[s] = None

    def _scan_many(self, strings: Sequence[str]) -> dict[int, list[Finding]]:
        big = SEP.join(strings)
        if big.count(SEP) != len(strings) - 1:  # a string holds NUL itself: go one by one
            return self._one_by_one(strings)
        starts: list[int] | None = None
        lowered: str | None = None
        holders: dict[tuple[bool, str], list[int]] = {}
        raw: dict[int, list[Finding]] = {}
        mixed: list[int] | None = None
        subset: list[str] = []
        sub = ""
        sub_starts: list[int] = []
        runs: list[str] | None = None  # token runs of the mixed strings (decoder, entropy)
        for rank, det in enumerate(self.detectors):
            if (det.rare and not det.triggers) or det.mixed:
                if mixed is None:
                    mixed, subset, sub, sub_starts = _mixed(strings)
                if not mixed:
                    continue
                if det.rare and not det.mixed:
                    texts = None
                    if self.decoder is not None and det.pattern.pattern == _RUN_20:
                        if runs is None:  # one pass serves this detector and the decoder
                            runs = _RUNS.findall(sub)
                        texts = [t for t in runs if len(t) >= 20]
                    _collect_rare(det, rank, mixed, subset, sub, sub_starts, raw, texts)
                    continue
                sub_raw: dict[int, list[Finding]] = {}
                _collect_joined(det, rank, sub, subset, sub_starts, sub_raw)
                for j, f in sub_raw.items():
                    raw.setdefault(mixed[j], []).extend(f)
                continue
            if starts is None:
                starts = _starts(strings)
            if det.anchor is not None:
                for idx in _anchored(big, det.anchor, starts):
                    _collect(det, rank, strings[idx], raw.setdefault(idx, []))
                continue
            if det.triggers and not det.literal:
                hay = big
                if det.lower:
                    if lowered is None:
                        lowered = big.lower()
                        if len(lowered) != len(big):  # case mapping changed lengths
                            return self._one_by_one(strings)
                    hay = lowered
                found_in: set[int] = set()
                # with required literals, only their holders (usually few) are looked at
                for t in det.requires[:1] or det.triggers:
                    key = (det.lower, t)
                    hit = holders.get(key)
                    if hit is None:
                        hit = holders[key] = holders_of(hay, t, starts)
                    found_in.update(hit)
                if det.requires:
                    found_in = {i for i in found_in
                                if _holds(strings[i].lower() if det.lower else strings[i], det)}
                held = sorted(found_in)
                # a holder the pattern finds nothing in is passed over in C (most of them)
                for idx in compress(held, map(det.pattern.search,
                                              map(strings.__getitem__, held))):
                    _collect(det, rank, strings[idx], raw.setdefault(idx, []))
                continue
            _collect_joined(det, rank, big, strings, starts, raw)
        if self.decoder is not None:
            if mixed is None:
                mixed, subset, sub, sub_starts = _mixed(strings)
            if runs is None:
                runs = _RUNS.findall(sub)
            for i, f in self.decoder.scan_many(strings, big, starts or _starts(strings), mixed,
                                               sub, runs):
                raw.setdefault(i, []).extend(f)
            for i, f in raw.items():
                if any(x.detector.weak for x in f):
                    raw[i] = self._not_benign(strings[i], f)
        if self.shields:
            for i, f in raw.items():
                if any(x.detector.kind in _GUARDED for x in f):
                    self._shield(strings[i], f)
        out = {}
        for i, f in raw.items():
            if f:
                kept = settle(f)
                if kept:
                    out[i] = kept
        return out

    def _one_by_one(self, strings: Sequence[str]) -> dict[int, list[Finding]]:
        out = {}
        for i, s in enumerate(strings):
            found = self.scan(s)
            if found:
                out[i] = found
        return out


def _mixed(strings: Sequence[str]) -> tuple[list[int], list[str], str, list[int]]:
    """The strings that are not all lower case (a C-level selection): their indices, the
    strings, them joined with NUL and their offsets there."""
    mixed = list(compress(range(len(strings)), map(not_, map(str.islower, strings))))
    subset = list(map(strings.__getitem__, mixed))
    return mixed, subset, SEP.join(subset), _starts(subset)


def _starts(strings: Sequence[str]) -> list[int]:
    """Offset of each string in the NUL-joined text."""
    lengths = accumulate(map((1).__add__, map(len, strings)), initial=0)
    out = list(lengths)
    out.pop()
    return out


def _holds(text: str, det: Detector) -> bool:
    """Whether ``text`` (lower-cased when ``det.lower``) holds one of ``det``'s triggers and
    all of its required literals."""
    return all(r in text for r in det.requires) and any(t in text for t in det.triggers)


def _anchored(big: str, anchor: re.Pattern[str], starts: list[int]) -> list[int]:
    """Indices of the strings in which ``anchor`` matches (one search per holder string)."""
    out: list[int] = []
    last = len(starts) - 1
    m = anchor.search(big)
    while m is not None:
        idx = bisect.bisect_right(starts, m.start()) - 1
        out.append(idx)
        if idx >= last:
            break
        m = anchor.search(big, starts[idx + 1])
    return out


#: What carries an open-ended value on (``Detector.open_end``): punctuation the value
#: stopped at, when more of the value follows it (not a space, a closing bracket or the end;
#: after ``,`` ``;`` ``&`` not a new ``name=`` setting either); a backslash that starts no
#: escape sequence. With the run after it.
_TAIL = re.compile(
    r"(?:"
    r"(?:[,;&](?![\s,;&'\"`\x00\\)\]}>]|$|[A-Za-z_][\w.-]{0,40}\s*=)"
    r"|['\"`@](?![\s,;&'\"`\x00\\)\]}>]|$)"
    r"|\\(?![nrtbfu\"'\\/\s\x00]|$))"
    r"[^\s\"',;&`@\x00\\)\]}>]*"
    r")+"
)


def open_end(text: str, end: int) -> int:
    """Where an open-ended value that a pattern ended at ``end`` really ends."""
    m = _TAIL.match(text, end)
    return end if m is None else m.end()


def _collect(det: Detector, rank: int, text: str, found: list[Finding]) -> None:
    group = det.group
    validate = det.validate
    for m in det.pattern.finditer(text):
        start, end = m.span(group)
        if start < 0 or start == end:
            continue
        entity = det.name if validate is None else validate(text[start:end])
        if entity is None:  # the detector's check refused the match
            continue
        if det.open_end:
            end = open_end(text, end)
        found.append(Finding(start, end, entity, det, rank))


def _collect_joined(
    det: Detector, rank: int, big: str, strings: Sequence[str], starts: list[int],
    raw: dict[int, list[Finding]],
) -> None:
    group = det.group
    validate = det.validate
    for m in det.pattern.finditer(big):
        start, end = m.span(group)
        if start < 0 or start == end:
            continue
        idx = bisect.bisect_right(starts, start) - 1
        base = starts[idx]
        if end > base + len(strings[idx]):  # crossed a separator: not a real match
            continue
        entity = det.name if validate is None else validate(big[start:end])
        if entity is None:  # the detector's check refused the match
            continue
        if det.open_end:  # (the tail never crosses the NUL separator)
            end = open_end(big, end)
        raw.setdefault(idx, []).append(Finding(start - base, end - base, entity, det, rank))


def _collect_rare(
    det: Detector, rank: int, idx: list[int], subset: list[str], sub: str, starts: list[int],
    raw: dict[int, list[Finding]], texts: list[str] | None = None,
) -> None:
    """A mixed-case detector (high entropy): only strings with an upper-case letter can hold
    a match, so only those (``subset``, joined as ``sub``; ``idx`` their indices) are
    scanned; match texts are filtered in bulk and only the few survivors are located."""
    validate = det.validate
    assert validate is not None
    survivors = {
        text for text in (det.pattern.findall(sub) if texts is None else texts)
        if not (text.islower() or text.isupper()) and validate(text) is not None
    }
    if not survivors:
        return
    for text in survivors:
        entity = validate(text) or det.name
        size = len(text)
        start = sub.find(text)
        while start != -1:
            end = start + size
            # a whole match only: what the pattern would have matched at this place
            m = det.pattern.match(sub, start)
            if m is not None and m.end() == end:
                j = bisect.bisect_right(starts, start) - 1
                base = starts[j]
                found = Finding(start - base, end - base, entity, det, rank)
                raw.setdefault(idx[j], []).append(found)
            start = sub.find(text, start + 1)


_GUARDED = frozenset(("secret", "credential"))


def _unshielded(found: list[Finding]) -> list[Finding]:
    """``found`` without the secret findings a shield covers (a weak one: overlaps) and
    without the shield-only findings."""
    shields = [f for f in found if f.detector.shield]
    out = []
    for f in found:
        det = f.detector
        if det.shield_only:
            continue
        if det.kind in _GUARDED and not det.shield:
            if det.weak:
                if any(f.start < s.end and s.start < f.end for s in shields):
                    continue
            elif any(s.start <= f.start and f.end <= s.end for s in shields):
                continue
        out.append(f)
    return out


def settle(found: list[Finding]) -> list[Finding]:
    """Keep the highest-priority finding where matches overlap (after shields dropped the
    secrets inside ids and public material); order by position. Secret and credential
    findings that overlap are merged: the kept one grows to cover the others, so a secret one
    detector saw shorter than another (``password=abc def`` and its quoted form) is never
    left partly in clear."""
    if len(found) == 1:
        return [] if found[0].detector.shield_only else found
    if not found:
        return found
    if any(f.detector.shield for f in found):
        found = _unshielded(found)
        if len(found) <= 1:
            return found
    kept: list[Finding] = []
    for f in sorted(found, key=lambda f: (f.rank, f.start, f.start - f.end)):
        if all(f.end <= k.start or f.start >= k.end for k in kept):
            kept.append(f)
        elif f.detector.kind in _GUARDED:
            _merge(kept, f)
    kept.sort(key=lambda f: f.start)
    return kept


def _merge(kept: list[Finding], f: Finding) -> None:
    """Grow the first kept secret ``f`` overlaps over ``f`` and over every kept secret the
    grown span then overlaps (those leave ``kept``)."""
    start, end = f.start, f.end
    if f.detector.weak:  # a random-looking run reaching back over ``name=``: the name stays
        overlapped = [k.start for k in kept if k.start < end and start < k.end
                      and k.detector.kind in _GUARDED]
        if overlapped:
            start = max(start, min(overlapped))
    into: Finding | None = None
    while True:
        hits = [k for k in kept if k is not into and k.start < end and start < k.end
                and k.detector.kind in _GUARDED]
        if not hits:
            break
        if into is None:
            into = hits.pop(0)
        for k in hits:
            kept.remove(k)
        start = min(start, into.start, *(k.start for k in hits))
        end = max(end, into.end, *(k.end for k in hits))
        into.start, into.end = start, end
