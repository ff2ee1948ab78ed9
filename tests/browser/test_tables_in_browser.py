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


#: The kernel's own answer to a complete_request for arguments[0] with the cursor at [1].
_KERNEL_MATCHES = """
const [code, cursor_pos, done] = arguments;
const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
kernel.requestComplete({code, cursor_pos})
  .then((msg) => done(msg.content.matches), (error) => done({error: String(error)}));
"""
#: The items the open completer shows (it draws long lists over a few frames).
_COMPLETER_ITEMS = """
return [...document.querySelectorAll('.jp-Completer:not(.lm-mod-hidden) .jp-Completer-item')]
  .map((item) => (item.getAttribute('data-value') || item.textContent).trim());
"""
#: Words JupyterLab's context provider takes from a ``%cloudg call`` line.
CELL_WORDS = {"%", "cloudg", "call"}


def _kernel_matches(page: LabPage, code: str, cursor: int | None = None) -> list[str]:
    """What the notebook's kernel answers to a complete_request for ``code`` (the cursor at
    ``cursor``, by default at the end)."""
    matches = page.driver.execute_async_script(
        _KERNEL_MATCHES, code, len(code) if cursor is None else cursor)
    assert isinstance(matches, list), matches
    return [str(match) for match in matches]


def _completions(page: LabPage, line: str, *moves: str) -> list[str]:
    """Type ``line`` in the notebook's last (empty) cell, then the keys ``moves``, press Tab,
    read the completer once it has drawn all its items (the same list twice in a row)."""
    driver = page.driver
    editors = driver.find_elements(By.CSS_SELECTOR, ".jp-Notebook .jp-Cell .cm-content")
    editor = editors[-1]
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", editor)
    editor.click()
    editor.send_keys(Keys.CONTROL, "a")
    editor.send_keys(Keys.DELETE)
    editor.send_keys(line)
    for key in moves:
        editor.send_keys(key)
    editor.send_keys(Keys.TAB)
    seen: list[list[str]] = []

    def settled() -> list[str] | None:
        seen.append(driver.execute_script(_COMPLETER_ITEMS))
        return seen[-1] if len(seen) > 1 and seen[-1] and seen[-1] == seen[-2] else None

    labels = wait_for(settled, f"the completer for {line!r}", interval=0.5)
    page.screenshot("tables-completer")
    editor.send_keys(Keys.ESCAPE)
    return labels


def test_tab_after_the_magic_offers_exactly_the_subcommands(page: LabPage) -> None:
    """Only the kernel's candidates, the subcommands in order: nothing of Python's (keywords,
    other magics, files) and none of the cell's own words that JupyterLab's context provider
    adds elsewhere (the lab extension keeps it off ``%cloudg`` lines)."""
    _opened(page)
    offered = _completions(page, "%cloudg ")
    assert offered == list(SUBCOMMANDS), offered
    assert offered == _kernel_matches(page, "%cloudg ")


def test_tab_after_call_offers_exactly_the_kernels_tool_names(page: LabPage) -> None:
    _opened(page)
    offered = _completions(page, "%cloudg call ")
    kernel = _kernel_matches(page, "%cloudg call ")
    assert "list_findings" in kernel and not CELL_WORDS & set(kernel), kernel
    assert offered == kernel, sorted(set(offered) ^ set(kernel))


def test_tab_in_a_cloudg_cell_body_offers_exactly_the_kernels_values(page: LabPage) -> None:
    """In a ``%%cloudg`` cell's body too: ``customer_view`` (a word of the cell that starts
    like the value typed) is not offered, the kernel's asset refs are."""
    _opened(page)
    cell = "%%cloudg call get_asset -o customer_view\nref: cust"
    offered = _completions(page, cell)
    kernel = _kernel_matches(page, cell)
    assert len(kernel) > 1 and "customer_view" not in kernel, kernel
    assert offered == kernel, sorted(set(offered) ^ set(kernel))


def test_tab_on_a_python_line_still_offers_the_cells_own_words(page: LabPage) -> None:
    """Outside ``%cloudg`` lines JupyterLab's context provider works as before: names
    written further down the cell (never run, so unknown to the kernel there) are offered."""
    _opened(page)
    cell = "e\nestate_total = estate_count = 0"
    offered = _completions(page, cell, Keys.UP, Keys.END)
    kernel = _kernel_matches(page, cell, cursor=1)
    assert {"estate_total", "estate_count"} <= set(offered) - set(kernel), offered
    assert set(kernel) <= set(offered), sorted(set(kernel) - set(offered))


def test_tab_after_a_tool_name_offers_its_arguments(page: LabPage) -> None:
    _opened(page)
    offered = _completions(page, "%cloudg call get_asset ")
    assert offered[:2] == ["ref=", "dataset="], offered
    assert offered == _kernel_matches(page, "%cloudg call get_asset ")
