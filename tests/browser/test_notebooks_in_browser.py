"""Each example notebook as a learner sees it: JupyterLab with the extension, headless
Chromium opens the real notebook and runs all its cells (remote mode), with no error output,
no stderr block and no cloudg error but the ones it shows on purpose; then each key output is
kept as a screenshot in the light theme and, after a switch (no re-run), the dark one:
``test-artifacts/browser/notebook-<NN>-<output>-<light|dark>.png``. Notebook 05 is run with
one right and one wrong answer typed into its check cells, so its verdicts show too.
"""

from __future__ import annotations

import shutil
from typing import Any

import pytest
from selenium.webdriver.remote.webelement import WebElement

from tests.jupyter.server import ROOT, JupyterServer

from .chrome import ARTIFACTS, WIDGET_FAILURES, LabPage, wait_for
from .test_quickstart_in_browser import code_cell_index, text_of
from .test_theme_in_browser import DARK, LIGHT, switch_theme

#: Per notebook: its key outputs (name -> a piece of the source of the cell that shows it)
#: and the errors it shows on purpose (a piece of each, in order).
NOTEBOOKS_SHOWN: dict[str, dict[str, Any]] = {
    "01-quickstart.ipynb": {
        "outputs": {"figure": "plot_attack_paths(paths", "graph": "graph(paths, findings",
                    "top-risks": 'client.frame("top_risks")', "progress": '"centrality_top"',
                    "live-table": "client.live(", "approval": "client.approval_panel()",
                    "decided": "client.approve(", "activity": "client.activity_feed()"},
        "errors": []},
    "03-privacy-and-policy.ipynb": {
        "outputs": {"vault-key": "CLOUDG_MCP_VAULT_KEY", "side-by-side": "POLICIES = ",
                    "transforms": "transform_note", "reveal": '"reveal_token"',
                    "audit": "privacy_audit_log"},
        "errors": []},
    "04-bring-your-own-data.ipynb": {
        "outputs": {"prowler": '"$prowler_file" as shop-prowler',
                    "paths": "plot_attack_paths(shop_paths", "broken-file": '"$broken_file"',
                    "outside-roots": "/etc/passwd", "error-details": "refusal = client.last"},
        "errors": ["the JSON is truncated", "outside the allowed folders"]},
    "05-guided-investigation.ipynb": {
        "outputs": {"findings": "%cloudg call list_findings", "right": 'check("vulnerable-asset"',
                    "graph": "%cloudg call attack_paths", "wrong": 'check("entry-point"',
                    "waiting": 'check("crown-jewels"',
                    "exposure": "%cloudg call internet_exposure"},
        "errors": []},
}
#: Answers typed into notebook 05's check cells before it runs: one right, one wrong.
TYPED_ANSWERS = {'check("vulnerable-asset", ...)': 'check("vulnerable-asset", "web-1")',
                 'check("entry-point", ...)': 'check("entry-point", "bastion-1")'}

_SET_SOURCES = """
const replacements = arguments[0];
const panel = window.jupyterapp.shell.currentWidget;
for (const cell of panel.content.model.cells) {
  const source = cell.sharedModel.getSource();
  if (source in replacements) cell.sharedModel.setSource(replacements[source]);
}
return true;
"""
_STDERR = """
const panel = window.jupyterapp.shell.currentWidget;
return [...panel.content.model.cells].filter(c => c.type === 'code')
  .flatMap(c => c.outputs.toJSON())
  .filter(o => o.output_type === 'stream' && o.name === 'stderr').map(o => o.text);
"""
_SHUT_DOWN = """
const done = arguments[arguments.length - 1];
window.jupyterapp.shell.currentWidget.sessionContext.shutdown().then(() => done(true));
"""


@pytest.fixture(scope="module")
def copied(lab: JupyterServer) -> list[str]:
    """The real notebooks and their data, under the lab's root dir."""
    shutil.copytree(ROOT / "notebooks" / "data", lab.root_dir / "notebooks" / "data",
                    dirs_exist_ok=True)
    for name in NOTEBOOKS_SHOWN:
        shutil.copyfile(ROOT / "notebooks" / name, lab.root_dir / "notebooks" / name)
    return list(NOTEBOOKS_SHOWN)


def output_of(page: LabPage, source_part: str) -> WebElement:
    area = page.output_areas()[code_cell_index(page, source_part)]
    page.driver.execute_script("arguments[0].scrollIntoView({block: 'start'});", area)
    return area


def shoot(page: LabPage, stem: str, outputs: dict[str, str], theme: str) -> None:
    """Each key output, scrolled into view and drawn, saved on its own."""
    label = "light" if theme == LIGHT else "dark"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for name, source_part in outputs.items():
        area = output_of(page, source_part)
        wait_for(lambda area=area: text_of(area).strip() or area.find_elements(
            "css selector", "img, canvas, .cloudg-graph"), f"the {name} output drawn")
        wait_for(lambda area=area: not any(f in text_of(area) for f in WIDGET_FAILURES),
                 f"the {name} widget rendered")
        if area.size["height"] > 0:
            area.screenshot(str(ARTIFACTS / f"notebook-{stem}-{name}-{label}.png"))
    page.screenshot(f"notebook-{stem}-{label}")


@pytest.mark.parametrize("name", list(NOTEBOOKS_SHOWN))
def test_notebook_runs_in_the_lab_without_errors_and_its_outputs_are_kept_in_both_themes(
        page: LabPage, lab: JupyterServer, copied: list[str], name: str) -> None:
    shown = NOTEBOOKS_SHOWN[name]
    stem = name.split("-", 1)[0]
    page.open_notebook(f"notebooks/{name}")
    switch_theme(page, LIGHT)
    if name.startswith("05-"):
        page.driver.execute_script(_SET_SOURCES, TYPED_ANSWERS)
    page.run_all_cells()
    try:
        assert page.errors() == []
        assert page.driver.execute_script(_STDERR) == []
        areas = page.output_areas()
        assert any("cloudg: remote: Jupyter server" in text_of(a) for a in areas)
        shown_errors = [text_of(a) for a in areas if "Error [" in text_of(a)]
        assert len(shown_errors) == len(shown["errors"])
        assert all(want in got for want, got in zip(shown["errors"], shown_errors, strict=True))
        if name.startswith("05-"):
            assert "✓ Right" in text_of(output_of(page, 'check("vulnerable-asset"'))
            assert "✗ Not yet" in text_of(output_of(page, 'check("entry-point"'))
            assert "No answer yet" in text_of(output_of(page, 'check("crown-jewels"'))
        if name.startswith("01-"):
            assert "approved: the assistant's call is done" in text_of(
                output_of(page, "client.approve("))
        shoot(page, stem, shown["outputs"], LIGHT)
        switch_theme(page, DARK)  # the outputs follow the theme without a re-run
        shoot(page, stem, shown["outputs"], DARK)
    finally:
        switch_theme(page, LIGHT)
        page.driver.execute_async_script(_SHUT_DOWN)
