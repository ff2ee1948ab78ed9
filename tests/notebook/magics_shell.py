"""Test helpers for the %cloudg magics: an in-process IPython shell with the extension loaded
and a local client (no server), and a runner that captures a cell's displays and prints."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from IPython.core.interactiveshell import ExecutionResult, InteractiveShell
from IPython.utils.capture import capture_output

from cloudg_nb.notebook.client import Client, set_default_client
from cloudg_nb.notebook.magics import CloudGMagics


@dataclass
class CellRun:
    """What one cell did: its execution result, printed text and displayed outputs."""

    result: ExecutionResult
    stdout: str
    stderr: str
    texts: list[str]
    htmls: list[str]

    @property
    def text(self) -> str:
        """Everything a person reads in a terminal: prints and the text of displays."""
        return "\n".join([self.stdout, *self.texts, self.stderr])


def run_cell(ip: InteractiveShell, source: str) -> CellRun:
    with capture_output() as captured:
        result = ip.run_cell(source, store_history=False)
    texts = [o.data.get("text/plain", "") for o in captured.outputs]
    htmls = [o.data.get("text/html", "") for o in captured.outputs]
    return CellRun(result, captured.stdout, captured.stderr, texts, htmls)


@contextmanager
def shell_with_extension(client: Client) -> Iterator[InteractiveShell]:
    """The shared InteractiveShell with ``%load_ext cloudg_nb`` and ``client`` as the magics'
    client; unloads the extension afterwards."""
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "cloudg_nb")
    magics(ip).set_client(client)
    try:
        yield ip
    finally:
        ip.run_line_magic("unload_ext", "cloudg_nb")
        set_default_client(None)


def magics(ip: InteractiveShell) -> CloudGMagics:
    found = ip.magics_manager.registry["CloudGMagics"]
    assert isinstance(found, CloudGMagics)
    return found
