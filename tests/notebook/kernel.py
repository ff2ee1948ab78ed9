"""Real kernels started by a real Jupyter server, driven as a browser drives them.

``notebook_server(tmp_path, ...)`` runs ``tests/jupyter/server.py``'s server with a
``python3`` kernelspec pointing at this interpreter (in the isolated JUPYTER_DATA_DIR);
``server_kernel(server)`` starts a kernel through ``POST {base_url}api/kernels`` and talks to
it over ``{base_url}api/kernels/{id}/channels`` (the kernel websocket, JSON messages). The
kernel's ``JPY_PARENT_PID`` is the server's pid and its cwd the server's root_dir.
``execute(code)`` returns an ``ExecResult``; every iopub message is kept for comm assertions.
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import websocket
from jupyter_server.services.kernels.connection.base import deserialize_binary_message

from tests.jupyter.server import FIXTURE_REGISTRY, JupyterServer, jupyter_server

#: Generous: the suite runs on a loaded 2-core machine.
KERNEL_START_TIMEOUT = 90.0
EXECUTE_TIMEOUT = 60.0
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
COMM_TYPES = frozenset({"comm_open", "comm_msg", "comm_close"})


def install_kernelspec(data_dir: Path, name: str = "python3") -> Path:
    """Write a kernelspec ``name`` running ``sys.executable -m ipykernel_launcher`` into
    ``data_dir/kernels`` (it shadows any installed spec of the same name)."""
    folder = data_dir / "kernels" / name
    folder.mkdir(parents=True, exist_ok=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": f"Python 3 ({Path(sys.executable).parent.parent.name})",
        "language": "python",
        "metadata": {"debugger": False},
    }
    (folder / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
    return folder


@contextlib.contextmanager
def notebook_server(tmp_path: Path, *, extra_args: Sequence[str] = (FIXTURE_REGISTRY,),
                    **kwargs: Any) -> Iterator[JupyterServer]:
    """``jupyter_server(tmp_path, ...)`` with the fixture tools and a ``python3`` kernelspec
    for this interpreter (so kernels import this checkout's ``cloudg_nb``)."""
    install_kernelspec(tmp_path / "jupyter-data")
    with jupyter_server(tmp_path, extra_args=extra_args, **kwargs) as server:
        yield server


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def widget_view_ids(displays: Sequence[Mapping[str, Any]]) -> list[str]:
    """Model ids of the widget views among display data bundles."""
    return [d[WIDGET_VIEW]["model_id"] for d in displays if WIDGET_VIEW in d]


@dataclass
class ExecResult:
    """What one ``execute_request`` produced, from its reply and its iopub messages."""

    msg_id: str
    reply: dict[str, Any]  #: execute_reply content (``status`` ok | error | aborted)
    messages: list[dict[str, Any]]  #: iopub messages whose parent is this request, in order
    stdout: str = ""
    stderr: str = ""
    displays: list[dict[str, Any]] = field(default_factory=list)  #: display/execute_result data
    error: dict[str, Any] | None = None  #: the ``error`` message content (ename, evalue, traceback)
    seconds: float = 0.0  #: from sending the request to its reply

    @classmethod
    def from_messages(cls, msg_id: str, reply: dict[str, Any],
                      messages: list[dict[str, Any]], seconds: float) -> ExecResult:
        out = cls(msg_id=msg_id, reply=reply, messages=messages, seconds=seconds)
        for message in messages:
            kind, content = message["msg_type"], message["content"]
            if kind == "stream":
                if content["name"] == "stdout":
                    out.stdout += content["text"]
                else:
                    out.stderr += content["text"]
            elif kind in ("display_data", "execute_result", "update_display_data"):
                out.displays.append(content["data"])
            elif kind == "error":
                out.error = content
        return out

    @property
    def ok(self) -> bool:
        return self.reply.get("status") == "ok" and self.error is None

    @property
    def text(self) -> str:
        """Everything a reader sees as text: stdout, stderr, then each display's text/plain
        (and text/html, for rendered tables and messages)."""
        parts = [self.stdout, self.stderr]
        for data in self.displays:
            parts.extend(str(data[k]) for k in ("text/plain", "text/html", "text/markdown")
                         if k in data)
        return "\n".join(p for p in parts if p)

    @property
    def result(self) -> str | None:
        """The execute_result's text/plain, if the cell had a value."""
        for message in self.messages:
            if message["msg_type"] == "execute_result":
                return message["content"]["data"].get("text/plain")
        return None


class ServerKernel:
    """A kernel the server started, over the server's kernel websocket (JSON messages)."""

    def __init__(self, server: JupyterServer, kernel_id: str) -> None:
        self.server = server
        self.kernel_id = kernel_id
        self.session = uuid.uuid4().hex
        self._cond = threading.Condition()
        self.iopub: list[dict[str, Any]] = []  #: every iopub message received, in order
        self._replies: dict[str, dict[str, Any]] = {}
        self._idle: set[str] = set()
        self._closed = False
        url = (f"ws://{server.host_port}{server.base_url}api/kernels/{kernel_id}/channels"
               f"?session_id={self.session}")
        self.ws = websocket.create_connection(
            url, header=[f"Authorization: token {server.token}"], timeout=KERNEL_START_TIMEOUT)
        self.ws.settimeout(None)
        self._reader = threading.Thread(target=self._read, name="kernel-ws", daemon=True)
        self._reader.start()

    # -- websocket ---------------------------------------------------------------------------

    def _read(self) -> None:
        while True:
            try:
                frame = self.ws.recv()
            except Exception:
                break
            if not frame:
                break
            message = (deserialize_binary_message(frame) if isinstance(frame, bytes)
                       else json.loads(frame))
            parent = (message.get("parent_header") or {}).get("msg_id")
            with self._cond:
                channel = message.get("channel")
                if channel == "iopub":
                    self.iopub.append(message)
                    if message["msg_type"] == "status" and \
                            message["content"].get("execution_state") == "idle" and parent:
                        self._idle.add(parent)
                elif channel in ("shell", "control") and parent:
                    self._replies[parent] = message
                self._cond.notify_all()
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def send(self, msg_type: str, content: dict[str, Any], channel: str = "shell") -> str:
        """Send a message on ``channel``; returns its msg_id."""
        msg_id = uuid.uuid4().hex
        message = {
            "header": {"msg_id": msg_id, "username": "test", "session": self.session,
                       "msg_type": msg_type, "version": "5.3", "date": _now()},
            "parent_header": {}, "metadata": {}, "content": content, "channel": channel,
            "buffers": [],
        }
        self.ws.send(json.dumps(message))
        return msg_id

    def _wait(self, predicate: Callable[[], Any], timeout: float, what: str) -> Any:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                value = predicate()
                if value:
                    return value
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"{what}: nothing within {timeout:g} s")
                if self._closed:
                    raise ConnectionError(f"{what}: the kernel websocket closed")
                self._cond.wait(min(left, 0.5))

    def wait_ready(self, timeout: float = KERNEL_START_TIMEOUT) -> dict[str, Any]:
        """Ask kernel_info until the kernel answers (as a frontend does on connect)."""
        deadline = time.monotonic() + timeout
        while True:
            msg_id = self.send("kernel_info_request", {})
            try:
                return self._wait(lambda m=msg_id: self._replies.get(m), 2.0, "kernel_info")
            except TimeoutError:
                if time.monotonic() > deadline:
                    raise

    # -- execution ---------------------------------------------------------------------------

    def start_execute(self, code: str) -> str:
        """Send an execute_request without waiting; returns its msg_id."""
        return self.send("execute_request", {
            "code": code, "silent": False, "store_history": True, "user_expressions": {},
            "allow_stdin": False, "stop_on_error": False})

    def wait_execute(self, msg_id: str, timeout: float = EXECUTE_TIMEOUT,
                     started: float | None = None) -> ExecResult:
        """Wait for the reply of ``msg_id`` and its iopub ``idle`` (all output has arrived)."""
        started = time.monotonic() if started is None else started
        reply = self._wait(lambda: self._replies.get(msg_id), timeout, "execute_reply")
        seconds = time.monotonic() - started
        self._wait(lambda: msg_id in self._idle, timeout, "iopub idle")
        with self._cond:
            messages = [m for m in self.iopub
                        if (m.get("parent_header") or {}).get("msg_id") == msg_id]
        return ExecResult.from_messages(msg_id, reply["content"], messages, seconds)

    def execute(self, code: str, timeout: float = EXECUTE_TIMEOUT) -> ExecResult:
        """Run ``code`` like a notebook cell; returns once its output is complete."""
        started = time.monotonic()
        return self.wait_execute(self.start_execute(code), timeout, started)

    def value(self, expression: str, timeout: float = EXECUTE_TIMEOUT) -> Any:
        """The JSON value of ``expression`` evaluated in the kernel (``default=str``)."""
        marker = "@@value@@"
        result = self.execute(
            f"import json as _kj\nprint({marker!r} + _kj.dumps({expression}, default=str))",
            timeout)
        if not result.ok:
            raise AssertionError(f"evaluating {expression!r} failed:\n{result.text}\n"
                                 f"{result.error}")
        line = [ln for ln in result.stdout.splitlines() if ln.startswith(marker)][-1]
        return json.loads(line[len(marker):])

    def complete(self, code: str, cursor_pos: int | None = None,
                 timeout: float = EXECUTE_TIMEOUT) -> dict[str, Any]:
        """A ``complete_request`` (the Tab key); returns the reply content (``matches`` ...)."""
        msg_id = self.send("complete_request", {
            "code": code, "cursor_pos": len(code) if cursor_pos is None else cursor_pos})
        return self._wait(lambda: self._replies.get(msg_id), timeout, "complete_reply")["content"]

    def mark(self) -> int:
        """A position in the iopub stream, for ``comm_messages(since=...)``."""
        with self._cond:
            return len(self.iopub)

    def comm_messages(self, since: int = 0) -> list[dict[str, Any]]:
        """Every comm_open / comm_msg / comm_close the kernel published (after ``since``)."""
        with self._cond:
            return [m for m in self.iopub[since:] if m["msg_type"] in COMM_TYPES]

    def widget_models(self, since: int = 0) -> dict[str, WidgetModel]:
        """Widget models the kernel opened (after ``since``), by comm id, with every state
        update, as a frontend would know them."""
        models: dict[str, WidgetModel] = {}
        for message in self.comm_messages(since):
            content = message["content"]
            comm_id = content.get("comm_id")
            if message["msg_type"] == "comm_open":
                if content.get("target_name") != "jupyter.widget":
                    continue
                state = dict((content.get("data") or {}).get("state") or {})
                models[comm_id] = WidgetModel(comm_id, state.get("_model_name", ""), state,
                                              [dict(state)])
            elif message["msg_type"] == "comm_msg" and comm_id in models:
                data = content.get("data") or {}
                if data.get("method") in ("update", "echo_update") and data.get("state"):
                    models[comm_id].state.update(data["state"])
                    models[comm_id].updates.append(dict(data["state"]))
            elif message["msg_type"] == "comm_close" and comm_id in models:
                models[comm_id].closed = True
        return models

    # -- REST --------------------------------------------------------------------------------

    def interrupt(self) -> int:
        """``POST api/kernels/{id}/interrupt`` (the stop button); returns the HTTP status."""
        return rest(self.server, "POST", f"api/kernels/{self.kernel_id}/interrupt")[0]

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ws.close()
        with contextlib.suppress(Exception):
            rest(self.server, "DELETE", f"api/kernels/{self.kernel_id}")


