"""One walk over a value that sanitizes and redacts its strings (keys included).

The walk collects every string of the value (without copying anything), the detectors scan
them all at once (``scan.py``), and only when something changed is the value rebuilt —
copy on write: untouched dicts and lists are returned as the very same objects (large clean
subtrees are skipped whole), and the caller's value is never mutated. Key rules decide whole
values (``password: …`` is redacted whatever it looks like; AWS-style
``{"Key": "db_password", "Value": …}`` tag pairs, ``TagKey``/``ParameterKey`` pairs,
``{name, value, …}`` records and ``["db_password", "…"]`` lists too); under pseudonymising
policies, identifiers the vault learned are also found as bare words. ``Sanitize`` and
``Redact`` are this pass with one half switched off; the pipeline builder fuses them when
both apply, which keeps the fixed order (sanitize, then redact) for every string.
"""

from __future__ import annotations

import bisect
import re
from itertools import accumulate, islice
from typing import TYPE_CHECKING, Any

from ..layer.pipeline import REMOVED, ROWS_KEY
from .detectors import GCP_PROJECT_ID, Detector
from .keys import REFERENCE, KeyRules
from .named_text import secret_object
from .redact import Redactor
from .sanitize import INVISIBLE_ASCII_JOINED, INVISIBLE_JOINED, Sanitizer
from .scan import SEP, Finding
from .strategies import DROP
from .vault import KNOWN_ENTITIES

if TYPE_CHECKING:
    from ..layer.pipeline import PseudonymVault, TransformContext


__all__ = ["TextPass", "Sanitize", "Redact"]

_PAIR_NAMES = ("Key", "key", "Name", "name", "TagKey", "ParameterKey", "ParameterName",
               "OptionName")
_PAIR_VALUES = ("Value", "value", "TagValue", "ParameterValue")
#: A name/value record has at most this many keys (``{name, value, type, source, ...}``).
_PAIR_MAX_KEYS = 8
_PAIR_VALUE_SET = frozenset(_PAIR_VALUES)
#: The maps of a Kubernetes Secret whose values are all secrets.
_SECRET_MAPS = ("data", "stringData")
#: ``["db_password", "…"]``: the first item of a two-item list is a name at most this long.
_LIST_PAIR_NAME_MAX = 64
_NEVER = re.compile(r"(?!)")
#: Containers holding at least this many strings get a span record (skippable on rebuild).
_SPAN_MIN = 12
#: Value types key-name rules never redact.
_UNRULED = (bool, int, float)
_KEY_CACHE = 16384
#: Upper bounds used for the JSON size hint left for ``project``.
_SCALAR_CHARS = 24
_REPLACEMENT_SLACK = 64
#: Cell types of a column: all text (scanned as they are), or nested (only rows show them).
_TEXT = frozenset((str,))
_NESTED = frozenset((dict, list, tuple))

# A key's facts: (secret entity or None, untrusted, identifier hint or None, scanned clean,
# characters it adds to the JSON text, names public material)
_NON_STR = (None, False, None, True, _SCALAR_CHARS, False)


def _ruled(value: Any) -> bool:
    """Whether a key rule applies to ``value``: not to numbers, booleans or references."""
    t = type(value)
    if t in _UNRULED:
        return False
    return not (t is str and REFERENCE.fullmatch(value) is not None)


