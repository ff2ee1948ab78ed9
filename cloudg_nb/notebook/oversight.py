"""The analyst's oversight of assistants as the client reads it: ``cloudg://activity``,
``cloudg://approvals``, ``decide_approval``, ``list_assistants``, ``revoke_assistant`` — the
helpers the oversight displays use and ``OversightCalls``, the Client's methods for them.
Coroutines run on the client loop. An in-process layer serves none of these, so there they
fail with code ``local_mode``, saying that assistants connect to the Jupyter server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ..layer.wire import ACTIVITY_URI, APPROVALS_URI, NOT_FOUND_CODES, activity_since_uri
from .call_result import CloudGError, ErrorInfo, Result, error_result
from .twins import blocking, on_loop

if TYPE_CHECKING:
    import pandas

    from .client_api import ClientAPI
    from .twins import LoopBound

    class _Client(ClientAPI, LoopBound, Protocol):
        """What ``OversightCalls`` needs of the class it is mixed into."""

        last: Result | None

__all__ = ["ACTIVITY_COLUMNS", "ACTIVITY_URI", "APPROVALS_URI", "ASSISTANT_COLUMNS",
           "LOCAL_MODE", "OversightCalls", "activity_frame", "assistants_frame", "decide",
           "read_oversight", "since_uri"]

#: The columns of ``client.activity()`` (and of ``ActivityFeed.df``), in this order.
ACTIVITY_COLUMNS = ["seq", "time", "principal", "assistant", "kind", "name", "outcome",
                    "duration_ms", "redacted", "approval", "error_code"]
ASSISTANT_COLUMNS = ["name", "principal", "client", "profile", "token_hint", "created",
                     "last_used", "sessions", "server"]
LOCAL_MODE = ("This is a local (in-process) workspace: assistants connect to the Jupyter "
              "server's cloudg endpoint, so their activity, approvals and credentials live "
              "there. Use %cloudg connect (or cloudg_nb.connect()) to see them.")


def since_uri(seq: int) -> str:
    """The entries after number ``seq``."""
    return activity_since_uri(seq)


def _local_error() -> ErrorInfo:
    return ErrorInfo("local_mode", LOCAL_MODE, data={"kind": "mode"})


def _unknown(error: ErrorInfo | None, kind: str) -> bool:
    return error is not None and error.data.get("kind") == kind and (
        error.code == "not_found" or error.code in NOT_FOUND_CODES)


async def read_oversight(client: ClientAPI, uri: str) -> Any:
    """Read an oversight resource; on a local layer that does not serve it, CloudGError
    ``local_mode``."""
    try:
        return await client.aread(uri)
    except CloudGError as exc:
        if client.mode == "local" and _unknown(exc.error, "resource"):
            raise CloudGError(_local_error()) from None
        raise


async def call_oversight(client: ClientAPI, tool: str, arguments: dict[str, Any]) -> Result:
    """Call an owner-only oversight tool; a local layer's "unknown tool" becomes
    ``local_mode``."""
    result = await client.arequest(tool, arguments)
    if result.is_error and client.mode == "local" and _unknown(result.error, "tool"):
        return error_result(tool, arguments, "local_mode", LOCAL_MODE, data={"kind": "mode"})
    return result


async def decide(client: ClientAPI, approval_id: str, decision: str, reason: str | None,
                 ) -> Result:
    """Approve or deny a waiting call: the approval's public dict, or an error Result (an
    unknown id, a call no longer waiting, local mode)."""
    arguments: dict[str, Any] = {"approval_id": str(approval_id), "decision": decision}
    if reason:
        arguments["reason"] = str(reason)
    return await call_oversight(client, "decide_approval", arguments)


def _utc(text: Any) -> Any:
    """An entry's time as pandas parses it (the log writes ``...T21:29:18Z.403``)."""
    if isinstance(text, str) and "Z." in text:
        head, _, millis = text.partition("Z.")
        return f"{head}.{millis}Z"
    return text


