"""The quickstart as a person sees it: JupyterLab with the extension on 127.0.0.1, headless
Chromium opens the real ``notebooks/01-quickstart.ipynb`` and runs all cells (remote mode: the
kernel is started by the server), the widgets, figure and live table render; then an external
MCP client suppresses a finding and the open page's live table follows without a re-run.
The other example notebooks run there too (remote mode), with no error but the ones they show.
"""

from __future__ import annotations

import os
import shutil
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement

from tests.jupyter.server import ROOT, JupyterServer
from tests.protocol.harness import open_session

from .chrome import ARTIFACTS, WIDGET_FAILURES, LabPage, wait_for
from .test_theme_in_browser import _TEXTS, DARK, LIGHT, TEXT_CONTRAST, switch_theme

QUICKSTART = "notebooks/01-quickstart.ipynb"
#: The README's picture of the quickstart (committed); the test writes it to ARTIFACTS and,
#: with CLOUDG_UPDATE_SCREENSHOT=1 set, over the committed one.
README_SCREENSHOT = ROOT / "docs" / "screenshot-quickstart.png"
#: Opens the live table's cell output in its own panel beside the notebook (JupyterLab's
#: "Create New View for Cell Output"), with the file browser folded away.
_LIVE_TABLE_VIEW = """
const [index, done] = arguments;
const app = window.jupyterapp;
const panel = app.shell.currentWidget;
app.shell.collapseLeft();
panel.content.activeCellIndex = index;
app.commands.execute('notebook:create-output-view').then(() => {
  app.shell.activateById(panel.id);  // the notebook stays the current widget
  done(true);
});
"""


@pytest.fixture(scope="module")
def quickstart(lab: JupyterServer) -> str:
    """The real quickstart notebook, copied under the lab's root dir."""
    target = lab.root_dir / QUICKSTART
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ROOT / QUICKSTART, target)
    return QUICKSTART


def text_of(element: WebElement) -> str:
    """All the text in ``element``, on screen or not (off-screen cells skip rendering)."""
    return str(element.get_attribute("textContent") or "")


def code_cell_index(page: LabPage, source_part: str) -> int:
    """Index among the code cells of the first one whose source contains ``source_part``."""
    sources = page.driver.execute_script("""
        const panel = window.jupyterapp.shell.currentWidget;
        return [...panel.content.model.cells].filter(c => c.type === 'code')
            .map(c => c.sharedModel.getSource());""")
    for index, source in enumerate(sources):
        if source_part in source:
            return index
    raise AssertionError(f"no code cell contains {source_part!r}")


def output_area(page: LabPage, source_part: str) -> WebElement:
    area = page.output_areas()[code_cell_index(page, source_part)]
    page.driver.execute_script("arguments[0].scrollIntoView({block: 'start'});", area)
    return area


def execution_counts(page: LabPage) -> list[Any]:
    state = page.state()
    assert state is not None
    return [cell["count"] for cell in state["cells"] if cell["type"] == "code"]


#: The rows the live table's grid draws (perspective's datagrid: a regular-table in the
#: plugin's shadow root), as text.
_GRID_TEXT = """
const plugin = arguments[0].querySelector('perspective-viewer perspective-viewer-datagrid');
const table = plugin && plugin.shadowRoot && plugin.shadowRoot.querySelector('regular-table');
return table ? table.querySelector('tbody').textContent : '';
"""


def live_table_text(page: LabPage) -> str:
    return str(page.driver.execute_script(_GRID_TEXT, output_area(page, "client.live(")))


def test_quickstart_renders_widgets_and_figure_and_its_live_table_follows_an_assistant(
        page: LabPage, lab: JupyterServer, quickstart: str) -> None:
    page.open_notebook(quickstart)
    page.run_all_cells()

    assert page.errors() == []
    areas = page.output_areas()
    assert not [text_of(a) for a in areas if "Error [" in text_of(a)]
    assert not [text_of(a) for a in areas if any(f in text_of(a) for f in WIDGET_FAILURES)]
    mode = text_of(output_area(page, "%load_ext cloudg_nb"))
    assert f"cloudg: remote: Jupyter server {lab.url}" in mode

    progress = output_area(page, '"centrality_top"')
    wait_for(lambda: "✓ centrality_top: 10 rows" in text_of(progress),
             "the progress widget's summary line")
    assert progress.find_elements(By.CSS_SELECTOR, ".widget-hprogress, .progress-bar")
    figure = output_area(page, "plot_attack_paths(paths")
    image = wait_for(lambda: figure.find_elements(By.CSS_SELECTOR, "img"),
                     "the attack-path figure")[0]
    assert str(image.get_attribute("src")).startswith("data:image/png")
    assert image.size["width"] > 400 and image.size["height"] > 200
    page.screenshot("quickstart-figure")

    before = wait_for(lambda: live_table_text(page), "the live table widget")
    assert "f-001" in before and "f-012" in before
    counts = execution_counts(page)
    page.screenshot("quickstart-live-before")
    with open_session(lab.endpoint, "2025", headers=lab.headers) as assistant:
        done = assistant.call_tool("suppress_findings",
                                   {"ids": ["f-012"], "reason": "accepted risk (browser test)"})
        assert not done.is_error
    wait_for(lambda: "f-012" not in live_table_text(page), "the live table to drop f-012")
    after = live_table_text(page)
    assert "f-001" in after
    assert execution_counts(page) == counts
    page.screenshot("quickstart-live-after")
    readme_screenshot(page)