@dataclass
class WidgetModel:
    """One ipywidgets model as the frontend would know it from the comm traffic."""

    comm_id: str
    model_name: str
    state: dict[str, Any]  #: latest state (the open's state with every update applied)
    updates: list[dict[str, Any]]  #: the open's state, then each update's state, in order
    closed: bool = False

    def values(self, key: str = "value") -> list[Any]:
        """Every value ``key`` took, in order."""
        return [u[key] for u in self.updates if key in u]

    def children(self) -> list[str]:
        """Comm ids of child widgets (``IPY_MODEL_<id>`` references)."""
        return [c.removeprefix("IPY_MODEL_") for c in self.state.get("children", [])
                if isinstance(c, str)]


def rest(server: JupyterServer, method: str, path: str, body: Any = None,
         timeout: float = 30.0) -> tuple[int, Any]:
    """A REST call to the Jupyter server with its token: (status, JSON body or None)."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        f"{server.url}{path}", data=data, method=method,
        headers={"Authorization": f"token {server.token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
            return response.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        with contextlib.suppress(ValueError):
            return exc.code, json.loads(raw) if raw else None
        return exc.code, None


@contextlib.contextmanager
def server_kernel(server: JupyterServer, name: str = "python3",
                  path: str = "") -> Iterator[ServerKernel]:
    """Start a kernel through ``POST api/kernels``, connect to its websocket, wait until it
    answers kernel_info; shut it down (``DELETE api/kernels/{id}``) on exit."""
    status, body = rest(server, "POST", "api/kernels", {"name": name, "path": path},
                        timeout=KERNEL_START_TIMEOUT)
    assert status == 201, (status, body)
    kernel_id = body["id"]
    try:
        kernel = ServerKernel(server, kernel_id)
    except Exception:
        rest(server, "DELETE", f"api/kernels/{kernel_id}")
        raise
    try:
        kernel.wait_ready()
        yield kernel
    finally:
        kernel.close()
