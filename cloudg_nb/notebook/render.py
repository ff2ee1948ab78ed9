"""How notebook results look: list results as a DataFrame with a one-line caption, dicts as a
readable key/value table, errors as a short message with code and hints (never a traceback),
plus a small note of what the policy redacted or pseudonymised.

Every ``render_*`` function returns a ``Rendered`` (HTML + plain text in one MIME bundle), so
Jupyter shows HTML and terminal IPython / nbconvert text show the same content as text. In a
kernel, a table of more than ``LARGE_RESULT_ROWS`` rows shows as an interactive grid and a
path or blast-radius result as a graph (a ``WidgetRendered``: the widget is made when shown).
Colours are the notebook theme's (``--jp-*`` variables), so results read in light and dark.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import yaml

from .call_result import FRAME_ATTR, RESULT_DISPLAY, ErrorInfo, Result
from .readable_table import value_text

if TYPE_CHECKING:
    import pandas

__all__ = [
    "Rendered", "WidgetRendered", "render", "render_result", "render_error", "render_value",
    "render_table", "render_messages", "render_note", "table_of", "with_note", "MAX_TEXT_CHARS",
    "table", "frame_html",
]

#: A dict or text shown beyond this many characters is cut, with a note saying how to get it.
MAX_TEXT_CHARS = 20_000

#: Colours come from the front end's theme, light or dark: JupyterLab's (and Notebook 7's)
#: ``--jp-*`` CSS variables, then VS Code's ``--vscode-*``, then values for a light page
#: (classic Notebook). Text colour is inherited; backgrounds are tints, never a fixed colour.
_DIM_TEXT = "var(--jp-content-font-color2,var(--vscode-descriptionForeground,#616161))"
_ERROR_STYLE = ("border-left:3px solid var(--jp-error-color1,var(--vscode-errorForeground,"
                "#d32f2f));padding:4px 10px;margin:2px 0;background:rgba(211,47,47,.08);"
                "font-family:var(--jp-ui-font-family,sans-serif)")
_CAPTION_STYLE = f"color:{_DIM_TEXT};font-size:90%;margin:2px 0"
_NOTE_STYLE = (f"color:{_DIM_TEXT};font-size:85%;margin:2px 0;padding-left:6px;"
               "border-left:3px solid var(--jp-warn-color1,var(--vscode-editorWarning-foreground,"
               "#f57c00))")


class Rendered:
    """One display: HTML for Jupyter, text for terminals; ``repr()`` is the text."""

    def __init__(self, html_body: str, text: str) -> None:
        self.html = html_body
        self.text = text

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/plain": self.text, "text/html": self.html}

    def __repr__(self) -> str:
        return self.text


class WidgetRendered(Rendered):
    """A display that is a widget in a kernel and ``Rendered``'s HTML / text elsewhere.

    ``make()`` builds the widget when the display is shown (so a result that is never shown
    costs nothing) and returns None where no widget should be shown (no kernel, opted out);
    ``.html`` and ``.text`` are what a notebook without widgets shows."""

    def __init__(self, html_body: str, text: str, make: Callable[[], Any]) -> None:
        super().__init__(html_body, text)
        self.make = make

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        widget = self.make()
        if widget is None:
            return super()._repr_mimebundle_(include, exclude)
        bundle = widget._repr_mimebundle_()
        bundle = bundle[0] if isinstance(bundle, tuple) else bundle
        return {**bundle, "text/plain": self.text}


def render(value: Any) -> Rendered:
    """Whatever a subcommand produced: a Result, an ErrorInfo, a DataFrame or a plain value."""
    if isinstance(value, Rendered):
        return value
    if isinstance(value, Result):
        return render_result(value)
    if isinstance(value, ErrorInfo):
        return render_error(value)
    if _is_frame(value):
        return render_table(value)
    return render_value(value)


def render_result(result: Result, display: Mapping[str, Any] | None = None) -> Rendered:
    """A tool result: error -> short message; list -> table + caption; else the data (or text).
    ``display`` is the tool's ``cloudg/display`` (its default columns and what a row is)."""
    if result.is_error:
        error = result.error or ErrorInfo(code="tool_error", message=result.text or "failed")
        return render_error(error, result.tool)
    note = result.transform_note
    frame = result.df
    view = display if isinstance(display, Mapping) else {}
    columns = view.get("columns") if isinstance(view.get("columns"), list) else None
    rows = str(view.get("rows") or "rows")
    if frame is not None:
        body = render_table(frame, result.caption_of(rows), columns=columns, rows=rows,
                            complete=result.next_cursor is None)
    elif result.data is not None:
        body = render_value(result.data)
    else:
        body = render_value(result.text)
        cut = result.text_cut
        if cut:
            note = " · ".join(filter(None, [note, (
                f"the server cut this text: {cut:,} more characters (its max_output_chars "
                "setting)")]))
    from .graph_view import is_graph_result

    if is_graph_result(result.tool, result.data):
        return with_note(_graph_display(result, body), note)
    return with_note(body, note)


