"""What a notebook call returns: ``Result`` (structured data, text, meta, error) and ``ErrorInfo``.

Both backends (remote MCP, in-process layer) build these from the wire shape of a tool result
(``content``/``structuredContent``/``isError``/``_meta``), so renderers, magics and LiveFrames
see one type. ``Result.df`` turns list results into a pandas DataFrame.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..layer.wire import (
    ERROR_CODE_META,
    ERROR_DATA_META,
    ERROR_NAMES,
    INVALID_PARAMS,
    TRANSFORMS_META,
)

if TYPE_CHECKING:
    import pandas

__all__ = ["CloudGError", "ErrorInfo", "FRAME_ATTR", "Result", "close_matches", "error_result",
           "hints_from"]

#: ``DataFrame.attrs`` key marking a frame the client made (value: the tool); with the
#: extension loaded, notebooks show such frames as readable tables (``render.frame_html``).
FRAME_ATTR = "cloudg"

#: Transform report keys (``cloudg/transforms``) that mean a value was changed for privacy.
_TRANSFORM_KINDS = ("redacted", "pseudonymized", "masked", "hashed", "generalized", "dropped")


@dataclass
class ErrorInfo:
    """An error as a person reads it: code, message and hints (close matches, allowed values)."""

    code: int | str
    message: str
    hints: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The code as README's error table names it: ``invalid_arguments``, ``not_found``,
        ``access_denied`` ... (a number the table lacks stays a number). The layer answers
        "not found" and bad arguments with one JSON-RPC code; an error about a thing that
        does not exist says which kind (``kind``) or offers close matches without a list of
        allowed values."""
        code = self.code
        if isinstance(code, str):
            return code
        if code == INVALID_PARAMS:
            data = self.data
            if "kind" in data or ("close_matches" in data and "allowed" not in data):
                return "not_found"
        return ERROR_NAMES.get(code, str(code))

    def __str__(self) -> str:
        hint = f" (did you mean: {', '.join(self.hints)}?)" if self.hints else ""
        return f"[{self.name}] {self.message}{hint}"


