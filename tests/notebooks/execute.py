"""Run an example notebook headless with nbclient, as CI and papermill do: local mode.

``execute_notebook(path, tmp_path)`` runs every cell in a kernel of this interpreter, with the
notebook's own folder as the working directory and no Jupyter server to find (isolated
Jupyter dirs, no server variables), and returns the executed notebook. With ``server`` (a
real Jupyter server started on the same ``tmp_path``) the kernel finds that server as a kernel
the server started would (``JPY_PARENT_PID`` and its runtime dir): remote mode; ``env`` adds
variables to the kernel's. ``problems(nb)`` lists the error outputs and the cloudg error
displays of cells not tagged as expecting them; ``stderr_blocks(nb)`` what the run wrote to
stderr (JupyterLab shows it in pink).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from tests.jupyter.server import ROOT, JupyterServer
from tests.notebook.kernel import install_kernelspec

NOTEBOOKS = ROOT / "notebooks"
#: Variables that would point the kernel at a Jupyter server (then it would not run locally).
SERVER_HINTS = ("CLOUDG_MCP_URL", "CLOUDG_MCP_TOKEN", "JUPYTERHUB_API_TOKEN",
                "JUPYTERHUB_SERVICE_PREFIX", "JUPYTERHUB_API_URL", "BINDER_SERVICE_HOST",
                "JPY_PARENT_PID", "JUPYTER_TOKEN", "CLOUDG_MCP_ALLOWED_ROOTS",
                "CLOUDG_MCP_OUTPUT_DIR")
#: A cell with this tag may show a cloudg error (it demonstrates one).
EXPECTS_ERROR = "cloudg-error-expected"
#: Seconds one cell may take (a 2-core machine shared with other test runs).
CELL_TIMEOUT = 300


@contextlib.contextmanager
def isolated_jupyter(tmp_path: Path, extra: dict[str, str] | None = None
                     ) -> Iterator[dict[str, str]]:
    """Jupyter dirs under ``tmp_path`` (no running server is found there unless one was
    started on it), a ``python3`` kernelspec for this interpreter, no server variables but
    ``extra``, for the block's duration."""
    saved = dict(os.environ)
    try:
        for name in SERVER_HINTS:
            os.environ.pop(name, None)
        os.environ.update(extra or {})
        for name in ("data", "runtime", "config"):
            folder = tmp_path / f"jupyter-{name}"
            folder.mkdir(parents=True, exist_ok=True)
            os.environ[f"JUPYTER_{name.upper()}_DIR"] = str(folder)
        os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
        install_kernelspec(tmp_path / "jupyter-data")
        yield dict(os.environ)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def execute_notebook(path: Path, tmp_path: Path, server: JupyterServer | None = None,
                     env: dict[str, str] | None = None) -> nbformat.NotebookNode:
    """``path`` executed top to bottom in its own folder (errors are kept as outputs); with
    ``server`` (started on ``tmp_path``), against it; ``env`` adds variables to the kernel's
    (``CLOUDG_MCP_URL`` and ``CLOUDG_MCP_TOKEN`` point it at a Jupyter server: remote mode)."""
    notebook = nbformat.read(path, as_version=4)
    extra = {"JPY_PARENT_PID": str(server.proc.pid)} if server is not None else {}
    with isolated_jupyter(tmp_path, {**extra, **(env or {})}):
        client = NotebookClient(notebook, timeout=CELL_TIMEOUT, kernel_name="python3",
                                allow_errors=True,
                                resources={"metadata": {"path": str(path.parent)}})
        client.execute()
    return notebook


def output_text(output: nbformat.NotebookNode) -> str:
    if output.get("output_type") == "stream":
        return str(output.get("text", ""))
    if output.get("output_type") == "error":
        return f"{output.get('ename')}: {output.get('evalue')}"
    return str((output.get("data") or {}).get("text/plain", ""))


def cell_text(cell: nbformat.NotebookNode) -> str:
    """Everything a code cell printed or displayed, as text."""
    return "\n".join(output_text(o) for o in cell.get("outputs", []))


def problems(notebook: nbformat.NotebookNode) -> list[str]:
    """Each error output, and each cloudg error display outside cells tagged EXPECTS_ERROR,
    as ``cell N: source head: error``."""
    found = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        expected = EXPECTS_ERROR in cell.get("metadata", {}).get("tags", [])
        for output in cell.get("outputs", []):
            html = str((output.get("data") or {}).get("text/html", ""))
            if output.get("output_type") == "error":
                trace = "\n".join(output.get("traceback", []))
                found.append(f"cell {index} ({cell.source[:60]!r}): {output_text(output)}\n"
                             f"{trace}")
            elif "cloudg-error" in html and not expected:
                found.append(f"cell {index} ({cell.source[:60]!r}): {output_text(output)}")
    return found


def stderr_blocks(notebook: nbformat.NotebookNode) -> list[str]:
    """What each code cell wrote to stderr, as ``cell N: text`` (a warning the reader would
    take for an error)."""
    return [f"cell {index}: {output.get('text', '')}"
            for index, cell in enumerate(notebook.cells) if cell.cell_type == "code"
            for output in cell.get("outputs", [])
            if output.get("output_type") == "stream" and output.get("name") == "stderr"]