class TextPass:
    """Sanitize and/or redact every string of a value in one walk."""

    def __init__(self, *, sanitizer: Sanitizer | None, redactor: Redactor | None,
                 untrusted_keys: tuple[str, ...] = ()) -> None:
        if sanitizer is None and redactor is None:
            raise ValueError("TextPass needs a sanitizer, a redactor or both")
        self.sanitizer = sanitizer
        self.redactor = redactor
        if redactor is not None:
            base = redactor.keys
            self.keys = KeyRules(
                secrets=base.secrets, identifiers=base.identifiers, extra=base.extra,
                untrusted=untrusted_keys,
            )
        else:
            self.keys = KeyRules(secrets=False, untrusted=untrusted_keys)
        parts = [n for n, on in (("sanitize", sanitizer), ("redact", redactor)) if on]
        self.name = "+".join(parts)
        self._kinfo: dict[Any, tuple[Any, ...]] = {}
        self._hint_detectors: dict[tuple[str, str], Detector] = {}

    def __repr__(self) -> str:
        return f"TextPass({self.name})"

    # -- key facts -------------------------------------------------------------------------

    def _key_info(self, key: Any) -> tuple[Any, ...]:
        if type(key) is not str:
            return _NON_STR
        d = self.keys.decide(key)
        secret = d.secret
        red = self.redactor
        if secret is not None and (red is None or red.key_strategy(secret) == "keep"):
            secret = None
        ident = d.identifier
        if ident is not None and (red is None or red.key_strategy(*ident) == "keep"):
            ident = None
        info = (secret, d.untrusted, ident, False, len(key) + 3, d.public)
        if len(self._kinfo) >= _KEY_CACHE:
            self._kinfo.clear()
        self._kinfo[key] = info
        return info

    def _pair_secret(self, x: dict[Any, Any]) -> tuple[tuple[str, ...], str] | None:
        """For ``{"Key": "db_password", "Value": …}`` (also ``TagKey``/``TagValue``,
        ``ParameterKey``/``ParameterValue``, ``{name, value, …}``): ((value key,), entity)
        when the name says secret; for a Kubernetes Secret, its ``data`` / ``stringData``
        maps (every value there is a secret, whatever its key)."""
        if ("data" in x or "stringData" in x) and secret_object(x):
            return _SECRET_MAPS, "secret_data"
        if len(x) > _PAIR_MAX_KEYS or _PAIR_VALUE_SET.isdisjoint(x):
            return None
        for nk in _PAIR_NAMES:
            name = x.get(nk)
            if type(name) is str:
                info = self._kinfo.get(name) or self._key_info(name)
                if info[0] is not None:
                    for vk in _PAIR_VALUES:
                        if vk in x:
                            return ((vk,), info[0]) if _ruled(x[vk]) else None
                return None
        return None

    def _pair_public(self, x: dict[Any, Any]) -> Any:
        """For ``{"Key": "CodeSha256", "Value": …}``: the value key when the name says public
        material (a digest, a certificate, a reference), else None."""
        if len(x) > _PAIR_MAX_KEYS:
            return None
        for nk in _PAIR_NAMES:
            name = x.get(nk)
            if type(name) is str:
                info = self._kinfo.get(name) or self._key_info(name)
                if info[5]:
                    for vk in _PAIR_VALUES:
                        if vk in x:
                            return vk
                return None
        return None

    def _list_pair_secret(self, x: list[Any] | tuple[Any, ...]) -> str | None:
        """For ``["db_password", "…"]`` inside a list (a list of pairs): the entity when the
        first item names a secret (a two-item list right under a key is data, not a pair)."""
        if len(x) != 2:
            return None
        name, value = x
        if type(name) is not str or len(name) > _LIST_PAIR_NAME_MAX or value is None or (
                type(value) is bool or (type(value) is str and not value)) or not _ruled(value):
            return None
        info = self._kinfo.get(name) or self._key_info(name)
        return info[0]

    # -- entry point -----------------------------------------------------------------------

    def __call__(self, value: Any, ctx: TransformContext) -> Any:
        if type(value) is str:  # a bare text (prompt message, resource text): untrusted
            out = self._texts([value], [0], {}, ctx)
            new = out.get(0, value)
            return "" if new is DROP else new
        walk = _Walk(self)
        walk.visit(value, False)
        strings = walk.strings
        nvals = len(strings)
        new_keys = list(walk.new_keys)
        strings.extend(new_keys)
        repl = self._texts(strings, walk.untrusted, walk.hints, ctx, walk.public)
        kinfo = self._kinfo
        key_repl: dict[Any, Any] = {}
        for j, key in enumerate(new_keys):
            r = repl.pop(nvals + j, None)
            if r is None:
                info = kinfo.get(key)
                if info is not None and not info[3]:
                    kinfo[key] = (*info[:3], True, *info[4:])  # scanned clean: never again
            else:
                key_repl[key] = r
        if walk.bounded:  # size hints for ``project`` (upper bounds of the output)
            slack = (len(repl) + len(key_repl)) * _REPLACEMENT_SLACK
            ctx.scratch["json_upper_bound"] = walk.size_bound + slack
            longest = max(map(len, islice(strings, nvals)), default=0) + slack
            ctx.scratch["longest_string"] = max(longest, walk.ruled_longest)
        if not repl and not key_repl and not walk.ruled:
            self._flush(ctx)
            return value
        out = _Rebuild(self, walk, repl, key_repl, ctx).rb(value)
        self._flush(ctx)
        return "" if out is DROP else out

    def column(self, key: str, cells: list[Any], ctx: TransformContext) -> list[Any] | None:
        """The cells of column ``key`` as ``__call__`` leaves them in the rows
        ``{"items": [{key: cell}, ...]}`` (``REMOVED`` where it drops one), read without
        building or walking the rows: the same strings in the same order, with the same
        key facts, go through the same scan. None (walk the rows) when a cell is a list or
        a mapping, when a key rule decides the cells whole, or when a key name changes."""
        kinfo = self._kinfo
        outer = kinfo.get(ROWS_KEY) or self._key_info(ROWS_KEY)
        info = kinfo.get(key) or self._key_info(key)
        if outer[0] is not None or info[0] is not None:
            return None
        kinds = set(map(type, cells))
        if kinds <= _TEXT:  # (a text column: no per-cell Python)
            strings = list(cells)
        elif kinds & _NESTED:
            return None
        else:
            strings = [cell for cell in cells if type(cell) is str]
        n = len(strings)
        every = range(n)
        untrusted = list(every) if outer[1] or info[1] else []
        hint = info[2] if self.redactor is not None and self.keys.identifiers else None
        hints = dict.fromkeys(every, hint) if hint is not None else {}
        public = list(every) if info[5] else []
        new_keys = [k for k in dict.fromkeys((ROWS_KEY, key))
                    if not (kinfo.get(k) or self._key_info(k))[3]]
        # the walk's JSON size bound: the root, the list and one key per row
        chars = sum(map(len, strings))
        bound = 2 * (chars + outer[4] + len(cells) * info[4]) + (_SCALAR_CHARS + 6) * (
            2 * len(cells) + 2)
        strings.extend(new_keys)
        # (the column's memo keeps each value's outcome: the scanner need not remember them)
        repl = self._texts(strings, untrusted, hints, ctx, public, remember=False)
        for j, k in enumerate(new_keys):
            if (n + j) in repl:
                return None  # the key text itself changes: the rows show where it goes
            known = kinfo.get(k)
            if known is not None and not known[3]:
                kinfo[k] = (*known[:3], True, *known[4:])  # scanned clean: never again
        slack = len(repl) * _REPLACEMENT_SLACK
        ctx.scratch["json_upper_bound"] = bound + slack
        ctx.scratch["longest_string"] = max(map(len, islice(strings, n)), default=0) + slack
        self._flush(ctx)
        if not repl:
            return cells
        out = list(cells)
        where = (range(len(cells)) if n == len(cells) else
                 [i for i, cell in enumerate(cells) if type(cell) is str])
        for pos, new in repl.items():
            if pos < n:
                out[where[pos]] = REMOVED if new is DROP else new
        return out

    @staticmethod
    def _flush(ctx: TransformContext) -> None:
        vault = ctx.vault
        if vault is not None and getattr(vault, "path", None) is not None:
            vault.flush()

    # -- the strings -----------------------------------------------------------------------

    def _texts(
        self, strings: list[str], untrusted: list[int], hints: dict[int, tuple[str, str]],
        ctx: TransformContext, public: list[int] | None = None, remember: bool = True,
    ) -> dict[int, Any]:
        """Replacement per string index (only changed strings); ``remember``: whether the
        scanner keeps the clean ones for next time."""
        repl: dict[int, Any] = {}
        originals: dict[int, str] = {}
        san = self.sanitizer
        if san is not None and strings:
            big = SEP.join(strings)
            if big.isascii():
                dirty = san.strip_invisible and INVISIBLE_ASCII_JOINED.search(big) is not None
            else:
                dirty = INVISIBLE_JOINED.search(big) is not None
            if dirty:
                removed = 0
                for i, s in enumerate(strings):
                    clean, n = san.strip(s)
                    if clean != s:
                        originals[i] = s
                        strings[i] = clean
                        repl[i] = clean
                        removed += n
                if removed:
                    ctx.count("stripped_chars", n=removed)
        red = self.redactor
        if red is not None and strings:
            findings = red.scanner.scan_many(strings, remember=remember) if red.scanner else {}
            for i in public or ():  # under CodeSha256, tls.crt …: random-looking is public
                found = findings.get(i)
                if found is not None:
                    kept = [f for f in found if not f.detector.weak]
                    if kept:
                        findings[i] = kept
                    else:
                        del findings[i]
            for i, (entity, kind) in hints.items():
                if i not in findings and strings[i]:
                    det = self._hint_detector(entity, kind)
                    findings[i] = [Finding(0, len(strings[i]), entity, det, 0)]
            vault = ctx.vault
            if red.known_entities and vault is not None:
                _find_known(strings, findings, vault, red.known_entities)
            reserved: list[str] = []
            if vault is not None and findings and red.pseudonymizes:
                # every real value of this batch is known before any pseudonym is issued, so
                # no pseudonym can come out equal to one of them
                reserved = vault.reserve(
                    strings[i][f.start:f.end] for i, found in findings.items() for f in found
                    if red.strategy_for(f) == "pseudonymize"
                )
            try:
                for i, found in findings.items():
                    new = red.rewrite(strings[i], found, ctx)
                    if new is not strings[i]:
                        repl[i] = new
            finally:
                if vault is not None and reserved:
                    vault.release(reserved)
        if san is not None and san.fence_injections:
            # Any string holding an injection phrase is fenced, whatever key it sits under
            # (a tag value comes back as ``value`` or ``group`` too); detection reads the
            # text as it was before stripping (fillers there read as spaces).
            seen = [originals.get(i, s) for i, s in enumerate(strings)] if originals else strings
            fenced = 0
            for i in san.injected(seen):
                current = repl.get(i, strings[i])
                if current is DROP or san.is_fenced(current):
                    continue
                new = san.fence_text(current)
                if new != current:
                    repl[i] = new
                    fenced += 1
            if fenced:
                ctx.count("untrusted", n=fenced)
        return repl

    def _hint_detector(self, entity: str, kind: str) -> Detector:
        key = (entity, kind)
        det = self._hint_detectors.get(key)
        if det is None:
            det = Detector(entity, kind, _NEVER, f"key-name hint for {entity}")
            self._hint_detectors[key] = det
        return det


