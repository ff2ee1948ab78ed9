"""Headless Chromium driven by Selenium, and a JupyterLab page seen through it.

``headless_chromium(tmp_path)`` starts Debian's ``chromium`` through the system
``chromedriver`` (installed by ``make browser-deps``; never downloaded). ``LabPage`` opens a
notebook, runs its cells with JupyterLab's own commands, reads the cells' outputs from the
notebook model and the rendered DOM, and writes screenshots to ``ARTIFACTS``.
"""

from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

from selenium import webdriver
from selenium.common.exceptions import JavascriptException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement

from tests.jupyter.server import ROOT, JupyterServer

#: Screenshots and logs of the browser tests (git-ignored; CI keeps it as an artifact).
ARTIFACTS = ROOT / "test-artifacts" / "browser"
#: Generous: a 2-core machine shared with other test runs.
PAGE_TIMEOUT = 120.0
#: What the widget manager shows instead of a widget it could not render.
WIDGET_FAILURES = ("Loading widget...", "Error displaying widget")

T = TypeVar("T")


class BrowserSetupError(RuntimeError):
    """Chromium or its driver is missing or does not start."""


def _executable(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise BrowserSetupError(
            f"{name} is not installed; the browser tests need Debian's chromium and "
            "chromium-driver packages (`make browser-deps` as root installs them)"
        )
    return path


@contextlib.contextmanager
def headless_chromium(tmp_path: Path, *, width: int = 1400,
                      height: int = 1000) -> Iterator[webdriver.Chrome]:
    """A headless Chromium with a throwaway profile; quit on exit."""
    options = webdriver.ChromeOptions()
    options.binary_location = _executable("chromium")
    for argument in (
        "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
        f"--window-size={width},{height}", f"--user-data-dir={tmp_path / 'chromium-profile'}",
        "--no-first-run", "--disable-extensions", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--lang=en-US",
    ):
        options.add_argument(argument)
    service = Service(executable_path=_executable("chromedriver"),
                      log_output=str(tmp_path / "chromedriver.log"))
    try:
        driver = webdriver.Chrome(service=service, options=options)
    except WebDriverException as exc:
        raise BrowserSetupError(f"headless Chromium did not start: {exc.msg}") from None
    driver.set_script_timeout(PAGE_TIMEOUT)
    try:
        yield driver
    finally:
        driver.quit()


def wait_for(condition: Callable[[], T | None], what: str,
             timeout: float = PAGE_TIMEOUT, interval: float = 0.25) -> T:
    """Poll ``condition`` until it returns something truthy; fail naming ``what``."""
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            value = condition()
        except (JavascriptException, WebDriverException) as exc:
            value, last_error = None, exc
        if value:
            return value
        time.sleep(interval)
    detail = f" (last error: {last_error})" if last_error else ""
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}{detail}")


#: The current notebook as JupyterLab's model holds it (null until one is open).
_NOTEBOOK_STATE = """
const app = window.jupyterapp;
const panel = app && app.shell.currentWidget;
if (!panel || !panel.sessionContext || !panel.content || !panel.content.model) return null;
const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
const cells = [];
for (const cell of panel.content.model.cells) {
  cells.push(cell.type === 'code'
    ? {type: 'code', count: cell.executionCount, outputs: cell.outputs.toJSON()}
    : {type: cell.type, count: null, outputs: []});
}
const running = [...panel.node.querySelectorAll('.jp-InputPrompt')]
  .some(prompt => prompt.textContent.includes('[*]'));
return {path: panel.context.path, kernel: kernel ? kernel.status : null, running, cells};
"""


class LabPage:
    """The JupyterLab page of one server in one browser."""

    def __init__(self, driver: webdriver.Chrome, server: JupyterServer) -> None:
        self.driver = driver
        self.server = server

    def open_notebook(self, path: str) -> None:
        """Open ``path`` (relative to the root dir) and wait until its kernel is idle."""
        self.driver.get(f"{self.server.url}lab/tree/{quote(path)}?reset&token="
                        f"{self.server.token}")
        wait_for(lambda: self._state_for(path, kernel="idle"), f"{path} open with an idle kernel")

    def run_all_cells(self) -> None:
        """Run every cell (Run > Run All Cells) and wait until each has run and the kernel
        is idle again."""
        self.driver.execute_script(
            "window.jupyterapp.commands.execute('notebook:run-all-cells'); return true;")
        wait_for(self._all_cells_ran, "every cell to finish running")

    def _all_cells_ran(self) -> bool:
        state = self.state()
        return bool(state) and state["kernel"] == "idle" and not state["running"] and all(
            cell["count"] is not None for cell in state["cells"] if cell["type"] == "code")

    def _state_for(self, path: str, *, kernel: str) -> bool:
        state = self.state()
        return bool(state) and state["path"] == path and state["kernel"] == kernel

    def state(self) -> dict[str, Any] | None:
        """The open notebook: path, kernel status, whether a cell runs, and each cell's type,
        execution count and outputs (nbformat dicts); None until a notebook is open."""
        return self.driver.execute_script(_NOTEBOOK_STATE)

    def outputs(self) -> list[list[dict[str, Any]]]:
        """Each cell's outputs as nbformat dicts (markdown cells give [])."""
        state = self.state()
        return [cell["outputs"] for cell in state["cells"]] if state else []

    def errors(self) -> list[str]:
        """``ename: evalue`` of every error output in the notebook."""
        return [f"{out.get('ename')}: {out.get('evalue')}"
                for cell in self.outputs() for out in cell if out.get("output_type") == "error"]

    def output_areas(self) -> list[WebElement]:
        """The rendered output area of each code cell, in order."""
        return self.driver.find_elements(By.CSS_SELECTOR, ".jp-CodeCell .jp-Cell-outputArea")

    def widget_failures(self) -> list[str]:
        """Outputs where a widget did not render (the manager's placeholder or error text)."""
        texts = [area.text for area in self.output_areas()]
        return [text for text in texts if any(failure in text for failure in WIDGET_FAILURES)]

    def screenshot(self, name: str) -> Path:
        """Save the window to ``ARTIFACTS/name.png``."""
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.driver.save_screenshot(str(path))
        return path