RESULT_DISPLAY[:] = [render_result]  # a Result shown in a notebook reads as %cloudg call's


def _graph_display(result: Result, body: Rendered) -> WidgetRendered:
    """What the magics show for a graph ``result``: in a kernel, its graph above ``body``
    (the table of a list result, as a grid when large) or above a one-line caption (other
    results); elsewhere ``body`` as it is."""
    from .graph_view import current_client, graph_view, use_graph

    def make() -> Any:
        if not use_graph():
            return None
        import ipywidgets

        view = graph_view(result, client=current_client())  # rings and findings, all pages
        if result.is_list:
            below = body.make() if isinstance(body, WidgetRendered) else None
            if below is None:
                below = ipywidgets.HTML(body.html)
        else:
            below = ipywidgets.HTML(
                f"<div class='cloudg-caption' style='{_CAPTION_STYLE}'>"
                "click a node for its findings and attributes · drag to pan, scroll to zoom · "
                "<code>-o VAR</code> stores the data</div>")
        return ipywidgets.VBox([view, below])

    return WidgetRendered(body.html, body.text, make)


def render_error(error: ErrorInfo, tool: str | None = None) -> Rendered:
    """``Error [name] in tool: message`` (the README's error names, never a bare number), the
    argument it is about, close matches and allowed values, and the error's other details
    shown (the message may refer to them as "the error data")."""
    where = f" in {tool}" if tool and ":" not in tool else ""
    details = _error_details(error)
    rows: list[tuple[str, str]] = []
    argument = _error_argument(error)
    if argument:
        rows.append(("argument", argument))
    close, allowed = _error_choices(error)
    if close:
        rows.append(("did you mean", ", ".join(close)))
    if allowed:
        rows.append(("allowed", ", ".join(allowed)))
    rows.extend(details)
    message = error.message
    if rows:  # the data the message points to is shown under it
        message = message.replace("in the error data", "below").replace(
            "the error data", "the lines below")
    if isinstance(error.code, int):
        rows.append(("code", f"{error.code} (JSON-RPC)"))
    head_text = f"Error [{error.name}]{where}: {message}"
    lines = [head_text, *(f"  {key}: {value}" for key, value in rows)]
    parts = [f"<b>Error</b> <code>[{_e(error.name)}]</code>{_e(where)}: {_e(message)}"]
    for key, value in rows:
        shown = _e(value) if key in ("code",) else f"<code>{_e(value)}</code>"
        parts.append(f"<span class='cloudg-error-key'>{_e(key)}:</span> {shown}")
    body = "<br>".join(parts)
    return Rendered(f'<div class="cloudg-error" style="{_ERROR_STYLE}">{body}</div>',
                    "\n".join(lines))


#: Error data keys shown in their own line (argument, matches, allowed) or not at all.
_SHOWN_APART = frozenset({"field", "close_matches", "allowed", "errors"})


def _error_details(error: ErrorInfo) -> list[tuple[str, str]]:
    """The error data a reader needs besides the argument and choices: ``roots: ., data`` ...;
    argument-validation errors as ``limit: Input should be a valid integer``."""
    data = error.data if isinstance(error.data, Mapping) else {}
    rows: list[tuple[str, str]] = []
    for item in data.get("errors") or ():
        if isinstance(item, Mapping) and item.get("type") not in (
                "accepted_arguments", "extra_forbidden") \
                and str(item.get("msg", "")) not in error.message:
            loc = ".".join(str(p) for p in item.get("loc") or ()) or "arguments"
            rows.append((loc, str(item.get("msg", ""))))
    for key, value in data.items():
        if key in _SHOWN_APART or value is None or value == "" or value == []:
            continue
        text = value_text(str(key), value) or _inline(value) or _yaml(value)
        rows.append((str(key), text))
    return rows


def _error_choices(error: ErrorInfo) -> tuple[list[str], list[str]]:
    """(close matches, allowed values) of an error: from its data when it has them, else its
    hints as close matches."""
    data = error.data if isinstance(error.data, Mapping) else {}
    close = [str(v) for v in data.get("close_matches") or ()] if isinstance(
        data.get("close_matches"), list) else []
    allowed = [str(v) for v in data.get("allowed") or ()] if isinstance(
        data.get("allowed"), list) else []
    if not close and not allowed:
        close = list(error.hints)
    return close, allowed


