"""Issue 10 acceptance: with no Jupyter server to find, a notebook executed headless by nbclient
(as papermill does) runs the ``%cloudg`` magics in local mode, on an in-process layer with the
demo estate, and says so in one line."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from cloudg_nb import CloudGMCPLayer
from tests.notebook.kernel import install_kernelspec

pytestmark = pytest.mark.kernel

#: Variables that would point the kernel at a server.
SERVER_HINTS = ("CLOUDG_MCP_URL", "CLOUDG_MCP_TOKEN", "JUPYTERHUB_API_TOKEN",
                "JUPYTERHUB_SERVICE_PREFIX", "JUPYTERHUB_API_URL", "BINDER_SERVICE_HOST",
                "JPY_PARENT_PID", "JUPYTER_TOKEN")


async def demo_exposed_ids() -> list[str]:
    """The demo estate's internet-exposed assets, straight from an in-process layer."""
    layer = CloudGMCPLayer()
    loaded = await layer.call_tool("sample_estate", {"name": "demo"})
    assert not loaded.is_error
    found = await layer.call_tool("find_assets", {"internet_exposed": True})
    assert not found.is_error
    return sorted(item["id"] for item in found.structured["items"])


def outputs_text(cell: nbformat.NotebookNode) -> str:
    parts = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            parts.append(output["text"])
        elif "data" in output:
            parts.append(str(output["data"].get("text/plain", "")))
    return "\n".join(parts)


def test_notebook_under_nbclient_without_a_server_runs_magics_locally(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("data", "runtime", "config"):
        folder = tmp_path / f"jupyter-{name}"
        folder.mkdir()
        monkeypatch.setenv(f"JUPYTER_{name.upper()}_DIR", str(folder))
    for name in SERVER_HINTS:
        monkeypatch.delenv(name, raising=False)
    install_kernelspec(tmp_path / "jupyter-data")
    work = tmp_path / "work"
    work.mkdir()
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("%load_ext cloudg_nb"),
        nbformat.v4.new_code_cell("%cloudg call find_assets internet_exposed=true -o df"),
        nbformat.v4.new_code_cell(
            "import json\nprint(json.dumps({'type': type(df).__name__, "
            "'ids': sorted(df['id']), 'cwd': __import__('os').getcwd()}))"),
    ])
    client = NotebookClient(notebook, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(work)}})
    client.execute()

    errors = [o for c in notebook.cells for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors, errors
    call_output = outputs_text(notebook.cells[0]) + outputs_text(notebook.cells[1])
    mode_lines = [ln for ln in call_output.splitlines() if "local" in ln.lower()]
    assert len(mode_lines) == 1, call_output
    assert "remote" not in call_output.lower(), call_output
    facts = json.loads(outputs_text(notebook.cells[2]).strip().splitlines()[-1])
    assert facts["type"] == "DataFrame"
    assert facts["ids"] == asyncio.run(demo_exposed_ids())
    assert os.path.samefile(facts["cwd"], work)
