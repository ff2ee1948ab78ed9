"""Stopping a server: SIGTERM and SIGINT with streams open and a CPU-bound call in flight end
the process within 2 s and without ERROR or traceback lines, over HTTP and stdio; a piped stdio
session gets every answer before the process exits at end of input.

Real ``python -m cloudg_nb serve`` processes on 127.0.0.1 (HTTP) or pipes (stdio).
"""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import IO, Any

import pytest

from .harness import ROOT, TIMEOUT, ServerProcess, open_session, serve_argv
from .raw_http import initialize, open_get_stream

pytestmark = [pytest.mark.server, pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")]

#: The acceptance bound, measured from the signal to the process's exit.
EXIT_WITHIN = 2.0
BAD_LINES = ("ERROR", "Traceback", "Cancel ", "Exception in ASGI",
             "ASGI callable returned without completing response", "Unexpected ASGI message")
SIGNALS = [signal.SIGTERM, signal.SIGINT]
#: What the process's exit status may be: uvicorn re-raises the signal once stopped
#: (SIGTERM: killed by it; SIGINT: KeyboardInterrupt, exit 130).
EXIT_STATUS = {signal.SIGTERM: {-signal.SIGTERM, 0}, signal.SIGINT: {130, -signal.SIGINT}}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "pipe-test", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def call(ident: int, tool: str, **arguments: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}


def stopped_within(proc: subprocess.Popen[Any], sig: signal.Signals) -> float:
    """Send ``sig``; seconds until the process exited (killed and failed after TIMEOUT)."""
    started = time.monotonic()
    proc.send_signal(sig)
    try:
        proc.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail(f"the server ignored {sig.name} for {TIMEOUT} s")
    return time.monotonic() - started


def bad_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if any(bad in line for bad in BAD_LINES)]


# -- HTTP ---------------------------------------------------------------------------------


@contextlib.contextmanager
def calls_in_flight(server: ServerProcess, count: int,
                    cooperative: bool = True) -> Iterator[None]:
    """``count`` ``spin_cpu`` calls (alternating eras) running in the server; waits until
    they are all spinning."""
    def spin(era: str) -> None:
        with contextlib.suppress(BaseException), open_session(server.url, era) as client:
            client.call_tool("spin_cpu", {"seconds": 60, "cooperative": cooperative})

    threads = [threading.Thread(target=spin, args=(("2025", "2026")[i % 2],), daemon=True)
               for i in range(count)]
    for thread in threads:
        thread.start()
    with open_session(server.url, "2025") as probe:
        assert probe.wait_for(
            lambda: probe.call_tool("spinning", {}).structured_content["spinning"] == count)
    yield


@pytest.mark.usefixtures("sigint_default")
@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: s.name)
def test_http_server_with_open_streams_and_a_busy_call_exits_quietly_within_2s(
        sig: signal.Signals) -> None:
    with ServerProcess() as server:
        assert server.proc is not None
        stream = open_get_stream(server, initialize(server))
        with contextlib.closing(stream), calls_in_flight(server, 2):
            took = stopped_within(server.proc, sig)
        time.sleep(0.2)  # the stderr reader catches up
        logged = "".join(server.stderr_lines)
    assert took < EXIT_WITHIN, f"exit took {took:.2f} s"
    assert server.proc.returncode in EXIT_STATUS[sig]
    assert not bad_lines(logged), logged


@pytest.mark.usefixtures("sigint_default")
def test_http_call_that_never_checks_for_cancellation_does_not_hold_exit() -> None:
    with ServerProcess() as server:
        assert server.proc is not None
        with calls_in_flight(server, 1, cooperative=False):
            took = stopped_within(server.proc, signal.SIGINT)
        time.sleep(0.2)
        logged = "".join(server.stderr_lines)
    assert took < EXIT_WITHIN, f"exit took {took:.2f} s"
    assert not bad_lines(logged), logged


@pytest.mark.parametrize("era", ["2025", "2026"])
def test_http_call_in_flight_at_shutdown_is_answered_that_the_server_is_shutting_down(
        era: str) -> None:
    errors: list[str] = []

    def spin(server: ServerProcess) -> None:
        try:
            with open_session(server.url, era) as client:
                client.call_tool("spin_cpu", {"seconds": 60})
        except BaseException as exc:  # the SDK client wraps the call's error in groups
            errors.append(repr(exc))

    with ServerProcess() as server:
        assert server.proc is not None
        caller = threading.Thread(target=spin, args=(server,), daemon=True)
        caller.start()
        with open_session(server.url, "2025") as probe:
            assert probe.wait_for(
                lambda: probe.call_tool("spinning", {}).structured_content["spinning"] == 1)
        stopped_within(server.proc, signal.SIGTERM)
        caller.join(TIMEOUT)
    assert errors and "shutting down" in errors[0], errors


