"""CI runs every example notebook top to bottom, headless (nbclient, local mode, the notebook's
own folder as working directory), and fails on any error output; each test also checks what
the notebook is there to show. The notebooks are committed without outputs, as built."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from .execute import (
    EXPECTS_ERROR,
    NOTEBOOKS,
    cell_text,
    execute_notebook,
    problems,
    stderr_blocks,
)

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def code_cells(notebook: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def cell_with(notebook: nbformat.NotebookNode, text: str) -> nbformat.NotebookNode:
    """The first code cell whose source contains ``text``."""
    for cell in code_cells(notebook):
        if text in cell.source:
            return cell
    raise AssertionError(f"no code cell contains {text!r}")


def stdout_of(cell: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") for o in cell.outputs
                   if o.get("output_type") == "stream" and o.get("name") == "stdout")


def mime_types(cell: nbformat.NotebookNode) -> set[str]:
    return {key for output in cell.outputs for key in (output.get("data") or {})}


def test_committed_notebooks_are_built_from_build_py_without_outputs() -> None:
    built = subprocess.run([sys.executable, str(NOTEBOOKS / "build.py"), "--check"],
                           capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stdout + built.stderr
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        assert all(not cell.get("outputs") and cell.get("execution_count") is None
                   for cell in code_cells(notebook)), path.name


def test_an_error_output_or_an_untagged_cloudg_error_display_fails_the_run() -> None:
    shown = nbformat.v4.new_output("display_data", data={
        "text/plain": "Error [x]: broken", "text/html": '<div class="cloudg-error">x</div>'})
    raised = nbformat.v4.new_output("error", ename="NameError", evalue="x", traceback=[])
    untagged = nbformat.v4.new_code_cell("%cloudg load bad", outputs=[shown])
    tagged = nbformat.v4.new_code_cell("%cloudg load bad", outputs=[shown],
                                       metadata={"tags": [EXPECTS_ERROR]})
    failing = nbformat.v4.new_code_cell("x", outputs=[raised])
    notebook = nbformat.v4.new_notebook(cells=[untagged, tagged, failing])

    found = problems(notebook)

    assert [line.split(":")[0] for line in found] == ["cell 0 ('%cloudg load bad')",
                                                       "cell 2 ('x')"]


@pytest.mark.kernel
def test_quickstart_runs_locally_without_errors_and_draws_its_pictures(tmp_path: Path) -> None:
    notebook = execute_notebook(NOTEBOOKS / "01-quickstart.ipynb", tmp_path)

    assert problems(notebook) == []
    first = cell_text(code_cells(notebook)[0])
    assert [line for line in first.splitlines() if line.startswith("cloudg: ")] == [
        "cloudg: local: in-process layer (policy standard, sample demo); no Jupyter server "
        "found"]
    assert "image/png" in mime_types(cell_with(notebook, "plot_attack_paths(paths"))
    assert "image/png" in mime_types(cell_with(notebook, "plot_findings_by_severity("))
    progress = cell_with(notebook, '"centrality_top"')
    assert WIDGET_VIEW in mime_types(progress)
    assert "✓ centrality_top: 10 rows" in cell_text(progress)
    live = cell_with(notebook, "client.live(")
    assert WIDGET_VIEW in mime_types(live)
    assert "dataset demo" in cell_text(live)


@pytest.mark.kernel
def test_assistant_notebook_runs_locally_and_its_live_table_follows_the_stand_in(
        tmp_path: Path) -> None:
    notebook = execute_notebook(NOTEBOOKS / "02-with-an-ai-assistant.ipynb", tmp_path)

    assert problems(notebook) == []
    commands = cell_text(cell_with(notebook, "client_config("))
    for name in ("claude-desktop", "claude-code", "cursor", "vscode"):
        assert f"{name}: " in commands
    assert "claude mcp add --transport stdio cloudg" in commands
    followed = re.search(r"went from version (\d+) \((\d+) rows\) to version (\d+) \((\d+) rows\)",
                         cell_text(cell_with(notebook, '"suppress_findings"')))
    assert followed is not None
    before, rows_before, after, rows_after = map(int, followed.groups())
    assert after > before and rows_after < rows_before
    switched = cell_text(cell_with(notebook, '"drifted", "dataset_name"'))
    assert "The live table now shows dataset 'drifted'" in switched
    changes = cell_text(cell_with(notebook, "def described("))
    assert "aws-waf-web" in changes and "suppression_changed" in changes
    tidy = code_cells(notebook)[-1]
    assert "demo" in cell_text(tidy) and "drifted" not in cell_text(tidy)


@pytest.mark.kernel
def test_privacy_notebook_shows_redaction_pseudonyms_reveal_and_audit(tmp_path: Path) -> None:
    notebook = execute_notebook(NOTEBOOKS / "03-privacy-and-policy.ipynb", tmp_path)

    assert problems(notebook) == []
    # it chooses a pseudonym key, so the "vault has no key" warning never shows (in pink)
    assert "Pseudonym key chosen" in stdout_of(cell_with(notebook, "CLOUDG_MCP_VAULT_KEY"))
    assert stderr_blocks(notebook) == []
    side_by_side = cell_with(notebook, "POLICIES = ")
    table = side_by_side.outputs[-1]["data"]["text/html"]
    assert table.count("[REDACTED:user_data]") == 2 and "DB_PASSWORD" in table
    assert table.count("111122223333") == 4  # account id and ARN, under open and standard
    notes = stdout_of(cell_with(notebook, "transform_note"))
    assert "pseudonymized" in notes.splitlines()[-1] and "nothing changed" in notes
    assert "-> web-1" in cell_text(cell_with(notebook, "ref=pseudonym"))
    reveal = stdout_of(cell_with(notebook, '"reveal_token"')).splitlines()
    assert reveal[0].startswith("assistant (analyst): refused: Access denied")
    assert reveal[1].endswith("is aws_account_id 111122223333")
    audit = cell_with(notebook, "privacy_audit_log").outputs[-1]["data"]["text/html"]
    assert "denied" in audit and "[REDACTED:token]" in audit
    seen = cell_text(cell_with(notebook, "as_assistant = "))
    assert "⟦untrusted⟧" in seen and "111122223333" not in seen


@pytest.mark.kernel
def test_own_data_notebook_loads_prowler_and_tables_and_a_bad_file_changes_nothing(
        tmp_path: Path) -> None:
    notebook = execute_notebook(NOTEBOOKS / "04-bring-your-own-data.ipynb", tmp_path)

    assert problems(notebook) == []
    prowler = cell_text(cell_with(notebook, '"$prowler_file" as shop-prowler'))
    assert "kind                prowler" in prowler and "findings            4" in prowler
    exposure = cell_with(notebook, '"internet_exposure"').outputs[-1]["data"]["text/html"]
    assert "sg-admin" in exposure and "shop-assets" in exposure
    compliance = cell_with(notebook, "compliance_summary").outputs[-1]["data"]["text/html"]
    assert "CIS-2.0" in compliance and "PCI-DSS-4.0" in compliance
    tables = cell_text(cell_with(notebook, '"$tables" as shop-tables'))
    assert "assets              9" in tables and "edges               10" in tables
    assert "image/png" in mime_types(cell_with(notebook, "plot_attack_paths(shop_paths"))
    broken = cell_text(cell_with(notebook, '"$broken_file"'))
    assert ("Could not load 'broken-prowler-output.ocsf.json': the JSON is truncated"
            in broken)
    assert "workspace unchanged: True" in cell_text(cell_with(notebook, "workspace unchanged"))
    refused = cell_text(cell_with(notebook, "/etc/passwd"))
    assert "outside the allowed folders" in refused
    assert "set CLOUDG_MCP_ALLOWED_ROOTS" in refused  # local mode: the kernel's own workspace
    details = stdout_of(cell_with(notebook, "refusal = client.last.error"))
    assert "field 'path', allowed roots ['.', " in details
    assert stderr_blocks(notebook) == []
    assert "shop-" not in cell_text(code_cells(notebook)[-1])


def _check_cells(notebook: nbformat.NotebookNode) -> dict[str, nbformat.NotebookNode]:
    found = {}
    for cell in code_cells(notebook):
        named = re.fullmatch(r'check\("([a-z-]+)", \.\.\.\)', cell.source.strip())
        if named:
            found[named.group(1)] = cell
    return found


@pytest.mark.kernel
def test_guided_notebook_runs_with_every_check_waiting_for_an_answer(tmp_path: Path) -> None:
    notebook = execute_notebook(NOTEBOOKS / "05-guided-investigation.ipynb", tmp_path)

    assert problems(notebook) == [] and stderr_blocks(notebook) == []
    checks = _check_cells(notebook)
    assert list(checks) == ["vulnerable-asset", "entry-point", "crown-jewels", "admin-doors"]
    for cell in checks.values():
        assert "… no answer yet" in cell_text(cell)
    assert WIDGET_VIEW in mime_types(cell_with(notebook, "%cloudg call attack_paths"))


@pytest.mark.kernel
def test_guided_notebook_says_right_to_the_right_answers_typed_into_its_check_cells(
        tmp_path: Path) -> None:
    right = {"vulnerable-asset": '"web-1"', "entry-point": '"aws-alb-web"',
             "crown-jewels": '["customers-db", "customer-pii-exports", "db-credentials"]',
             "admin-doors": '"bastion-1, kibana-1, vm-jump-01"'}
    notebook = nbformat.read(NOTEBOOKS / "05-guided-investigation.ipynb", as_version=4)
    for task, cell in _check_cells(notebook).items():
        cell.source = cell.source.replace("...", right[task])
    answered = tmp_path / "answered" / "05-guided-investigation.ipynb"
    answered.parent.mkdir()
    nbformat.write(notebook, answered)

    ran = execute_notebook(answered, tmp_path)

    assert problems(ran) == []
    for task in right:
        verdict = cell_text(cell_with(ran, f'check("{task}", '))
        assert verdict.startswith(f"{task}: ✓ right"), verdict
