"""The notebook's Python client: ``connect()`` (the Jupyter server's shared workspace over MCP)
and ``local()`` (an in-process layer), one API over both.

Every request runs on the background loop thread (``loop.py``). Each is written once, as a
coroutine: its ``a``-prefixed method awaits it there from any other loop, and the blocking
method made from it (``twins.py``) waits for it, an interrupt cancelling it. Oversight calls
(``oversight.OversightCalls``) and display factories (``displays.DisplayFactories``) are mixed
in; finding the server and opening the session is ``connection.py``. Failures of a tool call
come back as error ``Result``s (code, message, hints), never as tracebacks.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import time
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from ..layer.wire import (
    ARROW_FORMAT,
    COLUMNS_UNAVAILABLE,
    DATASETS_URI,
    FORMAT_META,
    INVALID_PARAMS,
    WORKSPACE_URI,
)
from . import connection, warmup
from .backends import Backend, ProgressFn
from .call_result import (
    FRAME_ATTR,
    CloudGError,
    ErrorInfo,
    Result,
    close_matches,
    error_result,
    hints_from,
)
from .displays import DisplayFactories
from .loop import LoopThread, Waiting, shared_loop
from .oversight import OversightCalls
from .progress_bars import DeferredProgress
from .twins import blocking, on_loop

if TYPE_CHECKING:
    import pandas

    from .progress_bars import ProgressDisplay

__all__ = ["Client", "connect", "default_client", "local", "set_default_client"]

logger = logging.getLogger("cloudg.notebook")
T = TypeVar("T")

#: Connecting to the server (handshake included) gives up after this long.
CONNECT_TIMEOUT = 30.0
#: Seconds each open client gets to end its session when the process exits.
EXIT_CLOSE_TIMEOUT = 2.0
#: The most pages ``frame`` fetches (a runaway cursor cannot loop forever).
MAX_PAGES = 1000


def _progress_display(label: str) -> ProgressDisplay | None:
    """The progress display for one call (``progress_bars.progress_for``), or None where that
    module is not available."""
    try:
        from .progress_bars import progress_for
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.endswith("progress_bars"):
            return None
        raise
    return progress_for(label)


def _connection_error(tool: str, arguments: dict[str, Any], exc: BaseException) -> Result:
    """An error Result for a request that raised (protocol error, lost connection, bug)."""
    code, message, data = getattr(exc, "code", None), getattr(exc, "message", None), None
    if isinstance(code, int) and isinstance(message, str):  # the SDK's MCPError
        data = getattr(exc, "data", None)
        return error_result(tool, arguments, code, message, hints_from(data), data)
    return error_result(tool, arguments, "connection",
                        f"The request failed ({type(exc).__name__}: {exc}). %cloudg status "
                        "shows the connection; reconnect with %cloudg connect or "
                        "%cloudg local.", data={"exception": type(exc).__name__})


def plain(value: Any) -> Any:
    """``value`` as JSON-ready Python: numpy scalars become numbers, arrays, Series and Index
    lists, tuples and sets lists (so ``ids=df["id"]`` or ``limit=df.size`` work remotely as
    they do in-process)."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(v) for v in value]
    tolist = getattr(value, "tolist", None)  # numpy arrays and scalars, pandas Series/Index
    if callable(tolist):
        return plain(tolist())
    item = getattr(value, "item", None)
    if callable(item):
        return plain(item())
    return value