def activity_frame(entries: list[dict[str, Any]]) -> pandas.DataFrame:
    """Activity entries as a DataFrame (``ACTIVITY_COLUMNS``, ``time`` as UTC datetimes),
    in the order given."""
    import pandas

    frame = pandas.DataFrame.from_records(entries, columns=ACTIVITY_COLUMNS)
    frame["time"] = pandas.to_datetime([_utc(t) for t in frame["time"]], utc=True,
                                       format="ISO8601")
    return frame


def assistants_frame(data: Any) -> pandas.DataFrame:
    """``list_assistants`` data as a DataFrame (``ASSISTANT_COLUMNS`` first)."""
    import pandas

    rows = data.get("assistants") if isinstance(data, dict) else None
    rows = [r for r in rows or [] if isinstance(r, dict)]
    extra = [k for r in rows for k in r if k not in ASSISTANT_COLUMNS]
    return pandas.DataFrame.from_records(rows, columns=[*ASSISTANT_COLUMNS,
                                                        *dict.fromkeys(extra)])


class OversightCalls:
    """The Client's oversight of assistants (served by the Jupyter server; an in-process
    workspace answers ``local_mode``). Each method is written once, awaitable; its blocking
    twin is made from it (``twins.blocking``)."""

    last: Result | None

    @on_loop
    async def aactivity(self: _Client, limit: int | None = None) -> pandas.DataFrame:
        """Every call to the shared workspace, newest last (the newest ``limit``): time,
        principal, assistant (bool), kind, name, outcome, duration_ms, redacted, approval,
        error_code; never an argument or a value. Raises CloudGError (``local_mode`` in an
        in-process workspace: assistants connect to the Jupyter server)."""
        value = await read_oversight(self, ACTIVITY_URI)
        entries = value.get("entries") if isinstance(value, dict) else None
        rows = [e for e in entries or () if isinstance(e, dict)]
        if limit is not None:
            rows = rows[-limit:] if limit > 0 else []
        return activity_frame(rows)

    activity = blocking(aactivity)

    @on_loop
    async def aapprovals(self: _Client) -> list[dict[str, Any]]:
        """The assistants' calls waiting for your approval (id, principal, tool, arguments
        as their policy shows them, expires_in, url ...). Raises CloudGError."""
        value = await read_oversight(self, APPROVALS_URI)
        pending = value.get("pending") if isinstance(value, dict) else None
        return [a for a in pending or () if isinstance(a, dict)]

    approvals = blocking(aapprovals)

    @on_loop
    async def aapprove(self: _Client, approval_id: str, reason: str | None = None) -> Result:
        """Let a waiting call run. An unknown id, or a call no longer waiting, is an error
        Result (as every tool error)."""
        self.last = await decide(self, approval_id, "approve", reason)
        return self.last

    approve = blocking(aapprove)

    @on_loop
    async def adeny(self: _Client, approval_id: str, reason: str | None = None) -> Result:
        """Refuse a waiting call: the assistant gets an error (with ``reason``)."""
        self.last = await decide(self, approval_id, "deny", reason)
        return self.last

    deny = blocking(adeny)

    @on_loop
    async def aassistants(self: _Client) -> pandas.DataFrame:
        """The assistant credentials: name, principal, client, profile, token_hint, created,
        last_used, sessions, server (this server's, and None for one minted before
        credentials were bound to a server; never a token). Raises CloudGError."""
        result = await call_oversight(self, "list_assistants", {})
        if result.is_error:
            raise CloudGError(result.error or ErrorInfo("error", result.text))
        return assistants_frame(result.data)

    assistants = blocking(aassistants)

    @on_loop
    async def arevoke_assistant(self: _Client, name: str) -> Result:
        """Revoke an assistant's credential: its sessions end, its waiting calls are denied,
        its token is refused from then on. An unknown name is an error Result."""
        self.last = await call_oversight(self, "revoke_assistant", {"name": name})
        return self.last

    revoke_assistant = blocking(arevoke_assistant)
