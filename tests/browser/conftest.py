"""Fixtures for the browser tests: one JupyterLab and one headless Chromium per module.

``lab`` serves the notebooks a module lists in ``NOTEBOOKS`` (path -> code cell sources);
``page`` is a ``LabPage`` whose window is saved to ``test-artifacts/browser/<test>.png`` after
each test, pass or fail, with the lab's log beside it.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from selenium import webdriver

from tests.jupyter.server import JupyterServer
from tests.lanes import starts

from .chrome import ARTIFACTS, LabPage, headless_chromium
from .lab import jupyter_lab


@pytest.fixture(scope="module")
@starts("server", "kernel")
def lab(request: pytest.FixtureRequest,
        tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    notebooks = getattr(request.module, "NOTEBOOKS", {})
    with jupyter_lab(tmp_path_factory.mktemp("lab"), notebooks=notebooks) as server:
        yield server
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(server.log_path, ARTIFACTS / f"{request.module.__name__}.lab.log")


@pytest.fixture(scope="module")
@starts("browser")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[webdriver.Chrome]:
    with headless_chromium(tmp_path_factory.mktemp("chromium")) as driver:
        yield driver


@pytest.fixture
def page(request: pytest.FixtureRequest, browser: webdriver.Chrome,
         lab: JupyterServer) -> Iterator[LabPage]:
    lab_page = LabPage(browser, lab)
    yield lab_page
    lab_page.screenshot(request.node.name)