def readme_screenshot(page: LabPage) -> None:
    """The notebook at the attack-path figure, the live table in a panel of its own."""
    index = page.driver.execute_script("""
        const cells = [...window.jupyterapp.shell.currentWidget.content.model.cells];
        return cells.findIndex(c => c.type === 'code'
                                    && c.sharedModel.getSource().includes('client.live('));""")
    page.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": 1400, "height": 1500, "deviceScaleFactor": 1, "mobile": False})
    page.driver.execute_async_script(_LIVE_TABLE_VIEW, index)
    wait_for(lambda: page.driver.execute_script(
        _GRID_TEXT, page.driver.find_element(By.CSS_SELECTOR, ".jp-LinkedOutputView")),
        "the live table's own view")
    area = output_area(page, "plot_attack_paths(paths")
    page.driver.execute_script(
        "arguments[0].closest('.jp-WindowedPanel-outer').scrollBy(0, -40);", area)
    shot = page.screenshot("readme-quickstart")
    if os.environ.get("CLOUDG_UPDATE_SCREENSHOT") == "1":
        README_SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, README_SCREENSHOT)


def test_assistant_notebook_runs_remotely_with_a_minted_stand_in_and_its_drift_report(
        page: LabPage, lab: JupyterServer) -> None:
    notebook = "notebooks/02-with-an-ai-assistant.ipynb"
    (lab.root_dir / notebook).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ROOT / notebook, lab.root_dir / notebook)
    page.open_notebook(notebook)
    page.run_all_cells()

    assert page.errors() == []
    areas = page.output_areas()
    assert not [text_of(a) for a in areas if "Error [" in text_of(a)]
    assert not [text_of(a) for a in areas if lab.token in text_of(a)]
    commands = text_of(output_area(page, "ALL_CLIENTS"))
    assert f"MCP endpoint of this Jupyter server: {lab.endpoint}" in commands
    assert "cloudg-nb config --client claude-code --jupyter" in commands
    decided = text_of(output_area(page, "client.approve("))
    assert "Waiting: suppress_findings from assistant:notebook-stand-in." in decided
    assert "The assistant's call: suppressed" in decided
    assert "without running its cell" in text_of(output_area(page, "without running its cell"))
    report = output_area(page, "%cloudg diff demo drifted")
    wait_for(lambda: "web-alb lost its WAF (web-waf)" in text_of(report), "the drift report")
    assert "web-waf (WAF) protects web-alb" in text_of(report)
    page.screenshot("assistant-drift-report")
    drift_report_reads_in_both_themes(page, report)
    with open_session(lab.endpoint, "2025", headers=lab.headers) as other:
        listed = other.call_tool("list_datasets", {}).structured_content
    assert [(d["name"], d["active"]) for d in listed["datasets"]] == [("demo", True)]


def drift_report_reads_in_both_themes(page: LabPage, report: WebElement) -> None:
    """Every text of the drift report reads at least 4.5:1 on what is behind it, in the light
    theme and in the dark one (screenshots of each); the page is left in the light theme."""
    box = report.find_element(By.CSS_SELECTOR, ".cloudg-drift")
    try:
        for theme, label in ((LIGHT, "light"), (DARK, "dark")):
            switch_theme(page, theme)
            page.driver.execute_script("arguments[0].scrollIntoView({block: 'start'});", box)
            shown = page.driver.execute_script(_TEXTS, box)
            assert shown and min(t["contrast"] for t in shown) >= TEXT_CONTRAST, (theme, [
                t for t in shown if t["contrast"] < TEXT_CONTRAST])
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            box.screenshot(str(ARTIFACTS / f"drift-report-{label}.png"))
    finally:
        switch_theme(page, LIGHT)


@pytest.mark.parametrize("notebook", ["notebooks/03-privacy-and-policy.ipynb",
                                      "notebooks/04-bring-your-own-data.ipynb"])
def test_privacy_and_own_data_notebooks_run_remotely_without_errors(
        page: LabPage, lab: JupyterServer, notebook: str) -> None:
    shutil.copytree(ROOT / "notebooks" / "data", lab.root_dir / "notebooks" / "data",
                    dirs_exist_ok=True)
    shutil.copyfile(ROOT / notebook, lab.root_dir / notebook)
    page.open_notebook(notebook)
    page.run_all_cells()

    assert page.errors() == []
    assert "cloudg: remote: Jupyter server" in text_of(output_area(page, "%load_ext cloudg_nb"))
    shown_errors = [text_of(area) for area in page.output_areas() if "Error [" in text_of(area)]
    expected = {"03-privacy-and-policy.ipynb": [],
                "04-bring-your-own-data.ipynb": ["the JSON is truncated",
                                                 "outside the allowed folders"]}
    wanted = expected[notebook.rsplit("/", 1)[1]]
    assert len(shown_errors) == len(wanted)
    assert all(want in shown for want, shown in zip(wanted, shown_errors, strict=True))
