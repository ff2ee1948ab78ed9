"""Projection: keep outputs within what a model can use (include/exclude, caps, a budget).

``include`` / ``exclude`` are dotted key-path globs (list levels are transparent, and a glob
may match any trailing part of a path: ``user_data`` and ``*.user_data`` both hit
``assets.user_data``). ``max_string`` and ``max_list`` cap single values; ``max_chars`` is a
budget for the whole value's JSON size, met by shortening the longest lists and strings
proportionally. Shapes stay as they were (a list stays a list of the same kind of items);
what was cut is reported under ``projection``.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Callable, Iterable
from itertools import islice
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..layer.pipeline import TransformContext

__all__ = ["Project"]

_MIN_LIST = 3
_MIN_STRING = 256


class Project:
    """The project transform."""

    name = "project"

    def __init__(
        self,
        *,
        include: Iterable[str] = (),
        exclude: Iterable[str] = (),
        max_list: int | None = None,
        max_string: int | None = None,
        max_chars: int | None = None,
    ) -> None:
        self.include = tuple(include)
        self.exclude = tuple(exclude)
        self.max_list = max_list
        self.max_string = max_string
        self.max_chars = max_chars

    def __repr__(self) -> str:
        return "Project()"

    def __call__(self, value: Any, ctx: TransformContext) -> Any:
        stats: dict[str, int] = {}
        hints = getattr(ctx, "scratch", None) or {}
        selected = False
        if self.include or self.exclude:
            value = self._select(value, "", stats)
            selected = True
        longest = None if selected else hints.get("longest_string")
        strings_fit = self.max_string is None or (
            longest is not None and longest <= self.max_string
        )
        if self.max_list or not strings_fit:
            value = _cap(value, self.max_list, self.max_string, stats)
        bound = None if selected else hints.get("json_upper_bound")
        if self.max_chars and not isinstance(value, str) and (
            bound is None or bound > self.max_chars
        ):
            value = self._budget(value, stats)
        elif self.max_chars and isinstance(value, str) and len(value) > self.max_chars:
            stats["strings_cut"] = stats.get("strings_cut", 0) + 1
            stats["chars_removed"] = stats.get("chars_removed", 0) + len(value) - self.max_chars
            value = _cut_string(value, self.max_chars)
        if stats:
            bucket = ctx.report.setdefault("projection", {})
            for key, n in stats.items():
                bucket[key] = bucket.get(key, 0) + n
        return value

    def column(self, key: str, cells: list[Any], ctx: TransformContext) -> list[Any] | None:
        """The cells of column ``key`` as ``__call__`` leaves them in the rows
        ``{"items": [{key: cell}, ...]}``: strings capped at ``max_string``. None (project the
        rows) when an include/exclude glob, a list cap or the budget would act on the rows."""
        if self.include or self.exclude or (self.max_list and len(cells) > self.max_list):
            return None
        hints = ctx.scratch
        bound = hints.get("json_upper_bound")
        if self.max_chars and (bound is None or bound > self.max_chars):
            return None
        longest = hints.get("longest_string")
        if self.max_string is None or (longest is not None and longest <= self.max_string):
            return cells
        stats: dict[str, int] = {}
        out = [_cap(c, None, self.max_string, stats) if type(c) is str else c for c in cells]
        if stats:
            bucket = ctx.report.setdefault("projection", {})
            for name, n in stats.items():
                bucket[name] = bucket.get(name, 0) + n
        return out

    # -- include / exclude -------------------------------------------------------------------

    def _matches(self, path: str, patterns: tuple[str, ...]) -> bool:
        return any(
            fnmatch.fnmatchcase(path, p) or fnmatch.fnmatchcase(path, "*." + p)
            for p in patterns
        )

    def _may_contain(self, path: str) -> bool:
        """Whether something below ``path`` could match an include glob."""
        for p in self.include:
            parts = p.split(".")
            for n in range(1, len(parts)):
                prefix = ".".join(parts[:n])
                if fnmatch.fnmatchcase(path, prefix) or fnmatch.fnmatchcase(path, "*." + prefix):
                    return True
            if "*" in p.split(".")[0] or "." not in p:
                return True  # an unanchored glob may match at any depth
        return False

    def _select(self, value: Any, path: str, stats: dict[str, int]) -> Any:
        if isinstance(value, dict):
            out = {}
            for k, v in value.items():
                sub = f"{path}.{k}" if path else str(k)
                if self.exclude and self._matches(sub, self.exclude):
                    stats["excluded"] = stats.get("excluded", 0) + 1
                    continue
                if self.include and not self._matches(sub, self.include):
                    if isinstance(v, (dict, list)) and self._may_contain(sub):
                        out[k] = self._select(v, sub, stats)
                        continue
                    stats["excluded"] = stats.get("excluded", 0) + 1
                    continue
                if self.include:  # an included key keeps its whole subtree (minus excludes)
                    out[k] = self._select_excludes(v, sub, stats)
                else:
                    out[k] = self._select(v, sub, stats)
            return out
        if isinstance(value, list):
            return [self._select(v, path, stats) for v in value]
        return value

    def _select_excludes(self, value: Any, path: str, stats: dict[str, int]) -> Any:
        if not self.exclude:
            return value
        saved, self.include = self.include, ()
        try:
            return self._select(value, path, stats)
        finally:
            self.include = saved

    # -- the budget --------------------------------------------------------------------------

    def _budget(self, value: Any, stats: dict[str, int]) -> Any:
        """Shorten the value until its compact JSON fits ``max_chars``.

        First only the outermost long lists (and long strings) are cut, which is cheap and
        enough for the usual list of records; when that stops helping, nested lists are cut
        too. Each round measures the result exactly.
        """
        limit = int(self.max_chars or 0)
        size = _size(value)
        if size <= limit:
            return value
        before = size
        deep = False
        for _ in range(8):
            ratio = limit / size * 0.97
            value = _shrink(value, ratio, stats, deep)
            new_size = _size(value)
            if new_size <= limit:
                size = new_size
                break
            if new_size >= size * 0.99:
                deep = True  # the outer lists are at their floor: cut inside the items too
            size = new_size
        stats["chars_removed"] = stats.get("chars_removed", 0) + max(0, before - size)
        stats["budget_cuts"] = stats.get("budget_cuts", 0) + 1
        return value


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":")))


def _cut_string(text: str, keep: int) -> str:
    removed = len(text) - keep
    return f"{text[:keep]}…[+{removed} chars]"


def _map_values(value: dict[Any, Any], fn: Callable[[Any], Any]) -> dict[Any, Any]:
    """``fn`` over a dict's values, copy on write: ``value`` itself when nothing changed."""
    out: dict[Any, Any] | None = None
    for pos, (k, v) in enumerate(value.items()):
        nv = fn(v)
        if out is None:
            if nv is v:
                continue
            out = dict(islice(value.items(), pos))
        out[k] = nv
    return value if out is None else out


