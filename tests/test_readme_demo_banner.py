"""README's sample of what ``make demo`` prints is what it prints: the banner of
``cloudg_nb.lab`` for the checkout's defaults (port 8888, the quickstart notebook, the
``cloudg-nb`` of the checkout's virtualenv), with ``<token>`` for the token."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import cloudg_nb.lab as lab

ROOT = Path(__file__).resolve().parents[1]
INTRO = "When the endpoint is ready it prints:"


def readme_sample() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(re.escape(INTRO) + r"\n\n```\n(.*?)```\n", text, re.S)
    assert found is not None, f"README has no code block after {INTRO!r}"
    return found.group(1)


def test_readme_shows_the_banner_make_demo_prints(monkeypatch: pytest.MonkeyPatch) -> None:
    # `make demo` runs .venv/bin/cloudg-nb from the checkout, not on PATH: the banner names it
    monkeypatch.setattr(lab, "cli_command", lambda: ".venv/bin/cloudg-nb")
    printed = lab.banner(lab.LabLaunch(root_dir=ROOT), "http://127.0.0.1:8888/", "<token>",
                         Path("~/.local/share/jupyter/runtime/cloudg-lab-8888.log"))

    assert readme_sample() == printed.strip("\n") + "\n"
