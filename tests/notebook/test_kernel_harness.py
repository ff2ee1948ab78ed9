"""The kernel harness itself: a kernel the server starts runs code over the kernel websocket,
is a child of that server (``JPY_PARENT_PID``), runs this interpreter, and stops when asked."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.jupyter.server import JupyterServer
from tests.notebook.kernel import notebook_server, rest, server_kernel

pytestmark = [pytest.mark.server, pytest.mark.kernel]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    with notebook_server(tmp_path_factory.mktemp("kernel-harness")) as running:
        yield running


def test_kernel_started_by_the_server_executes_code(server: JupyterServer) -> None:
    with server_kernel(server) as kernel:
        result = kernel.execute("print('out'); 1+1")
    assert result.ok, result.text
    assert result.stdout == "out\n"
    assert result.result == "2"


def test_kernel_is_a_child_of_the_server_in_its_root_dir(server: JupyterServer) -> None:
    with server_kernel(server) as kernel:
        kernel.execute("import os, sys")
        facts = kernel.value("{'ppid': os.environ.get('JPY_PARENT_PID'), 'cwd': os.getcwd(), "
                             "'python': sys.executable, "
                             "'runtime': os.environ.get('JUPYTER_RUNTIME_DIR')}")
    assert facts["ppid"] == str(server.proc.pid)
    assert Path(facts["cwd"]).resolve() == server.root_dir.resolve()
    assert Path(facts["python"]).resolve() == Path(sys.executable).resolve()
    assert facts["runtime"] == server.env["JUPYTER_RUNTIME_DIR"]


def test_errors_come_back_as_error_results(server: JupyterServer) -> None:
    with server_kernel(server) as kernel:
        result = kernel.execute("raise ValueError('boom')")
    assert not result.ok
    assert result.error is not None and result.error["ename"] == "ValueError"


def test_kernel_is_shut_down_on_exit(server: JupyterServer) -> None:
    with server_kernel(server) as kernel:
        kernel_id = kernel.kernel_id
        status, listed = rest(server, "GET", "api/kernels")
        assert kernel_id in {k["id"] for k in listed}
    status, listed = rest(server, "GET", "api/kernels")
    assert status == 200 and kernel_id not in {k["id"] for k in listed}
