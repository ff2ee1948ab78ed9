"""An ordered pipeline of value transforms and the context they share for one value.

A transform is any callable ``step(value, ctx) -> value`` that records what it did in
``ctx.report`` (counts add up when reports merge). A step may also take the cells of one
column at once (``column(key, cells, ctx)``, see ``Pipeline.apply_column``): a large result
sent as columns then skips building and walking a row per cell. Defined in the core (stdlib
only): the steps in ``cloudg_nb.transforms`` depend on this module, never the other way round.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:  # type-only: this module stays stdlib-only at run time
    from .principal import Principal
    from .specs import AnySpec

__all__ = ["REMOVED", "ROWS_KEY", "TransformContext", "Pipeline", "Transform", "merge_report",
           "PseudonymVault"]

#: The key a page of rows sits under (``{"items": [row, ...]}``): a column's cells are
#: transformed as the rows ``{"items": [{column: cell}, ...]}`` would be.
ROWS_KEY = "items"


class _Removed:
    def __repr__(self) -> str:
        return "REMOVED"


#: A cell whose key a step took away (the row came out without it).
REMOVED: Any = _Removed()


class PseudonymVault(Protocol):
    """The pseudonym vault a ``TransformContext`` carries, as the steps use it (the policy's
    ``cloudg_nb.transforms.vault.Vault``): keyed hashes, pseudonyms issued and looked up,
    values held back while a batch is rewritten, identifiers learned, its file flushed."""

    def __len__(self) -> int:
        """How many pseudonyms it issued."""

    def hash(self, entity: str, value: str, length: int = 12) -> str: ...

    def pseudonymize(self, entity: str, value: str) -> str: ...

    def lookup(self, token: str) -> tuple[str, str] | None:
        """``(entity, original)`` of a pseudonym it issued, else None."""

    def reserve(self, values: Iterable[str]) -> list[str]:
        """Hold ``values`` back from being issued as pseudonyms until ``release``."""

    def release(self, marked: list[str]) -> None: ...

    def learn(self, entity: str, values: Iterable[object]) -> None: ...

    def learned(self) -> int:
        """How many identifiers it learned so far (grows when it learns more)."""

    def find_known(self, entity: str, text: str) -> list[tuple[int, int]]:
        """Spans of ``text`` holding an identifier of ``entity`` it learned."""

    def flush(self) -> None: ...


@dataclass
class TransformContext:
    """Per-value state: direction, the pseudonym vault, and the report being built."""

    direction: Literal["input", "output"] = "output"
    vault: PseudonymVault | None = None
    report: dict[str, Any] = field(default_factory=dict)
    principal: Principal | None = None
    spec: AnySpec | None = None
    #: Facts one step leaves for the next (e.g. an upper bound of the value's JSON size).
    scratch: dict[str, Any] = field(default_factory=dict)

    def count(self, key: str, entity: str | None = None, n: int = 1) -> None:
        """Add ``n`` to ``report[key]`` (or ``report[key][entity]``)."""
        if entity is None:
            self.report[key] = self.report.get(key, 0) + n
        else:
            bucket = self.report.setdefault(key, {})
            bucket[entity] = bucket.get(entity, 0) + n


Transform = Callable[[Any, TransformContext], Any]


class Pipeline:
    """Transforms applied in order; an empty pipeline is falsy and costs nothing."""

    __slots__ = ("steps",)

    def __init__(self, steps: Iterable[Transform] = ()) -> None:
        self.steps: tuple[Transform, ...] = tuple(steps)

    def __bool__(self) -> bool:
        return bool(self.steps)

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self) -> Iterator[Transform]:
        return iter(self.steps)

    def __add__(self, other: Pipeline) -> Pipeline:
        return Pipeline(self.steps + tuple(other.steps))

    def __repr__(self) -> str:
        names = ", ".join(getattr(s, "name", type(s).__name__) for s in self.steps)
        return f"Pipeline([{names}])"

    def apply(self, value: Any, ctx: TransformContext) -> Any:
        for step in self.steps:
            value = step(value, ctx)
        return value

    def apply_column(self, key: str, cells: list[Any], ctx: TransformContext) -> list[Any] | None:
        """The cells of column ``key`` as ``apply`` leaves them in the one-column rows
        ``{"items": [{key: cell}, ...]}`` (``REMOVED`` where a step took the key away); None
        when a step reshaped the rows (cut the list). A step with a ``column(key, cells, ctx)``
        method takes the cells as they are (it returns them transformed, or None when only
        the rows can show what it does); from the first step that does not, the rows are
        built from the cells so far and the remaining steps run on them."""
        for n, step in enumerate(self.steps):
            column = getattr(step, "column", None)
            out = column(key, cells, ctx) if column is not None else None
            if out is None:
                rows: Any = {ROWS_KEY: [{} if c is REMOVED else {key: c} for c in cells]}
                for rest in self.steps[n:]:
                    rows = rest(rows, ctx)
                items = rows.get(ROWS_KEY) if isinstance(rows, dict) else None
                if not isinstance(items, list) or len(items) != len(cells):
                    return None
                return [row.get(key, REMOVED) if isinstance(row, dict) else REMOVED
                        for row in items]
            cells = out
        return cells


def merge_report(into: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """Merge ``other`` into ``into``: numbers add up, mappings merge, other values keep the
    first seen. Returns ``into``."""
    for key, value in other.items():
        if key not in into:
            into[key] = _copy(value)
            continue
        current = into[key]
        if _is_number(current) and _is_number(value):
            into[key] = current + value
        elif isinstance(current, dict) and isinstance(value, dict):
            merge_report(current, value)
    return into


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return list(value)
    return value