#: Where a GCP project id shows inside values other detectors found: resource names and
#: service-account e-mails (an account under a key hint is a project when shaped like one).
_PROJECT_IN_NAME = re.compile(rf"projects/({GCP_PROJECT_ID})(?:/|$)")
_PROJECT_OF_ACCOUNT = re.compile(rf"@({GCP_PROJECT_ID})\.iam\.gserviceaccount\.com$")
_PROJECT = re.compile(GCP_PROJECT_ID)
_ARN_ACCOUNT = re.compile(r"arn:[^:]*:[^:]*:[^:]*:(\d{12}):")
_KNOWN_DETECTORS = {
    entity: Detector(f"known_{entity}", "identifier", _NEVER,
                     f"{entity} values seen elsewhere, found as words in any text",
                     entities=(entity,))
    for entity in KNOWN_ENTITIES
}


def _learned(strings: list[str], findings: dict[int, list[Finding]]) -> dict[str, set[str]]:
    """Project and account ids this batch's findings reveal: ``projects/<p>/…``, a project
    or an account under an account key, ``…@<p>.iam…``, the account field of an ARN."""
    projects: set[str] = set()
    accounts: set[str] = set()
    for i, fs in findings.items():
        for f in fs:
            entity = f.entity
            if entity == "gcp_project":
                projects.add(strings[i][f.start:f.end])
            elif entity == "aws_account_id":
                text = strings[i][f.start:f.end]
                if text.isdigit():
                    accounts.add(text)
                elif _PROJECT.fullmatch(text):
                    projects.add(text)
            elif entity == "gcp_resource_name" or entity == "email":
                m = (_PROJECT_IN_NAME if entity == "gcp_resource_name"
                     else _PROJECT_OF_ACCOUNT).search(strings[i], f.start, f.end)
                if m is not None:
                    projects.add(m.group(1))
            elif entity == "aws_arn":
                m = _ARN_ACCOUNT.match(strings[i], f.start, f.end)
                if m is not None:
                    accounts.add(m.group(1))
    return {"gcp_project": projects, "aws_account_id": accounts}


