"""CI runs every example notebook top to bottom, headless (nbclient, local mode, the notebook's
own folder as working directory), and fails on any error output; each test also checks what
the notebook is there to show. The notebooks are committed without outputs, as built."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

from cloudg_nb.estate import demo
from tests.jupyter.server import JupyterServer, jupyter_server
from tests.lanes import starts
from tests.protocol.harness import open_session

from .execute import (
    EXPECTS_ERROR,
    NOTEBOOKS,
    cell_text,
    execute_notebook,
    output_text,
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


STAND_IN = "assistant:notebook-stand-in"
#: An assistant token in full (a hint shows only its first characters).
FULL_ASSISTANT_TOKEN = re.compile(r"cgat_[A-Za-z0-9_-]{20,}")


def all_text(notebook: nbformat.NotebookNode) -> str:
    """Every source and every output of the notebook, as text (HTML included)."""
    parts = []
    for cell in notebook.cells:
        parts.append(cell.source)
        for output in cell.get("outputs", []):
            parts.append(output_text(output))
            parts.append(str((output.get("data") or {}).get("text/html", "")))
    return "\n".join(parts)


@pytest.fixture(scope="module")
@starts("server", "kernel")
def assistant_notebook(tmp_path_factory: pytest.TempPathFactory
                       ) -> Iterator[tuple[nbformat.NotebookNode, JupyterServer]]:
    """Notebook 02 executed by nbclient against a real Jupyter server, as a kernel the server
    started would run it (remote mode); the server stays up for the checks."""
    tmp_path = tmp_path_factory.mktemp("assistant-notebook")
    with jupyter_server(tmp_path, other_extensions=False) as server:
        notebook = execute_notebook(NOTEBOOKS / "02-with-an-ai-assistant.ipynb", tmp_path,
                                    server)
        yield notebook, server


@pytest.mark.kernel
@pytest.mark.server
def test_assistant_notebook_runs_against_the_server_without_errors(
        assistant_notebook: tuple[nbformat.NotebookNode, JupyterServer]) -> None:
    notebook, server = assistant_notebook
    assert problems(notebook) == []
    first = cell_text(code_cells(notebook)[0])
    assert f"cloudg: remote: Jupyter server {server.url}" in first


@pytest.mark.kernel
@pytest.mark.server
def test_assistant_notebook_never_shows_the_server_token_nor_the_assistants_token(
        assistant_notebook: tuple[nbformat.NotebookNode, JupyterServer]) -> None:
    notebook, server = assistant_notebook
    text = all_text(notebook)
    assert server.token not in text
    assert "JUPYTER_TOKEN" not in text and "Bearer $" not in text
    assert FULL_ASSISTANT_TOKEN.search(text) is None
    commands = cell_text(cell_with(notebook, "ALL_CLIENTS"))
    assert f"MCP endpoint of this Jupyter server: {server.endpoint}" in commands
    for name in ("claude-desktop", "claude-code", "cursor", "vscode", "jupyter-ai"):
        assert f"cloudg-nb config --client {name} --jupyter" in commands
    minted = cell_text(cell_with(notebook, "cloudg/api/assistants"))
    assert f"Minted a credential for {STAND_IN} (token cgat_" in minted


@pytest.mark.kernel
@pytest.mark.server
def test_the_stand_ins_suppression_waits_for_the_notebooks_approval_and_the_table_follows(
        assistant_notebook: tuple[nbformat.NotebookNode, JupyterServer]) -> None:
    notebook, _ = assistant_notebook
    found = re.search(r"found (\d+) LOW/INFO findings",
                      cell_text(cell_with(notebook, '"suppress_findings"')))
    assert found is not None
    decided = cell_text(cell_with(notebook, "client.approve("))
    assert f"Waiting: suppress_findings from {STAND_IN}." in decided
    assert "Approved here." in decided
    assert f"suppressed {found.group(1)} findings" in decided
    followed = re.search(r"went from version (\d+) \((\d+) rows\) to version (\d+) \((\d+) rows\)",
                         cell_text(cell_with(notebook, "without running its cell")))
    assert followed is not None
    before, rows_before, after, rows_after = map(int, followed.groups())
    assert after > before and rows_before - rows_after == int(found.group(1))
    assert WIDGET_VIEW in mime_types(cell_with(notebook, "%cloudg approvals -o panel"))
    assert WIDGET_VIEW in mime_types(cell_with(notebook, "%cloudg activity -o feed"))


@pytest.mark.kernel
@pytest.mark.server
def test_the_activity_shows_the_stand_ins_calls_under_its_name_with_the_approval(
        assistant_notebook: tuple[nbformat.NotebookNode, JupyterServer]) -> None:
    notebook, _ = assistant_notebook
    table = cell_with(notebook, "by_assistants = ").outputs[-1]["data"]
    rows = table["text/plain"]
    assert STAND_IN in rows and "list_findings" in rows
    assert re.search(r"suppress_findings\s+ok\s+approved", rows), rows


@pytest.mark.kernel
@pytest.mark.server
def test_the_drift_report_names_the_lost_waf_and_the_paths_it_opens(
        assistant_notebook: tuple[nbformat.NotebookNode, JupyterServer]) -> None:
    notebook, _ = assistant_notebook
    assert "your active dataset is still 'demo'" in cell_text(cell_with(notebook, "activate=False"))
    report = cell_text(cell_with(notebook, "%cloudg diff demo drifted"))
    assert report.index("What got worse") < report.index(
        "web-waf (WAF) protects web-alb — protector removed") < report.index("What improved")
    assert "internet → web-alb → web-1 → app-role → customers-db — web-alb lost its WAF " \
           "(web-waf)" in report
    assert "Nothing is newly exposed" not in all_text(notebook)
    paths = cell_text(cell_with(notebook, 'drift["worse"]["attack_paths_opened"]'))
    assert "customer-pii-exports" in paths and "db-credentials" in paths


@pytest.mark.kernel
@pytest.mark.server
def test_assistant_notebook_leaves_the_workspace_as_it_found_it_and_revokes_the_stand_in(
        assistant_notebook: tuple[nbformat.NotebookNode, JupyterServer]) -> None:
    notebook, server = assistant_notebook
    assert "revoked assistant:notebook-stand-in" in cell_text(code_cells(notebook)[-1])
    with open_session(server.endpoint, "2025", headers=server.headers) as analyst:
        listed = analyst.call_tool("list_datasets", {}).structured_content
        summary = analyst.call_tool("findings_summary", {}).structured_content
    assert [(d["name"], d["active"]) for d in listed["datasets"]] == [("demo", True)]
    assert summary["suppressed"] == int(demo().findings["is_suppressed"].sum())
    status, body = server.get_json(f"{server.url}cloudg/api/assistants")
    assert status == 200 and not [a for a in body["assistants"]
                                  if a["name"] == "notebook-stand-in"]


@pytest.mark.kernel
def test_assistant_notebook_run_without_a_server_stops_at_once_saying_it_needs_one(
        tmp_path: Path) -> None:
    notebook = execute_notebook(NOTEBOOKS / "02-with-an-ai-assistant.ipynb", tmp_path)
    first = problems(notebook)[0]
    assert first.startswith("cell 1 ") and "needs that server" in first


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
    # local mode: the kernel's own workspace, whose roots come from the environment
    assert "the environment variable CLOUDG_MCP_ALLOWED_ROOTS" in refused
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
