"""The ``%cloudg`` line magic and ``%%cloudg`` cell magic (``%load_ext cloudg_nb``).

Each subcommand calls the magics' client (``default_client()`` unless ``connect``/``local``
chose another) and displays what came back through ``render``. Errors show as a short message
with code and hints, never a traceback, and ``-o VAR`` stores nothing then; a list result
stores its DataFrame, anything else its data. Interrupts propagate after the client cancelled.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.display import display

from ..layer.wire import CATEGORY_META, DISPLAY_META, WORKSPACE_URI
from .call_result import CloudGError, ErrorInfo, Result, close_matches
from .completion import MagicCompleter
from .magic_args import (
    MagicArgumentError,
    ParsedLine,
    check_variable_name,
    parse_body,
    parse_line,
)
from .readable_table import TABLE_ROWS
from .render import (
    Rendered,
    render_error,
    render_messages,
    render_note,
    render_result,
    render_table,
    render_value,
    table_of,
    with_note,
)

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from .client import Client

__all__ = ["CloudGMagics", "HELP", "SUBCOMMANDS", "load_ipython_extension",
           "unload_ipython_extension"]

_OUT = {"-o": "out", "--out": "out"}

#: subcommand -> (usage, one-line summary); the order is the help's order.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "tools": ("tools [CATEGORY]", "list the tools (of one category)"),
    "describe": ("describe TOOL", "a tool's description and argument table"),
    "call": ("call TOOL key=value ... [-o VAR]", "call a tool; -o stores the result"),
    "read": ("read URI [-o VAR]", f"read a resource, e.g. {WORKSPACE_URI}"),
    "prompt": ("prompt NAME key=value ... [-o VAR]", "show a prompt's messages"),
    "datasets": ("datasets [-o VAR]", "the loaded datasets"),
    "use": ("use NAME", "make a loaded dataset the active one"),
    "load": ("load PATH [as NAME] [-o VAR]", "load an estate file or folder as a dataset"),
    "status": ("status", "mode (remote/local), connection and workspace"),
    "policy": ("policy", "the privacy policy in force"),
    "audit": ("audit [N]", "the last N entries of the privacy audit log"),
    "next": ("next [-o VAR]", "the next page of the last paged result"),
    "connect": ("connect [URL] [--token T]", "use the Jupyter server's shared workspace"),
    "local": ("local [--policy P]", "use an in-process workspace (demo estate loaded)"),
    "diff": ("diff [BASE] [TARGET] [-o VAR]",
             "what got worse, then what improved, from BASE to TARGET (default: the active "
             "dataset; no BASE: since its latest snapshot)"),
    "live": ("live TOOL key=value ... [-o VAR]",
             "a table that updates itself when the workspace changes"),
    "activity": ("activity [-o VAR]", "every call by assistants and you, live (no values)"),
    "approvals": ("approvals [-o VAR]", "assistants' calls waiting for you: Approve / Deny"),
    "approve": ("approve ID [REASON]", "let an assistant's waiting call run"),
    "deny": ("deny ID [REASON]", "refuse an assistant's waiting call (it is told REASON)"),
    "assistants": ("assistants [revoke NAME] [-o VAR]",
                   "the assistants' credentials; revoke ends one's access"),
    "help": ("help [SUBCOMMAND]", "this help"),
}

HELP = """Call cloudg tools from a notebook, on the same workspace as your AI assistants.

Usage: %cloudg SUBCOMMAND [ARGS]     (Tab completes subcommands, tools, arguments, values)

{table}

