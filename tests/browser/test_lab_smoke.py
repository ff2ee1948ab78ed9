"""The browser harness itself: JupyterLab with the extension loads in headless Chromium, runs
a notebook's cells and renders ipywidgets offline, and the extension it loads is the
repository's labextension/prebuilt/ (not an older copy installed in the environment)."""

from __future__ import annotations

import json

from selenium.webdriver.common.by import By

from .chrome import LabPage, wait_for
from .lab import LAB_EXTENSION, LAB_EXTENSION_DIR

NOTEBOOKS = {
    "smoke.ipynb": ['print("hello from the kernel")', "6 * 7"],
    "widgets.ipynb": ['import ipywidgets\nipywidgets.IntSlider(value=7, description="level")'],
}


def test_a_notebook_opens_and_its_cells_show_their_outputs(page: LabPage) -> None:
    page.open_notebook("smoke.ipynb")
    page.run_all_cells()

    printed, value = page.outputs()
    assert [out.get("text") for out in printed] == ["hello from the kernel\n"]
    assert value[0]["data"]["text/plain"] == "42"
    areas = page.output_areas()
    assert "hello from the kernel" in areas[0].text
    assert "42" in areas[1].text
    assert page.errors() == []


def test_an_int_slider_renders_as_a_widget_without_network(page: LabPage) -> None:
    page.open_notebook("widgets.ipynb")
    page.run_all_cells()

    (outputs,) = page.outputs()
    assert "application/vnd.jupyter.widget-view+json" in outputs[0]["data"]
    area = page.output_areas()[0]
    slider = wait_for(lambda: area.find_elements(By.CSS_SELECTOR, ".widget-slider"),
                      "the slider widget to render")[0]
    assert "level" in area.text
    assert slider.is_displayed()
    assert page.widget_failures() == []


def test_the_lab_loads_the_repositorys_prebuilt_extension_and_its_plugins(page: LabPage) -> None:
    page.open_notebook("smoke.ipynb")
    config = page.driver.execute_script(
        "return JSON.parse(document.getElementById('jupyter-config-data').textContent);")
    built = json.loads((LAB_EXTENSION_DIR / "package.json").read_text(encoding="utf-8"))
    (loaded,) = [e for e in config["federated_extensions"] if e["name"] == LAB_EXTENSION]
    assert loaded["load"] == built["jupyterlab"]["_build"]["load"]
    assert set(built["jupyterlab"]["disabledExtensions"]) <= set(config["disabledExtensions"])
    assert page.driver.execute_script(
        "return ['cloudg-nb-lab:plugin', 'cloudg-nb-lab:completion']"
        ".every((id) => window.jupyterapp.isPluginActivated(id));")
