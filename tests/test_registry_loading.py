"""``MODULE:ATTR`` registry targets as ``cloudg-nb --registry`` and ``CloudGExtension.registry``
take them (``cloudg_nb.registry_loading``): a Registry, or a function returning one, from an
importable module (the current folder too); anything else is an error naming the setting."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from cloudg_nb.layer import Registry
from cloudg_nb.registry_loading import RegistryTargetError, load_registry
from tests import cli_registry

OPTION = "CloudGExtension.registry"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The current folder, holding registry modules; ``sys.path`` restored afterwards."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    (tmp_path / "made_here.py").write_text(
        "from cloudg_nb.layer import Registry\n"
        "registry = Registry()\n"
        "def make():\n    return registry\n"
        "not_one = 42\n")
    (tmp_path / "breaks_here.py").write_text("raise RuntimeError('broken on import')\n")
    return tmp_path


def test_a_registry_attribute_is_loaded() -> None:
    assert load_registry("tests.cli_registry:registry") is cli_registry.registry


def test_a_function_is_called_for_the_registry(folder: Path) -> None:
    made = load_registry("made_here:make", OPTION)
    assert isinstance(made, Registry) and made is load_registry("made_here:registry", OPTION)


@pytest.mark.parametrize("target", ["made_here", "made_here:", ":registry", ""])
def test_a_target_without_module_and_attribute_says_the_form(folder: Path, target: str) -> None:
    with pytest.raises(RegistryTargetError) as caught:
        load_registry(target, OPTION)
    assert str(caught.value) == (
        f"{OPTION} takes MODULE:ATTR, for example mypkg.tools:registry")


def test_a_module_that_does_not_import_is_named(folder: Path) -> None:
    with pytest.raises(RegistryTargetError, match=rf"^{OPTION}: cannot import module "
                                                  "'no_such_module_here'"):
        load_registry("no_such_module_here:registry", OPTION)


def test_a_missing_attribute_is_named(folder: Path) -> None:
    with pytest.raises(RegistryTargetError,
                       match=rf"^{OPTION}: module 'made_here' has no attribute 'nothing'$"):
        load_registry("made_here:nothing", OPTION)


def test_something_that_is_no_registry_is_refused(folder: Path) -> None:
    with pytest.raises(RegistryTargetError,
                       match=rf"^{OPTION}: made_here:not_one is not a cloudg_nb Registry$"):
        load_registry("made_here:not_one", OPTION)


def test_an_error_raised_by_the_module_itself_passes_through(folder: Path) -> None:
    with pytest.raises(RuntimeError, match="broken on import"):
        load_registry("breaks_here:registry", OPTION)


def test_the_command_line_option_is_the_default_name() -> None:
    with pytest.raises(RegistryTargetError, match=r"^--registry takes MODULE:ATTR"):
        load_registry("no-colon")
