"""Large list results as columns, for clients that ask (``_meta`` ``cloudg/format: arrow``).

A handler may put a ``Columns`` value at the top level of its result. The layer then runs the
spec's output pipeline over each column's distinct values, taken as rows of that one column
(``{"items": [{column: value}, ...]}``, the key paths a page of rows has), so every privacy
step decides as it would on the rows (steps that can take the cells as they are do, without
the rows: ``Pipeline.apply_column``); the value encodes what comes back (Arrow IPC). A value
seen before under the same plan and column is not transformed again (``ColumnMemo``).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from itertools import compress
from operator import not_
from typing import Any, Protocol

from .pipeline import REMOVED, merge_report
from .plan import CallPlan
from .wire import COLUMNS_UNAVAILABLE

__all__ = ["CHUNK", "COLUMNS_UNAVAILABLE", "MISSING", "ColumnTransform", "Columns",
           "ColumnsUnavailable", "column_transform", "is_columns"]

#: Distinct values transformed per pipeline run (a page's worth of one-column rows).
CHUNK = 500
#: Values remembered per plan and column, and plans remembered (least recently used first out).
MEMO_VALUES = 1_000_000
MEMO_PLANS = 16

#: ``transform(column, values)``: the distinct values of ``column`` as the output pipeline
#: leaves them (``MISSING`` for a value the policy removed with its key); a value given twice
#: is answered alike, only transformed twice.
ColumnTransform = Callable[[str, list[Any]], list[Any]]


class ColumnsUnavailable(ValueError):
    """The policy reshapes rows in a way a column cannot carry (it cut a list of values):
    the caller should read the result as pages instead."""


class Columns(Protocol):
    """A result part held as columns: its class sets ``CLOUDG_COLUMNS = True``, and
    ``encode`` returns its JSON form after ``transform`` (None: the output pipeline is
    empty)."""

    CLOUDG_COLUMNS: bool

    def encode(self, transform: ColumnTransform | None) -> dict[str, Any]: ...


def is_columns(value: Any) -> bool:
    """Whether ``value`` is a ``Columns`` part (by its class's marker, not its methods)."""
    return getattr(type(value), "CLOUDG_COLUMNS", False) is True


#: What a column transform gives for a value whose key the policy removed.
MISSING: Any = REMOVED


class _ValueMemo:
    """A column's transformed values: the keys of those the pipeline left as they were
    (most of them: a set, which fills about twice as fast as a mapping at 500k values) and
    key -> (shown value, its report) for the others."""

    __slots__ = ("changed", "clean")

    def __init__(self) -> None:
        self.clean: set[Hashable] = set()
        self.changed: dict[Hashable, tuple[Any, dict[str, Any]]] = {}

    def __len__(self) -> int:
        return len(self.clean) + len(self.changed)

    def clear(self) -> None:
        self.clean.clear()
        self.changed.clear()


class ColumnMemo:
    """Transformed values by (plan, column, value), with the transform report of each."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        #: key -> (the objects the key names by id, memo by column); holding the objects
        #: keeps their ids from being reused by other steps or vaults while the entry lives.
        self._plans: OrderedDict[Hashable, tuple[Any, dict[str, _ValueMemo]]] = OrderedDict()

    def column(self, plan: CallPlan, column: str) -> _ValueMemo:
        steps = tuple(plan.output.steps)
        # A vault that learned more identifiers may pseudonymise a value it left before.
        learned = plan.vault.learned() if plan.vault is not None else 0
        key = (tuple(id(s) for s in steps), id(plan.vault), learned, plan.principal.id,
               plan.spec.name)
        with self._lock:
            entry = self._plans.get(key)
            if entry is None:
                entry = self._plans[key] = ((steps, plan.vault), {})
                while len(self._plans) > MEMO_PLANS:
                    self._plans.popitem(last=False)
            self._plans.move_to_end(key)
            memo = entry[1].get(column)
            if memo is None:
                memo = entry[1][column] = _ValueMemo()
            if len(memo) > MEMO_VALUES:
                memo.clear()
            return memo


MEMO = ColumnMemo()


def _key(value: Any) -> Hashable:
    """A memo key telling values apart by type too (``1``, ``1.0`` and ``True`` are equal
    in Python, not in JSON); text is its own key."""
    t = type(value)
    if t is str:
        return value
    if t in (int, float, bool, type(None)):
        return (t.__name__, value)
    return ("json", json.dumps(value, sort_keys=True, default=str))


def _same(new: Any, old: Any) -> bool:
    try:
        return type(new) is type(old) and bool(new == old)
    except (TypeError, ValueError):
        return False


def _pending(keys: list[Hashable], memo: _ValueMemo) -> list[int]:
    """Indexes of the keys not in ``memo``, in order."""
    if not memo.clean and not memo.changed:
        return list(range(len(keys)))
    todo = compress(range(len(keys)), map(not_, map(memo.clean.__contains__, keys)))
    if not memo.changed:
        return list(todo)
    changed = memo.changed
    return [i for i in todo if keys[i] not in changed]


def _chunks(indexes: list[int]) -> Iterator[list[int]]:
    for start in range(0, len(indexes), CHUNK):
        yield indexes[start:start + CHUNK]


def column_transform(plan: CallPlan, report: dict[str, Any]) -> ColumnTransform | None:
    """The column transform of ``plan``'s output pipeline, merging into ``report`` (None
    when the pipeline is empty)."""
    if not plan.output:
        return None

    def transform(column: str, values: list[Any]) -> list[Any]:
        memo = MEMO.column(plan, column)
        keys: list[Hashable] = values if set(map(type, values)) <= {str} else [
            v if type(v) is str else _key(v) for v in values]
        pending = _pending(keys, memo)
        changed: list[int] = []  # indexes of the values changed, of those transformed now
        for chunk in _chunks(pending):
            olds = list(map(values.__getitem__, chunk))
            cells, _ = plan.transform_column(column, olds)
            if cells is None:
                raise ColumnsUnavailable(f"the policy reshaped the rows of {column}")
            chunk_keys = map(keys.__getitem__, chunk)
            if cells is olds:  # the pipeline changed none of them
                memo.clean.update(chunk_keys)
                continue
            for i, k, new, old in zip(chunk, chunk_keys, cells, olds, strict=True):
                if new is old or _same(new, old):
                    memo.clean.add(k)
                else:  # a changed value's own report (redactions, pseudonyms ...), kept with it
                    memo.changed[k] = (new, plan.transform_column(column, [old])[1])
                    changed.append(i)
        if len(pending) == len(keys):  # all transformed now: the changed ones are known
            entries = [(i, memo.changed[keys[i]]) for i in changed]
        else:
            if not memo.changed:
                return values
            shown = memo.changed
            entries = [(i, shown[k]) for i, k in enumerate(keys) if k in shown]
        if not entries:
            return values
        reported: set[Hashable] = set()
        out = list(values)
        for i, (new, own) in entries:
            out[i] = new
            if own and keys[i] not in reported:  # each distinct value reports once
                reported.add(keys[i])
                merge_report(report, own)
        return out

    return transform