Arguments are key=value words. Values are JSON where they parse (5, true, ["HIGH"],
{{"env": "prod"}}, "quoted text"), else Python literals (['HIGH'] from $var), else plain
strings (customers-db). IPython expands $name and {{expr}} on the line first (write {{{{ for a
literal brace when you also use $name).

Large arguments go in a cell, as JSON or YAML:

    %%cloudg call suppress_findings -o res
    ids: [F-1001, F-1002]
    reason: accepted risk

Examples:
    %cloudg call find_assets internet_exposed=true -o df
    %cloudg call list_findings severities=["HIGH","CRITICAL"]
    %cloudg next
    %cloudg live list_findings severities=["HIGH"] -o lf
    %cloudg diff last-week            (what got worse since dataset last-week)
    %cloudg approvals                 (assistants' calls waiting for you)
    %cloudg deny Xy3k9 not on prod

-o VAR stores the DataFrame of a list result, else the result's data; an error stores nothing.
The same API from Python: cloudg_nb.connect() / cloudg_nb.local() -> Client.call(...).
"""


def _help_table() -> str:
    width = max(len(usage) for usage, _ in SUBCOMMANDS.values())
    return "\n".join(f"  {usage:<{width}}  {summary}" for usage, summary in SUBCOMMANDS.values())


HELP = HELP.format(table=_help_table())


def _default_client_or_none() -> Client | None:
    """The process's default client if one is chosen (never makes one, nor imports the client:
    until it is imported, none is chosen)."""
    client_module = sys.modules.get(f"{__package__}.client")
    return None if client_module is None else client_module._default


def _open_ahead() -> Client | None:
    """The warm-up's client (its thread imports the client, not the ``%load_ext`` cell)."""
    from .client import open_found

    return open_found()


@magics_class
class CloudGMagics(Magics):
    """``%cloudg`` / ``%%cloudg``; the client is chosen on first use."""

    def __init__(self, shell: InteractiveShell | None = None) -> None:
        super().__init__(shell)
        self._client: Client | None = None
        self.last_paged: Result | None = None
        self._handlers: dict[str, Callable[[ParsedLine, str | None], None]] = {
            "tools": self._tools, "describe": self._describe, "call": self._call,
            "read": self._read, "prompt": self._prompt, "datasets": self._datasets,
            "use": self._use, "load": self._load, "status": self._status,
            "policy": self._policy, "audit": self._audit, "next": self._next,
            "connect": self._connect, "local": self._local, "live": self._live,
            "diff": self._diff,
            "activity": self._activity, "approvals": self._approvals,
            "approve": self._approve, "deny": self._deny, "assistants": self._assistants,
            "help": self._help,
        }

    # -- the client --------------------------------------------------------------------------

    @property
    def client(self) -> Client:
        """The client the magics use: set by ``connect``/``local``, else the default one."""
        from .client import default_client

        if self._client is not None and not getattr(self._client, "_closed", False):
            return self._client
        return default_client()

    def client_or_none(self) -> Client | None:
        """For completion: the client, or None when none can be made (never raises)."""
        try:
            return self.client
        except Exception:
            return None

    def set_client(self, client: Client) -> None:
        from .client import set_default_client

        self._client = client
        set_default_client(client)
        self.last_paged = None

    # -- entry point -------------------------------------------------------------------------

    @line_cell_magic
    def cloudg(self, line: str, cell: str | None = None) -> None:
        head, *tail = line.split(None, 1) or [""]
        sub, rest = head.lower(), (tail[0] if tail else "")
        if not sub or sub in ("-h", "--help", "?"):
            sub = "help"
        handler = self._handlers.get(sub)
        try:
            if handler is None:
                hints = close_matches(sub, self._handlers, n=3)
                raise MagicArgumentError(
                    f"Unknown subcommand {sub!r}; %cloudg help lists them."
                    + (f" Did you mean: {', '.join(hints)}?" if hints else ""))
            if cell is not None and sub not in ("call", "live"):
                raise MagicArgumentError(
                    f"%%cloudg {sub} takes no cell body; only %%cloudg call / live do.")
            handler(self._parse(sub, rest), cell)
        except MagicArgumentError as exc:
            display(render_error(ErrorInfo(code="usage", message=str(exc))))
        except CloudGError as exc:
            display(render_error(exc.error))
        finally:
            self._show_notes()

    def _show_notes(self) -> None:
        """Print what the client noted meanwhile (a reconnection) to stderr, once each."""
        client = self._client if self._client is not None else _default_client_or_none()
        for note in client.take_notes() if client is not None else ():
            print(note, file=sys.stderr)

    cloudg.__doc__ = HELP

    # -- parsing helpers -----------------------------------------------------------------------

    @staticmethod
    def _parse(sub: str, rest: str) -> ParsedLine:
        options = dict(_OUT)
        if sub == "connect":
            options = {"--token": "token"}
        elif sub == "local":
            options = {"--policy": "policy"}
        parsed = parse_line(rest, options=options)
        out = parsed.options.get("out")
        if out is not None:
            check_variable_name(out)
        return parsed

    @staticmethod
    def _words(parsed: ParsedLine, usage: str, least: int, most: int) -> list[str]:
        n = len(parsed.words)
        if not least <= n <= most:
            raise MagicArgumentError(f"Usage: %cloudg {usage}")
        return parsed.words

    @staticmethod
    def _no_arguments(parsed: ParsedLine, usage: str) -> None:
        if parsed.arguments:
            names = ", ".join(parsed.arguments)
            raise MagicArgumentError(f"Unexpected key=value ({names}). Usage: %cloudg {usage}")

    def _store(self, parsed: ParsedLine, value: Any) -> None:
        out = parsed.options.get("out")
        if out is not None and self.shell is not None:
            self.shell.user_ns[out] = value

    def _display_of(self, tool: str) -> dict[str, Any] | None:
        """The tool's ``cloudg/display`` (default columns, what a row is), or None."""
        try:
            tools = self.client.tools()
        except Exception:
            return None
        for spec in tools:
            if spec.get("name") == tool:
                view = (spec.get("_meta") or {}).get(DISPLAY_META)
                return dict(view) if isinstance(view, dict) else None
        return None

    def _show_result(self, result: Result, parsed: ParsedLine) -> None:
        """Display ``result``; store its DataFrame (lists) or data under -o unless an error."""
        display(render_result(result, self._display_of(result.tool)))
        if result.is_error:
            return
        if result.next_cursor is not None or result.is_list:
            self.last_paged = result
        frame = result.df
        self._store(parsed, frame if frame is not None else result.data)

    def _call_tool(self, tool: str, arguments: dict[str, Any], parsed: ParsedLine) -> None:
        if _asks_for_many_rows(tool, arguments) and self._show_all_rows(tool, arguments,
                                                                         parsed):
            return
        self._show_result(self.client.call(tool, **arguments), parsed)

    def _show_all_rows(self, tool: str, arguments: dict[str, Any], parsed: ParsedLine
                       ) -> bool:
        """A call asking for more rows than a table shows (``limit`` over ``TABLE_ROWS``):
        every row of its result, read as columns in one request (the grid in a kernel), and
        -o stores them all. False when ``tool`` does not return a list (call it as usual)."""
        client = self.client
        try:
            frame = client.frame(tool, **{k: v for k, v in arguments.items() if k != "limit"})
        except CloudGError as exc:
            if exc.error.code == "not_a_list":
                return False
            display(render_error(exc.error, tool))
            return True
        view = self._display_of(tool) or {}
        rows = str(view.get("rows") or "rows")
        columns = view.get("columns") if isinstance(view.get("columns"), list) else None
        last = client.last if client.last is not None and client.last.tool == tool else None
        parts = [f"{len(frame):,} {rows}"]
        if last is not None and last.dataset:
            version = last.data.get("dataset_version") if isinstance(last.data, dict) else None
            parts.append(f"dataset {last.dataset}" + (f" v{version}" if version else ""))
        shown = render_table(frame, " · ".join(parts), columns=columns, rows=rows)
        display(with_note(shown, last.transform_note if last is not None else None))
        self.last_paged = None
        self._store(parsed, frame)
        return True

    # -- subcommands ---------------------------------------------------------------------------

    def _help(self, parsed: ParsedLine, cell: str | None) -> None:
        words = self._words(parsed, SUBCOMMANDS["help"][0], 0, 1)
        if words and words[0] in SUBCOMMANDS:
            usage, summary = SUBCOMMANDS[words[0]]
            print(f"%cloudg {usage}\n    {summary}")
            return
        print(HELP)

    def _tools(self, parsed: ParsedLine, cell: str | None) -> None:
        import pandas

        words = self._words(parsed, SUBCOMMANDS["tools"][0], 0, 1)
        self._no_arguments(parsed, SUBCOMMANDS["tools"][0])
        rows = [{"name": t.get("name"),
                 "category": (t.get("_meta") or {}).get(CATEGORY_META, ""),
                 "title": t.get("title") or "",
                 "description": _first_sentence(str(t.get("description") or ""))}
                for t in self.client.tools()]
        if words:
            category = words[0].lower()
            categories = sorted({str(r["category"]) for r in rows if r["category"]})
            if category not in categories:
                raise CloudGError(ErrorInfo(
                    "not_found", f"Unknown category {category!r}; %cloudg tools lists all.",
                    hints=close_matches(category, categories) or categories))
            rows = [r for r in rows if r["category"] == category]
        frame = pandas.DataFrame.from_records(rows, columns=["name", "category", "title",
                                                             "description"])
        display(render_table(frame, f"{len(frame)} tools · %cloudg describe TOOL for one",
                             wrap=("description",)))
        self._store(parsed, frame)

    def _describe(self, parsed: ParsedLine, cell: str | None) -> None:
        import pandas

        usage = SUBCOMMANDS["describe"][0]
        (name,) = self._words(parsed, usage, 1, 1)
        self._no_arguments(parsed, usage)
        tool = self._tool(name)
        schema = tool.get("inputSchema") or {}
        required = set(schema.get("required") or ())
        rows = []
        for arg, spec in (schema.get("properties") or {}).items():
            rows.append({"argument": arg, "type": _schema_type(spec),
                         "required": arg in required,
                         "default": "" if "default" not in spec else _json(spec["default"]),
                         "description": spec.get("description", "")})
        frame = pandas.DataFrame.from_records(
            rows, columns=["argument", "type", "required", "default", "description"])
        title = str(tool.get("title") or name)
        head = render_value(str(tool.get("description") or ""), title=f"{name} — {title}")
        table = render_table(frame, f"{len(frame)} arguments · %cloudg call {name} key=value",
                             wrap=("description", "default"))
        display(Rendered(head.html + table.html, f"{head.text}\n\n{table.text}"))
        self._store(parsed, frame)

    def _tool(self, name: str) -> dict[str, Any]:
        tools = self.client.tools()
        for tool in tools:
            if tool.get("name") == name:
                return tool
        names = [str(t.get("name")) for t in tools]
        raise CloudGError(ErrorInfo(
            "not_found", f"Unknown tool {name!r}. List the tools with %cloudg tools.",
            hints=close_matches(name, names), data={"kind": "tool"}))

    def _call(self, parsed: ParsedLine, cell: str | None) -> None:
        tool, arguments = self._tool_and_arguments(parsed, cell, "call")
        self._call_tool(tool, arguments, parsed)

    def _tool_and_arguments(self, parsed: ParsedLine, cell: str | None, sub: str
                            ) -> tuple[str, dict[str, Any]]:
        usage = SUBCOMMANDS[sub][0]
        words = self._words(parsed, usage, 1, len(parsed.words) or 1)
        if len(words) > 1:
            raise MagicArgumentError(
                f"Arguments are key=value words; {len(words) - 1} word(s) after the tool name "
                f"are not (write name=value). Usage: %cloudg {usage}")
        tool = words[0]
        arguments = dict(parsed.arguments)
        if cell is not None:
            body = parse_body(cell)
            twice = sorted(set(body) & set(arguments))
            if twice:
                raise MagicArgumentError(
                    f"{', '.join(twice)} given on the line and in the cell; keep one.")
            arguments = {**body, **arguments}
        return tool, arguments

    def _read(self, parsed: ParsedLine, cell: str | None) -> None:
        usage = SUBCOMMANDS["read"][0]
        (uri,) = self._words(parsed, usage, 1, 1)
        self._no_arguments(parsed, usage)
        value = self.client.read(uri)
        frame = table_of(value)
        if frame is not None:
            display(render_table(frame, f"{uri} · {len(frame)} rows"))
            self._store(parsed, frame)
        else:
            display(render_value(value, title=uri))
            self._store(parsed, value)

    def _prompt(self, parsed: ParsedLine, cell: str | None) -> None:
        (name,) = self._words(parsed, SUBCOMMANDS["prompt"][0], 1, 1)
        arguments = {k: v if isinstance(v, str) else _json(v) for k, v in parsed.arguments.items()}
        messages = self.client.prompt(name, **arguments)
        display(render_messages(messages, title=name))
        self._store(parsed, messages)

    def _datasets(self, parsed: ParsedLine, cell: str | None) -> None:
        usage = SUBCOMMANDS["datasets"][0]
        self._words(parsed, usage, 0, 0)
        self._no_arguments(parsed, usage)
        frame = self.client.datasets()
        view = self._display_of("list_datasets") or {}
        columns = view.get("columns") if isinstance(view.get("columns"), list) else None
        display(render_table(frame, f"{len(frame)} datasets · %cloudg use NAME to switch",
                             columns=columns, rows="datasets"))
        self._store(parsed, frame)

    def _use(self, parsed: ParsedLine, cell: str | None) -> None:
        usage = SUBCOMMANDS["use"][0]
        (name,) = self._words(parsed, usage, 1, 1)
        self._no_arguments(parsed, usage)
        self._call_tool("select_dataset", {"name": name}, parsed)

    def _load(self, parsed: ParsedLine, cell: str | None) -> None:
        usage = SUBCOMMANDS["load"][0]
        words = self._words(parsed, usage, 1, 3)
        if len(words) == 2 or (len(words) == 3 and words[1].lower() != "as"):
            raise MagicArgumentError(f"Usage: %cloudg {usage}")
        arguments = {**parsed.arguments, "path": words[0]}
        if len(words) == 3:
            arguments["name"] = words[2]
        self._call_tool("load_dataset", arguments, parsed)

    def _status(self, parsed: ParsedLine, cell: str | None) -> None:
        usage = SUBCOMMANDS["status"][0]
        self._words(parsed, usage, 0, 0)
        self._no_arguments(parsed, usage)
        status = self.client.status()
        display(render_value(status, title="cloudg status"))
        self._store(parsed, status)

    def _policy(self, parsed: ParsedLine, cell: str | None) -> None:
        usage = SUBCOMMANDS["policy"][0]
        self._words(parsed, usage, 0, 0)
        self._no_arguments(parsed, usage)
        self._call_tool("privacy_status", {}, parsed)

    def _audit(self, parsed: ParsedLine, cell: str | None) -> None:
        usage = SUBCOMMANDS["audit"][0]
        words = self._words(parsed, usage, 0, 1)
        arguments = dict(parsed.arguments)
        if words:
            try:
                arguments["limit"] = int(words[0])
            except ValueError:
                raise MagicArgumentError(f"N must be a whole number. Usage: %cloudg {usage}"
                                         ) from None
        self._call_tool("privacy_audit_log", arguments, parsed)

    def _next(self, parsed: ParsedLine, cell: str | None) -> None:
        usage = SUBCOMMANDS["next"][0]
        self._words(parsed, usage, 0, 0)
        self._no_arguments(parsed, usage)
        last = self.last_paged
        if last is None:
            display(render_note("Nothing to page yet: %cloudg next continues the last list "
                                "result of %cloudg call."))
            return
        cursor = last.next_cursor
        if cursor is None:
            display(render_note(f"That was the last page of {last.tool} ({last.caption})."))
            return
        self._call_tool(last.tool, {**last.arguments, "cursor": cursor}, parsed)

    def _connect(self, parsed: ParsedLine, cell: str | None) -> None:
        from ..jupyter_discovery import JupyterServerNotFound
        from .client import connect

        usage = SUBCOMMANDS["connect"][0]
        words = self._words(parsed, usage, 0, 1)
        self._no_arguments(parsed, usage)
        try:
            client = connect(words[0] if words else None, parsed.options.get("token"))
        except (JupyterServerNotFound, ValueError) as exc:
            raise CloudGError(ErrorInfo("connection", str(exc))) from None
        self.set_client(client)
        display(render_note(f"cloudg: {client.description}"))

    def _local(self, parsed: ParsedLine, cell: str | None) -> None:
        from ..layer import MCPLayerError
        from .client import local

        usage = SUBCOMMANDS["local"][0]
        self._words(parsed, usage, 0, 0)
        self._no_arguments(parsed, usage)
        try:
            client = local(policy=parsed.options.get("policy"))
        except (MCPLayerError, ValueError, OSError) as exc:
            message = getattr(exc, "message", None) or str(exc)
            raise CloudGError(ErrorInfo("policy", f"Could not start a local workspace: "
                                                  f"{message}")) from None
        self.set_client(client)
        display(render_note(f"cloudg: {client.description}"))

    def _live(self, parsed: ParsedLine, cell: str | None) -> None:
        tool, arguments = self._tool_and_arguments(parsed, cell, "live")
        frame = self.client.live(tool, **arguments)
        display(frame)
        self._store(parsed, frame)

    def _diff(self, parsed: ParsedLine, cell: str | None) -> None:
        usage = SUBCOMMANDS["diff"][0]
        words = self._words(parsed, usage, 0, 2)
        if set(parsed.arguments) - {"limit"}:
            self._no_arguments(parsed, usage)
        arguments = {**parsed.arguments, **dict(zip(("base", "target"), words, strict=False))}
        result = self.client.call("diff_datasets", **arguments)
        if result.is_error or not isinstance(result.data, dict):
            display(render_result(result))
            return
        from .drift_report import DriftReport

        display(DriftReport(result.data))
        self._store(parsed, result.data)

    # -- oversight of assistants ---------------------------------------------------------------

    def _activity(self, parsed: ParsedLine, cell: str | None) -> None:
        usage = SUBCOMMANDS["activity"][0]
        self._words(parsed, usage, 0, 0)
        self._no_arguments(parsed, usage)
        feed = self.client.activity_feed()
        display(feed)
        self._store(parsed, feed)

    def _approvals(self, parsed: ParsedLine, cell: str | None) -> None:
        usage = SUBCOMMANDS["approvals"][0]
        self._words(parsed, usage, 0, 0)
        self._no_arguments(parsed, usage)
        panel = self.client.approval_panel()
        display(panel)
        self._store(parsed, panel)

    def _approve(self, parsed: ParsedLine, cell: str | None) -> None:
        self._decide(parsed, "approve")

    def _deny(self, parsed: ParsedLine, cell: str | None) -> None:
        self._decide(parsed, "deny")

    def _decide(self, parsed: ParsedLine, decision: str) -> None:
        usage = SUBCOMMANDS[decision][0]
        words = self._words(parsed, usage, 1, max(1, len(parsed.words)))
        if set(parsed.arguments) - {"reason"}:
            self._no_arguments(parsed, usage)
        reason = " ".join(words[1:]) or parsed.arguments.get("reason")
        client = self.client
        decide = client.approve if decision == "approve" else client.deny
        result = decide(words[0], str(reason) if reason else None)
        if result.is_error:
            display(render_result(result))
            return
        data = result.data if isinstance(result.data, dict) else {}
        display(render_note(f"{data.get('state', decision)}: {data.get('tool')} for "
                            f"{data.get('principal')}"
                            + (f" ({data['reason']})" if data.get("reason") else "")))
        self._store(parsed, data)

    def _assistants(self, parsed: ParsedLine, cell: str | None) -> None:
        usage = SUBCOMMANDS["assistants"][0]
        words = self._words(parsed, usage, 0, 2)
        self._no_arguments(parsed, usage)
        if words:
            if words[0].lower() != "revoke" or len(words) != 2:
                raise MagicArgumentError(f"Usage: %cloudg {usage}")
            result = self.client.revoke_assistant(words[1])
            if result.is_error:
                display(render_result(result))
                return
            done = result.data if isinstance(result.data, dict) else {}
            display(render_note(
                f"revoked {done.get('principal')}: its token no longer works; "
                f"{done.get('sessions_ended', 0)} session(s) ended, "
                f"{done.get('calls_denied', 0)} waiting call(s) denied"))
            self._store(parsed, done)
            return
        frame = self.client.assistants()
        display(render_table(frame, f"{len(frame)} assistants · "
                                    "%cloudg assistants revoke NAME ends one's access"))
        self._store(parsed, frame)


def _asks_for_many_rows(tool: str, arguments: dict[str, Any]) -> bool:
    """Whether a call asks for more rows than a table shows (a ``limit`` over
    ``TABLE_ROWS``, no ``cursor``), and is not drawn as a graph."""
    from .graph_view import GRAPH_TOOLS

    limit = arguments.get("limit")
    return (isinstance(limit, int) and not isinstance(limit, bool) and limit > TABLE_ROWS
            and "cursor" not in arguments and tool not in GRAPH_TOOLS)


def _first_sentence(text: str) -> str:
    """The first sentence of a description's first paragraph (its lines joined; "e.g." and
    "i.e." do not end a sentence)."""
    paragraph = " ".join(text.strip().split("\n\n", 1)[0].split())
    end = _SENTENCE_END.search(paragraph)
    return paragraph[: end.start() + 1] if end else paragraph


_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)\.\s")


def _schema_type(spec: dict[str, Any]) -> str:
    parts = spec.get("anyOf") or [spec]
    names: list[str] = []
    for part in parts:
        kind = part.get("type", "any") if isinstance(part, dict) else "any"
        if kind == "array":
            item = (part.get("items") or {}).get("type", "any")
            kind = f"list[{item}]"
        if kind != "null":
            names.append(str(kind))
    text = " | ".join(dict.fromkeys(names)) or "any"
    return f"{text} (optional)" if any(
        isinstance(p, dict) and p.get("type") == "null" for p in parts) else text


def _json(value: Any) -> str:
    import json

    return json.dumps(value)


# -- extension entry points -------------------------------------------------------------------


def load_ipython_extension(ip: InteractiveShell) -> None:
    """Register ``%cloudg`` / ``%%cloudg`` and their tab completion on ``ip``."""
    magics = CloudGMagics(ip)
    ip.register_magics(magics)
    completer = MagicCompleter(list(SUBCOMMANDS), magics.client_or_none)
    matchers = ip.Completer.custom_matchers
    matchers[:] = [m for m in matchers if not isinstance(m, MagicCompleter)]
    matchers.append(completer)
    _frames_readable(ip, on=True)
    from . import warmup

    # the first %cloudg line then costs one round trip
    warmup.start(_open_ahead, chosen=lambda: _default_client_or_none() is not None)


def unload_ipython_extension(ip: InteractiveShell) -> None:
    """Remove the magics and the completer (the client stays open for Python code)."""
    manager = ip.magics_manager
    for kind in ("line", "cell"):
        manager.magics[kind].pop("cloudg", None)
    manager.registry.pop(CloudGMagics.__name__, None)
    matchers = ip.Completer.custom_matchers
    matchers[:] = [m for m in matchers if not isinstance(m, MagicCompleter)]
    _frames_readable(ip, on=False)


def _frames_readable(ip: InteractiveShell, *, on: bool) -> None:
    """Show DataFrames the client made (``client.frame(...)``, ``-o df`` and what is selected
    from them) as readable tables; any other DataFrame keeps pandas' display."""
    import pandas

    if ip.display_formatter is None:
        return
    html = ip.display_formatter.formatters["text/html"]
    if on:
        html.for_type(pandas.DataFrame, _frame_html)
    else:
        html.type_printers.pop(pandas.DataFrame, None)


def _frame_html(frame: Any) -> str | None:
    from .render import frame_html

    found = frame_html(frame)
    return found if found is not None else frame._repr_html_()
