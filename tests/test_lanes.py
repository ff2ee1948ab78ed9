"""The suite's lanes hold: a test that starts a server, kernel, browser or client framework
without its marker fails (so the fast lane cannot silently start one), and the commands the
suite runs are told apart by what they are."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.jupyter.server import server_argv
from tests.lanes import FAST_LANE, KINDS, kinds_of_command
from tests.notebook.kernel import install_kernelspec
from tests.process_guard import GUARD, Guard, UnmarkedProcessError
from tests.protocol.harness import serve_argv

PY = sys.executable
ROOT = Path(__file__).resolve().parents[1]


def test_an_unmarked_test_cannot_start_a_jupyter_server(tmp_path: Path) -> None:
    with pytest.raises(UnmarkedProcessError) as refused:
        subprocess.Popen(server_argv(8888, "token", "/", tmp_path))
    assert "@pytest.mark.server" in str(refused.value)
    assert "test_an_unmarked_test_cannot_start_a_jupyter_server" in str(refused.value)


def test_an_unmarked_test_cannot_start_a_kernel_through_a_shell() -> None:
    with pytest.raises(UnmarkedProcessError, match=r"@pytest\.mark\.kernel"):
        subprocess.run(f"{PY} -m ipykernel_launcher -f conn.json", shell=True, check=False)


@pytest.mark.server
def test_a_test_marked_server_may_start_one() -> None:
    GUARD.check(server_argv(8888, "token", "/", Path(".")))  # no error


@pytest.mark.kernel  # it starts a process that looks like a kernel to the guard
def test_a_kernel_started_by_a_child_process_is_found(
        tmp_path: Path, request: pytest.FixtureRequest) -> None:
    (tmp_path / "ipykernel_launcher.py").write_text("import time\ntime.sleep(60)\n")
    guard = Guard()  # the suite's guard lets this test start kernels: this one lets none
    with guard.running(request.node, allowed=set()):
        child = subprocess.Popen(
            [PY, "-c", "import subprocess, sys; subprocess.run([sys.executable, '-m', "
                       "'ipykernel_launcher', '-f', 'conn.json'])"],
            env={**os.environ, "PYTHONPATH": str(tmp_path)}, start_new_session=True)
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not guard.found:
                guard.look()
                time.sleep(0.05)
            found = guard.failures(request.node)
        finally:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
    assert found is not None and "started a kernel process" in found
    assert "ipykernel_launcher -f conn.json" in found and "@pytest.mark.kernel" in found


def test_make_test_fast_and_the_readme_run_the_fast_lane() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert f"FAST_LANE := {FAST_LANE}\n" in makefile
    assert f'pytest -m "{FAST_LANE}"' in (ROOT / "README.md").read_text(encoding="utf-8")
    assert all(f"not {kind}" in FAST_LANE for kind in KINDS)


@pytest.mark.parametrize(("argv", "kinds"), [
    (server_argv(8888, "t", "/", Path("root")), {"server"}),
    (serve_argv("stdio"), {"server"}),
    (serve_argv("http", "--port", "0"), {"server"}),
    ([PY, "-m", "cloudg_nb", "lab", "--port", "0"], {"server"}),
    (["make", "--no-print-directory", "demo"], {"server"}),
    (["/usr/bin/jupyter-lab", "--no-browser"], {"server"}),
    (["jupyter", "server", "--port=0"], {"server"}),
    ([PY, "-m", "ipykernel_launcher", "-f", "/run/kernel-1.json"], {"kernel"}),
    (["/usr/bin/chromedriver", "--port=9515"], {"browser"}),
    (["/usr/lib/chromium/chromium", "--headless"], {"browser"}),
    (["/repo/.venv-clients/bin/python", "driver.py"], {"clients"}),
    (["node", "/repo/tests/clients/node/ts_sdk_client.mjs"], {"clients"}),
    (["/repo/.cache/conformance/node_modules/.bin/node", "suite.js", "server"], {"clients"}),
    ([PY, "-m", "jupyterhub", "-f", "/tmp/hub/jupyterhub_config.py"], {"hub"}),
    (["/venv/bin/jupyterhub", "-f", "jupyterhub_config.py"], {"hub"}),
    (["node", "/repo/tests/hub/node/node_modules/.bin/configurable-http-proxy", "--ip",
      "127.0.0.1"], {"hub"}),
    (["/venv/bin/jupyterhub-singleuser", "--allow-root"], {"server"}),
    ([PY, "-m", "jupyterhub.singleuser"], {"server"}),
    # Not of any kind: they tell, list or run a command in process and exit.
    ([PY, "-m", "jupyter_server", "extension", "list"], set()),
    (["/venv/bin/jupyter-cloudg", "--help-all"], set()),
    (["jupyter", "server", "--version"], set()),
    (["/venv/bin/jupyterhub", "--version"], set()),
    (["/usr/bin/node", "/venv/lib/site-packages/jupyter_builder/yarn.js", "config"], set()),
    ([PY, "-m", "cloudg_nb", "call", "list_capabilities"], set()),
    ([PY, "-c", "print(1)"], set()),
    ([PY, "bench/layer_overhead.py", "--quick"], set()),
])
def test_each_command_the_suite_runs_is_of_its_kind(argv: list[str], kinds: set[str]) -> None:
    assert kinds_of_command(argv) == kinds


def test_a_kernelspecs_command_is_a_kernel(tmp_path: Path) -> None:
    import json

    spec = json.loads((install_kernelspec(tmp_path) / "kernel.json").read_text())
    assert kinds_of_command(spec["argv"]) == {"kernel"}