def close_matches(word: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """Up to ``n`` candidates that look like ``word`` (difflib ratio ≥ 0.5)."""
    return difflib.get_close_matches(word, list(candidates), n=n, cutoff=0.5)


def hints_from(data: Any, accepted: Iterable[str] = ()) -> list[str]:
    """Hints in error data: ``close_matches`` and ``allowed`` values; for argument-validation
    errors (a list of ``{loc, msg, type}``), close matches of an unknown argument among
    ``accepted`` (or the names the error lists as accepted)."""
    hints: list[str] = []
    if isinstance(data, Mapping):
        for key in ("close_matches", "allowed"):
            values = data.get(key)
            if isinstance(values, list):
                hints.extend(str(v) for v in values)
    elif isinstance(data, list):
        names = list(accepted)
        for item in data:
            if isinstance(item, Mapping) and item.get("type") == "accepted_arguments":
                listed = str(item.get("msg", "")).partition(":")[2]
                names = names or [n.strip() for n in listed.split(",") if n.strip()]
        for item in data:
            if isinstance(item, Mapping) and item.get("type") == "extra_forbidden":
                loc = item.get("loc") or []
                if loc:
                    hints.extend(close_matches(str(loc[0]), names))
    seen: dict[str, None] = {}
    for hint in hints:
        seen.setdefault(hint, None)
    return list(seen)


def _as_dict(data: Any) -> dict[str, Any]:
    if isinstance(data, Mapping):
        return dict(data)
    if data is None:
        return {}
    return {"errors": data}


@dataclass
class Result:
    """One call's outcome. ``tool`` is the exposed tool name, or ``read:<uri>`` /
    ``prompt:<name>`` for other requests."""

    tool: str
    arguments: dict[str, Any]
    data: Any = None
    text: str = ""
    is_error: bool = False
    error: ErrorInfo | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    #: The decoded DataFrame of a result sent as columns.
    _frame: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_wire(cls, tool: str, arguments: Mapping[str, Any],
                  wire: Mapping[str, Any]) -> Result:
        """From a tool result as MCP sends it (``CallToolResult`` dumped by alias)."""
        texts = [str(block.get("text", "")) for block in wire.get("content") or ()
                 if isinstance(block, Mapping) and block.get("type") == "text"]
        text = "\n".join(texts)
        meta = dict(wire.get("_meta") or wire.get("meta") or {})
        is_error = bool(wire.get("isError"))
        error = None
        if is_error:
            data = meta.get(ERROR_DATA_META)
            error = ErrorInfo(code=meta.get(ERROR_CODE_META, "tool_error"),
                              message=text or "The tool reported an error.",
                              hints=hints_from(data), data=_as_dict(data))
        return cls(tool=tool, arguments=dict(arguments), data=wire.get("structuredContent"),
                   text=text, is_error=is_error, error=error, meta=meta)

    # -- views ----------------------------------------------------------------------------

    def _rows(self) -> list[Any] | None:
        data = self.data
        if not isinstance(data, Mapping):
            return None
        items = data.get("items")
        if isinstance(items, list):
            return items
        # Otherwise one list of records beside scalars only ({"dataset", "total", "paths"});
        # a record with nested parts (get_asset's asset + findings) is a dict result.
        lists = [v for v in data.values()
                 if isinstance(v, list) and v and all(isinstance(x, Mapping) for x in v)]
        scalars = all(isinstance(v, (str, int, float, bool)) or v is None
                      for v in data.values() if not (lists and v is lists[0]))
        return lists[0] if len(lists) == 1 and scalars else None

    @property
    def is_list(self) -> bool:
        """Whether this is a list result (``data["items"]`` or one list of records)."""
        return self._rows() is not None

    def columns_frame(self) -> pandas.DataFrame | None:
        """A list result sent as columns, as a DataFrame (decoded once); None otherwise."""
        data = self.data
        if not isinstance(data, Mapping):
            return None
        from .frame_from_columns import decode_columns, is_columns

        columns = data.get("columns")
        if not is_columns(columns) or not isinstance(columns, Mapping):
            return None
        if self._frame is None:
            self._frame = decode_columns(columns)
            self._frame.attrs[FRAME_ATTR] = self.tool
        return self._frame

    @property
    def df(self) -> pandas.DataFrame | None:
        """List results as a DataFrame (one row per item); None for other results."""
        frame = self.columns_frame()
        if frame is not None:
            return frame
        rows = self._rows()
        if rows is None:
            return None
        import pandas

        if rows and all(isinstance(r, Mapping) for r in rows):
            frame = pandas.DataFrame.from_records(rows)
        else:
            frame = pandas.DataFrame({"value": rows})
        frame.attrs[FRAME_ATTR] = self.tool
        return frame

    @property
    def next_cursor(self) -> str | None:
        """The cursor of the next page, when the result is paged and more remains."""
        if isinstance(self.data, Mapping):
            cursor = self.data.get("next_cursor")
            return str(cursor) if cursor else None
        return None

    @property
    def dataset(self) -> str | None:
        if isinstance(self.data, Mapping) and isinstance(self.data.get("dataset"), str):
            return str(self.data["dataset"])
        return None

    @property
    def caption(self) -> str:
        """One line about a list result: "12 of 340 rows · dataset demo v3 · next page: ..."."""
        return self.caption_of("rows")

    def caption_of(self, rows: str) -> str:
        """``caption`` naming what a row is: "50 of 12,431 findings · dataset demo v3 · ..."."""
        parts: list[str] = []
        data = self.data if isinstance(self.data, Mapping) else {}
        listed = self._rows()
        if listed is not None:
            shown = len(listed) if not isinstance(data.get("columns"), Mapping) else int(
                data.get("returned") or 0)
            total = data.get("total")
            parts.append(f"{shown:,} of {total:,} {rows}"
                         if isinstance(total, int) and total != shown else f"{shown:,} {rows}")
        if self.dataset:
            version = data.get("dataset_version", data.get("version"))
            parts.append(f"dataset {self.dataset}" + (f" v{version}" if version else ""))
        if self.next_cursor:
            parts.append("next page: %cloudg next")
        return " · ".join(parts)

    @property
    def text_cut(self) -> int:
        """Characters the server cut from the result's text (0 when none); the structured
        data, which notebooks show, is whole."""
        report = self.meta.get(TRANSFORMS_META)
        cut = report.get("truncated_chars") if isinstance(report, Mapping) else None
        return cut if isinstance(cut, int) else 0

    @property
    def transform_note(self) -> str | None:
        """What the policy changed (counts by kind), e.g. "redacted 2 (secret) · pseudonymized
        5 (account_id)"; None when nothing was changed. (A cut of the result's text is not a
        privacy change: ``text_cut``.)"""
        report = self.meta.get(TRANSFORMS_META)
        if not isinstance(report, Mapping):
            return None
        notes: list[str] = []
        for kind in _TRANSFORM_KINDS:
            value = report.get(kind)
            if isinstance(value, Mapping) and value:
                total = sum(int(v) for v in value.values() if isinstance(v, (int, float)))
                notes.append(f"{kind} {total} ({', '.join(sorted(map(str, value)))})")
            elif isinstance(value, (int, float)) and value:
                notes.append(f"{kind} {int(value)}")
        return " · ".join(notes) or None

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None
                          ) -> dict[str, Any] | None:
        """A notebook shows a Result as ``%cloudg call`` would (``render.render_result``, once
        render is loaded: ``%load_ext cloudg_nb`` loads it); before that, as its repr."""
        shown = RESULT_DISPLAY[0] if RESULT_DISPLAY else None
        if shown is None:
            return None
        bundle: dict[str, Any] = shown(self)._repr_mimebundle_(include, exclude)
        return bundle

    def __repr__(self) -> str:
        if self.is_error and self.error is not None:
            return f"<Result {self.tool} error {self.error}>"
        return f"<Result {self.tool} {self.caption or type(self.data).__name__}>"


#: How a notebook shows a Result: ``render.py`` puts its ``render_result`` here when it is
#: imported (render imports this module, so the way back is this slot, not an import).
RESULT_DISPLAY: list[Callable[[Result], Any]] = []


def error_result(tool: str, arguments: Mapping[str, Any], code: int | str, message: str,
                 hints: list[str] | None = None, data: Any = None) -> Result:
    """An error Result built on the client side (unknown tool, connection, interrupted)."""
    return Result(tool=tool, arguments=dict(arguments), text=message, is_error=True,
                  error=ErrorInfo(code=code, message=message, hints=list(hints or []),
                                  data=_as_dict(data)))


class CloudGError(Exception):
    """A request failed (``frame`` of an error result, a failed read, prompt or completion);
    ``error`` holds the code, message and hints."""

    def __init__(self, error: ErrorInfo) -> None:
        super().__init__(str(error))
        self.error = error