def render_table(frame: pandas.DataFrame, caption: str = "", *,
                 columns: Sequence[str] | None = None, rows: str = "rows",
                 wrap: Sequence[str] = (), complete: bool = True) -> Rendered:
    """A DataFrame as a readable table (``readable_table.py``: no index, ids unwrapped, ``—``
    for missing, readable times and numbers) of its ``columns`` (all when None), with the
    caption and, in words, what the table leaves out; columns in ``wrap`` wrap whole instead
    of being cut. In a kernel, a frame of more rows than the table shows (``TABLE_ROWS``) is
    an interactive grid holding every row (``complete``: the frame is the whole result, not
    one page of it)."""
    from .readable_table import TABLE_ROWS, readable_table

    table = readable_table(frame, columns=columns, wrap=wrap)
    hidden = _hidden_columns(table.columns_hidden)
    cut = (f"showing {table.rows_shown:,} of {len(frame):,} {rows} — "
           "-o VAR stores them all" if table.rows_shown < len(frame) else "")
    body = _captioned(table.html, table.text, [caption, cut, hidden])
    if len(frame) <= TABLE_ROWS:
        return body
    from .grid import grid_display

    in_grid = (f"{'all ' if complete else ''}{len(frame):,} {rows} in the grid: sort, filter "
               "and pick columns there · -o VAR stores them")
    below = _captioned("", "", [caption, in_grid, hidden]).html
    return WidgetRendered(body.html, body.text,
                          lambda: grid_display(frame, below, columns=table.columns_shown))


def table(frame: pandas.DataFrame, columns: Sequence[str] | None = None, caption: str = "",
          rows: str = "rows") -> Rendered:
    """Any DataFrame shown as the magics show tables (``render_table``): the last line of a
    cell, or ``display(table(df, ["id", "title"]))``."""
    return render_table(frame, caption, columns=columns, rows=rows)


def frame_html(frame: pandas.DataFrame) -> str | None:
    """The HTML a notebook shows for a DataFrame the client made (``FRAME_ATTR`` in its
    ``attrs``, kept through selections and ``head``): the readable table of its columns;
    None for any other DataFrame (IPython then shows pandas' own)."""
    if FRAME_ATTR not in getattr(frame, "attrs", {}):
        return None
    from .readable_table import readable_table

    shown = readable_table(frame)
    cut = (f"showing {shown.rows_shown:,} of {len(frame):,} rows (the DataFrame holds them "
           "all)" if shown.rows_shown < len(frame) else "")
    return _captioned(shown.html, "", [cut]).html


def _hidden_columns(hidden: Sequence[str]) -> str:
    if not hidden:
        return ""
    named = ", ".join(hidden[:4]) + (", …" if len(hidden) > 4 else "")
    return f"{len(hidden)} more column{'s' if len(hidden) > 1 else ''} ({named}) in -o VAR"


def _captioned(table_html: str, table_text: str, lines: Sequence[str]) -> Rendered:
    """A table with its caption lines (empty ones left out) under it."""
    kept = [line for line in lines if line]
    if not kept:
        return Rendered(table_html, table_text)
    text = " · ".join(kept)
    shown = _e(text)
    for code in ("%cloudg next", "-o VAR"):
        shown = shown.replace(code, f"<code>{code}</code>")
    below = f'<div class="cloudg-caption" style="{_CAPTION_STYLE}">{shown}</div>'
    return Rendered(table_html + below, f"{table_text}\n{text}" if table_text else text)


def table_of(value: Any) -> pandas.DataFrame | None:
    """A resource value that is a table as a DataFrame: ``{"columns": [...], "data": [[...]]}``
    (the dataset tables), or what ``Result.df`` finds (``items`` or one list of records)."""
    if isinstance(value, Mapping) and isinstance(value.get("columns"), list) \
            and isinstance(value.get("data"), list) \
            and all(isinstance(row, list) for row in value["data"]):
        import pandas

        return pandas.DataFrame(value["data"], columns=[str(c) for c in value["columns"]])
    return Result(tool="value", arguments={}, data=value).df


