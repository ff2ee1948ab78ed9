"""Result tables as a person sees them in JupyterLab (headless Chromium): ids and titles stay
on one line, missing values read ``—``, numbers right-aligned; and what the Tab key offers on a
``%cloudg`` line. Screenshots: test-artifacts/browser/tables-*.png.
"""

from __future__ import annotations

from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from cloudg_nb.notebook.magics import SUBCOMMANDS

from .chrome import ARTIFACTS, LabPage, wait_for

CELLS = ["%load_ext cloudg_nb", "%cloudg call list_findings", "%cloudg call find_assets limit=40",
         "%cloudg describe list_findings", ""]
NOTEBOOK = "tables.ipynb"
NOTEBOOKS = {NOTEBOOK: CELLS}

#: Each cell of the first table in arguments[0]: its column, text, and whether it takes more
#: than one line on screen (its height against its line height), with its computed style.
_CELLS = """
const table = arguments[0].querySelector('table.cloudg-table');
if (!table) return null;
const names = [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim());
const out = [];
for (const tr of table.querySelectorAll('tbody tr')) {
  [...tr.children].forEach((td, i) => {
    const style = getComputedStyle(td);
    const line = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.4;
    const inner = td.getBoundingClientRect().height - parseFloat(style.paddingTop)
      - parseFloat(style.paddingBottom);
    out.push({column: names[i], text: td.textContent.trim(), lines: inner / line,
              whiteSpace: style.whiteSpace, align: style.textAlign, title: td.title});
  });
}
return out;
"""


def _opened(page: LabPage) -> None:
    state = page.state()
    if not (state and state["path"] == NOTEBOOK and all(
            c["count"] is not None for c in state["cells"][:-1] if c["type"] == "code")):
        page.open_notebook(NOTEBOOK)
        page.driver.execute_script(
            "window.jupyterapp.commands.execute('notebook:run-all-cells'); return true;")
        wait_for(lambda: all(c["count"] is not None for c in page.state()["cells"][:-1]),
                 "the table cells to run")
        wait_for(lambda: page.state()["kernel"] == "idle", "the kernel to be idle")
    assert page.errors() == []


def _cells(page: LabPage, index: int) -> list[dict[str, Any]]:
    area = page.output_areas()[index]
    page.driver.execute_script("arguments[0].scrollIntoView({block: 'start'});", area)
    return list(wait_for(lambda: page.driver.execute_script(_CELLS, area),
                         f"the table of cell {index}"))


def test_ids_and_titles_stay_on_one_line_in_jupyterlab(page: LabPage) -> None:
    _opened(page)
    cells = _cells(page, 1)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot("tables-findings")
    for column in ("id", "title", "resource_name", "compliance_frameworks"):
        shown = [c for c in cells if c["column"] == column]
        assert shown and all(c["lines"] < 1.5 for c in shown), (column, shown[:3])
    assert all(c["whiteSpace"] == "nowrap" for c in cells if c["column"] == "id")


def test_missing_values_read_as_a_dash_and_numbers_align_right(page: LabPage) -> None:
    _opened(page)
    cells = _cells(page, 2)
    severities = [c["text"] for c in cells if c["column"] == "max_severity"]
    assert "—" in severities and not {"NaN", "nan", "None"} & {c["text"] for c in cells}
    assert all(c["align"] == "right" for c in cells if c["column"] == "open_findings")
    assert all(c["align"] == "left" for c in cells if c["column"] == "name")


def test_describe_shows_whole_descriptions_that_wrap(page: LabPage) -> None:
    _opened(page)
    cells = _cells(page, 3)
    page.screenshot("tables-describe")
    cursor = [c for c in cells if c["column"] == "description" and "stale" in c["text"]]
    assert cursor and cursor[0]["text"].endswith("the filters differ.")
    assert not any(c["text"].endswith("…") for c in cells)


def _completions(page: LabPage, line: str) -> list[str]:
    """Type ``line`` in the notebook's last (empty) cell, press Tab, read the completer."""
    driver = page.driver
    editors = driver.find_elements(By.CSS_SELECTOR, ".jp-Notebook .jp-Cell .cm-content")
    editor = editors[-1]
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", editor)
    editor.click()
    editor.send_keys(Keys.CONTROL, "a")
    editor.send_keys(Keys.DELETE)
    editor.send_keys(line)
    editor.send_keys(Keys.TAB)
    items = wait_for(lambda: driver.find_elements(
        By.CSS_SELECTOR, ".jp-Completer:not(.lm-mod-hidden) .jp-Completer-item"),
        f"the completer for {line!r}")
    labels = [item.get_attribute("data-value") or item.text for item in items]
    page.screenshot("tables-completer")
    editor.send_keys(Keys.ESCAPE)
    return [label.strip() for label in labels]


def test_tab_after_the_magic_offers_subcommands_first_and_no_python_names(page: LabPage
                                                                         ) -> None:
    """The kernel's candidates are the subcommands, in order, and nothing of Python's
    (keywords, other magics, files). JupyterLab's own context provider (on by default) adds
    the cell's tokens after them (``%``, ``cloudg`` ...): the kernel cannot withhold those."""
    _opened(page)
    offered = _completions(page, "%cloudg ")
    assert offered[:len(SUBCOMMANDS)] == list(SUBCOMMANDS), offered
    assert not {"and", "if", "import", "%alias", "%%HTML", "tables.ipynb"} & set(offered)
    print("JupyterLab's context provider added:", offered[len(SUBCOMMANDS):])


def test_tab_after_a_tool_name_offers_its_arguments(page: LabPage) -> None:
    _opened(page)
    offered = _completions(page, "%cloudg call get_asset ")
    assert offered[:2] == ["ref=", "dataset="], offered