class Client(DisplayFactories, OversightCalls):
    """One connection (remote or local) to a cloudg workspace. Build it with ``connect()``,
    ``local()`` or ``default_client()``."""

    def __init__(self, backend: Backend, *, loop: LoopThread | None = None) -> None:
        self._backend = backend
        self._loop = loop or shared_loop()
        self._tools: list[dict[str, Any]] | None = None
        self._closed = False
        self.last: Result | None = None
        #: When the connection was last re-established (``time.time()``), and why.
        self.reconnected_at: float | None = None
        self.reconnect_reason: str | None = None
        self._notes: list[str] = []
        self._reconnect_hooks: list[Callable[[], None]] = []
        backend.tools_changed = self._forget_tools
        backend.reconnected = self._reconnected
        _open_clients.add(self)

    @classmethod
    def open(cls, backend: Backend, *, loop: LoopThread | None = None) -> Client:
        """Start ``backend`` on the client loop and wrap it (blocks until connected)."""
        client = cls(backend, loop=loop)
        client._loop.run(backend.start(), timeout=CONNECT_TIMEOUT)
        return client

    # -- plumbing -----------------------------------------------------------------------------

    @property
    def mode(self) -> str:
        return self._backend.mode

    @property
    def description(self) -> str:
        return self._backend.description

    @property
    def backend(self) -> Backend:
        return self._backend

    @property
    def loop(self) -> LoopThread:
        return self._loop

    def __repr__(self) -> str:
        return f"<cloudg Client {self.description}>"

    def _forget_tools(self) -> None:
        self._tools = None

    def _reconnected(self, reason: str) -> None:
        """The backend replaced an ended session (loop thread): note it for the user and
        tell the displays (LiveFrames re-read by their subscriptions)."""
        self.reconnected_at = time.time()
        self.reconnect_reason = reason
        self._tools = None
        if len(self._notes) < 10:
            self._notes.append(f"cloudg: reconnected to the Jupyter server ({reason}); "
                               "live tables resumed from a fresh read.")
        for hook in list(self._reconnect_hooks):
            try:
                hook()
            except Exception:
                logger.exception("cloudg: a reconnect listener failed")

    def on_reconnect(self, fn: Callable[[], None]) -> Callable[[], None]:
        """Call ``fn()`` (on the loop thread) whenever a new session replaces one that ended;
        returns a function that stops that."""
        self._reconnect_hooks.append(fn)

        def remove() -> None:
            with contextlib.suppress(ValueError):
                self._reconnect_hooks.remove(fn)

        return remove

    def take_notes(self) -> list[str]:
        """Messages for the user since the last call (a reconnection, say); each once."""
        notes, self._notes = self._notes, []
        return notes

    def _refuse_if_closed(self, coro: Coroutine[Any, Any, Any]) -> None:
        if self._closed:
            coro.close()
            raise RuntimeError("this client is closed; connect again with "
                               "cloudg_nb.connect() or cloudg_nb.local()")

    def _run(self, coro: Coroutine[Any, Any, T], waiting: Waiting | None = None) -> T:
        """Run ``coro`` on the client loop, blocking until it ends (``waiting``: a deferred
        progress display the waiting thread polls)."""
        self._refuse_if_closed(coro)
        return self._loop.run(coro, waiting=waiting)

    async def _on_loop(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await ``coro`` on the client loop from whatever loop the caller runs."""
        self._refuse_if_closed(coro)
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop.loop:
            return await coro
        return await asyncio.wrap_future(self._loop.submit(coro))

    # -- requests: each written once, awaitable; its blocking twin is made from it ------------

    @on_loop
    async def arequest(self, tool: str, arguments: Mapping[str, Any], /, *,
                       meta: Mapping[str, Any] | None = None,
                       progress: ProgressFn | None = None) -> Result:
        """``tool`` called as plain data, for code built on the client (LiveFrames, feeds,
        panels): no progress display, not kept as ``last``. ``meta``: request ``_meta``
        entries (``cloudg/changed_since``, ...); ``progress(progress, total, message)``
        hears the tool's reports (on the loop thread). Errors come back as error Results."""
        return await self._call(tool, dict(arguments), progress, dict(meta) if meta else None)

    request = blocking(arequest)

    @on_loop
    async def aread(self, uri: str) -> Any:
        """A resource's content (parsed JSON, or text); raises CloudGError on failure."""
        try:
            return await self._backend.read_resource(uri)
        except (CloudGError, asyncio.CancelledError):
            raise
        except Exception as exc:
            raise CloudGError(_connection_error(f"read:{uri}", {}, exc).error  # type: ignore[arg-type]
                              ) from None

    read = blocking(aread)

    @on_loop
    async def aprompt(self, name: str, /, **args: Any) -> list[dict[str, Any]]:
        """A prompt's messages as ``[{"role", "text"}]``; raises CloudGError on failure."""
        try:
            return await self._backend.get_prompt(name, args)
        except (CloudGError, asyncio.CancelledError):
            raise
        except Exception as exc:
            raise CloudGError(_connection_error(f"prompt:{name}", args, exc).error  # type: ignore[arg-type]
                              ) from None

    prompt = blocking(aprompt)

    @on_loop
    async def acomplete(self, argument: str, value: str = "", *, tool: str | None = None,
                        prompt: str | None = None, uri_template: str | None = None,
                        context: dict[str, str] | None = None) -> list[str]:
        """Values for ``argument`` starting with (or containing) ``value``: of a tool argument,
        a prompt argument or a resource template variable. Never raises; [] when none."""
        try:
            return await self._backend.complete(argument, value, tool=tool, prompt=prompt,
                                                uri_template=uri_template, context=context)
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.debug("completion of %s failed", argument, exc_info=True)
            return []

    complete = blocking(acomplete)

    @on_loop
    async def atools(self) -> list[dict[str, Any]]:
        """The tools (wire dicts: name, title, description, inputSchema, _meta); cached until
        the server says the list changed."""
        if self._tools is None:
            self._tools = await self._backend.list_tools()
        return self._tools

    tools = blocking(atools)

    @on_loop
    async def adatasets(self) -> pandas.DataFrame:
        """The loaded datasets (from ``cloudg://datasets``)."""
        import pandas

        value = await self.aread(DATASETS_URI)
        rows = value.get("datasets", value.get("items")) if isinstance(value, dict) else value
        frame = pandas.DataFrame.from_records(rows or [])
        frame.attrs[FRAME_ATTR] = "list_datasets"
        return frame

    datasets = blocking(adatasets)

    @on_loop
    async def astatus(self) -> dict[str, Any]:
        """Mode, connection description, session id (remote) and the workspace summary."""
        status = dict(self._backend.status())
        try:
            status["workspace"] = await self.aread(WORKSPACE_URI)
        except CloudGError as exc:
            status["workspace_error"] = str(exc.error)
        with contextlib.suppress(CloudGError):  # served where assistants connect (remote)
            status["approvals_waiting"] = len(await self.aapprovals())
        return status

    status = blocking(astatus)

    # -- on the client loop: a call, all pages of a list ------------------------------------------

    async def _call(self, tool: str, arguments: dict[str, Any],
                    progress: ProgressFn | None, meta: dict[str, Any] | None = None) -> Result:
        arguments = plain(arguments)
        try:
            result = await self._backend.call_tool(tool, arguments, progress, meta)
        except CloudGError as exc:  # e.g. the session is gone
            result = Result(tool=tool, arguments=dict(arguments), text=exc.error.message,
                            is_error=True, error=exc.error)
        except Exception as exc:  # connection and protocol failures read as error results
            result = _connection_error(tool, arguments, exc)
        if result.is_error and result.error is not None and result.error.code in (
                "not_found", INVALID_PARAMS):
            result = await self._unknown_tool(tool, arguments, result)
        return result

    async def _unknown_tool(self, tool: str, arguments: dict[str, Any],
                            result: Result) -> Result:
        """An error for a tool name the server does not list becomes ``not_found`` with the
        close matches among the listed names."""
        try:
            self._tools = None
            names = [str(t.get("name")) for t in await self.atools()]
        except Exception:
            return result
        if tool in names:
            return result
        return error_result(
            tool, arguments, "not_found",
            f"Unknown tool {tool!r}. List the tools with %cloudg tools (or client.tools()).",
            close_matches(tool, names), {"kind": "tool"})

    async def _frame(self, tool: str, arguments: dict[str, Any],
                     progress: ProgressFn | None) -> pandas.DataFrame:
        import pandas

        frames: list[pandas.DataFrame] = []
        args = dict(arguments)
        first: Result | None = None
        if "cursor" not in args:  # the whole result as columns, where the tool can
            first = await self._call(tool, args, progress, {FORMAT_META: ARROW_FORMAT})
            columns = None if first.is_error else first.columns_frame()
            if columns is not None:
                self.last = first
                return columns
            if first.error is not None and first.error.code == COLUMNS_UNAVAILABLE:
                first = None  # this policy cannot send columns: pages
        for _ in range(MAX_PAGES):
            result = first or await self._call(tool, args, progress)
            first = None
            progress = None  # the first page reports; later pages are quick
            if result.is_error:
                raise CloudGError(result.error or ErrorInfo("error", result.text))
            df = result.df
            if df is None:
                raise CloudGError(ErrorInfo(
                    "not_a_list", f"{tool} does not return a list; use call() for it"))
            frames.append(df)
            self.last = result
            cursor = result.next_cursor
            if not cursor:
                break
            args = {**arguments, "cursor": cursor}
        frames = [f for f in frames if not f.empty] or frames[:1]
        whole = pandas.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
        whole.attrs[FRAME_ATTR] = tool
        return whole

    # -- progress display -----------------------------------------------------------------------

    def _deferred_progress(self, label: str, progress: bool | ProgressFn
                           ) -> tuple[DeferredProgress | None, ProgressFn | None]:
        """For a blocking call: a display made only once it is due (its waiting thread polls
        it in ``_run``), so a quick call makes none."""
        if progress is True:
            later = DeferredProgress(label, _progress_display)
            return later, later.update
        return None, progress if callable(progress) else None

    def _with_progress(self, label: str, progress: bool | ProgressFn
                       ) -> tuple[ProgressDisplay | None, ProgressFn | None]:
        if progress is True:
            display = _progress_display(label)
            return display, (display.update if display is not None else None)
        if callable(progress):
            return None, progress
        return None, None

    @staticmethod
    def _finish(display: ProgressDisplay | None, result: Result | None, started: float,
                error: str | None = None) -> None:
        if display is None:
            return
        seconds = time.monotonic() - started
        if result is None:
            display.finish(ok=False, summary=f"{error or 'failed'} after {seconds:.1f} s")
        elif result.is_error:
            display.finish(ok=False, summary=f"{result.tool}: error after {seconds:.1f} s")
        else:
            what = result.caption or "done"
            display.finish(ok=True, summary=f"{result.tool}: {what} · {seconds:.1f} s")

    # -- blocking and awaitable written apart: progress displays, subscriptions, closing --------

    def call(self, tool: str, /, *, progress: bool | ProgressFn = True, **args: Any) -> Result:
        """Call ``tool`` with ``args``; errors come back as a Result with ``is_error``.

        ``progress=True`` shows a progress display fed by the tool's progress reports; a
        function ``fn(progress, total, message)`` receives them instead (on the loop thread).
        """
        display, fn = self._deferred_progress(tool, progress)
        started = time.monotonic()
        try:
            result = self._run(self._call(tool, args, fn), display)
        except KeyboardInterrupt:
            self._finish(display, None, started, "interrupted")
            raise
        self._finish(display, result, started)
        self.last = result
        return result

    def frame(self, tool: str, /, *, progress: bool | ProgressFn = True,
              **args: Any) -> pandas.DataFrame:
        """All pages of a list tool's result as one DataFrame; raises CloudGError on error."""
        display, fn = self._deferred_progress(tool, progress)
        started = time.monotonic()
        try:
            df = self._run(self._frame(tool, args, fn), display)
        except KeyboardInterrupt:
            self._finish(display, None, started, "interrupted")
            raise
        except CloudGError as exc:
            self._finish(display, None, started, f"{tool}: {exc.error.name}")
            raise
        if display is not None:
            display.finish(ok=True, summary=f"{tool}: {len(df)} rows · "
                                            f"{time.monotonic() - started:.1f} s")
        return df

    async def acall(self, tool: str, /, *, progress: bool | ProgressFn = True,
                    **args: Any) -> Result:
        """``call`` from async code (a display, when asked for, shows at once)."""
        display, fn = self._with_progress(tool, progress)
        started = time.monotonic()
        try:
            result = await self._on_loop(self._call(tool, args, fn))
        except asyncio.CancelledError:
            self._finish(display, None, started, "cancelled")
            raise
        self._finish(display, result, started)
        self.last = result
        return result

    async def aframe(self, tool: str, /, *, progress: bool | ProgressFn = True,
                     **args: Any) -> pandas.DataFrame:
        """``frame`` from async code (a progress function hears the reports; no display)."""
        _, fn = self._with_progress(tool, progress if callable(progress) else False)
        return await self._on_loop(self._frame(tool, args, fn))

    def subscribe(self, uri: str, fn: Callable[[str], None]) -> Callable[[], None]:
        """Call ``fn(uri)`` (on the loop thread) whenever resource ``uri`` changes; returns a
        function that unsubscribes."""
        unsubscribe = self._run(self._backend.subscribe(uri, fn))
        done = False

        async def unsubscribed() -> None:
            await unsubscribe()

        def stop() -> None:
            nonlocal done
            if done or self._closed or not self._loop.alive:
                return
            done = True
            if self._loop.in_loop_thread():
                self._loop.loop.create_task(unsubscribed())
            else:
                self._loop.run(unsubscribed())

        return stop

    async def asubscribe(self, uri: str, fn: Callable[[str], None]
                         ) -> Callable[[], Awaitable[None]]:
        """``subscribe`` from async code; the unsubscribe it returns is awaitable."""
        return await self._on_loop(self._backend.subscribe(uri, fn))

    async def _close(self) -> None:
        await self._backend.close()

    def close(self) -> None:
        """Disconnect (remote) or drop the layer's listeners (local)."""
        if self._closed:
            return
        try:
            self._loop.run(self._close(), timeout=10)
        finally:
            self._ended()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def aclose(self) -> None:
        """``close`` from async code."""
        if self._closed:
            return
        try:
            await self._on_loop(self._close())
        finally:
            self._ended()

    def _ended(self) -> None:
        self._closed = True
        if _default is self:
            set_default_client(None)


# -- construction ---------------------------------------------------------------------------------


def connect(url: str | None = None, token: str | None = None) -> Client:
    """Connect to the cloudg MCP endpoint of a running Jupyter server (the shared workspace).

    Finds it in this order: ``url``/``token``; ``$CLOUDG_MCP_URL`` (+ ``$CLOUDG_MCP_TOKEN``);
    the server that started this kernel; the server whose root_dir holds the current folder;
    JupyterHub/Binder variables. Raises ``JupyterServerNotFound`` (saying what to do) when
    none is found, ``CloudGError`` when the server does not answer.
    """
    return connection.open_remote(Client.open, url, token)


def local(policy: str | None = None, sample: str | None = "demo") -> Client:
    """An in-process layer with its own workspace (``sample`` loaded; None or "" for an
    empty one). ``policy`` names a built-in profile or a policy file."""
    from .inprocess import LocalBackend

    return Client.open(LocalBackend(policy=policy, sample=sample or None))


_default: Client | None = None
_open_clients: weakref.WeakSet[Client] = weakref.WeakSet()


@atexit.register
def _close_at_exit() -> None:
    """End remote sessions when the kernel or script exits, so the server's status stops
    listing them (briefly: a server that is gone must not hold up the exit)."""
    for client in list(_open_clients):
        if not client._closed and client._loop.alive:
            with contextlib.suppress(BaseException):
                client._loop.run(client._close(), timeout=EXIT_CLOSE_TIMEOUT)
            client._closed = True


def default_client() -> Client:
    """The magics' client: remote when a Jupyter server is found, else local. The first time,
    prints one line saying which mode was chosen and why."""
    global _default
    if _default is not None and not _default._closed:
        return _default
    warmed = warmup.take()
    if isinstance(warmed, Client) and not warmed._closed:
        print(f"cloudg: {warmed.description}")
        _default = warmed
        return warmed
    client = connection.open_default(Client.open)
    print(f"cloudg: {client.description}")
    _default = client
    return client


def set_default_client(client: Client | None) -> None:
    """Make ``client`` the magics' client (None: choose again on next use)."""
    global _default
    if client is not None:
        warmup.abandon()
    _default = client


def open_found() -> Client | None:
    """The Jupyter server found (as ``connect()`` finds it), opened; None when none is found.
    Raises CloudGError when it does not answer. (The warm-up's client.)"""
    return connection.open_found(Client.open)