def render_value(value: Any, title: str | None = None) -> Rendered:
    """A dict as a key/value table (nested values as YAML), a list or scalar as text."""
    head_html = f"<b>{_e(title)}</b>" if title else ""
    head_text = f"{title}\n" if title else ""
    if isinstance(value, Mapping):
        if not value:
            return Rendered(f"{head_html}<div><i>(empty)</i></div>", f"{head_text}(empty)")
        rows_html: list[str] = []
        rows_text: list[str] = []
        width = min(max(len(str(k)) for k in value), 24)
        for key, item in value.items():
            inline = value_text(str(key), item) or _inline(item)
            if inline is not None:
                rows_html.append(f"<tr><th style='text-align:left'>{_e(key)}</th>"
                                 f"<td style='text-align:left'>{_e(inline)}</td></tr>")
                rows_text.append(f"{key!s:<{width}}  {inline}")
            else:
                block = _cut(_yaml(item))
                rows_html.append(f"<tr><th style='text-align:left;vertical-align:top'>{_e(key)}"
                                 f"</th><td style='text-align:left'><pre style='margin:0'>"
                                 f"{_e(block)}</pre></td></tr>")
                indented = "\n".join("  " + line for line in block.splitlines())
                rows_text.append(f"{key}:\n{indented}")
        return Rendered(f"{head_html}<table class='cloudg-dict'>{''.join(rows_html)}</table>",
                        head_text + "\n".join(rows_text))
    if isinstance(value, str):
        text = _cut(value)
        return Rendered(f"{head_html}<pre style='white-space:pre-wrap'>{_e(text)}</pre>",
                        head_text + text)
    inline = _inline(value)
    text = inline if inline is not None else _cut(_yaml(value))
    return Rendered(f"{head_html}<pre>{_e(text)}</pre>", head_text + text)


def render_messages(messages: Sequence[Mapping[str, Any]], title: str | None = None) -> Rendered:
    """Prompt messages, one block per message headed by its role."""
    parts_html = [f"<b>{_e(title)}</b>"] if title else []
    parts_text = [title] if title else []
    for message in messages:
        role = str(message.get("role", ""))
        text = _cut(str(message.get("text", "")))
        parts_html.append(f"<div><i>{_e(role)}</i><pre style='white-space:pre-wrap;margin:0'>"
                          f"{_e(text)}</pre></div>")
        parts_text.append(f"[{role}]\n{text}")
    return Rendered("".join(parts_html), "\n".join(parts_text))


def render_note(text: str) -> Rendered:
    """A one-line informational message (mode chosen, no more pages, stored as df ...)."""
    return Rendered(f'<div style="{_CAPTION_STYLE}">{_e(text)}</div>', text)


def with_note(body: Rendered, note: str | None) -> Rendered:
    """``body`` with a line saying what the privacy policy changed (none when ``note`` is
    None)."""
    if not note:
        return body
    text = f"privacy policy: {note}"
    note_html = f'<div class="cloudg-transforms" style="{_NOTE_STYLE}">{_e(text)}</div>'
    if isinstance(body, WidgetRendered):
        make = body.make

        def noted() -> Any:
            widget = make()
            if widget is None:
                return None
            import ipywidgets

            return ipywidgets.VBox([widget, ipywidgets.HTML(note_html)])

        return WidgetRendered(body.html + note_html, f"{body.text}\n{text}", noted)
    return Rendered(f"{body.html}{note_html}", f"{body.text}\n{text}")


#: The name ``with_note`` had before it was shared with the magics.
_with_note = with_note


def _error_argument(error: ErrorInfo) -> str | None:
    """The argument(s) an error is about: ``field`` of the error data, or the ``loc`` of each
    argument-validation error."""
    data = error.data if isinstance(error.data, Mapping) else {}
    if data.get("field"):
        return str(data["field"])
    names = [str(item["loc"][0]) for item in data.get("errors") or ()
             if isinstance(item, Mapping) and isinstance(item.get("loc"), list) and item["loc"]]
    return ", ".join(dict.fromkeys(names)) or None


def _scalar(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _inline(value: Any) -> str | None:
    """A short one-line form for scalars and short flat lists / dicts, else None."""
    if value is None or isinstance(value, (bool, int, float, str)):
        text = _scalar(value)
        return text if len(text) <= 200 and "\n" not in text else None
    if isinstance(value, (list, tuple)) and all(
            v is None or isinstance(v, (bool, int, float, str)) for v in value):
        text = ", ".join(_scalar(v) for v in value)
        return (text or "[]") if len(text) <= 200 else None
    if isinstance(value, Mapping) and all(
            isinstance(v, (bool, int, float, str)) or v is None for v in value.values()):
        text = ", ".join(f"{k}: {_scalar(v)}" for k, v in value.items())
        return (text or "{}") if len(text) <= 200 else None
    return None


def _yaml(value: Any) -> str:
    try:
        return yaml.safe_dump(value, sort_keys=False, allow_unicode=True,
                              default_flow_style=False, width=100).rstrip()
    except yaml.YAMLError:
        return json.dumps(value, indent=2, default=str, ensure_ascii=False)


def _cut(text: str) -> str:
    if len(text) <= MAX_TEXT_CHARS:
        return text
    more = len(text) - MAX_TEXT_CHARS
    return (f"{text[:MAX_TEXT_CHARS]}\n… {more} more characters (store the result with "
            "-o VAR to see all of it)")


def _is_frame(value: Any) -> bool:
    return type(value).__name__ == "DataFrame" and hasattr(value, "to_html")


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)
