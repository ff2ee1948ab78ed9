"""Logging Chromium in to a Jupyter server as the analyst does: the login page, the server's
token typed into it (so the browser holds Jupyter's login cookie and ``_xsrf``, as a person's
browser does, and form posts carry a real Origin)."""

from __future__ import annotations

from urllib.parse import urlsplit

from selenium import webdriver
from selenium.webdriver.common.by import By

from tests.jupyter.server import JupyterServer

from .chrome import wait_for


def log_in(driver: webdriver.Chrome, server: JupyterServer) -> None:
    """Jupyter's login page, as the analyst types the token into it."""
    driver.get(f"{server.url}login")
    field = wait_for(lambda: driver.find_element(By.ID, "password_input"), "the login form")
    field.send_keys(server.token)
    driver.find_element(By.ID, "login_submit").click()
    wait_for(lambda: "/login" not in urlsplit(driver.current_url).path, "the login to finish")