def _find_known(strings: list[str], findings: dict[int, list[Finding]], vault: PseudonymVault,
                entities: tuple[str, ...]) -> None:
    """Add findings for identifiers written bare (a project id in a title, an account id in
    a bucket name, either as a group key): the values the vault learned for ``entities``,
    plus those this batch's findings reveal."""
    for entity, values in _learned(strings, findings).items():
        if values and entity in entities:
            vault.learn(entity, values)
    starts: list[int] | None = None
    big = ""
    for entity in entities:
        if starts is None:
            big = SEP.join(strings)
            starts = list(accumulate((len(s) + 1 for s in strings[:-1]), initial=0))
        det = _KNOWN_DETECTORS[entity]
        touched: set[int] = set()
        for span_start, span_end in vault.find_known(entity, big):
            idx = bisect.bisect_right(starts, span_start) - 1
            start, end = span_start - starts[idx], span_end - starts[idx]
            current = findings.get(idx)
            if current is not None and any(
                    f.start < end and start < f.end for f in current):
                continue  # inside something already found (an ARN, a secret, a hint)
            findings.setdefault(idx, []).append(Finding(start, end, entity, det, 1 << 20))
            touched.add(idx)
        for idx in touched:
            findings[idx].sort(key=lambda f: f.start)


class _Walk:
    """Phase 1: gather strings in walk order, plus what the rebuild needs to know."""

    __slots__ = (
        "bounded",
        "hints",
        "new_keys",
        "public",
        "ruled",
        "ruled_longest",
        "size_bound",
        "spans",
        "strings",
        "tp",
        "untrusted",
    )

    def __init__(self, tp: TextPass) -> None:
        self.tp = tp
        self.strings: list[str] = []
        self.untrusted: list[int] = []
        self.hints: dict[int, tuple[str, str]] = {}
        self.public: list[int] = []
        self.new_keys: dict[str, None] = {}
        self.ruled = False
        self.spans: dict[int, tuple[int, int, bool] | None] = {}
        self.size_bound = 0
        self.ruled_longest = 0
        self.bounded = True

    def visit(self, root: Any, flag: bool) -> None:
        tp = self.tp
        kinfo_get = tp._kinfo.get
        key_info = tp._key_info
        redact = tp.redactor is not None
        pair_secret = tp._pair_secret
        pair_public = tp._pair_public
        list_pair = tp._list_pair_secret
        strings = self.strings
        append = strings.append
        untrusted: list[int] = []
        mark = untrusted.append
        hints = self.hints
        public = self.public
        new_keys = self.new_keys
        spans = self.spans
        identifiers = redact and tp.keys.identifiers
        key_chars = 0
        values = 0
        ruled_chars = 0
        ruled_longest = 0
        ruled_containers = False

        # Scalars are handled inline (no call per leaf): most nodes of a result are leaves.
        def visit(x: Any, flag: bool) -> bool:
            nonlocal key_chars, values, ruled_chars, ruled_longest, ruled_containers
            t = type(x)
            if t is dict:
                start = len(strings)
                ruled = False
                values += len(x)
                pair = pair_secret(x) if redact else None
                public_value = pair_public(x) if redact and pair is None and (
                    "Value" in x or "value" in x or "TagValue" in x or "ParameterValue" in x
                ) else None
                for k, v in x.items():
                    info = kinfo_get(k)
                    if info is None:
                        info = key_info(k)
                    key_chars += info[4]
                    # Key rules redact texts and containers, never numbers or booleans: a
                    # count under "SECRET" or "API_KEY" (asset types) is data, not a secret.
                    if (info[0] is not None or (pair is not None and k in pair[0])) and \
                            _ruled(v):
                        if v is not None:
                            ruled = True
                            # what the rewritten value may add to the JSON size
                            if type(v) is str:
                                ruled_chars += len(v) + _REPLACEMENT_SLACK
                                ruled_longest = max(ruled_longest, len(v) + _REPLACEMENT_SLACK)
                            elif type(v) in (int, float):
                                ruled_chars += _REPLACEMENT_SLACK
                            else:
                                ruled_containers = True
                        if not info[3]:
                            new_keys[k] = None  # the key text itself is still scanned
                        continue
                    if not info[3]:
                        new_keys[k] = None
                    tv = type(v)
                    if tv is str:
                        if identifiers and info[2] is not None:
                            hints[len(strings)] = info[2]
                        if info[5] or (public_value is not None and k == public_value):
                            public.append(len(strings))
                        if flag or info[1]:
                            mark(len(strings))
                        append(v)
                    elif (tv is dict or tv is list or tv is tuple) and visit(v, flag or info[1]):
                        ruled = True
                if len(strings) - start >= _SPAN_MIN:
                    key = id(x)
                    spans[key] = None if key in spans else (start, len(strings), ruled)
                return ruled
            if t is list or t is tuple:
                start = len(strings)
                ruled = False
                values += len(x)
                for v in x:
                    tv = type(v)
                    if tv is str:
                        if flag:
                            mark(len(strings))
                        append(v)
                    elif (tv is list or tv is tuple) and redact and len(v) == 2 and list_pair(
                            v) is not None:  # ["db_password", "…"] in a list of pairs
                        ruled = True
                        values += 2
                        if flag:
                            mark(len(strings))
                        append(v[0])
                        secret = v[1]
                        if type(secret) is str:
                            ruled_chars += len(secret) + _REPLACEMENT_SLACK
                            ruled_longest = max(ruled_longest, len(secret) + _REPLACEMENT_SLACK)
                        elif type(secret) in (int, float):
                            ruled_chars += _REPLACEMENT_SLACK
                        else:
                            ruled_containers = True
                    elif (tv is dict or tv is list or tv is tuple) and visit(v, flag):
                        ruled = True
                if len(strings) - start >= _SPAN_MIN:
                    key = id(x)
                    spans[key] = None if key in spans else (start, len(strings), ruled)
                return ruled
            if t is str:
                if flag:
                    mark(len(strings))
                append(x)
            return False

        self.ruled = visit(root, flag)
        self.untrusted = untrusted
        # JSON size upper bound: escapes at most double a string (sanitised text has no
        # control characters), numbers and punctuation get a generous fixed allowance.
        chars = sum(map(len, strings))
        self.size_bound = 2 * (chars + key_chars + ruled_chars) + (_SCALAR_CHARS + 6) * (
            values + 1)
        self.ruled_longest = ruled_longest
        self.bounded = not ruled_containers


