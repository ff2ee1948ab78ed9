"""The browser harness itself: JupyterLab with the extension loads in headless Chromium, runs
a notebook's cells and renders ipywidgets offline."""

from __future__ import annotations

from selenium.webdriver.common.by import By

from .chrome import LabPage, wait_for

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
