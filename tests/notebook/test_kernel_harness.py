"""The kernel harness itself: a kernel the server starts runs code over the kernel websocket,
is a child of that server (``JPY_PARENT_PID``), runs this interpreter, and stops when asked."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.jupyter.server import JupyterServer
from tests.notebook.kernel import rest, server_kernel


def test_kernel_started_by_the_server_executes_code(kernel_server: JupyterServer) -> None:
    with server_kernel(kernel_server) as kernel:
        result = kernel.execute("print('out'); 1+1")
    assert result.ok, result.text
    assert result.stdout == "out\n"
    assert result.result == "2"


def test_kernel_is_a_child_of_the_server_in_its_root_dir(kernel_server: JupyterServer) -> None:
    with server_kernel(kernel_server) as kernel:
        kernel.execute("import os, sys")
        facts = kernel.value("{'ppid': os.environ.get('JPY_PARENT_PID'), 'cwd': os.getcwd(), "
                             "'python': sys.executable, "
                             "'runtime': os.environ.get('JUPYTER_RUNTIME_DIR')}")
    assert facts["ppid"] == str(kernel_server.proc.pid)
    assert Path(facts["cwd"]).resolve() == kernel_server.root_dir.resolve()
    assert Path(facts["python"]).resolve() == Path(sys.executable).resolve()
    assert facts["runtime"] == kernel_server.env["JUPYTER_RUNTIME_DIR"]


def test_errors_come_back_as_error_results(kernel_server: JupyterServer) -> None:
    with server_kernel(kernel_server) as kernel:
        result = kernel.execute("raise ValueError('boom')")
    assert not result.ok
    assert result.error is not None and result.error["ename"] == "ValueError"


def test_kernel_is_shut_down_on_exit(kernel_server: JupyterServer) -> None:
    with server_kernel(kernel_server) as kernel:
        kernel_id = kernel.kernel_id
        status, listed = rest(kernel_server, "GET", "api/kernels")
        assert kernel_id in {k["id"] for k in listed}
    status, listed = rest(kernel_server, "GET", "api/kernels")
    assert status == 200 and kernel_id not in {k["id"] for k in listed}