class _Rebuild:
    """Phase 2: copy on write along the paths to changed strings and ruled keys."""

    def __init__(self, tp: TextPass, walk: _Walk, repl: dict[int, Any],
                 key_repl: dict[Any, Any], ctx: TransformContext) -> None:
        self.tp = tp
        self.walk = walk
        self.repl = repl
        self.key_repl = key_repl
        self.ctx = ctx
        self.changed = sorted(repl)

    def rb(self, root: Any) -> Any:
        tp = self.tp
        kinfo_get = tp._kinfo.get
        key_info = tp._key_info
        red = tp.redactor
        redact = red is not None
        pair_secret = tp._pair_secret
        list_pair = tp._list_pair_secret
        get = self.repl.get
        kget = self.key_repl.get
        no_keys = not self.key_repl
        spans = self.walk.spans
        changed = self.changed
        nchanged = len(changed)
        ctx = self.ctx
        counter = 0

        def skip(x: Any) -> bool:
            nonlocal counter
            if not no_keys:
                return False
            sp = spans.get(id(x))
            if sp is None or sp[2]:
                return False
            i = bisect.bisect_left(changed, sp[0])
            if i < nchanged and changed[i] < sp[1]:
                return False
            counter = sp[1]
            return True

        def rb(x: Any) -> Any:
            nonlocal counter
            t = type(x)
            if t is str:
                i = counter
                counter = i + 1
                r = get(i)
                return x if r is None else r
            if t is dict:
                if skip(x):
                    return x
                pair = pair_secret(x) if redact else None
                out: dict[Any, Any] | None = None
                for pos, (k, v) in enumerate(x.items()):
                    info = kinfo_get(k)
                    if info is None:
                        info = key_info(k)
                    entity = info[0]
                    if entity is None and pair is not None and k in pair[0]:
                        entity = pair[1]
                    if entity is not None and not _ruled(v):
                        entity = None  # numbers, booleans, references (see the walk above)
                    nv = (red.rewrite_value(v, entity, ctx)  # type: ignore[union-attr]
                          if entity is not None else rb(v))
                    nk = k if no_keys else kget(k, k)  # the key text is scanned either way
                    if out is None:
                        if nv is v and nk is k:
                            continue
                        out = dict(islice(x.items(), pos))
                    if nv is DROP or nk is DROP:
                        continue
                    if nk in out:
                        nk = _dedupe(nk, out)
                    out[nk] = nv
                return x if out is None else out
            if t is list or t is tuple:
                if skip(x):
                    return x
                items: list[Any] | None = None
                for pos, v in enumerate(x):
                    tv = type(v)
                    entity = list_pair(v) if redact and (tv is list or tv is tuple) and len(
                        v) == 2 else None
                    if entity is not None:
                        name = rb(v[0])
                        secret = red.rewrite_value(v[1], entity, ctx)  # type: ignore[union-attr]
                        nv = [name] if secret is DROP else [name, secret]
                    else:
                        nv = rb(v)
                    if items is None:
                        if nv is v:
                            continue
                        items = list(x[:pos])
                    if nv is not DROP:
                        items.append(nv)
                return x if items is None else items
            return x

        return rb(root)


def _dedupe(key: Any, taken: dict[Any, Any]) -> Any:
    n = 2
    while f"{key}#{n}" in taken:
        n += 1
    return f"{key}#{n}"


def Sanitize(sanitizer: Sanitizer | None = None, **options: Any) -> TextPass:
    """The sanitize transform alone."""
    untrusted = tuple(options.pop("untrusted_keys", ()))
    return TextPass(
        sanitizer=sanitizer or Sanitizer.build(**options), redactor=None,
        untrusted_keys=untrusted,
    )


def Redact(redactor: Redactor | None = None, **options: Any) -> TextPass:
    """The redact transform alone."""
    return TextPass(sanitizer=None, redactor=redactor or Redactor(**options))
