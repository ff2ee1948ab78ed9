"""The ``cloudg-nb`` console script as a package (``cloudg_nb.cli``): its public names, ``python
-m cloudg_nb.cli``, ``--dataset`` taking the same specs as the Jupyter extension, and the client
configurations still importable from their old place."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import cloudg_nb.cli
from cloudg_nb.cli import UsageError, build_parser, load_registry, main

ROOT = Path(__file__).resolve().parents[1]


def test_the_package_keeps_its_public_names() -> None:
    assert set(cloudg_nb.cli.__all__) >= {"main", "build_parser", "load_registry"}
    assert build_parser().prog == "cloudg-nb"


def test_a_bad_registry_target_is_a_usage_error_naming_the_option() -> None:
    with pytest.raises(UsageError, match=r"^--registry takes MODULE:ATTR"):
        load_registry("no-colon")


def test_python_dash_m_runs_the_console_script() -> None:
    done = subprocess.run([sys.executable, "-m", "cloudg_nb.cli", "tools", "--json"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "find_assets" in {tool["name"] for tool in json.loads(done.stdout)}


def test_a_dataset_spec_can_name_a_sample_estate(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--policy", "open", "call", "list_datasets",
                 "--dataset", "mine=sample:demo"])
    out = capsys.readouterr().out
    assert code == 0 and "mine" in json.dumps(json.loads(out))


def test_client_configurations_are_still_importable_from_the_protocol_package() -> None:
    import cloudg_nb.client_config as moved
    from cloudg_nb.protocol import client_config as old

    assert old.client_config is moved.client_config
    assert set(old.__all__) == set(moved.__all__)
    assert all(getattr(old, name) is getattr(moved, name) for name in moved.__all__)
