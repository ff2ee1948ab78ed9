"""Results in a real kernel started by a real Jupyter server (remote mode, as in JupyterLab): a
call over the rows a table shows reaches the grid with every row; Tab offers only real
candidates; errors read with their names and the Jupyter setting that fits."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from cloudg_nb.notebook.magics import SUBCOMMANDS
from cloudg_nb.notebook.readable_table import TABLE_ROWS
from tests.jupyter.server import JupyterServer
from tests.notebook.kernel import WIDGET_VIEW, ServerKernel, server_kernel

pytestmark = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")

#: The kernel's client (the magics' one), as an expression run in the kernel.
_CLIENT = "__import__('cloudg_nb.notebook.client', fromlist=['c']).default_client()"
#: Findings of the scaled sample estate of 3,000 assets: well over the 500 a page holds.
BIG_ASSETS = 3000


@pytest.fixture(scope="module")
def kernel(kernel_server: JupyterServer) -> Iterator[ServerKernel]:
    """One kernel for the module, with the extension loaded and a big dataset on the server."""
    with server_kernel(kernel_server) as started:
        for code in ("%load_ext cloudg_nb",
                     f"%cloudg call sample_estate name=scaled n={BIG_ASSETS} "
                     "dataset_name=big activate=false"):
            done = started.execute(code, timeout=180)
            assert done.ok and "Error" not in done.text, done.text
        yield started


def test_a_call_over_500_rows_reaches_the_grid_with_every_row(kernel: ServerKernel) -> None:
    total = kernel.value(f'{_CLIENT}.call("list_findings", dataset="big", limit=1, '
                         'progress=False).data["total"]')
    assert total > 500
    since = kernel.mark()
    run = kernel.execute("%cloudg call list_findings dataset=big limit=500 -o df",
                         timeout=120)
    assert run.ok and "Traceback" not in run.text, run.text
    assert any(WIDGET_VIEW in d for d in run.displays), run.displays
    assert kernel.value("len(df)") == total
    grids = kernel.value(  # the rows each grid viewer in the kernel holds
        "[w.table.size() for w in list(__import__('ipywidgets.widgets.widget', fromlist=['w'])"
        "._instances.values()) if type(w).__name__ == 'GridViewer']")
    assert grids == [total], grids
    captions = [v for m in kernel.widget_models(since).values()
                if m.model_name == "HTMLModel" for v in m.values() if isinstance(v, str)]
    assert any(f"all {total:,} findings in the grid" in c for c in captions), captions
    assert not any("text cut" in c or "policy:" in c for c in captions), captions


def test_without_the_grid_the_caption_says_how_many_rows_are_not_shown(
        kernel: ServerKernel) -> None:
    run = kernel.execute("import os; os.environ['CLOUDG_GRID'] = 'html'\n"
                         "%cloudg call list_findings dataset=big limit=500", timeout=120)
    kernel.execute("del os.environ['CLOUDG_GRID']")
    assert run.ok, run.stderr
    found = re.search(rf"showing {TABLE_ROWS} of ([\d,]+) findings — -o VAR stores them all",
                      run.text)
    assert found and int(found.group(1).replace(",", "")) > 500, run.text[-2000:]


def test_tab_after_the_magic_offers_only_subcommands(kernel: ServerKernel) -> None:
    reply = kernel.complete("%cloudg ")
    assert reply["status"] == "ok", reply
    assert reply["matches"] == list(SUBCOMMANDS)


def test_tab_after_call_offers_only_the_servers_tools(kernel: ServerKernel) -> None:
    matches = kernel.complete("%cloudg call ")["matches"]
    tools = kernel.value(f"[t['name'] for t in {_CLIENT}.tools()]")
    assert matches == tools
    assert not {"%", "cloudg", "call", "%cloudg"} & set(matches)


@pytest.mark.parametrize("line", ["%cloudg status ", "%cloudg call find_assets -o ",
                                  "%cloudg describe find_assets "])
def test_tab_where_nothing_fits_offers_nothing(kernel: ServerKernel, line: str) -> None:
    assert kernel.complete(line)["matches"] == []


def test_a_path_outside_the_roots_names_the_jupyter_setting(kernel: ServerKernel) -> None:
    run = kernel.execute("%cloudg load /etc/passwd as secrets")
    assert "Error [access_denied] in load_dataset" in run.text, run.text
    assert "c.CloudGExtension.allowed_roots (jupyter_server_config.py) allows more" in run.text
    assert "CLOUDG_MCP_ALLOWED_ROOTS" not in run.text and "error data" not in run.text
    assert "roots: " in run.text


def test_errors_in_a_kernel_use_names_never_numbers(kernel: ServerKernel) -> None:
    run = kernel.execute('%cloudg call list_findings severities=["HIGHH"]')
    assert "Error [invalid_arguments] in list_findings" in run.text, run.text
    assert not re.search(r"Error \[-\d+\]", run.text)