def test_http_stream_open_at_shutdown_ends_as_a_complete_response() -> None:
    with ServerProcess() as server:
        assert server.proc is not None
        stream = open_get_stream(server, initialize(server))
        with contextlib.closing(stream):
            stopped_within(server.proc, signal.SIGTERM)
            stream.settimeout(TIMEOUT)
            rest = b""
            while chunk := stream.recv(4096):
                rest += chunk
    assert rest.endswith(b"0\r\n\r\n")  # the chunked body's terminating chunk


# -- stdio --------------------------------------------------------------------------------


def stdio_server() -> subprocess.Popen[bytes]:
    return subprocess.Popen(serve_argv("stdio"), cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def send(stdin: IO[bytes], message: dict[str, Any]) -> None:
    stdin.write(json.dumps(message).encode() + b"\n")
    stdin.flush()


def answer(stdout: IO[bytes], ident: int) -> dict[str, Any]:
    """The next response with ``ident`` (notifications in between are skipped)."""
    while line := stdout.readline():
        message = json.loads(line)
        if message.get("id") == ident:
            return message
    raise AssertionError(f"stdout ended before the answer to {ident}")


@pytest.mark.usefixtures("sigint_default")
@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: s.name)
def test_stdio_server_with_stdin_open_and_a_busy_call_exits_quietly_within_2s(
        sig: signal.Signals) -> None:
    proc = stdio_server()
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        send(proc.stdin, INITIALIZE)
        answer(proc.stdout, 1)
        send(proc.stdin, INITIALIZED)
        send(proc.stdin, call(2, "spin_cpu", seconds=60))
        spinning = 0
        for ident in range(3, 300):
            send(proc.stdin, call(ident, "spinning"))
            spinning = answer(proc.stdout, ident)["result"]["structuredContent"]["spinning"]
            if spinning:
                break
            time.sleep(0.1)
        assert spinning == 1
        took = stopped_within(proc, sig)  # stdin stays open
        logged = proc.stderr.read().decode()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            with contextlib.suppress(OSError):
                pipe.close()
    assert took < EXIT_WITHIN, f"exit took {took:.2f} s"
    assert proc.returncode in EXIT_STATUS[sig]
    assert not bad_lines(logged), logged


def test_piped_stdio_session_gets_every_answer_before_exit() -> None:
    messages = [INITIALIZE, INITIALIZED, call(2, "add_numbers", a=1, b=2),
                call(3, "spin_cpu", seconds=0.5), call(4, "count_up", steps=3)]
    piped = b"".join(json.dumps(m).encode() + b"\n" for m in messages)
    done = subprocess.run(serve_argv("stdio"), cwd=ROOT, input=piped, capture_output=True,
                          timeout=TIMEOUT)
    answers = {m["id"]: m for m in map(json.loads, done.stdout.splitlines()) if "id" in m}
    assert sorted(answers) == [1, 2, 3, 4]
    assert all("result" in answers[i] for i in (2, 3, 4)), answers
    assert done.returncode == 0
    assert not bad_lines(done.stderr.decode()), done.stderr.decode()


def test_piped_stdio_session_does_not_wait_for_a_request_it_cancelled() -> None:
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled",
              "params": {"requestId": 2, "reason": "changed my mind"}}
    messages = [INITIALIZE, INITIALIZED, call(2, "spin_cpu", seconds=60), cancel,
                call(3, "add_numbers", a=1, b=2)]
    piped = b"".join(json.dumps(m).encode() + b"\n" for m in messages)
    started = time.monotonic()
    done = subprocess.run(serve_argv("stdio"), cwd=ROOT, input=piped, capture_output=True,
                          timeout=TIMEOUT * 2)
    took = time.monotonic() - started
    answers = {m["id"]: m for m in map(json.loads, done.stdout.splitlines()) if "id" in m}
    assert "result" in answers[3]
    assert took < 20, f"took {took:.1f} s: it waited for the cancelled call"
    assert done.returncode == 0