def _cap(value: Any, max_list: int | None, max_string: int | None, stats: dict[str, int]) -> Any:
    t = type(value)
    if t is str:
        if max_string and len(value) > max_string:
            stats["strings_cut"] = stats.get("strings_cut", 0) + 1
            stats["chars_removed"] = stats.get("chars_removed", 0) + len(value) - max_string
            return _cut_string(value, max_string)
        return value
    if t is dict:
        return _map_values(value, lambda v: _cap(v, max_list, max_string, stats))
    if t is list or t is tuple:
        items = value
        if max_list and len(items) > max_list:
            stats["lists_cut"] = stats.get("lists_cut", 0) + 1
            stats["items_removed"] = stats.get("items_removed", 0) + len(items) - max_list
            items = items[:max_list]
        new = [_cap(v, max_list, max_string, stats) for v in items]
        if items is value and all(a is b for a, b in zip(new, value, strict=False)):
            return value
        return new
    return value


def _shrink(value: Any, ratio: float, stats: dict[str, int], deep: bool) -> Any:
    """Shorten long lists and strings to ``ratio`` of their length (with floors).

    Copy on write. Unless ``deep``, the items a cut list keeps are not entered.
    """
    t = type(value)
    if t is str:
        if len(value) > _MIN_STRING:
            keep = max(_MIN_STRING, int(len(value) * ratio))
            if keep < len(value):
                stats["strings_cut"] = stats.get("strings_cut", 0) + 1
                return _cut_string(value, keep)
        return value
    if t is dict:
        return _map_values(value, lambda v: _shrink(v, ratio, stats, deep))
    if t is list or t is tuple:
        items = value
        cut = False
        if len(items) > _MIN_LIST:
            keep = max(_MIN_LIST, int(len(items) * ratio))
            if keep < len(items):
                stats["lists_cut"] = stats.get("lists_cut", 0) + 1
                stats["items_removed"] = stats.get("items_removed", 0) + len(items) - keep
                items = items[:keep]
                cut = True
        if cut and not deep:
            return list(items)
        new = [_shrink(v, ratio, stats, deep) for v in items]
        if not cut and all(a is b for a, b in zip(new, value, strict=False)):
            return value
        return new
    return value
